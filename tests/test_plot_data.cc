// Data preparation of the analysis panels (convergence, time series, profiler bar, conditioning),
// without a window: reference slopes, per-iteration series of real SAP solves, time series over a
// History, min/max envelopes, nice ticks, the profiler bar layout and sparsity images.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/inspect/conditioning.h"
#include "engine/inspect/history.h"
#include "engine/sim/simulator.h"
#include "engine/solvers/sap/sap_solver.h"
#include "ui/plot_data.h"

namespace contactlab {
namespace {

Scene Load(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name, overrides);
}

// A few steps of the box on the ramp, recorded.
History RecordBoxOnRamp(int steps, const std::vector<std::string>& overrides = {}) {
  Scene scene = Load("box_on_ramp.yaml", overrides);
  Simulator sim(scene.model, scene.settings);
  History history(1000);
  for (int i = 0; i < steps; ++i) history.Push(sim.Step());
  return history;
}

// The record of `history` with the most Newton iterations.
const StepRecord& LongestSolve(const History& history) {
  int best = 0;
  for (int i = 1; i < history.size(); ++i) {
    if (history.At(i).result.stats.iterations > history.At(best).result.stats.iterations) best = i;
  }
  return history.At(best);
}

// ----- convergence -----

TEST(ReferenceSlopes, LinearHalvesAndQuadraticSquaresTheRatio) {
  const double e0 = 0.3;
  const ReferenceSeries r = ReferenceSlopes(e0, 6, 1e-300);
  ASSERT_EQ(r.linear.size(), 6u);
  ASSERT_EQ(r.quadratic.size(), 6u);
  EXPECT_DOUBLE_EQ(r.linear[0], e0);
  EXPECT_DOUBLE_EQ(r.quadratic[0], e0) << "both start at the first point";
  for (int k = 1; k < 6; ++k) EXPECT_DOUBLE_EQ(r.linear[k] / r.linear[k - 1], 0.5);
  // e_{k+1} = e_k² / e_scale: the ratio to e_scale squares every step, starting at 1/2.
  EXPECT_DOUBLE_EQ(r.e_scale, 2 * e0);
  for (int k = 1; k < 6; ++k) {
    const double prev = r.quadratic[k - 1] / r.e_scale, ratio = r.quadratic[k] / r.e_scale;
    EXPECT_NEAR(ratio, prev * prev, 1e-12 * prev * prev) << k;
  }
  EXPECT_DOUBLE_EQ(r.quadratic[1], e0 / 2) << "first step like the linear curve";
  EXPECT_DOUBLE_EQ(r.quadratic[2], e0 / 8);
  EXPECT_DOUBLE_EQ(r.quadratic[3], e0 / 128);
  EXPECT_LT(r.quadratic[4], 1e-4 * e0) << "then drops visibly below the linear curve";
}

TEST(ReferenceSlopes, StopAtTheFloorAndRejectBadInput) {
  const ReferenceSeries r = ReferenceSlopes(1.0, 100, 1e-6);
  // Linear: 2^-19 ≈ 1.9e-6 is the last value >= 1e-6; quadratic: 2 · 2^-16 ≈ 3e-5, then 2 · 2^-32.
  EXPECT_EQ(r.linear.size(), 20u);
  EXPECT_EQ(r.quadratic.size(), 5u);
  for (double v : r.linear) EXPECT_GE(v, 1e-6);
  for (double v : r.quadratic) EXPECT_GE(v, 1e-6);
  EXPECT_EQ(ReferenceSlopes(1.0, 3).linear.size(), 3u) << "never longer than n";
  EXPECT_TRUE(ReferenceSlopes(0.0, 5).linear.empty());
  EXPECT_TRUE(ReferenceSlopes(std::nan(""), 5).quadratic.empty());
  EXPECT_TRUE(ReferenceSlopes(1.0, 0).linear.empty());
}

// Observed order q: the slope of log e_{k+1} against log e_k over the tail's last points.
TEST(ObservedOrder, LinearSequenceHasOrderOne) {
  std::vector<double> e;
  for (int k = 0; k < 12; ++k) e.push_back(0.3 * std::pow(0.4, k));
  const ConvergenceTail t = ObservedOrder(e);
  EXPECT_EQ(t.points, 4);
  EXPECT_EQ(t.start, 8);
  EXPECT_NEAR(t.order, 1.0, 1e-9);
  EXPECT_NEAR(ObservedOrder(e, 3).order, 1.0, 1e-9);
}

TEST(ObservedOrder, QuadraticSequenceHasOrderTwo) {
  // e_{k+1} = e_k² / s with a slow (pre-asymptotic) start that is not part of the tail.
  std::vector<double> e = {1.0, 1.2, 0.9};
  const double s = 2.0;
  for (int k = 0; k < 4; ++k) e.push_back(e.back() * e.back() / s);
  const ConvergenceTail t = ObservedOrder(e);
  EXPECT_EQ(t.start, 3);
  EXPECT_EQ(t.points, 4);
  EXPECT_NEAR(t.order, 2.0, 1e-9);
  // Three points: one triple, q = log(e_{k+1}/e_k) / log(e_k/e_{k-1}).
  const std::vector<double> three = {1e-2, 1e-4, 1e-8};
  EXPECT_NEAR(ObservedOrder(three).order, 2.0, 1e-12);
}

TEST(ObservedOrder, TailIsTheFinalDecreasingRunAndTooFewPointsGiveNaN) {
  // The run ends at the last finite value; a rise resets it.
  const std::vector<double> e = {1.0, 0.1, 0.5, 0.05, NAN};
  const ConvergenceTail t = ObservedOrder(e);
  EXPECT_EQ(t.start, 2);
  EXPECT_EQ(t.points, 2);
  EXPECT_TRUE(std::isnan(t.order));
  EXPECT_EQ(ObservedOrder({}).start, -1);
  EXPECT_EQ(ObservedOrder({1e-3}).start, -1);
  EXPECT_TRUE(std::isnan(ObservedOrder({1e-3, 1e-3, 1e-3}).order));
}

TEST(ReferenceSlopes, AnchoredAtTheTailStartThroughItsFirstTwoPoints) {
  const std::vector<double> e = {1.0, 0.9, 0.8, 1e-2, 1e-4, 1e-8};
  const ConvergenceTail t = ObservedOrder(e);
  ASSERT_EQ(t.start, 2);
  const ReferenceSeries r = AnchoredReferenceSlopes(e, t.start, 8, 1e-16);
  ASSERT_GE(r.linear.size(), 5u);
  ASSERT_GE(r.quadratic.size(), 5u);
  for (int k = 0; k < 2; ++k) {
    EXPECT_TRUE(std::isnan(r.linear[k]));
    EXPECT_TRUE(std::isnan(r.quadratic[k]));
  }
  EXPECT_DOUBLE_EQ(r.linear[2], 0.8);
  EXPECT_DOUBLE_EQ(r.quadratic[2], 0.8);
  EXPECT_NEAR(r.linear[3], 1e-2, 1e-15);
  EXPECT_NEAR(r.quadratic[3], 1e-2, 1e-15);
  EXPECT_NEAR(r.linear[4] / 1.25e-4, 1.0, 1e-12);      // rate 1/80 again
  EXPECT_NEAR(r.quadratic[4] / 1.5625e-6, 1.0, 1e-12);  // ratio squared: 0.8 (1/80)^3
  EXPECT_LE(static_cast<int>(r.linear.size()), 8);
  EXPECT_TRUE(AnchoredReferenceSlopes(e, -1, 8).linear.empty());
  EXPECT_TRUE(AnchoredReferenceSlopes(e, 6, 8).linear.empty());
}

TEST(HoveredIteration, NoIterationPastTheLast) {
  // 10 iterations over [0, 90]: iteration i at x = 10 i; the solve shown ends at iteration 5.
  EXPECT_EQ(HoveredIteration(50.0, 10, 5, 0.0, 90.0), 5);
  EXPECT_EQ(HoveredIteration(0.0, 10, 5, 0.0, 90.0), 0);
  EXPECT_EQ(HoveredIteration(61.0, 10, 5, 0.0, 90.0), -1);
  EXPECT_EQ(HoveredIteration(89.0, 10, 9, 0.0, 90.0), 9);
  EXPECT_EQ(HoveredIteration(10.0, 0, 5, 0.0, 90.0), -1);
}

TEST(FormatNumber, NegativeZeroPrintsWithoutASign) {
  EXPECT_EQ(FormatNumber("%.2e", -0.0), "0.00e+00");
  EXPECT_EQ(FormatNumber("%.2e", 0.0), "0.00e+00");
  EXPECT_EQ(FormatNumber("%.3f", -0.0001), "0.000");
  EXPECT_EQ(FormatNumber("%.3f m", -0.0004), "0.000 m");
  EXPECT_EQ(FormatNumber("%.0f", -0.2), "0");
  EXPECT_EQ(FormatNumber("%.2e", -1.5e-3), "-1.50e-03");
  EXPECT_EQ(FormatNumber("%.3f", -0.0016), "-0.002");
  EXPECT_EQ(FormatNumber("%.2e", 2e-10), "2.00e-10");  // the exponent's minus stays
  EXPECT_EQ(FormatNumber("e-m %.1f", -0.01), "e-m 0.0");
  EXPECT_EQ(FormatNumber("% .3e", -0.0), " 0.000e+00");
  EXPECT_EQ(FormatNumber("% .3e", -2.0), "-2.000e+00");
  EXPECT_EQ(Scientific(-0.0), "0.000e+00");
  EXPECT_EQ(Scientific(-2.5e7, 2), "-2.50e+07");
  EXPECT_EQ(FormatNumber("%.2e", std::numeric_limits<double>::quiet_NaN()), "nan");
}

TEST(FrameSplit, PartsSumToTheFrameWithTheSwapAsItsOwnItem) {
  // 10 frames over 439 ms: ui 2.7, render 393, swap 31 ms in all; the rest is "other".
  const FrameSplit f = SplitFrameTime(10, 439.0, 2.7, 393.0, 31.0);
  EXPECT_DOUBLE_EQ(f.frame_ms, 43.9);
  EXPECT_DOUBLE_EQ(f.swap_ms, 3.1);
  EXPECT_NEAR(f.ui_ms + f.render_ms + f.swap_ms + f.other_ms, f.frame_ms, 1e-12);
  EXPECT_NEAR(f.other_ms, 1.23, 1e-12);
  EXPECT_EQ(FrameSplitText(f),
            "43.90 ms per frame = ui 0.27 + render 39.30 + swap 3.10 + other 1.23 ms");
  // Parts over the frame (timer round-off): other is 0, never negative.
  EXPECT_EQ(SplitFrameTime(2, 10.0, 4.0, 4.0, 2.5).other_ms, 0.0);
  EXPECT_EQ(SplitFrameTime(0, 10.0, 1.0, 1.0, 1.0).frame_ms, 0.0);
}

TEST(CountNoun, SingularOnlyForOne) {
  EXPECT_EQ(CountNoun(1, "iteration", "iterations"), "1 iteration");
  EXPECT_EQ(CountNoun(0, "iteration", "iterations"), "0 iterations");
  EXPECT_EQ(CountNoun(12, "iteration", "iterations"), "12 iterations");
}

TEST(ConvergenceSeries, CostGapIsPositiveAndOmitsTheFinalIterate) {
  const History history = RecordBoxOnRamp(20);
  const SolverResult& res = LongestSolve(history).result;
  const std::vector<double> cost = res.stats.iteration_log.Column("cost");
  ASSERT_GE(cost.size(), 3u) << "a solve with at least two Newton iterations";
  // SAP declares the cost as its objective: the panel plots its gap to the final cost.
  const std::vector<double> gap = PlottedSeries(res, "cost");
  ASSERT_EQ(gap.size(), cost.size()) << "shares the iteration axis";
  EXPECT_TRUE(std::isnan(gap.back())) << "the final iterate's gap is omitted";
  for (size_t k = 0; k + 1 < gap.size(); ++k) {
    ASSERT_TRUE(std::isfinite(gap[k])) << k;
    EXPECT_GT(gap[k], 0.0) << k;
    EXPECT_GE(gap[k], cost[k] - cost.back()) << "raised to the round-off level, not lowered";
  }
  EXPECT_DOUBLE_EQ(gap[0], cost[0] - cost.back()) << "the guess is far from the optimum";
  // SAP decreases the cost monotonically, so the gap does not grow.
  for (size_t k = 1; k + 1 < gap.size(); ++k) EXPECT_LE(gap[k], gap[k - 1] * (1 + 1e-12));
}

TEST(ConvergenceSeries, GapToFinalOfSyntheticCostsWithRoundOff) {
  const std::vector<double> gap = GapToFinal({10.0, 4.0, 2.0 - 1e-15, 2.0}, 1e-15);
  ASSERT_EQ(gap.size(), 4u);
  EXPECT_DOUBLE_EQ(gap[0], 8.0);
  EXPECT_DOUBLE_EQ(gap[1], 2.0);
  EXPECT_DOUBLE_EQ(gap[2], 1e-14) << "a negative round-off gap is floored at 1e-15 · max |cost|";
  EXPECT_TRUE(std::isnan(gap[3]));
  EXPECT_TRUE(GapToFinal({}).empty());
  EXPECT_TRUE(PlottedSeries(SolverResult{}, "cost").empty()) << "an empty log declares nothing";
}

TEST(ConvergenceSeries, AlphaOfARealSolveIsAPositiveStep) {
  const History history = RecordBoxOnRamp(20);
  const SolverResult& res = LongestSolve(history).result;
  const IterationLog& log = res.stats.iteration_log;
  const std::vector<double> alpha = PlottedSeries(res, "alpha");
  const std::vector<double> evals = PlottedSeries(res, "line_search_evaluations");
  ASSERT_EQ(static_cast<int>(alpha.size()), log.num_rows());
  ASSERT_EQ(static_cast<int>(evals.size()), log.num_rows());
  ASSERT_GE(alpha.size(), 2u);
  // Per-step series: the guess (row 0) holds the placeholder 0 in the log (and the exports),
  // and is omitted (NaN) from the plot.
  EXPECT_TRUE(std::isnan(alpha[0])) << "the initial guess was produced by no step";
  EXPECT_TRUE(std::isnan(evals[0]));
  EXPECT_EQ(log(0, kSapAlpha), 0.0);
  EXPECT_EQ(log(0, kSapLineSearchEvaluations), 0.0);
  const double alpha_max = SapParameters{}.ls_alpha_max;
  for (size_t k = 1; k < alpha.size(); ++k) {
    EXPECT_GT(alpha[k], 0.0) << k;
    EXPECT_LE(alpha[k], alpha_max) << k;
    EXPECT_EQ(alpha[k], log(static_cast<int>(k), kSapAlpha));
    EXPECT_EQ(evals[k], log(static_cast<int>(k), kSapLineSearchEvaluations));
    EXPECT_GE(evals[k], 1.0) << "a step costs at least one evaluation (or is the Newton step)";
  }
}

TEST(ConvergenceSeries, DefaultSelectionIsTheResidualThenTheDeclaredDefaults) {
  const SeriesTable t = SapSeriesTable();
  const std::vector<std::string> keys = DefaultSeriesKeys(t);
  // SAP declares e_m as its residual and cost, α as default plots (the panel of the SAP paper).
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0], "momentum_residual");
  EXPECT_EQ(keys[1], "cost");
  EXPECT_EQ(keys[2], "alpha");
  // A table without defaults or residual: nothing selected.
  static constexpr SeriesSpec kPlainOnly[] = {
      {"x", "x", "m", SeriesAxis::kLinear, SeriesType::kReal, SeriesRole::kPlain, 0u, "x"}};
  EXPECT_TRUE(DefaultSeriesKeys(SeriesTable::Of(kPlainOnly)).empty());
  EXPECT_EQ(SeriesAxisTitle(t[kSapCost]), "cost l: gap to final [J]");
  EXPECT_EQ(SeriesAxisTitle(t[kSapAlpha]), "line-search step alpha");
}

