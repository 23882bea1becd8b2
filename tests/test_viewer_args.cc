// Command-line parsing of the viewer (no window is opened).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/params.h"
#include "app/viewer/input_script.h"
#include "app/viewer/video_recorder.h"
#include "app/viewer/viewer.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

bool Parse(std::vector<const char*> args, ViewerOptions* o, std::string* error) {
  args.insert(args.begin(), "viewer");
  return ParseViewerArgs(static_cast<int>(args.size()), args.data(), o, error);
}

TEST(ViewerArgs, ModelFileOptions) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"r.urdf", "--package-path", "pkg=/tmp/pkg", "--package-path", "/opt/ws",
                     "--fixed-base", "--ground"},
                    &o, &error))
      << error;
  EXPECT_EQ(o.package_paths, (std::vector<std::string>{"pkg=/tmp/pkg", "/opt/ws"}));
  EXPECT_TRUE(o.fixed_base);
  EXPECT_TRUE(o.ground_plane);
  ViewerOptions n;
  EXPECT_FALSE(Parse({"r.urdf", "--package-path"}, &n, &error)) << "a value is required";
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
  EXPECT_TRUE(Parse({}, &o1, &error)) << "no scene: RunViewer opens the default one";
  EXPECT_TRUE(o1.scene_path.empty());
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

TEST(ViewerArgs, PanelsSettingsAndSelection) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"s.yaml", "--panel", "conditioning", "--panel", "help", "--settings",
                     "/tmp/dir/s.conf", "--select", "3"},
                    &o, &error))
      << error;
  EXPECT_EQ(o.panels, (std::vector<std::string>{"conditioning", "help"})) << "in the given order";
  EXPECT_EQ(o.settings_path, "/tmp/dir/s.conf");
  EXPECT_FALSE(o.no_settings);
  EXPECT_EQ(o.select_body, 3);
  ViewerOptions n;
  ASSERT_TRUE(Parse({"s.yaml", "--no-settings"}, &n, &error)) << error;
  EXPECT_TRUE(n.no_settings);
  EXPECT_TRUE(n.settings_path.empty());
}

TEST(ViewerArgs, PanelsSettingsAndSelectionDefaults) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"s.yaml"}, &o, &error)) << error;
  EXPECT_TRUE(o.panels.empty());
  EXPECT_TRUE(o.settings_path.empty()) << "the user's file in interactive runs, none scripted";
  EXPECT_FALSE(o.no_settings);
  EXPECT_LT(o.select_body, 0) << "nothing selected";
}

TEST(ViewerArgs, EveryPanelNameIsAccepted) {
  // ViewerPanelNames() is the list shown in messages; each of its names parses.
  const std::string names = ViewerPanelNames();
  for (const char* name : {"convergence", "timeseries", "conditioning", "scenes", "exports",
                           "profiler", "overlay", "parameters", "help"}) {
    EXPECT_TRUE(IsViewerPanelName(name)) << name;
    EXPECT_NE(names.find(name), std::string::npos) << name << " missing from " << names;
    ViewerOptions o;
    std::string error;
    EXPECT_TRUE(Parse({"s.yaml", "--panel", name}, &o, &error)) << name << ": " << error;
    EXPECT_EQ(o.panels, std::vector<std::string>{name});
  }
  EXPECT_FALSE(IsViewerPanelName(""));
  EXPECT_FALSE(IsViewerPanelName("Convergence")) << "names are lower case";
}

