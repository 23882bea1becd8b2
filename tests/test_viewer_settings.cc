// Viewer settings persistence without a window: the key = value text form, its warnings, the
// settings folder from the environment, atomic saves and the overlay/playback conversions.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "ui/viewer_settings.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       ("contactlab_viewer_settings_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Every field away from its default, with values that do not print short.
ViewerSettings NonDefault() {
  ViewerSettings s;
  s.points = false;
  s.normals = true;
  s.normal_impulses = false;
  s.friction_impulses = false;
  s.cones = false;
  s.inactive = false;
  s.labels = true;
  s.point_size = 12.345678901234567;
  s.impulse_scale = 0.1 + 0.2;  // 0.30000000000000004
  s.auto_scale = false;
  s.cone_height_per_body = 1.0 / 3.0;
  s.normal_length_per_body = 2.0 / 7.0;
  s.transparent_bodies = true;
  s.body_alpha = 0.123456789f;
  s.show_grid = false;
  s.glyphs_on_top = false;
  s.pressure_show = false;
  s.pressure_outlines = true;
  s.pressure_force_arrows = false;
  s.pressure_centre_of_pressure = false;
  s.pressure_face_glyphs = true;
  s.pressure_hover = false;
  s.pressure_tets = true;
  s.pressure_tets_all = true;
  s.playback_rate = 0.1f;
  s.show_conditioning = true;
  s.show_time_series = true;
  s.show_profiler = true;
  s.show_scene_browser = true;
  s.show_exports = true;
  s.show_help = true;
  s.left_panel_width = 523.5f;
  s.bottom_panel_height = 181.25f;
  s.right_panel_width = 377.5f;
  s.show_analysis = false;
  s.auto_reload = false;
  s.export_dir = " /tmp/my \"exports\"\\dir\t# not a comment ";
  return s;
}