TEST(ConvergenceSeries, EarlierResultsAreTheRecordsBeforeTheShownStepOldestFirst) {
  const History history = RecordBoxOnRamp(10);
  const std::vector<const SolverResult*> e = EarlierResults(history, 6, 3);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0], &history.Get(3)->result);
  EXPECT_EQ(e[1], &history.Get(4)->result);
  EXPECT_EQ(e[2], &history.Get(5)->result);
  EXPECT_EQ(EarlierResults(history, 2, 5).size(), 2u) << "only steps 0 and 1 are older";
  EXPECT_TRUE(EarlierResults(history, 0, 5).empty());
  EXPECT_TRUE(EarlierResults(history, 6, 0).empty());
}

// ----- linear axes -----

TEST(NiceTicks, UnitIntervalInFifths) {
  const std::vector<AxisTick> t = NiceTicks(0.0, 1.0, 6);
  ASSERT_EQ(t.size(), 6u);
  const char* labels[] = {"0", "0.2", "0.4", "0.6", "0.8", "1"};
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(t[i].value, 0.2 * i, 1e-12);
    EXPECT_TRUE(t[i].major);
    EXPECT_EQ(t[i].label, labels[i]);
  }
}

TEST(NiceTicks, StepsAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(NiceStep(0, 1, 6), 0.2);
  EXPECT_DOUBLE_EQ(NiceStep(0, 10, 11), 1.0);
  EXPECT_DOUBLE_EQ(NiceStep(0, 10, 3), 5.0);
  EXPECT_DOUBLE_EQ(NiceStep(0, 7, 3), 5.0);
  EXPECT_DOUBLE_EQ(NiceStep(0, 0.003, 4), 0.001);
  EXPECT_DOUBLE_EQ(NiceStep(-200, 1300, 5), 500.0);
  for (double hi : {0.37, 3.1, 42.0, 777.0, 12345.0}) {
    for (int max_ticks : {2, 3, 5, 8}) {
      const std::vector<AxisTick> t = NiceTicks(0.0, hi, max_ticks);
      EXPECT_LE(static_cast<int>(t.size()), max_ticks) << hi << " " << max_ticks;
      EXPECT_GE(t.size(), 1u);
      for (size_t i = 0; i < t.size(); ++i) {
        EXPECT_GE(t[i].value, 0.0);
        EXPECT_LE(t[i].value, hi);
        if (i > 0) {
          EXPECT_GT(t[i].value, t[i - 1].value);
        }
      }
      const double step = NiceStep(0.0, hi, max_ticks);
      const double m = step / std::pow(10.0, std::floor(std::log10(step) + 1e-12));
      EXPECT_TRUE(std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 5) < 1e-9)
          << step;
    }
  }
  // Negative ranges and labels with the decimals the step needs.
  const std::vector<AxisTick> n = NiceTicks(-1.0, 1.0, 5);
  ASSERT_EQ(n.size(), 5u);
  EXPECT_EQ(n[0].label, "-1");
  EXPECT_EQ(n[1].label, "-0.5");
  EXPECT_EQ(n[2].label, "0");
  EXPECT_EQ(n[3].label, "0.5");
  EXPECT_TRUE(NiceTicks(1.0, 1.0, 5).empty());
  EXPECT_TRUE(NiceTicks(0.0, INFINITY, 5).empty());
}

