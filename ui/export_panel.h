// Export panel: buttons for a screenshot, the run's statistics, the shown step's iterations and
// its contact problem, and the file names they are written to. The caller does the writing
// (app/export.h, the renderer's screenshot) and reports back through ExportPanelState::message.
#pragma once

#include <string>

namespace contactlab {

enum class ExportKind {
  kNone,
  kScreenshot,      // PNG of the window
  kStatsCsv,        // WriteHistoryCsv
  kStatsJson,       // WriteHistoryJson
  kIterationsCsv,   // WriteIterationsCsv of the shown step
  kIterationsJson,  // WriteIterationsJson of the shown step
  kProblem,         // ExportStepProblem of the shown step (a directory)
};

// Whether the export is about one step (disabled without a shown step).
bool ExportNeedsStep(ExportKind kind);

// File name of an export in `dir` ("" or "." for the working directory), for a scene whose file
// stem is `scene_stem` ("scene" when empty):
//   kStatsCsv / kStatsJson            DIR/SCENE_stats.csv / .json
//   kIterationsCsv / kIterationsJson  DIR/SCENE_step0060_iterations.csv / .json
//   kProblem                          DIR/SCENE_step0060_problem (a directory, no trailing '/')
//   kScreenshot                       DIR/SCENE_0001.png (`step` is the screenshot counter)
// Steps and counters have at least four digits. "" for kNone and for a negative step/counter.
std::string ExportPath(const std::string& dir, ExportKind kind, int step,
                       const std::string& scene_stem);

// Screenshot path that overwrites nothing: the counter is one more than the largest counter of
// the existing DIR/SCENE_NNNN.png files (1 when there is none or the folder does not exist).
std::string NextFreeScreenshotPath(const std::string& dir, const std::string& scene_stem);

// Creates the folder that will hold `path` (for kProblem, pass the problem directory itself).
// Returns false with a message in *error (may be null) when it cannot.
bool CreateExportDir(const std::string& dir, std::string* error);

struct ExportPanelState {
  std::string dir = "contactlab_exports";  // edited by the panel
  std::string scene_stem = "scene";        // set by the caller: the scene file's stem
  std::string message;                     // set by the caller: result of the last export
  bool message_is_error = false;           // red when true, green otherwise
};

// What the user asked for: the kind and the full path (kNone and "" when nothing).
struct ExportRequest {
  ExportKind kind = ExportKind::kNone;
  std::string path;
};

// Folder text field and one button per export; the step exports are disabled without a shown
// step (has_step false). Shows state->message under the buttons. Draws into the current window;
// the caller owns Begin/End.
ExportRequest DrawExportPanel(ExportPanelState* state, int shown_step, bool has_step);

}  // namespace contactlab
