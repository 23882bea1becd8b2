// Panels of the viewer's compare mode and race (data in ui/compare_data.h): the configurations
// with their editors, the per-configuration series overlaid, and the work–precision diagrams of a
// race on a frozen step. Like the other panels, functions of their data drawing into the current
// ImGui window; no GL.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "engine/sim/simulator.h"
#include "ui/compare_data.h"

namespace contactlab {

// The solver combo, the contact model's table (its `model` combo and v_s) and the chosen
// solver's parameter table (engine/sim/param_tables.h through ui/param_widgets.h; advanced
// entries folded), with the refusal when the solver does not accept the model. True on a change.
bool DrawSolverChoice(StepSettings* settings);

// One configuration as the compare panel shows and edits it.
struct CompareConfigRow {
  std::string name;  // CompareConfigNames
  std::string spec;  // its CONFIG (tooltip); "" when made in the panel
  Color color;
  StepSettings* settings = nullptr;  // edited in place (validated by the caller)
  bool* show_ghost = nullptr;        // null for the primary (always drawn)
  bool* show_contacts = nullptr;     // null for the primary (the overlay panel's contacts)
  int step_count = 0;
  bool stopped = false;
  std::string stop_reason;
  const CompareEntry* shown = nullptr;  // its summary at the shown step, or null
  std::string error;                    // a refused edit, shown under its editor
};

struct CompareRequests {
  int edited = -1;    // the configuration whose settings changed in the editor
  int remove = -1;    // remove this configuration (> 0)
  bool add = false;   // add a configuration
  bool sync = false;  // restart every configuration from the primary's shown state
};

// A row per configuration (colour, name, iterations, NCP residual and distance from the primary
// at the shown step, stopped runs in red), its ghost / contacts toggles, and its editor under a
// tree node; then Add, Sync and the divergence threshold. `threshold` [m] is edited.
CompareRequests DrawCompareConfigs(std::vector<CompareConfigRow>& rows, bool can_add, bool can_sync,
                                   double* threshold);

// What the overlaid series show.
struct CompareSeriesView {
  const CompareStore* store = nullptr;
  std::vector<std::string> names;  // per configuration
  std::vector<Color> colors;
  int shown_step = -1;
  double threshold = 0;  // the distance plot's warning line [m]
  float plot_height = 48.0f;
};
// One plot per CompareQuantity (iterations, solve time, penetration, energy, NCP residual, and
// the distance from the primary with the threshold as a red dashed line), a curve per
// configuration in its colour, a marker at the shown step, hover listing every configuration's
// value at one step. Returns the step under the mouse when a plot was clicked, else -1.
int DrawCompareSeries(const CompareSeriesView& view);

// The race panel: what was raced, the two work–precision diagrams (NCP residual against solve
// time and against iterations, log–log, a curve per configuration), a tooltip with the hovered
// point's iteration, residual, time, status and the solver's own series, and the best point of
// each configuration. `status` is a progress or hint line. Returns true when the Race button
// was pressed (enabled with `can_race`).
bool DrawRacePanel(const RaceRun* run, const std::string& status, bool can_race, float plot_height);

}  // namespace contactlab