TEST(NiceRange, WidensToTickMultiplesAndHandlesConstants) {
  auto r = NiceRange({0.13, 0.92}, 6);
  EXPECT_NEAR(r.first, 0.0, 1e-12);
  EXPECT_NEAR(r.second, 1.0, 1e-12);
  r = NiceRange({3.0, 7.0}, 3, true);
  EXPECT_EQ(r.first, 0.0);
  EXPECT_EQ(r.second, 10.0);
  r = NiceRange({4.0, 4.0}, 3);
  EXPECT_LT(r.first, 4.0);
  EXPECT_GT(r.second, 4.0);
  r = NiceRange({0.0, 0.0}, 3, true);
  EXPECT_EQ(r.first, 0.0);
  EXPECT_EQ(r.second, 1.0);
  r = NiceRange({std::nan("")}, 3);
  EXPECT_EQ(r.first, 0.0);
  EXPECT_EQ(r.second, 1.0);
}

TEST(LinearAxis, PixelMapping) {
  EXPECT_DOUBLE_EQ(LinearToPixel(0.0, 0.0, 1.0, 10.0, 110.0), 110.0) << "lo at the bottom";
  EXPECT_DOUBLE_EQ(LinearToPixel(1.0, 0.0, 1.0, 10.0, 110.0), 10.0);
  EXPECT_DOUBLE_EQ(LinearToPixel(0.25, 0.0, 1.0, 10.0, 110.0), 85.0);
  EXPECT_DOUBLE_EQ(LinearToPixel(5.0, 0.0, 1.0, 10.0, 110.0), 10.0) << "clamped";
  EXPECT_DOUBLE_EQ(LinearToPixel(3.0, 1.0, 1.0, 10.0, 110.0), 60.0) << "degenerate: middle";
  EXPECT_DOUBLE_EQ(IndexToPixel(0, 5, 100, 200), 100.0);
  EXPECT_DOUBLE_EQ(IndexToPixel(4, 5, 100, 200), 200.0);
  EXPECT_DOUBLE_EQ(IndexToPixel(0, 1, 100, 200), 100.0);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(PixelToIndex(IndexToPixel(i, 5, 100, 200), 5, 100, 200), i);
  EXPECT_EQ(PixelToIndex(112.0, 5, 100, 200), 0);
  EXPECT_EQ(PixelToIndex(113.0, 5, 100, 200), 1);
  EXPECT_EQ(PixelToIndex(-50.0, 5, 100, 200), 0);
  EXPECT_EQ(PixelToIndex(500.0, 5, 100, 200), 4);
  EXPECT_EQ(PixelToIndex(150.0, 0, 100, 200), -1);
}

