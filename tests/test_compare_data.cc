// Data of the viewer's compare mode and race (ui/compare_data.h), without a window: colours and
// names of the configurations, the store of per-configuration step summaries with the distance
// from the primary, the overlaid series and their polylines, the divergence alert, and the
// work–precision diagram's layout, pick and hover text.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "engine/inspect/colormap.h"
#include "engine/inspect/debug_draw.h"
#include "ui/compare_data.h"

namespace contactlab {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

// A summary of `step` whose bodies sit at x = offset + body index.
StepSummary Summary(int step, double offset, int bodies = 3) {
  StepSummary s;
  s.step = step;
  s.time = 0.01 * (step + 1);
  s.iterations = step % 5;
  s.solve_ms = 0.1 * step;
  s.total_energy = 10.0 - step;
  s.ncp_residual = 1e-6 * (step + 1);
  for (int b = 0; b < bodies; ++b) s.body_com.push_back(Vec3(offset + b, 0, 0));
  return s;
}

TEST(CompareColor, DistinctAndUnlikeTheContactColours) {
  for (int a = 0; a < kMaxCompareConfigs; ++a) {
    for (int b = a + 1; b < kMaxCompareConfigs; ++b) {
      EXPECT_GT(RgbDistance(CompareColor(a), CompareColor(b)), 0.3) << a << " " << b;
    }
    // A ghost's tint must not read as a contact regime or an impulse arrow.
    for (const Color& c : {kStictionColor, kSlidingColor, kInactiveColor, kGapLoadColor,
                           kNormalImpulseColor, kFrictionImpulseColor}) {
      EXPECT_GT(RgbDistance(CompareColor(a), c), 0.15) << a;
    }
  }
  EXPECT_EQ(RgbDistance(CompareColor(kMaxCompareConfigs), CompareColor(0)), 0.0) << "cycles";
  // The primary's colour is the analysis panels' series blue (110, 190, 255).
  EXPECT_NEAR(CompareColor(0).r * 255, 110, 0.5);
  EXPECT_NEAR(CompareColor(0).b * 255, 255, 0.5);
}

TEST(CompareConfigNames, SolverAndModelWithNumbersForTwins) {
  StepSettings sap, pgs, lagged;
  pgs.solver_type = SolverType::kPgs;
  lagged.contact.model = ContactModelType::kLagged;
  EXPECT_EQ(CompareConfigName(sap), "SAP");
  EXPECT_EQ(CompareConfigName(pgs), "PGS");
  EXPECT_EQ(CompareConfigName(lagged), "SAP · lagged");
  EXPECT_EQ(CompareConfigNames({sap, pgs, sap}),
            (std::vector<std::string>{"SAP", "PGS", "SAP #2"}));
  EXPECT_EQ(CompareConfigNames({sap, lagged}), (std::vector<std::string>{"SAP", "SAP · lagged"}));
}

TEST(CompareConfigNames, TheConfigsOverridesFollowTheName) {
  StepSettings sap, pgs, lagged;
  pgs.solver_type = SolverType::kPgs;
  lagged.contact.model = ContactModelType::kLagged;
  EXPECT_EQ(CompareConfigNames({sap, pgs, lagged, sap},
                               {"sap", "pgs:solver.pgs.max_iterations=500",
                                "sap:contact.model=lagged:solver.sigma=0.01", ""}),
            (std::vector<std::string>{"SAP", "PGS (max_iterations=500)",
                                      "SAP · lagged (sigma=0.01)", "SAP #2"}));
  const std::string long_name =
      CompareConfigNames({sap}, {"sap:solver.sigma=0.001:solver.beta=0.5:solver.rel_tolerance="
                                 "1e-9:solver.max_iterations=40"})[0];
  EXPECT_EQ(long_name.size(), std::string("SAP (").size() + 40 + 1) << long_name;
  EXPECT_EQ(long_name.substr(long_name.size() - 4), "...)");
}

TEST(GhostVisibility, FaintWhereThePrimaryIsFullWhereItDrifted) {
  std::vector<Pose> primary(4), ghost(3);
  ghost[1].p = Vec3(0.05, 0, 0);  // half of full_distance = 0.1
  ghost[2].p = Vec3(0, 0.5, 0);   // far away
  const std::vector<float> v = GhostVisibility(primary, ghost, 0.1, 0.2, 0.2f);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_FLOAT_EQ(v[0], 0.2f) << "the same pose: the minimum";
  EXPECT_FLOAT_EQ(v[1], 0.6f);
  EXPECT_FLOAT_EQ(v[2], 1.0f);
  // A rotation counts as radius times the angle.
  std::vector<Pose> turned(1);
  turned[0].q = Quat(Eigen::AngleAxisd(0.25, Vec3::UnitZ()));
  EXPECT_FLOAT_EQ(GhostVisibility({Pose{}}, turned, 0.1, 0.2, 0.0f)[0], 0.5f);
  std::vector<Pose> lost(1);
  lost[0].p.x() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FLOAT_EQ(GhostVisibility({Pose{}}, lost, 0.1, 0.2)[0], 1.0f);
  EXPECT_FLOAT_EQ(GhostVisibility({}, {Pose{}}, 0.1, 0.2)[0], 1.0f) << "no primary body";
}

TEST(CompareStore, DistanceFromThePrimaryWhicheverArrivesFirst) {
  CompareStore store(100);
  store.Reset(3);
  // Ghost 1 before the primary, ghost 2 after.
  store.Add(1, Summary(0, 0.25));
  EXPECT_TRUE(std::isnan(store.Find(1, 0)->divergence)) << "the primary's step is not known yet";
  store.Add(0, Summary(0, 0.0));
  EXPECT_DOUBLE_EQ(store.Find(1, 0)->divergence, 0.25);
  store.Add(2, Summary(0, -0.5));
  EXPECT_DOUBLE_EQ(store.Find(2, 0)->divergence, 0.5);
  EXPECT_TRUE(std::isnan(store.Find(0, 0)->divergence)) << "the primary has none";
  // The farthest body is named.
  StepSummary far = Summary(1, 0.0);
  far.body_com[2].z() = 3.0;
  store.Add(0, Summary(1, 0.0));
  store.Add(1, far);
  EXPECT_DOUBLE_EQ(store.Find(1, 1)->divergence, 3.0);
  EXPECT_EQ(store.Find(1, 1)->divergence_body, 2);
}

TEST(CompareStore, ReRunsReplaceEvictionAndTruncation) {
  CompareStore store(5);
  store.Reset(2);
  const int v0 = store.version();
  for (int k = 0; k < 8; ++k) store.Add(0, Summary(k, 0));
  EXPECT_GT(store.version(), v0);
  ASSERT_EQ(store.track(0).size(), 5u) << "at most max_steps per configuration";
  EXPECT_EQ(store.track(0).front().summary.step, 3);
  EXPECT_EQ(store.Find(0, 2), nullptr);
  // A re-run from step 5 (after a resume) replaces steps 5.. of that track.
  store.Add(0, Summary(5, 1.0));
  ASSERT_EQ(store.track(0).back().summary.step, 5);
  EXPECT_EQ(store.track(0).back().summary.body_com[0].x(), 1.0);
  EXPECT_EQ(store.AtOrBefore(0, 100)->summary.step, 5);
  EXPECT_EQ(store.AtOrBefore(0, 4)->summary.step, 4);
  EXPECT_EQ(store.AtOrBefore(0, 2), nullptr);
  store.Add(1, Summary(4, 0));
  store.Add(1, Summary(5, 0));
  store.TruncateAfter(4);
  EXPECT_EQ(store.track(0).back().summary.step, 4);
  EXPECT_EQ(store.track(1).back().summary.step, 4);
  store.AddConfig();
  EXPECT_EQ(store.num_configs(), 3);
  store.RemoveConfig(1);
  EXPECT_EQ(store.num_configs(), 2);
  EXPECT_TRUE(store.track(1).empty()) << "the added track moved into place 1";
  store.RemoveConfig(0);
  EXPECT_EQ(store.num_configs(), 2) << "the primary's track stays";
}

TEST(CompareSeries, QuantitiesAndGaps) {
  CompareStore store;
  store.Reset(2);
  StepSummary empty = Summary(0, 0);
  empty.ncp_residual = 0;  // no constraints
  store.Add(0, empty);
  store.Add(0, Summary(1, 0));
  store.Add(1, Summary(1, 0.1));
  const StepSeries it = ExtractCompareSeries(store, 0, CompareQuantity::kIterations);
  EXPECT_EQ(it.steps, (std::vector<int>{0, 1}));
  EXPECT_EQ(it.values, (std::vector<double>{0, 1}));
  const StepSeries ncp = ExtractCompareSeries(store, 0, CompareQuantity::kNcpResidual);
  EXPECT_TRUE(std::isnan(ncp.values[0])) << "a residual of 0 is not drawn on the log axis";
  EXPECT_DOUBLE_EQ(ncp.values[1], 2e-6);
  EXPECT_TRUE(ExtractCompareSeries(store, 0, CompareQuantity::kDivergence).steps.empty());
  const StepSeries d = ExtractCompareSeries(store, 1, CompareQuantity::kDivergence);
  ASSERT_EQ(d.values.size(), 1u);
  EXPECT_NEAR(d.values[0], 0.1, 1e-15);
  EXPECT_TRUE(ExtractCompareSeries(store, 5, CompareQuantity::kIterations).steps.empty());
  for (int q = 0; q < kNumCompareQuantities; ++q) {
    EXPECT_STRNE(CompareQuantityTitle(static_cast<CompareQuantity>(q)), "");
  }
  EXPECT_TRUE(CompareQuantityLogAxis(CompareQuantity::kNcpResidual));
  EXPECT_TRUE(CompareQuantityLogAxis(CompareQuantity::kDivergence));
  EXPECT_FALSE(CompareQuantityLogAxis(CompareQuantity::kTotalEnergy));
}

TEST(CompareSeries, StepAxisAndPolylines) {
  EXPECT_EQ(StepRange({}), std::make_pair(-1, -1));
  StepSeries a{{3, 4, 5}, {1, 2, 3}}, b{{5, 6, 7, 8}, {0, 0, 0, 0}};
  EXPECT_EQ(StepRange({a, b, StepSeries{}}), std::make_pair(3, 8));
  EXPECT_DOUBLE_EQ(StepToPixel(3, 3, 8, 100, 200), 100);
  EXPECT_DOUBLE_EQ(StepToPixel(8, 3, 8, 100, 200), 200);
  EXPECT_DOUBLE_EQ(StepToPixel(5, 5, 5, 100, 200), 100) << "a single step sits at x0";
  EXPECT_EQ(PixelToStep(100, 3, 8, 100, 200), 3);
  EXPECT_EQ(PixelToStep(161, 3, 8, 100, 200), 6);
  EXPECT_EQ(PixelToStep(1e9, 3, 8, 100, 200), 8);

  const PlotRect rect{0, 0, 100, 50};
  auto y = [](double v) { return 50 - v; };
  // Short: every finite value is a vertex.
  StepSeries s{{0, 1, 2, 3}, {1, kNan, 3, 4}};
  const auto short_pts = OverlayPolyline(s, 0, 3, rect, 100, y);
  ASSERT_EQ(short_pts.size(), 3u);
  EXPECT_DOUBLE_EQ(short_pts[1].first, StepToPixel(2, 0, 3, 0, 100));
  // Long: at most four vertices per pixel column, and a one-step spike survives.
  StepSeries long_series;
  for (int k = 0; k < 10000; ++k) {
    long_series.steps.push_back(k);
    long_series.values.push_back(k == 5003 ? 40.0 : 1.0);
  }
  const auto pts = OverlayPolyline(long_series, 0, 9999, rect, 100, y);
  EXPECT_LE(pts.size(), 4u * 101u);
  double top = 1e9;
  for (const auto& p : pts) top = std::min(top, p.second);
  EXPECT_DOUBLE_EQ(top, y(40.0)) << "the spike's maximum is a vertex";
  for (size_t i = 1; i < pts.size(); ++i) EXPECT_GE(pts[i].first, pts[i - 1].first);
}

TEST(Divergence, FirstStepOverTheThresholdAndTheWorst) {
  CompareStore store;
  store.Reset(3);
  const std::vector<double> drift{0, 0.001, 0.02, 0.05, 0.03};
  for (int k = 0; k < 5; ++k) {
    store.Add(0, Summary(k, 0));
    store.Add(1, Summary(k, drift[k]));
    store.Add(2, Summary(k, 0.001));  // stays close
  }
  std::vector<DivergenceAlert> alerts = FindDivergence(store, 0.01);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].config, 1);
  EXPECT_EQ(alerts[0].first_step, 2);
  EXPECT_EQ(alerts[0].worst_step, 3);
  EXPECT_NEAR(alerts[0].worst, 0.05, 1e-15);
  EXPECT_TRUE(FindDivergence(store, 0.1).empty());
  EXPECT_TRUE(FindDivergence(store, 0).empty()) << "no threshold, no alert";
  EXPECT_EQ(FindDivergence(store, 1e-4).size(), 2u);
  const std::string text =
      DivergenceText(alerts[0], {"SAP", "PGS", "CANAL"}, {"floor", "box", "ball"}, 0.01);
  // Every body moved by 5 cm; the one named is the farthest after round-off.
  const std::string body = alerts[0].worst_body == 0 ? "floor" : "box";
  EXPECT_EQ(text, "PGS drifts 5 cm from SAP at step 3 (" + body + "), over 1 cm since step 2")
      << text;
  EXPECT_EQ(FormatLength(0.0032), "3.2 mm");
  EXPECT_EQ(FormatLength(1.25), "1.25 m");
  EXPECT_EQ(FormatLength(2e-7), "2.00e-07 m");
}