TEST(ViewerSettings, RoundTripIsExactForEveryField) {
  const ViewerSettings s = NonDefault();
  ASSERT_NE(s, ViewerSettings()) << "the test changes the defaults";
  const std::string text = SerializeViewerSettings(s);
  std::vector<std::string> warnings;
  const ViewerSettings back = ParseViewerSettings(text, &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(back, s) << text;
  // Bit-exact doubles and floats, and the string with its quotes, spaces and backslash.
  EXPECT_EQ(back.impulse_scale, 0.1 + 0.2);
  EXPECT_EQ(back.cone_height_per_body, 1.0 / 3.0);
  EXPECT_EQ(back.body_alpha, 0.123456789f);
  EXPECT_EQ(back.playback_rate, 0.1f);
  EXPECT_EQ(back.export_dir, s.export_dir);
  EXPECT_EQ(SerializeViewerSettings(back), text);
  // Defaults round trip too, and the text is readable.
  EXPECT_EQ(ParseViewerSettings(SerializeViewerSettings(ViewerSettings()), nullptr),
            ViewerSettings());
  EXPECT_NE(text.find("overlay.labels = true\n"), std::string::npos) << text;
  EXPECT_NE(text.find("layout.left_panel_width = 523.5\n"), std::string::npos) << text;
}

TEST(ViewerSettings, BadLinesWarnWithLineAndKeyAndKeepTheDefault) {
  const std::string text =
      "# comment\n"                         // 1
      "\n"                                  // 2
      "overlay.labels = true\n"             // 3 good
      "overlay.point_size = 500\n"          // 4 out of range
      "overlay.colour = red\n"              // 5 unknown key
      "overlay.cones = maybe\n"             // 6 not a bool
      "playback.rate = fast\n"              // 7 not a number
      "just some words\n"                   // 8 no '='
      "overlay.impulse_scale = 0\n"         // 9 must be > 0
      "overlay.body_alpha = nan\n"          // 10 not finite
      "export.dir = \"unterminated\n"       // 11 malformed string
      "   overlay.normals=yes   \n"         // 12 good, spaces
      "layout.left_panel_width = 1e999\n";  // 13 overflow
  std::vector<std::string> w;
  const ViewerSettings s = ParseViewerSettings(text, &w);
  const ViewerSettings d;
  EXPECT_TRUE(s.labels);
  EXPECT_TRUE(s.normals);
  EXPECT_EQ(s.point_size, d.point_size);
  EXPECT_EQ(s.cones, d.cones);
  EXPECT_EQ(s.playback_rate, d.playback_rate);
  EXPECT_EQ(s.impulse_scale, d.impulse_scale);
  EXPECT_EQ(s.body_alpha, d.body_alpha);
  EXPECT_EQ(s.export_dir, d.export_dir);
  EXPECT_EQ(s.left_panel_width, d.left_panel_width);
  ASSERT_EQ(w.size(), 9u);
  auto has = [&](int i, const std::string& part) {
    EXPECT_NE(w[i].find(part), std::string::npos) << w[i] << " lacks " << part;
  };
  has(0, "line 4: overlay.point_size: 500 is out of [1, 64]; keeping 9");
  has(1, "line 5: unknown key 'overlay.colour'");
  has(2, "line 6: overlay.cones: 'maybe'");
  has(3, "line 7: playback.rate: 'fast' is not a number");
  has(4, "line 8: expected KEY = VALUE");
  has(5, "line 9: overlay.impulse_scale: 0 is out of > 0");
  has(6, "line 10: overlay.body_alpha");
  has(7, "line 11: export.dir");
  has(8, "line 13: layout.left_panel_width");
  // Null warnings are allowed.
  EXPECT_EQ(ParseViewerSettings(text, nullptr), s);
  // A bare string value is taken trimmed.
  EXPECT_EQ(ParseViewerSettings("export.dir =  out/shots  \n", nullptr).export_dir, "out/shots");
}

// Sets (or unsets, with nullopt) an environment variable for the scope of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(ViewerSettings, SettingsDirFollowsTheEnvironment) {
  {
    ScopedEnv own("CONTACTLAB_CONFIG_DIR", "/cfg/own");
    ScopedEnv xdg("XDG_CONFIG_HOME", "/cfg/xdg");
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(DefaultSettingsDir(), fs::path("/cfg/own"));
    EXPECT_EQ(DefaultSettingsFile(), fs::path("/cfg/own/viewer_settings.conf"));
  }
  {
    ScopedEnv own("CONTACTLAB_CONFIG_DIR", "");  // empty counts as unset
    ScopedEnv xdg("XDG_CONFIG_HOME", "/cfg/xdg");
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(DefaultSettingsDir(), fs::path("/cfg/xdg/contactlab"));
  }
  {
    ScopedEnv own("CONTACTLAB_CONFIG_DIR", std::nullopt);
    ScopedEnv xdg("XDG_CONFIG_HOME", std::nullopt);
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(DefaultSettingsDir(), fs::path("/home/u/.config/contactlab"));
  }
  {
    ScopedEnv own("CONTACTLAB_CONFIG_DIR", std::nullopt);
    ScopedEnv xdg("XDG_CONFIG_HOME", std::nullopt);
    ScopedEnv home("HOME", std::nullopt);
    EXPECT_TRUE(DefaultSettingsDir().empty());
    EXPECT_TRUE(DefaultSettingsFile().empty());
  }
}