// ----- envelopes -----

TEST(Envelope, DownsamplesWithoutLosingSpikes) {
  std::vector<double> y(2000);
  for (int i = 0; i < 2000; ++i) y[i] = std::sin(0.01 * i);
  y[1234] = 50.0;   // one-step spike up
  y[777] = -30.0;   // and down
  const std::vector<MinMax> env = Envelope(y, 300);
  ASSERT_EQ(env.size(), 300u);
  double hi = -INFINITY, lo = INFINITY;
  int covered = 0;
  for (size_t c = 0; c < env.size(); ++c) {
    hi = std::max(hi, env[c].max);
    lo = std::min(lo, env[c].min);
    EXPECT_EQ(env[c].begin, covered) << "columns tile the samples in order";
    EXPECT_GT(env[c].end, env[c].begin);
    covered = env[c].end;
    EXPECT_LE(env[c].min, env[c].first);
    EXPECT_GE(env[c].max, env[c].last);
  }
  EXPECT_EQ(covered, 2000);
  EXPECT_EQ(hi, 50.0) << "the max spike survives";
  EXPECT_EQ(lo, -30.0) << "the min spike survives";
  // The spike is in the column that holds sample 1234.
  for (const MinMax& m : env) {
    if (m.begin <= 1234 && 1234 < m.end) {
      EXPECT_EQ(m.max, 50.0);
    }
  }
}

