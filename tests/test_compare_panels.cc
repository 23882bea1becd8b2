// The compare and race panels (ui/compare_panels.h) in a headless ImGui context: the buttons ask
// for what they say only when allowed, a click on an overlaid series names a held step, and the
// race panel draws any run (none, curves, a refused configuration) and hovers its points.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tests/imgui_harness.h"
#include "ui/compare_data.h"
#include "ui/compare_panels.h"

namespace contactlab {
namespace {

StepSummary Summary(int step, double offset) {
  StepSummary s;
  s.step = step;
  s.iterations = 1 + step % 4;
  s.solve_ms = 0.01 * step;
  s.ncp_residual = 1e-4 / (1 + step);
  s.total_energy = 5.0 - 0.01 * step;
  s.failed = step % 10 == 0;
  s.body_com = {Vec3(offset * step, 0, 0)};
  return s;
}

TEST(ComparePanels, AddSyncAndEditsOnlyWhenAllowed) {
  ImGuiHarness gui;
  std::vector<StepSettings> settings(2);
  settings[1].solver_type = SolverType::kPgs;
  bool ghost = true, glyphs = false;
  double threshold = 0.01;
  for (bool allowed : {false, true}) {
    std::set<int> edited;
    bool add = false, sync = false;
    auto body = [&] {
      std::vector<CompareConfigRow> rows(2);
      rows[0].name = "SAP";
      rows[0].settings = &settings[0];
      rows[1].name = "PGS";
      rows[1].settings = &settings[1];
      rows[1].show_ghost = &ghost;
      rows[1].show_contacts = &glyphs;
      const CompareRequests r = DrawCompareConfigs(rows, allowed, allowed, &threshold);
      add = add || r.add;
      sync = sync || r.sync;
      if (r.edited >= 0) edited.insert(r.edited);
    };
    gui.Frame(body);
    // Add is the first button of its line, Sync to its right.
    for (float x : {30.0f, 200.0f}) {
      for (float y = 5; y < 300; y += 3) gui.Click(body, x, y);
    }
    EXPECT_EQ(add, allowed);
    EXPECT_EQ(sync, allowed);
    for (int c : edited) EXPECT_TRUE(c == 0 || c == 1) << c;
    EXPECT_GT(threshold, 0.0);
  }
}

TEST(ComparePanels, ClickingASeriesNamesAHeldStep) {
  ImGuiHarness gui;
  CompareStore store;
  store.Reset(2);
  for (int k = 10; k < 60; ++k) {
    store.Add(0, Summary(k, 0.0));
    store.Add(1, Summary(k, 0.001));
  }
  CompareSeriesView view;
  view.store = &store;
  view.names = {"SAP", "PGS"};
  view.colors = {CompareColor(0), CompareColor(1)};
  view.shown_step = 30;
  view.threshold = 0.01;
  view.plot_height = 40;
  std::set<int> clicked;
  auto body = [&] {
    const int step = DrawCompareSeries(view);
    if (step >= 0) clicked.insert(step);
  };
  gui.Frame(body);
  EXPECT_TRUE(clicked.empty());
  for (float y = 5; y < 550; y += 7) gui.Click(body, 250, y);
  ASSERT_FALSE(clicked.empty()) << "the plots take clicks";
  for (int s : clicked) {
    EXPECT_GE(s, 10);
    EXPECT_LE(s, 59);
  }
  // Empty store: a line saying so, no click.
  CompareStore empty;
  view.store = &empty;
  clicked.clear();
  for (float y = 5; y < 200; y += 7) gui.Click(body, 250, y);
  EXPECT_TRUE(clicked.empty());
}

TEST(ComparePanels, RaceButtonAndDiagrams) {
  ImGuiHarness gui;
  RaceRun run;
  run.step = 3;
  for (int e = 0; e < 2; ++e) {
    RaceEntry entry;
    entry.name = e ? "PGS" : "SAP";
    entry.color = CompareColor(e);
    entry.curve.series = SolverSeries(SolverType::kSap);
    for (int k = 0; k < 5; ++k) {
      RacePoint p;
      p.cap = p.iterations = k + 1;
      p.solve_ms = 0.1 * (k + 1);
      p.ncp_residual = 1e-2 / (1 << (2 * k + e));
      entry.curve.points.push_back(p);
    }
    run.entries.push_back(entry);
  }
  run.entries.push_back(RaceEntry{"bad", CompareColor(2), {}, {}, "refused"});
  for (bool can_race : {false, true}) {
    for (const RaceRun* shown : std::vector<const RaceRun*>{nullptr, &run}) {
      bool pressed = false;
      auto body = [&] { pressed = DrawRacePanel(shown, "status", can_race, 120) || pressed; };
      gui.Frame(body);
      for (float y = 2; y < 60; y += 3) gui.Click(body, 40, y);
      // Hover over the diagrams (tooltips) without clicking.
      for (float x = 60; x < 400; x += 9) gui.Frame(body, x, 150);
      EXPECT_EQ(pressed, can_race) << (shown ? "with a run" : "without a run");
    }
  }
}

}  // namespace
}  // namespace contactlab