TEST(ViewerArgs, RejectsBadPanelSettingsAndSelection) {
  std::string error;
  ViewerOptions o1;
  EXPECT_FALSE(Parse({"s.yaml", "--panel", "bogus"}, &o1, &error));
  EXPECT_NE(error.find("unknown panel bogus"), std::string::npos) << error;
  EXPECT_NE(error.find(ViewerPanelNames()), std::string::npos) << "names the valid panels: "
                                                               << error;
  ViewerOptions o2;
  EXPECT_FALSE(Parse({"s.yaml", "--panel"}, &o2, &error));
  EXPECT_NE(error.find("missing value"), std::string::npos) << error;
  ViewerOptions o3;
  EXPECT_FALSE(Parse({"s.yaml", "--settings"}, &o3, &error));
  EXPECT_NE(error.find("missing value"), std::string::npos) << error;
  ViewerOptions o4;
  EXPECT_FALSE(Parse({"s.yaml", "--select"}, &o4, &error));
  EXPECT_NE(error.find("missing value"), std::string::npos) << error;
  ViewerOptions o5;
  EXPECT_FALSE(Parse({"s.yaml", "--select", "box"}, &o5, &error)) << "a body index, not a name";
  EXPECT_NE(error.find("not an integer"), std::string::npos) << error;
  ViewerOptions o6;
  EXPECT_FALSE(Parse({"s.yaml", "--select", "2x"}, &o6, &error));
  ViewerOptions o7;
  EXPECT_FALSE(Parse({"s.yaml", "--no-settings=1"}, &o7, &error)) << "a flag takes no value";
}

TEST(InputScript, SetChangesAParameterAndRefusesBadOnesWithTheirRange) {
  std::vector<InputEvent> events;
  std::string error;
  ASSERT_TRUE(ParseInputScript("10 key space\n12 set contact.model lagged\n"
                               "13 set solver.sigma 1e-4\n14 key r\n",
                               &events, &error))
      << error;
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[1].kind, InputEvent::Kind::kSet);
  EXPECT_EQ(events[1].param, "contact.model");
  EXPECT_EQ(events[1].value, "lagged");
  // The viewer applies it with SetStepParam, as the parameter panel sets the field.
  StepSettings s;
  SetStepParam(events[1].param, events[1].value, &s);
  EXPECT_EQ(s.contact.model, ContactModelType::kLagged);
  SetStepParam(events[2].param, events[2].value, &s);
  EXPECT_EQ(s.sap.sigma, 1e-4);
  SetStepParam("time_step", "0.002", &s);
  EXPECT_EQ(s.time_step, 0.002);
  // Refusals name the line, the key and the valid range (control: the valid script above).
  EXPECT_FALSE(ParseInputScript("1 set contact.model rigid\n", &events, &error));
  EXPECT_NE(error.find("line 1: set: contact.model = rigid: expected linear | lagged"),
            std::string::npos)
      << error;
  EXPECT_FALSE(ParseInputScript("\n2 set solver.sigma -1\n", &events, &error));
  EXPECT_NE(error.find("line 2: set: solver.sigma = -1: expected"), std::string::npos) << error;
  EXPECT_FALSE(ParseInputScript("1 set solver.bogus 1\n", &events, &error));
  EXPECT_NE(error.find("unknown parameter 'solver.bogus'"), std::string::npos) << error;
  EXPECT_FALSE(ParseInputScript("1 set contact.model\n", &events, &error));
  EXPECT_NE(error.find("set needs KEY VALUE"), std::string::npos) << error;
}

TEST(ViewerArgs, PrintLayout) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"s.yaml"}, &o, &error)) << error;
  EXPECT_FALSE(o.print_layout);
  ViewerOptions p;
  ASSERT_TRUE(Parse({"s.yaml", "--print-layout"}, &p, &error)) << error;
  EXPECT_TRUE(p.print_layout);
}