TEST(Envelope, ShortSeriesKeepEverySampleAndNonFiniteAreSkipped) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<MinMax> env = Envelope({1.0, nan, 3.0}, 10);
  ASSERT_EQ(env.size(), 3u) << "one column per sample when they fit";
  EXPECT_EQ(env[0].min, 1.0);
  EXPECT_EQ(env[0].max, 1.0);
  EXPECT_TRUE(std::isnan(env[1].min)) << "a column of NaN has no extremes";
  EXPECT_EQ(env[2].first, 3.0);
  const std::vector<MinMax> two = Envelope({5.0, nan, 2.0, 9.0}, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].min, 5.0);
  EXPECT_EQ(two[0].last, 5.0) << "the last finite sample";
  EXPECT_EQ(two[1].first, 2.0);
  EXPECT_EQ(two[1].last, 9.0);
  EXPECT_TRUE(Envelope({}, 10).empty());
  EXPECT_TRUE(Envelope({1.0}, 0).empty());
}

// ----- time series -----

TEST(TimeSeries, ExtractedFromAHistoryMatchesItsRecords) {
  const History history = RecordBoxOnRamp(40);
  const TimeSeries s = ExtractTimeSeries(history);
  ASSERT_EQ(s.size(), 40);
  for (auto* v : {&s.time, &s.iterations, &s.solve_ms, &s.contacts, &s.total_energy,
                  &s.max_penetration, &s.momentum_error}) {
    ASSERT_EQ(static_cast<int>(v->size()), 40);
  }
  for (int i = 0; i < s.size(); ++i) {
    const StepRecord& r = history.At(i);
    EXPECT_EQ(s.steps[i], r.step);
    EXPECT_EQ(s.steps[i], i);
    EXPECT_EQ(s.time[i], r.after.time);
    EXPECT_EQ(s.iterations[i], r.result.stats.iterations);
    EXPECT_EQ(s.solve_ms[i], r.timings.solve_ms);
    EXPECT_EQ(s.contacts[i], r.metrics.num_contacts);
    EXPECT_EQ(s.total_energy[i], r.metrics.kinetic_energy + r.metrics.potential_energy);
    EXPECT_EQ(s.max_penetration[i], r.metrics.max_penetration);
    EXPECT_EQ(s.momentum_error[i], r.result.stats.momentum_error);
  }
  EXPECT_TRUE(s.failures.empty()) << "the box on the ramp converges at every step";
  EXPECT_GT(s.contacts.back(), 0) << "the box rests on the ramp";
  EXPECT_NEAR(s.time.back(), 40 * 1e-3, 1e-12);
  EXPECT_EQ(IndexOfStep(s, 17), 17);
  EXPECT_EQ(IndexOfStep(s, 40), -1);
  EXPECT_EQ(IndexOfStep(s, -1), -1);
}

