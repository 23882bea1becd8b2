// Data preparation of the timeline panel and the what-if overlay plot, without a window.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/solvers/sap/sap_solver.h"
#include "ui/ui_data.h"

namespace contactlab {
namespace {

SolverResult ResultWithResiduals(const std::vector<double>& em, SolverStatus status) {
  SolverResult r;
  r.stats.status = status;
  r.stats.iterations = static_cast<int>(em.size()) - 1;
  r.stats.iteration_log.Reset(SapSeriesTable());
  for (double e : em) r.stats.iteration_log.AddRow()[kSapMomentumResidual] = e;
  return r;
}

TEST(TimelineSlider, ClampsToTheHeldRecords) {
  EXPECT_EQ(TimelineIndex(0, 0), -1) << "nothing held";
  EXPECT_EQ(TimelineIndex(5, 0), -1);
  EXPECT_EQ(TimelineIndex(0, 10), 0);
  EXPECT_EQ(TimelineIndex(7, 10), 7);
  EXPECT_EQ(TimelineIndex(10, 10), 9) << "past the newest shows the newest";
  EXPECT_EQ(TimelineIndex(-3, 10), 0);
}

TEST(ResolveOverlay, SeriesIsTheDeclaredResidualPerIteration) {
  const SolverResult r = ResultWithResiduals({1.0, 1e-2, 1e-5}, SolverStatus::kConverged);
  const std::vector<double> em = ResidualSeries(r);
  ASSERT_EQ(em.size(), 3u);
  EXPECT_EQ(em[0], 1.0);
  EXPECT_EQ(em[2], 1e-5);
  EXPECT_TRUE(ResidualSeries(SolverResult{}).empty());
}

TEST(ResolveOverlay, LegendGivesIterationsAndStatusOldThenNew) {
  const SolverResult before =
      ResultWithResiduals({1.0, 0.5, 0.2, 0.1}, SolverStatus::kMaxIterations);
  const SolverResult after = ResultWithResiduals({1.0, 1e-3, 1e-7}, SolverStatus::kConverged);
  EXPECT_EQ(ResolveLegend(before, after), "iterations 3 / 2, max_iterations / converged");
}

TEST(ResolveOverlay, SeriesShareTheRangeAndTheIterationScale) {
  const PlotRect rect{0, 0, 100, 50};
  const std::vector<double> old_em{1.0, 1e-2, 1e-4, 1e-6, 1e-8};  // 5 iterations
  const std::vector<double> new_em{1e-1, 1e-3, 1e-5};             // 3 iterations
  const std::vector<LogPlotLayout> l = LayoutLogPlots({old_em, new_em}, rect, 1e-16, 6);
  ASSERT_EQ(l.size(), 2u);
  // One range over both series: [1e-8, 1].
  for (const LogPlotLayout& layout : l) {
    EXPECT_EQ(layout.range.lo_exp, -8);
    EXPECT_EQ(layout.range.hi_exp, 0);
    EXPECT_EQ(layout.ticks.size(), l[0].ticks.size());
  }
  ASSERT_EQ(l[0].points.size(), 5u);
  ASSERT_EQ(l[1].points.size(), 3u);
  // Iteration i sits at the same x in both series; the longest spans the width.
  EXPECT_DOUBLE_EQ(l[0].points[4].first, 100.0);
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(l[1].points[i].first, l[0].points[i].first);
  EXPECT_DOUBLE_EQ(l[1].points[2].first, 50.0);
  // Equal values land on equal pixels across series: 1e-1 lies between 1 and 1e-2.
  EXPECT_GT(l[1].points[0].second, l[0].points[0].second);
  EXPECT_LT(l[1].points[0].second, l[0].points[1].second);
  EXPECT_DOUBLE_EQ(l[0].points[0].second, 0.0) << "the top of the range is the top edge";
  EXPECT_DOUBLE_EQ(l[0].points[4].second, 50.0) << "the bottom of the range is the bottom edge";
}

TEST(ResolveOverlay, NonFiniteValuesAndEmptySeriesAreSkipped) {
  const PlotRect rect{10, 0, 30, 20};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<LogPlotLayout> l = LayoutLogPlots({{1e-2, nan, 1e-4}, {}}, rect);
  ASSERT_EQ(l.size(), 2u);
  ASSERT_EQ(l[0].points.size(), 2u);
  EXPECT_EQ(l[0].indices[1], 2);
  EXPECT_DOUBLE_EQ(l[0].points[1].first, 30.0);
  EXPECT_TRUE(l[1].points.empty());
  EXPECT_EQ(l[1].range.lo_exp, l[0].range.lo_exp);
}

}  // namespace
}  // namespace contactlab