TEST(InputScript, TimelineCommands) {
  std::vector<InputEvent> events;
  std::string error;
  ASSERT_TRUE(ParseInputScript("5 pause\n6 play\n7 step\n8 step 12\n9 scrub 3\n10 resolve\n"
                               "11 resume\n12-14 key 1\n15 key 0\n",
                               &events, &error))
      << error;
  ASSERT_EQ(events.size(), 9u);
  EXPECT_EQ(events[0].kind, InputEvent::Kind::kPause);
  EXPECT_EQ(events[1].kind, InputEvent::Kind::kPlay);
  EXPECT_EQ(events[2].kind, InputEvent::Kind::kStep);
  EXPECT_EQ(events[2].count, 1) << "one step by default";
  EXPECT_EQ(events[3].count, 12);
  EXPECT_EQ(events[4].kind, InputEvent::Kind::kScrub);
  EXPECT_EQ(events[4].count, 3);
  EXPECT_EQ(events[5].kind, InputEvent::Kind::kResolve);
  EXPECT_EQ(events[6].kind, InputEvent::Kind::kResume);
  EXPECT_EQ(events[7].key, "1") << "digits are keys (camera presets)";
  EXPECT_EQ(events[7].first_frame, 12);
  EXPECT_EQ(events[7].last_frame, 14);
  EXPECT_EQ(EventsAtFrame(events, 13).size(), 1u) << "a range repeats on each of its frames";
  EXPECT_FALSE(ParseInputScript("1 step 0\n", &events, &error));
  EXPECT_NE(error.find("line 1: step takes a whole number"), std::string::npos) << error;
  EXPECT_FALSE(ParseInputScript("1 step 1.5\n", &events, &error));
  EXPECT_FALSE(ParseInputScript("1 scrub\n", &events, &error));
  EXPECT_NE(error.find("scrub needs a step number"), std::string::npos) << error;
  EXPECT_FALSE(ParseInputScript("1 scrub -2\n", &events, &error));
  EXPECT_FALSE(ParseInputScript("1 pause now\n", &events, &error));
  EXPECT_NE(error.find("pause takes no argument"), std::string::npos) << error;
  EXPECT_FALSE(ParseInputScript("1 key 12\n", &events, &error));
}

TEST(ViewerArgs, CompareConfigurations) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"s.yaml", "--compare", "sap,canal,pgs:solver.pgs.max_iterations=500"}, &o,
                    &error))
      << error;
  EXPECT_EQ(o.compare,
            (std::vector<std::string>{"sap", "canal", "pgs:solver.pgs.max_iterations=500"}));
  ViewerOptions none;
  ASSERT_TRUE(Parse({"s.yaml"}, &none, &error));
  EXPECT_TRUE(none.compare.empty()) << "no compare mode by default";
  for (const char* bad : {"sap", "sap,pgs,canal,subadmm,first_order", "sap,,pgs", "sap,"}) {
    ViewerOptions b;
    EXPECT_FALSE(Parse({"s.yaml", "--compare", bad}, &b, &error)) << bad;
    EXPECT_NE(error.find("--compare"), std::string::npos) << error;
  }
  ViewerOptions missing;
  EXPECT_FALSE(Parse({"s.yaml", "--compare"}, &missing, &error));
  // The CONFIGs themselves are checked when the scene loads (ConfigOverrides, app/compare.h).
  std::vector<std::string> configs;
  EXPECT_TRUE(ParseCompareConfigs("bogus,sap", &configs, &error));
}

TEST(ViewerArgs, PressureFlags) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"s.yaml"}, &o, &error)) << error;
  EXPECT_FALSE(o.no_pressure) << "patches are shown by default";
  EXPECT_FALSE(o.tets);
  EXPECT_FALSE(std::isfinite(o.pressure_min)) << "the legend range is held by default";
  ViewerOptions p;
  ASSERT_TRUE(Parse({"s.yaml", "--no-pressure", "--all-tets", "--pressure-range", "0,2.5e3"},
                    &p, &error))
      << error;
  EXPECT_TRUE(p.no_pressure);
  EXPECT_TRUE(p.tets) << "--all-tets draws the tets";
  EXPECT_TRUE(p.all_tets);
  EXPECT_EQ(p.pressure_min, 0.0);
  EXPECT_EQ(p.pressure_max, 2500.0);
  ViewerOptions t;
  ASSERT_TRUE(Parse({"s.yaml", "--tets"}, &t, &error)) << error;
  EXPECT_TRUE(t.tets);
  EXPECT_FALSE(t.all_tets);
  for (const char* bad : {"100", "5,1", "1,1", "a,2", "1,2x", ",3", "0,inf"}) {
    ViewerOptions b;
    error.clear();
    EXPECT_FALSE(Parse({"s.yaml", "--pressure-range", bad}, &b, &error)) << bad;
    EXPECT_NE(error.find("--pressure-range"), std::string::npos) << error;
  }
  ViewerOptions missing;
  EXPECT_FALSE(Parse({"s.yaml", "--pressure-range"}, &missing, &error));
  EXPECT_TRUE(IsViewerPanelName("pressure"));
}