TEST(ViewerSettings, SaveIsAtomicAndLoadReadsItBack) {
  const fs::path dir = TempDir("save");
  const fs::path file = dir / "nested" / "config" / "viewer_settings.conf";
  const ViewerSettings s = NonDefault();
  std::string error;
  ASSERT_TRUE(SaveViewerSettingsFile(file, s, &error)) << error;
  // Only the file is left in its folder: the temporary was renamed over it.
  int count = 0;
  for (const auto& e : fs::directory_iterator(file.parent_path())) {
    ++count;
    EXPECT_EQ(e.path().filename(), "viewer_settings.conf");
  }
  EXPECT_EQ(count, 1);
  std::vector<std::string> w;
  EXPECT_EQ(LoadViewerSettingsFile(file, &w), s);
  EXPECT_TRUE(w.empty());
  // Overwriting an existing file.
  ViewerSettings t;
  t.labels = true;
  ASSERT_TRUE(SaveViewerSettingsFile(file, t, &error)) << error;
  EXPECT_EQ(LoadViewerSettingsFile(file, nullptr), t);
  // A save that cannot happen reports it and leaves nothing behind.
  fs::create_directories(dir / "a_folder");
  EXPECT_FALSE(SaveViewerSettingsFile(dir / "a_folder", s, &error));
  EXPECT_NE(error.find("a_folder"), std::string::npos) << error;
  count = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++count;
    (void)e;
  }
  EXPECT_EQ(count, 2) << "nested/ and a_folder/, no temporary";
}

TEST(ViewerSettings, MissingFileGivesDefaultsWithoutWarning) {
  std::vector<std::string> w;
  EXPECT_EQ(LoadViewerSettingsFile(TempDir("missing") / "none.conf", &w), ViewerSettings());
  EXPECT_TRUE(w.empty());
}

TEST(ViewerSettings, LoadWarningsNameTheFile) {
  const fs::path file = TempDir("warn") / "v.conf";
  std::ofstream(file) << "overlay.labels = true\nbogus = 1\n";
  std::vector<std::string> w;
  const ViewerSettings s = LoadViewerSettingsFile(file, &w);
  EXPECT_TRUE(s.labels);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], file.string() + ": line 2: unknown key 'bogus'");
}

TEST(ViewerSettings, ApplyAndCollectOverlayAndPlayback) {
  const ViewerSettings s = NonDefault();
  OverlaySettings overlay;
  PlaybackState playback;
  overlay.fit_requested = true;
  const double size = 0.07;
  ApplyViewerSettings(s, size, &overlay, &playback);
  EXPECT_FALSE(overlay.contacts.points);
  EXPECT_TRUE(overlay.contacts.labels);
  EXPECT_EQ(overlay.contacts.point_size, s.point_size);
  EXPECT_EQ(overlay.contacts.impulse_scale, s.impulse_scale);
  EXPECT_DOUBLE_EQ(overlay.contacts.cone_height, size / 3.0);
  EXPECT_DOUBLE_EQ(overlay.contacts.normal_length, 2.0 * size / 7.0);
  EXPECT_EQ(overlay.body_alpha, s.body_alpha);
  EXPECT_FALSE(overlay.show_grid);
  EXPECT_FALSE(overlay.glyphs_on_top);
  EXPECT_TRUE(overlay.transparent_bodies);
  EXPECT_FALSE(overlay.auto_scale);
  EXPECT_TRUE(overlay.fit_requested) << "the request flag is not a setting";
  EXPECT_EQ(playback.rate, s.playback_rate);

  // Collect after Apply gives the settings back exactly; other fields are untouched.
  ViewerSettings back = s;
  CollectViewerSettings(overlay, &playback, size, &back);
  EXPECT_EQ(back, s);
  // From a fresh ViewerSettings only the overlay/playback fields change.
  ViewerSettings fresh;
  CollectViewerSettings(overlay, &playback, size, &fresh);
  EXPECT_TRUE(fresh.labels);
  EXPECT_EQ(fresh.playback_rate, s.playback_rate);
  EXPECT_FALSE(fresh.show_help) << "panels are not part of the overlay";
  EXPECT_EQ(fresh.export_dir, ViewerSettings().export_dir);
  EXPECT_NEAR(fresh.cone_height_per_body, 1.0 / 3.0, 1e-15);

  // A user-changed cone height is collected per body size; no size keeps the factor.
  overlay.contacts.cone_height = 0.014;
  CollectViewerSettings(overlay, nullptr, size, &back);
  EXPECT_NEAR(back.cone_height_per_body, 0.2, 1e-15);
  CollectViewerSettings(overlay, nullptr, 0.0, &fresh);
  EXPECT_NEAR(fresh.cone_height_per_body, 1.0 / 3.0, 1e-15);
  // Apply without a typical size leaves the lengths alone.
  OverlaySettings untouched;
  ApplyViewerSettings(s, 0.0, &untouched, nullptr);
  EXPECT_EQ(untouched.contacts.cone_height, ContactDrawOptions().cone_height);
}

