// Command-line parsing of the viewer (no window is opened).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/viewer/viewer.h"

namespace contactlab {
namespace {

bool Parse(std::vector<const char*> args, ViewerOptions* o, std::string* error) {
  args.insert(args.begin(), "viewer");
  return ParseViewerArgs(static_cast<int>(args.size()), args.data(), o, error);
}

TEST(ViewerArgs, ScriptedScreenshotRun) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"scenes/a.yaml", "--frames", "60", "--screenshot", "/tmp/x.png", "--set",
                     "time_step=0.01", "--transparent"},
                    &o, &error))
      << error;
  EXPECT_EQ(o.scene_path, "scenes/a.yaml");
  EXPECT_EQ(o.frames, 60);
  EXPECT_EQ(o.screenshot_path, "/tmp/x.png");
  EXPECT_EQ(o.overrides, std::vector<std::string>{"time_step=0.01"});
  EXPECT_TRUE(o.transparent);
  EXPECT_FALSE(o.labels);
  EXPECT_EQ(o.width, 1600) << "default window size";
  EXPECT_EQ(o.height, 900);
}

TEST(ViewerArgs, DefaultsAreInteractive) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"s.yaml"}, &o, &error)) << error;
  EXPECT_LE(o.frames, 0) << "no frame count: run until the window closes";
  EXPECT_TRUE(o.screenshot_path.empty());
}

TEST(ViewerArgs, RejectsBadInput) {
  std::string error;
  ViewerOptions o1;
  EXPECT_FALSE(Parse({}, &o1, &error));
  EXPECT_NE(error.find("no scene"), std::string::npos) << error;
  ViewerOptions o2;
  EXPECT_FALSE(Parse({"s.yaml", "--frames", "ten"}, &o2, &error));
  EXPECT_NE(error.find("not an integer"), std::string::npos) << error;
  ViewerOptions o3;
  EXPECT_FALSE(Parse({"s.yaml", "--frames"}, &o3, &error));
  EXPECT_NE(error.find("missing value"), std::string::npos) << error;
  ViewerOptions o4;
  EXPECT_FALSE(Parse({"s.yaml", "--bogus"}, &o4, &error));
  EXPECT_NE(error.find("unknown option"), std::string::npos) << error;
  ViewerOptions o5;
  EXPECT_FALSE(Parse({"a.yaml", "b.yaml"}, &o5, &error));
  ViewerOptions o6;
  EXPECT_FALSE(Parse({"a.yaml", "--width", "0"}, &o6, &error)) << "window size must be positive";
}

}  // namespace
}  // namespace contactlab