RaceRun TwoCurves() {
  RaceRun run;
  run.step = 7;
  for (int e = 0; e < 2; ++e) {
    RaceEntry entry;
    entry.name = e == 0 ? "SAP" : "PGS";
    entry.color = CompareColor(e);
    entry.curve.series = SolverSeries(SolverType::kSap);
    for (int k = 0; k < 4; ++k) {
      RacePoint p;
      p.cap = k + 1;
      p.iterations = k + 1;
      p.solve_ms = 0.1 * (k + 1) * (e + 1);
      p.ncp_residual = std::pow(10.0, -2 - 2 * k - e);
      p.status = k == 3 ? SolverStatus::kConverged : SolverStatus::kMaxIterations;
      p.final_row.assign(entry.curve.series.size, 0.5);
      entry.curve.points.push_back(p);
    }
    run.entries.push_back(entry);
  }
  run.entries[1].curve.points[0].iterations = 0;       // converged at its guess: x = 1
  run.entries[1].curve.points[1].ncp_residual = kNan;  // not computable: not drawn
  return run;
}

TEST(RacePlot, LogLogLayoutPickAndText) {
  const RaceRun run = TwoCurves();
  const PlotRect rect{0, 0, 400, 200};
  const RacePlotLayout t = LayoutRacePlot(run, RaceAxis::kTime, rect);
  ASSERT_EQ(t.curves.size(), 2u);
  EXPECT_EQ(t.curves[0].size(), 4u);
  EXPECT_EQ(t.curves[1].size(), 3u) << "the NaN residual is skipped";
  EXPECT_EQ(t.points.size(), 7u);
  // Decade ranges holding every point: x from 0.1 ms to 0.8 ms, y from 1e-9 to 1e-2.
  EXPECT_EQ(t.x_range.lo_exp, -1);
  EXPECT_EQ(t.x_range.hi_exp, 0);
  EXPECT_EQ(t.y_range.lo_exp, -9);
  EXPECT_EQ(t.y_range.hi_exp, -2);
  // Larger x is to the right, smaller residuals lower down.
  EXPECT_DOUBLE_EQ(t.curves[0][0].first, 0.0);
  EXPECT_LT(t.curves[0][0].first, t.curves[0][1].first);
  EXPECT_DOUBLE_EQ(t.curves[0][0].second, 0.0) << "1e-2 is the top of the range";
  EXPECT_GT(t.curves[0][3].second, t.curves[0][0].second);
  const RacePlotLayout it = LayoutRacePlot(run, RaceAxis::kIterations, rect);
  EXPECT_EQ(it.x_range.lo_exp, 0);
  EXPECT_DOUBLE_EQ(it.curves[1][0].first, 0.0) << "0 iterations are drawn at 1";
  EXPECT_EQ(RaceX(run.entries[1].curve.points[0], RaceAxis::kIterations), 1);

  const auto& p = t.points[5];
  const int picked = PickRacePoint(t, p.x + 2, p.y - 1, 8);
  ASSERT_EQ(picked, 5);
  EXPECT_EQ(PickRacePoint(t, -100, -100, 8), -1);
  const std::string text =
      RacePointText(run.entries[t.points[picked].entry], t.points[picked].index);
  EXPECT_NE(text.find("PGS"), std::string::npos) << text;
  EXPECT_NE(text.find("iteration 3 (cap 3), max_iterations"), std::string::npos) << text;
  EXPECT_NE(text.find("NCP residual 1e-07"), std::string::npos) << text;
  EXPECT_NE(text.find("solve 0.6 ms"), std::string::npos) << text;
  // The solver's own series at that iteration, each by its key.
  EXPECT_NE(text.find(std::string(run.entries[1].curve.series[0].key) + " = 0.5"),
            std::string::npos)
      << text;
  EXPECT_EQ(RacePointText(run.entries[0], 99), "");

  const RaceBest best = BestRacePoint(run.entries[0].curve);
  ASSERT_TRUE(best.valid);
  EXPECT_DOUBLE_EQ(best.ncp_residual, 1e-8);
  EXPECT_EQ(best.iterations, 4);
  EXPECT_EQ(best.status, SolverStatus::kConverged);
  EXPECT_FALSE(BestRacePoint(RaceCurve{}).valid);
}

TEST(TintedDebugDraw, OneColourKeepingAlpha) {
  RecordingDebugDraw rec;
  TintedDebugDraw tint(&rec, CompareColor(1));
  tint.Point(Vec3::Zero(), 5, Color{0, 1, 0, 0.5f});
  tint.Arrow(Vec3::Zero(), Vec3::UnitZ(), kNormalImpulseColor);
  ASSERT_EQ(rec.points.size(), 1u);
  EXPECT_EQ(rec.points[0].color.r, CompareColor(1).r);
  EXPECT_EQ(rec.points[0].color.a, 0.5f);
  ASSERT_EQ(rec.arrows.size(), 1u);
  EXPECT_EQ(rec.arrows[0].color.g, CompareColor(1).g);
}

}  // namespace
}  // namespace contactlab
