// Export panel file names without a window.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/imgui_harness.h"
#include "ui/export_panel.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

TEST(ExportPanel, PathsNameSceneStepAndKind) {
  EXPECT_EQ(ExportPath("out", ExportKind::kStatsCsv, -1, "box_stack"), "out/box_stack_stats.csv");
  EXPECT_EQ(ExportPath("out/", ExportKind::kStatsJson, 5, "box_stack"), "out/box_stack_stats.json");
  EXPECT_EQ(ExportPath("out", ExportKind::kIterationsCsv, 60, "ramp"),
            "out/ramp_step0060_iterations.csv");
  EXPECT_EQ(ExportPath("out", ExportKind::kIterationsJson, 60, "ramp"),
            "out/ramp_step0060_iterations.json");
  EXPECT_EQ(ExportPath("out", ExportKind::kProblem, 60, "ramp"), "out/ramp_step0060_problem");
  EXPECT_EQ(ExportPath("out", ExportKind::kProblem, 123456, "ramp"), "out/ramp_step123456_problem");
  EXPECT_EQ(ExportPath("out", ExportKind::kScreenshot, 1, "ramp"), "out/ramp_0001.png");
  EXPECT_EQ(ExportPath("", ExportKind::kStatsCsv, 0, ""), "scene_stats.csv");
  EXPECT_EQ(ExportPath(".", ExportKind::kStatsCsv, 0, "s"), "s_stats.csv");
  EXPECT_EQ(ExportPath("out", ExportKind::kIterationsCsv, -1, "ramp"), "") << "needs a step";
  EXPECT_EQ(ExportPath("out", ExportKind::kNone, 3, "ramp"), "");
  EXPECT_TRUE(ExportNeedsStep(ExportKind::kProblem));
  EXPECT_FALSE(ExportNeedsStep(ExportKind::kStatsCsv));
  EXPECT_FALSE(ExportNeedsStep(ExportKind::kScreenshot));
}

TEST(ExportPanel, ScreenshotCounterNeverOverwrites) {
  const fs::path dir =
      fs::temp_directory_path() / ("contactlab_export_panel_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string d = dir.string();
  EXPECT_EQ(NextFreeScreenshotPath(d, "ramp"), d + "/ramp_0001.png") << "folder not there yet";
  std::string error;
  ASSERT_TRUE(CreateExportDir(d, &error)) << error;
  EXPECT_EQ(NextFreeScreenshotPath(d, "ramp"), d + "/ramp_0001.png");
  std::ofstream(dir / "ramp_0001.png") << "x";
  EXPECT_EQ(NextFreeScreenshotPath(d, "ramp"), d + "/ramp_0002.png");
  // One past the largest, even with gaps, so shots stay in order.
  std::ofstream(dir / "ramp_0007.png") << "x";
  EXPECT_EQ(NextFreeScreenshotPath(d, "ramp"), d + "/ramp_0008.png");
  // Other scenes and other names do not count.
  std::ofstream(dir / "other_0050.png") << "x";
  std::ofstream(dir / "ramp_stats.csv") << "x";
  std::ofstream(dir / "ramp_0099.png.txt") << "x";
  EXPECT_EQ(NextFreeScreenshotPath(d, "ramp"), d + "/ramp_0008.png");
  EXPECT_EQ(NextFreeScreenshotPath(d, "other"), d + "/other_0051.png");
  // A file in the way of the export folder.
  std::ofstream(dir / "blocked") << "x";
  EXPECT_FALSE(CreateExportDir((dir / "blocked" / "sub").string(), &error));
  EXPECT_NE(error.find("blocked"), std::string::npos) << error;
  fs::remove_all(dir);
}

TEST(ExportPanel, ButtonsAskForTheirExport) {
  ExportPanelState state;
  state.dir = "out";
  state.scene_stem = "ramp";
  state.message = "wrote out/ramp_stats.csv";
  ImGuiHarness gui;
  std::vector<ExportRequest> requests;
  bool has_step = true;
  auto body = [&] {
    const ExportRequest r = DrawExportPanel(&state, 60, has_step);
    // Several clicks land on each button; keep one request per button.
    if (r.kind != ExportKind::kNone && (requests.empty() || requests.back().kind != r.kind)) {
      requests.push_back(r);
    }
  };
  gui.Frame(body);
  EXPECT_TRUE(requests.empty());
  // Click every line of the panel: each button asks for its export.
  for (float y = 5; y < 400; y += 4) gui.Click(body, 60, y);
  std::vector<std::string> paths;
  for (const ExportRequest& r : requests) paths.push_back(r.path);
  EXPECT_EQ(paths,
            (std::vector<std::string>{
                "out/ramp_0001.png", "out/ramp_stats.csv", "out/ramp_step0060_iterations.csv",
                "out/ramp_step0060_iterations.json", "out/ramp_step0060_problem"}))
      << "x = 60 hits the first button of each row";
  // Without a step the step exports are disabled.
  requests.clear();
  has_step = false;
  state.message_is_error = true;
  for (float y = 5; y < 400; y += 4) gui.Click(body, 60, y);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].kind, ExportKind::kScreenshot);
  EXPECT_EQ(requests[1].kind, ExportKind::kStatsCsv);
}

}  // namespace
}  // namespace contactlab