TEST(ViewerArgs, VideoFlag) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"s.yaml"}, &o, &error)) << error;
  EXPECT_TRUE(o.video_path.empty()) << "no video by default";
  ViewerOptions v;
  ASSERT_TRUE(Parse({"s.yaml", "--frames", "30", "--video", "/tmp/run.mp4", "--screenshot",
                     "/tmp/run.png"},
                    &v, &error))
      << error;
  EXPECT_EQ(v.frames, 30);
  EXPECT_EQ(v.video_path, "/tmp/run.mp4");
  EXPECT_EQ(v.screenshot_path, "/tmp/run.png") << "--video combines with --screenshot";
  ViewerOptions missing;
  EXPECT_FALSE(Parse({"s.yaml", "--video"}, &missing, &error));
  EXPECT_NE(error.find("missing value"), std::string::npos) << error;
  ViewerOptions empty;
  EXPECT_FALSE(Parse({"s.yaml", "--video", ""}, &empty, &error));
  EXPECT_NE(error.find("--video"), std::string::npos) << error;
}

TEST(Video, FrameRateIsTheSimulationsRealTime) {
  // Whole steps nearest to 1/60 s per frame; the rate plays them back in real time.
  EXPECT_EQ(VideoStepsPerFrame(1.0 / 600), 10);
  EXPECT_NEAR(VideoFrameRate(1.0 / 600), 60.0, 1e-9);
  EXPECT_EQ(VideoStepsPerFrame(0.01), 2);
  EXPECT_NEAR(VideoFrameRate(0.01), 50.0, 1e-9);
  EXPECT_EQ(VideoStepsPerFrame(0.02), 1);
  EXPECT_NEAR(VideoFrameRate(0.02), 50.0, 1e-9);
  EXPECT_EQ(VideoStepsPerFrame(0.001), 17);
  EXPECT_NEAR(VideoFrameRate(0.001), 1000.0 / 17, 1e-9);
  EXPECT_EQ(VideoStepsPerFrame(0.1), 1) << "at least one step per frame";
  EXPECT_NEAR(VideoFrameRate(0.1), 10.0, 1e-9);
  EXPECT_EQ(VideoStepsPerFrame(0.0), 1);
  EXPECT_EQ(VideoFrameRate(-1.0), 60.0);
}

TEST(Video, EvenSizesAndDefaultName) {
  EXPECT_EQ(EvenVideoSize(1600), 1600);
  EXPECT_EQ(EvenVideoSize(901), 900);
  EXPECT_EQ(EvenVideoSize(1), 0);
  std::tm t{};
  t.tm_year = 2026 - 1900;
  t.tm_mon = 10;
  t.tm_mday = 27;
  t.tm_hour = 8;
  t.tm_min = 5;
  t.tm_sec = 9;
  t.tm_isdst = -1;
  EXPECT_EQ(DefaultVideoFileName("box_stack", std::mktime(&t)),
            "contactlab_box_stack_20261127-080509.mp4");
}