// The glyph settings of issue 16: candidates without impulse hidden by default, per-contact
// sizes on, the focus by name (an unknown name is off), the legend shown; all round-trip.
TEST(ViewerSettings, GlyphSettingsDefaultsAndRoundTrip) {
  const ViewerSettings d;
  EXPECT_FALSE(d.inactive);
  EXPECT_TRUE(d.adaptive_size);
  EXPECT_EQ(d.focus, "off");
  EXPECT_TRUE(d.legend);
  ViewerSettings s;
  s.inactive = true;
  s.adaptive_size = false;
  s.focus = "island";
  s.legend = false;
  std::vector<std::string> warnings;
  const ViewerSettings back = ParseViewerSettings(SerializeViewerSettings(s), &warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(back, s);
  OverlaySettings overlay;
  ApplyViewerSettings(back, 0.1, &overlay, nullptr);
  EXPECT_TRUE(overlay.contacts.inactive);
  EXPECT_FALSE(overlay.contacts.adaptive_size);
  EXPECT_EQ(overlay.focus, GlyphFocus::kIsland);
  EXPECT_FALSE(overlay.show_legend);
  overlay.focus = NextGlyphFocus(overlay.focus);
  EXPECT_EQ(overlay.focus, GlyphFocus::kOff) << "island -> off";
  EXPECT_EQ(NextGlyphFocus(GlyphFocus::kOff), GlyphFocus::kBody);
  ViewerSettings collected = back;
  CollectViewerSettings(overlay, nullptr, 0.1, &collected);
  EXPECT_EQ(collected.focus, "off");
  EXPECT_EQ(ParseGlyphFocus("body"), GlyphFocus::kBody);
  EXPECT_EQ(ParseGlyphFocus("nonsense"), GlyphFocus::kOff);
  // An old settings file's `overlay.inactive = true` keeps the candidates shown.
  const ViewerSettings old = ParseViewerSettings("overlay.inactive = true\n", &warnings);
  EXPECT_TRUE(old.inactive);
}

TEST(ViewerSettings, ApplyAndCollectPressure) {
  const ViewerSettings s = NonDefault();
  PressureOverlay p;
  p.range.mode = PressureRangeMode::kFixed;
  p.range.fixed_max = 123;
  ApplyPressureSettings(s, &p);
  EXPECT_FALSE(p.show);
  EXPECT_TRUE(p.draw.outlines);
  EXPECT_FALSE(p.draw.force_arrows);
  EXPECT_FALSE(p.draw.centre_of_pressure);
  EXPECT_TRUE(p.face_glyphs);
  EXPECT_FALSE(p.hover);
  EXPECT_TRUE(p.tets);
  EXPECT_TRUE(p.tets_all);
  EXPECT_EQ(p.range.mode, PressureRangeMode::kFixed) << "the range is not a setting";
  EXPECT_EQ(p.range.fixed_max, 123);
  ViewerSettings back;
  CollectPressureSettings(p, &back);
  EXPECT_TRUE(back.pressure_tets_all);
  EXPECT_FALSE(back.pressure_show);
  EXPECT_TRUE(back.labels == ViewerSettings().labels) << "only the pressure fields change";
  const std::string text = SerializeViewerSettings(s);
  EXPECT_NE(text.find("pressure.tets_all = true\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace contactlab