TEST(TimeSeries, FailuresAreTheStepsThatDidNotConverge) {
  // One Newton iteration cannot meet a 1e-12 tolerance once the box touches the ramp.
  const History history =
      RecordBoxOnRamp(15, {"solver.max_iterations=1", "solver.rel_tolerance=1e-12"});
  const TimeSeries s = ExtractTimeSeries(history);
  std::vector<int> expected;
  for (int i = 0; i < history.size(); ++i) {
    if (history.At(i).result.stats.status != SolverStatus::kConverged) expected.push_back(i);
  }
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(s.failures, expected);
}

TEST(TimeSeries, IndicesFollowTheTimelineAfterEviction) {
  Scene scene = Load("box_on_ramp.yaml");
  Simulator sim(scene.model, scene.settings);
  History history(8);
  for (int i = 0; i < 20; ++i) history.Push(sim.Step());
  const TimeSeries s = ExtractTimeSeries(history);
  ASSERT_EQ(s.size(), 8);
  EXPECT_EQ(s.steps.front(), 12);
  EXPECT_EQ(IndexOfStep(s, 12), 0);
  EXPECT_EQ(IndexOfStep(s, 19), 7);
  EXPECT_EQ(IndexOfStep(s, 11), -1) << "evicted";
}

// ----- profiler -----