// Sets PATH for the scope of one test.
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& path) {
    const char* old = std::getenv("PATH");
    had_ = old != nullptr;
    if (old) old_ = old;
    setenv("PATH", path.c_str(), 1);
  }
  ~ScopedPath() {
    if (had_) {
      setenv("PATH", old_.c_str(), 1);
    } else {
      unsetenv("PATH");
    }
  }

 private:
  bool had_ = false;
  std::string old_;
};

std::filesystem::path TempDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("contactlab_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(Video, MissingFfmpegNamesTheProgramAndThePackage) {
  const std::filesystem::path dir = TempDir("video_nopath");
  ScopedPath path(dir.string());  // an empty folder: no ffmpeg
  EXPECT_EQ(FindProgram("ffmpeg"), "");
  VideoRecorder recorder;
  std::string error;
  EXPECT_FALSE(recorder.Start((dir / "x.mp4").string(), 64, 48, 60, &error));
  EXPECT_FALSE(recorder.active());
  EXPECT_NE(error.find("ffmpeg"), std::string::npos) << error;
  EXPECT_NE(error.find("apt-get install ffmpeg"), std::string::npos) << error;
  std::filesystem::remove_all(dir);
}

TEST(Video, RefusesOddSizes) {
  VideoRecorder recorder;
  std::string error;
  EXPECT_FALSE(recorder.Start("/tmp/never.mp4", 65, 48, 60, &error));
  EXPECT_NE(error.find("even"), std::string::npos) << error;
}

// An ffmpeg that exits at once: the writes fail with EPIPE (no SIGPIPE ends the test), the
// recording stops with a message naming the file and its exit status.
TEST(Video, WriteErrorStopsTheRecordingWithAMessage) {
  const std::filesystem::path dir = TempDir("video_fake");
  {
    std::ofstream script(dir / "ffmpeg");
    script << "#!/bin/sh\nexit 3\n";
  }
  std::filesystem::permissions(dir / "ffmpeg", std::filesystem::perms::owner_all);
  const char* old = std::getenv("PATH");
  ScopedPath path(dir.string() + ":" + (old ? old : ""));
  VideoRecorder recorder;
  std::string error;
  ASSERT_TRUE(recorder.Start((dir / "x.mp4").string(), 640, 480, 60, &error)) << error;
  const std::vector<std::uint8_t> frame(640 * 480 * 3, 128);  // more than a pipe holds
  bool failed = false;
  for (int i = 0; i < 20 && !failed; ++i) failed = !recorder.AddFrame(frame, &error);
  EXPECT_TRUE(failed);
  EXPECT_FALSE(recorder.active());
  EXPECT_NE(error.find("stopped after"), std::string::npos) << error;
  EXPECT_NE(error.find("exit status 3"), std::string::npos) << error;
  std::filesystem::remove_all(dir);
}

// With Debian's ffmpeg: a few frames make a non-empty file (decoded by the viewer_video test).
TEST(Video, RecordsAFileWithFfmpeg) {
  if (FindProgram("ffmpeg").empty()) GTEST_SKIP() << FfmpegMissingMessage();
  const std::filesystem::path dir = TempDir("video_real");
  VideoRecorder recorder;
  std::string error;
  const std::string file = (dir / "x.mp4").string();
  ASSERT_TRUE(recorder.Start(file, 64, 48, 50, &error)) << error;
  std::vector<std::uint8_t> frame(64 * 48 * 3);
  for (int i = 0; i < 5; ++i) {
    for (size_t k = 0; k < frame.size(); ++k) frame[k] = static_cast<std::uint8_t>(k + 7 * i);
    ASSERT_TRUE(recorder.AddFrame(frame, &error)) << error;
  }
  EXPECT_EQ(recorder.frames(), 5);
  ASSERT_TRUE(recorder.Stop(&error)) << error;
  EXPECT_FALSE(recorder.active());
  EXPECT_GT(std::filesystem::file_size(file), 0u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace contactlab
