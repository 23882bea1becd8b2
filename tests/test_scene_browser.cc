// Scene browser without a window: listing scene files with their descriptions, the scenes root of
// an opened scene, the filter, and the debounced file watcher.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/imgui_harness.h"
#include "ui/scene_browser.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

// A fresh folder under the test's temporary directory.
fs::path TempDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("contactlab_scene_browser_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

TEST(SceneBrowser, ListsYamlFilesRecursivelyGroupedByFolder) {
  const fs::path root = TempDir("list");
  Write(root / "zeta.yaml", "description: \"Last at the root\"\n");
  Write(root / "alpha.yml", "# comment\ndescription: plain words # trailing comment\n");
  Write(root / "paper" / "b.yaml", "description: 'it''s quoted'\n");
  Write(root / "paper" / "a.YAML", "time_step: 0.01\n");  // no description
  Write(root / "bench" / "x.yaml", "description: >\n  folded block\n  on two lines\nbodies: []\n");
  Write(root / "bench" / "deep" / "y.yaml", "description: \"deep\"\n");
  Write(root / "notes.txt", "description: not a scene\n");
  Write(root / ".hidden" / "h.yaml", "description: hidden\n");
  Write(root / ".dot.yaml", "description: hidden file\n");

  const std::vector<SceneEntry> e = ListSceneFiles(root);
  std::vector<std::string> rel;
  for (const SceneEntry& s : e) rel.push_back(s.relative_path);
  // Root files first, then each folder's own files before its subfolders.
  EXPECT_EQ(rel, (std::vector<std::string>{"alpha.yml", "zeta.yaml", "bench/x.yaml",
                                           "bench/deep/y.yaml", "paper/a.YAML", "paper/b.yaml"}));
  ASSERT_EQ(e.size(), 6u);
  EXPECT_EQ(e[0].description, "plain words");
  EXPECT_EQ(e[1].description, "Last at the root");
  EXPECT_EQ(e[2].description, "folded block on two lines");
  EXPECT_EQ(e[3].description, "deep");
  EXPECT_EQ(e[4].description, "");
  EXPECT_EQ(e[5].description, "it's quoted");
  EXPECT_EQ(e[0].folder, "");
  EXPECT_EQ(e[3].folder, "bench/deep");
  EXPECT_EQ(e[5].folder, "paper");
  EXPECT_TRUE(e[5].absolute_path.is_absolute());
  EXPECT_EQ(e[5].absolute_path, (root / "paper" / "b.yaml").lexically_normal());
}

TEST(SceneBrowser, DescriptionOnlyFromTheTopLevelKey) {
  const fs::path root = TempDir("desc");
  Write(root / "nested.yaml",
        "bodies:\n  - name: a\n    description: \"a body\"\ndescription : \"top\"\n");
  EXPECT_EQ(ReadSceneDescription(root / "nested.yaml"), "top");
  Write(root / "escaped.yaml",
        "\xEF\xBB\xBF"
        "description: \"say \\\"hi\\\"\"\r\n");
  EXPECT_EQ(ReadSceneDescription(root / "escaped.yaml"), "say \"hi\"");
  Write(root / "other_key.yaml", "descriptions: no\n");
  EXPECT_EQ(ReadSceneDescription(root / "other_key.yaml"), "");
  EXPECT_EQ(ReadSceneDescription(root / "missing.yaml"), "") << "never throws";
  EXPECT_EQ(ReadSceneDescription(root), "") << "a folder reads as no description";
}

TEST(SceneBrowser, MissingRootAndUnreadableFilesDoNotThrow) {
  EXPECT_TRUE(ListSceneFiles("/nonexistent/contactlab/scenes").empty());
  const fs::path root = TempDir("unreadable");
  Write(root / "locked.yaml", "description: secret\n");
  fs::permissions(root / "locked.yaml", fs::perms::none);
  std::vector<SceneEntry> e;
  EXPECT_NO_THROW(e = ListSceneFiles(root));
  ASSERT_EQ(e.size(), 1u) << "listed, without a description if it cannot be read";
  fs::permissions(root / "locked.yaml", fs::perms::owner_all);
}

TEST(SceneBrowser, RepositoryScenesAreListedWithDescriptions) {
  const fs::path root = fs::path(CONTACTLAB_SOURCE_DIR) / "scenes";
  const std::vector<SceneEntry> e = ListSceneFiles(root);
  ASSERT_GE(e.size(), 20u);
  bool found_ramp = false;
  for (const SceneEntry& s : e) {
    if (s.relative_path == "box_on_ramp.yaml") {
      found_ramp = true;
      EXPECT_EQ(s.description, "Box on a 15 degree ramp");
    }
  }
  EXPECT_TRUE(found_ramp);
  EXPECT_EQ(e.front().folder, "") << "the root's own scenes come first";
}

TEST(SceneBrowser, ScenesRootIsTheNearestScenesAncestor) {
  const fs::path base = TempDir("root");
  Write(base / "scenes" / "paper" / "a.yaml", "");
  Write(base / "work" / "b.yaml", "");
  Write(base / "scenes" / "x" / "scenes" / "c.yaml", "");
  EXPECT_EQ(FindScenesRoot(base / "scenes" / "paper" / "a.yaml", "/"), base / "scenes");
  EXPECT_EQ(FindScenesRoot(base / "scenes" / "x" / "scenes" / "c.yaml", "/"),
            base / "scenes" / "x" / "scenes")
      << "the nearest one";
  // Relative scene paths are taken relative to cwd.
  EXPECT_EQ(FindScenesRoot("scenes/paper/a.yaml", base), base / "scenes");
  // Outside a scenes folder: cwd/scenes if it exists ...
  EXPECT_EQ(FindScenesRoot(base / "work" / "b.yaml", base), base / "scenes");
  // ... else the scene's own folder.
  EXPECT_EQ(FindScenesRoot(base / "work" / "b.yaml", base / "work"), base / "work");
  EXPECT_EQ(FindScenesRoot("", base / "work"), base / "work");
}

TEST(SceneBrowser, FilterMatchesEveryWordInPathOrDescription) {
  std::vector<SceneEntry> e(3);
  e[0].relative_path = "paper/clutter_40.yaml";
  e[0].description = "Clutter: 40 bodies, no walls";
  e[1].relative_path = "bench/clutter_160_walls.yaml";
  e[1].description = "Bench: clutter, 160 bodies, walls";
  e[2].relative_path = "box_on_ramp.yaml";
  e[2].description = "Box on a 15 degree ramp";
  EXPECT_EQ(FilterSceneEntries(e, ""), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(FilterSceneEntries(e, "  CLUTTER "), (std::vector<int>{0, 1}));
  EXPECT_EQ(FilterSceneEntries(e, "clutter bench"), (std::vector<int>{1}));
  EXPECT_EQ(FilterSceneEntries(e, "degree"), (std::vector<int>{2})) << "description counts";
  EXPECT_TRUE(FilterSceneEntries(e, "pouring").empty());
}

TEST(SceneBrowser, SamePathComparesNormalizedPaths) {
  EXPECT_TRUE(SameScenePath("/a/b/../c.yaml", "/a/./c.yaml"));
  EXPECT_FALSE(SameScenePath("/a/c.yaml", "/a/d.yaml"));
  EXPECT_FALSE(SameScenePath("", ""));
}

// A clock the test moves by hand.
struct FakeClock {
  double t = 0;
  FileWatcher::Clock Fn() {
    return [this] { return t; };
  }
};

TEST(FileWatcher, ReportsOnceAfterTheFileSettles) {
  const fs::path dir = TempDir("watch");
  const fs::path scene = dir / "s.yaml", mesh = dir / "m.obj";
  Write(scene, "a");
  Write(mesh, "v 0 0 0\n");
  FakeClock clock;
  FileWatcher w(0.2, clock.Fn());
  w.SetFiles({scene, mesh});
  EXPECT_FALSE(w.Changed()) << "the state at SetFiles is the reference";

  Write(mesh, "v 0 0 0\nv 1");  // half written
  EXPECT_FALSE(w.Changed()) << "not settled yet";
  EXPECT_TRUE(w.pending());
  clock.t = 0.1;
  Write(mesh, "v 0 0 0\nv 1 0 0\n");  // still being written: the wait starts again
  EXPECT_FALSE(w.Changed());
  clock.t = 0.25;
  EXPECT_FALSE(w.Changed()) << "only 0.15 s since the last change";
  clock.t = 0.31;
  EXPECT_TRUE(w.Changed());
  EXPECT_FALSE(w.Changed()) << "reported once";
  clock.t = 5;
  EXPECT_FALSE(w.Changed());
}

TEST(FileWatcher, SameSizeEditSeenThroughTheWriteTime) {
  const fs::path dir = TempDir("watch_time");
  const fs::path scene = dir / "s.yaml";
  Write(scene, "abc");
  const auto t0 = fs::last_write_time(scene);
  FakeClock clock;
  FileWatcher w(0.0, clock.Fn());
  w.SetFiles({scene});
  Write(scene, "xyz");
  fs::last_write_time(scene, t0 + std::chrono::seconds(2));
  EXPECT_TRUE(w.Changed()) << "settle 0: reported on the first poll";
  EXPECT_FALSE(w.Changed());
}

TEST(FileWatcher, MissingFileIsAChangeWhenItReappears) {
  const fs::path dir = TempDir("watch_missing");
  const fs::path scene = dir / "s.yaml";
  Write(scene, "abc");
  const auto t0 = fs::last_write_time(scene);
  FakeClock clock;
  FileWatcher w(0.2, clock.Fn());
  w.SetFiles({scene, dir / "not_yet.obj"});
  fs::remove(scene);
  EXPECT_FALSE(w.Changed()) << "a deletion alone is no change";
  clock.t = 1;
  EXPECT_FALSE(w.Changed());
  // Rewritten identically (same size and time): still a change.
  Write(scene, "abc");
  fs::last_write_time(scene, t0);
  EXPECT_FALSE(w.Changed());
  clock.t = 1.3;
  EXPECT_TRUE(w.Changed());
  // A referenced file that did not exist at SetFiles and appears.
  Write(dir / "not_yet.obj", "v 0 0 0\n");
  EXPECT_FALSE(w.Changed());
  clock.t = 2;
  EXPECT_TRUE(w.Changed());
}

TEST(FileWatcher, SetFilesResetsThePendingChange) {
  const fs::path dir = TempDir("watch_reset");
  Write(dir / "s.yaml", "a");
  FakeClock clock;
  FileWatcher w(0.2, clock.Fn());
  EXPECT_FALSE(w.Changed()) << "nothing watched";
  w.SetFiles({dir / "s.yaml"});
  Write(dir / "s.yaml", "ab");
  EXPECT_FALSE(w.Changed());
  w.SetFiles({dir / "s.yaml"});  // the caller reloaded
  clock.t = 1;
  EXPECT_FALSE(w.Changed());
  EXPECT_FALSE(w.pending());
}

TEST(ScenePanel, ClickSelectsDoubleClickOpens) {
  const fs::path root = TempDir("panel");
  Write(root / "a.yaml", "description: first\n");
  Write(root / "paper" / "b.yaml", "description: second\n");
  const std::vector<SceneEntry> entries = ListSceneFiles(root);
  ASSERT_EQ(entries.size(), 2u);
  ScenePanelState state;
  state.error = "a.yaml:3: bodies.a.mass: must be > 0";
  ScenePanelAction action;
  const std::string current = entries[1].absolute_path.string();
  auto body = [&] {
    const ScenePanelAction a = DrawScenePanel(entries, current, &state);
    if (a.kind != SceneAction::kNone) action = a;
  };
  ImGuiHarness gui;
  gui.Frame(body);
  EXPECT_EQ(action.kind, SceneAction::kNone) << "nothing asked for without input";
  // Click down the list until a row is selected: the first row is a.yaml.
  float row_y = -1;
  for (float y = 20; y < 300 && state.selected.empty(); y += 3) {
    gui.Click(body, 100, y);
    if (!state.selected.empty()) row_y = y;
  }
  ASSERT_GE(row_y, 0) << "a row took the click";
  EXPECT_EQ(state.selected, entries[0].absolute_path.string());
  EXPECT_EQ(action.kind, SceneAction::kNone) << "a single click only selects";
  // A double click opens the row (after a pause, so the scan's clicks do not pair up with it).
  for (int i = 0; i < 30; ++i) gui.Frame(body);
  gui.Click(body, 100, row_y);
  gui.Click(body, 100, row_y);
  EXPECT_EQ(action.kind, SceneAction::kOpen);
  EXPECT_EQ(action.path, entries[0].absolute_path.string());
  // Below the list: "Open" (the selected row), then "Reload (Ctrl+R)" on the same line, then the
  // auto-reload checkbox.
  action = ScenePanelAction();
  float open_y = -1;
  for (float y = row_y + 4; y < 520 && action.kind == SceneAction::kNone; y += 4) {
    state.selected = entries[0].absolute_path.string();  // clicks on the rows select others
    for (int i = 0; i < 30; ++i) gui.Frame(body);        // and must not pair into double clicks
    gui.Click(body, 20, y);
    open_y = y;
  }
  EXPECT_EQ(action.kind, SceneAction::kOpen);
  EXPECT_EQ(action.path, entries[0].absolute_path.string());
  action = ScenePanelAction();
  gui.Click(body, 120, open_y);
  EXPECT_EQ(action.kind, SceneAction::kReload);
  ASSERT_TRUE(state.auto_reload);
  for (float y = open_y + 4; y < 520 && state.auto_reload; y += 4) gui.Click(body, 20, y);
  EXPECT_FALSE(state.auto_reload) << "the checkbox turns auto reload off";
  // Hovering the rows (tooltips) and a filter that hides everything draw without trouble.
  for (float y = 20; y < 300; y += 10) gui.Frame(body, 100, y);
  state.filter = "no such scene";
  gui.Frame(body);
  state.selected.clear();
  gui.Frame([&] { DrawScenePanel({}, "", &state); });
}

}  // namespace
}  // namespace contactlab