TEST(ProfileBar, SegmentsAreContiguousAndProportional) {
  FrameProfile p;
  p.collision_ms = 1;
  p.assembly_ms = 2;
  p.solve_ms = 3;
  p.other_physics_ms = 0;  // skipped
  p.render_ms = 4;
  p.ui_ms = 0;             // skipped
  p.frame_ms = 20;         // half of the frame is not attributed
  const std::vector<BarSegment> s = LayoutProfileBar(p, 100, 300);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].part, FramePart::kCollision);
  EXPECT_EQ(s[3].part, FramePart::kRender);
  EXPECT_DOUBLE_EQ(s[0].x0, 100);
  for (size_t i = 1; i < s.size(); ++i) EXPECT_DOUBLE_EQ(s[i].x0, s[i - 1].x1) << "contiguous";
  // 10 px per ms on the 20 ms scale.
  EXPECT_DOUBLE_EQ(s[0].x1 - s[0].x0, 10);
  EXPECT_DOUBLE_EQ(s[1].x1 - s[1].x0, 20);
  EXPECT_DOUBLE_EQ(s[2].x1 - s[2].x0, 30);
  EXPECT_DOUBLE_EQ(s[3].x1 - s[3].x0, 40);
  EXPECT_DOUBLE_EQ(s[3].x1, 200) << "the unattributed half stays empty";
  EXPECT_EQ(s[2].ms, 3);
}

TEST(ProfileBar, PartsLongerThanTheFrameClampToTheWidth) {
  FrameProfile p;
  p.solve_ms = 30;
  p.render_ms = 10;
  p.ui_ms = 10;
  p.frame_ms = 25;  // inconsistent timers: the parts add up to 50
  const std::vector<BarSegment> s = LayoutProfileBar(p, 0, 100);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s.back().x1, 100) << "never past the bar";
  EXPECT_DOUBLE_EQ(s[0].x1 - s[0].x0, 60);
  EXPECT_DOUBLE_EQ(s[1].x1 - s[1].x0, 20);
  p.frame_ms = 0;  // no frame time: the parts fill the bar
  EXPECT_DOUBLE_EQ(LayoutProfileBar(p, 0, 100).back().x1, 100);
  p.solve_ms = -1;
  p.render_ms = std::nan("");
  EXPECT_EQ(LayoutProfileBar(p, 0, 100).size(), 1u) << "negative and NaN parts skipped";
  EXPECT_TRUE(LayoutProfileBar(FrameProfile{}, 0, 100).empty());
}

TEST(ProfileBar, StepTimingsFillThePhysicsParts) {
  StepTimings t;
  t.kinematics_ms = 0.5;
  t.collision_ms = 1;
  t.assembly_ms = 2;
  t.solve_ms = 3;
  t.integrate_ms = 0.25;
  FrameProfile p;
  AddStepTimings(t, &p);
  AddStepTimings(t, &p);  // two steps in the frame
  EXPECT_DOUBLE_EQ(p.collision_ms, 2);
  EXPECT_DOUBLE_EQ(p.assembly_ms, 4);
  EXPECT_DOUBLE_EQ(p.solve_ms, 6);
  EXPECT_DOUBLE_EQ(p.other_physics_ms, 1.5) << "kinematics + integration";
  EXPECT_STREQ(FramePartName(FramePart::kOtherPhysics), "other physics");
  EXPECT_STREQ(FramePartName(FramePart::kUi), "UI");
}

// ----- sparsity images -----

TEST(SparsityRgba, EmptyFullAndPartialCellsMapToTheDocumentedColours) {
  SparsityImage img;
  img.rows = img.cols = 4;
  img.width = 3;
  img.height = 1;
  img.cells = {0, 255, 128};
  const std::vector<std::uint8_t> rgba = SparsityImageToRgba(img);
  ASSERT_EQ(rgba.size(), 12u);
  auto px = [&](int i) {
    return std::vector<int>{rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2], rgba[4 * i + 3]};
  };
  EXPECT_EQ(px(0), (std::vector<int>{kSparsityBackground.r, kSparsityBackground.g,
                                     kSparsityBackground.b, 255}));
  EXPECT_EQ(px(1), (std::vector<int>{kSparsityHigh.r, kSparsityHigh.g, kSparsityHigh.b, 255}));
  // 128: t = 127/254 = 1/2, the rounded midpoint of low and high.
  auto mid = [](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * 0.5)); };
  EXPECT_EQ(px(2), (std::vector<int>{mid(kSparsityLow.r, kSparsityHigh.r),
                                     mid(kSparsityLow.g, kSparsityHigh.g),
                                     mid(kSparsityLow.b, kSparsityHigh.b), 255}));
  const Rgba8 low = SparsityCellColor(1);
  EXPECT_EQ(low.r, kSparsityLow.r);
  EXPECT_EQ(low.g, kSparsityLow.g);
  EXPECT_EQ(low.b, kSparsityLow.b);
}

