// Command-line parsing of the viewer (no window is opened).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "app/params.h"
#include "app/viewer/input_script.h"
#include "app/viewer/viewer.h"
#include "engine/sim/simulator.h"

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

}  // namespace
}  // namespace contactlab
