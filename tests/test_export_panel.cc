// Export panel file names without a window.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ui/export_panel.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

TEST(ExportPanel, PathsNameSceneStepAndKind) {
  EXPECT_EQ(ExportPath("out", ExportKind::kStatsCsv, -1, "box_stack"), "out/box_stack_stats.csv");
  EXPECT_EQ(ExportPath("out/", ExportKind::kStatsJson, 5, "box_stack"),
            "out/box_stack_stats.json");
  EXPECT_EQ(ExportPath("out", ExportKind::kIterationsCsv, 60, "ramp"),
            "out/ramp_step0060_iterations.csv");
  EXPECT_EQ(ExportPath("out", ExportKind::kIterationsJson, 60, "ramp"),
            "out/ramp_step0060_iterations.json");
  EXPECT_EQ(ExportPath("out", ExportKind::kProblem, 60, "ramp"), "out/ramp_step0060_problem");
  EXPECT_EQ(ExportPath("out", ExportKind::kProblem, 123456, "ramp"),
            "out/ramp_step123456_problem");
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

}  // namespace
}  // namespace contactlab