TEST(SparsityRgba, RealPatternsOfAStepProblem) {
  Scene scene = Load("box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  const StepRecord& r = sim.Step();
  const ConditioningReport rep = AnalyzeConditioning(r.problem, r.result);
  for (const SparsityImage* img : {&rep.H_pattern, &rep.J_pattern}) {
    ASSERT_GT(img->width, 0);
    const std::vector<std::uint8_t> rgba = SparsityImageToRgba(*img);
    ASSERT_EQ(rgba.size(), 4u * img->width * img->height);
    int filled = 0, filled_px = 0;
    for (int y = 0; y < img->height; ++y) {
      for (int x = 0; x < img->width; ++x) {
        const size_t i = static_cast<size_t>(y) * img->width + x;
        const bool background = rgba[4 * i] == kSparsityBackground.r &&
                                rgba[4 * i + 1] == kSparsityBackground.g &&
                                rgba[4 * i + 2] == kSparsityBackground.b;
        EXPECT_EQ(background, img->at(x, y) == 0) << x << "," << y;
        filled += img->at(x, y) != 0;
        filled_px += !background;
      }
    }
    EXPECT_GT(filled, 0);
    EXPECT_EQ(filled, filled_px);
    // Runs cover exactly the filled cells.
    int run_cells = 0;
    for (const CellRun& run : SparsityRuns(*img)) {
      EXPECT_GT(run.value, 0);
      for (int x = run.x0; x < run.x1; ++x) EXPECT_EQ(img->at(x, run.y), run.value);
      run_cells += run.x1 - run.x0;
    }
    EXPECT_EQ(run_cells, filled);
  }
}

TEST(SparsityRuns, MergeEqualNeighboursInARow) {
  SparsityImage img;
  img.rows = img.cols = 6;
  img.width = 6;
  img.height = 2;
  img.cells = {9, 9, 9, 0, 7, 9,  //
               0, 0, 0, 0, 0, 0};
  const std::vector<CellRun> runs = SparsityRuns(img);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].x0, 0);
  EXPECT_EQ(runs[0].x1, 3);
  EXPECT_EQ(runs[0].value, 9);
  EXPECT_EQ(runs[1].x0, 4);
  EXPECT_EQ(runs[1].x1, 5);
  EXPECT_EQ(runs[2].x0, 5);
  EXPECT_EQ(runs[2].value, 9);
  // A full 256 x 256 pattern is one run per row.
  SparsityImage full;
  full.rows = full.cols = full.width = full.height = 256;
  full.cells.assign(256 * 256, 255);
  EXPECT_EQ(SparsityRuns(full).size(), 256u);
}

TEST(SparsityLayout, AspectIsKeptAndBlocksMapToPixels) {
  const PlotRect r = FitAspect(10, 40, PlotRect{0, 0, 200, 200});  // J: 10 rows, 40 columns
  EXPECT_DOUBLE_EQ(r.x1 - r.x0, 200);
  EXPECT_DOUBLE_EQ(r.y1 - r.y0, 50);
  EXPECT_DOUBLE_EQ(r.y0, 75) << "centred";
  const PlotRect sq = FitAspect(30, 30, PlotRect{0, 0, 300, 120});
  EXPECT_DOUBLE_EQ(sq.x1 - sq.x0, 120);
  EXPECT_DOUBLE_EQ(sq.x0, 90);
  const PlotRect b = BlockToPixels(MatrixBlock{2, 20, 3, 10}, 10, 40, r);
  EXPECT_DOUBLE_EQ(b.x0, 100);
  EXPECT_DOUBLE_EQ(b.x1, 150);
  EXPECT_DOUBLE_EQ(b.y0, 85);
  EXPECT_DOUBLE_EQ(b.y1, 100);
  const PlotRect empty = FitAspect(0, 5, PlotRect{0, 0, 10, 10});
  EXPECT_EQ(empty.x1 - empty.x0, 0);
  EXPECT_EQ(Scientific(12345.678), "1.235e+04");
}

}  // namespace
}  // namespace contactlab
