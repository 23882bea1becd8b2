// The race on a frozen step (engine/inspect/race.h) and the step summaries of compare mode
// (engine/inspect/step_summary.h): the iteration caps, the points of a capped solve against the
// uncapped one, cancellation, `contactlab compare --step` giving the same race, and the per-step
// numbers with the distance between two runs.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "app/compare.h"
#include "app/scene.h"
#include "engine/inspect/metrics.h"
#include "engine/inspect/race.h"
#include "engine/inspect/step_summary.h"
#include "engine/sim/simulator.h"
#include "engine/sim/solver_registry.h"

namespace contactlab {
namespace {

std::string ScenePath(const std::string& name) {
  return std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name;
}

// Step `step` (0-based) of a scene, recorded.
StepRecord RecordStep(const std::string& scene_name, int step,
                      const std::vector<std::string>& overrides = {}) {
  Scene scene = LoadScene(ScenePath(scene_name), overrides);
  Simulator sim(scene.model, scene.settings);
  StepRecord record;
  for (int k = 0; k <= step; ++k) record = sim.Step();
  return record;
}

TEST(RaceCaps, GrowByHalfAndEndAtTheCap) {
  EXPECT_EQ(RaceCaps(1), (std::vector<int>{1}));
  EXPECT_EQ(RaceCaps(4), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(RaceCaps(10), (std::vector<int>{1, 2, 3, 4, 6, 8, 10}));
  EXPECT_EQ(RaceCaps(12), (std::vector<int>{1, 2, 3, 4, 6, 8, 12}));
  EXPECT_EQ(RaceCaps(100), (std::vector<int>{1, 2, 3, 4, 6, 8, 12, 18, 26, 38, 56, 84, 100}));
  EXPECT_EQ(RaceCaps(0), (std::vector<int>{1}));
  const std::vector<int> big = RaceCaps(100000000);
  EXPECT_LE(big.size(), 66u);
  EXPECT_EQ(big.back(), 100000000);
  for (size_t i = 1; i < big.size(); ++i) EXPECT_LT(big[i - 1], big[i]);
}

// Without islands SAP's iterates do not depend on its cap: a solve capped at k iterations repeats
// the first k iterations of the uncapped solve, so each point is a point of the uncapped solve's
// log. (With islands, an island at the cap makes SAP re-solve the whole problem.)
TEST(RaceFrozenStep, PointsAreTheCappedSolvesOfOneConvergingRun) {
  const StepRecord record = RecordStep("clutter_40_walls.yaml", 60);
  Scene scene = LoadScene(ScenePath("clutter_40_walls.yaml"), {"solver.islands=false"});
  const StepSettings settings = scene.settings;
  SolverResult full;
  MakeSolver(settings)->Solve(record.problem, record.before.v, &full);
  ASSERT_EQ(full.stats.status, SolverStatus::kConverged);
  ASSERT_GE(full.stats.iterations, 3) << "a step that takes a few iterations";

  RaceOptions options;
  options.min_repeats = 1;
  options.max_repeats = 1;
  int reported = 0;
  options.on_point = [&](const RacePoint&) { ++reported; };
  const RaceCurve curve = RaceFrozenStep(record, settings, options);
  EXPECT_EQ(curve.solver, SolverType::kSap);
  EXPECT_EQ(curve.series, SolverSeries(SolverType::kSap));
  ASSERT_FALSE(curve.points.empty());
  EXPECT_EQ(reported, static_cast<int>(curve.points.size()));
  EXPECT_FALSE(curve.cancelled);
  const std::vector<int> caps = RaceCaps(SolverIterationCap(settings));
  const IterationLog& log = full.stats.iteration_log;
  for (size_t i = 0; i < curve.points.size(); ++i) {
    const RacePoint& p = curve.points[i];
    EXPECT_EQ(p.cap, caps[i]);
    EXPECT_EQ(p.iterations, std::min(p.cap, full.stats.iterations)) << "cap " << p.cap;
    EXPECT_GT(p.solve_ms, 0);
    EXPECT_TRUE(std::isfinite(p.ncp_residual));
    // The last row of the capped solve's log is row `iterations` of the full log.
    ASSERT_EQ(p.final_row.size(), static_cast<size_t>(log.num_series()));
    for (int k = 0; k < log.num_series(); ++k) {
      const double a = p.final_row[k], b = log(p.iterations, k);
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b)))
          << "cap " << p.cap << " series " << log.table()[k].key << ": " << a << " vs " << b;
    }
    const bool last = i + 1 == curve.points.size();
    EXPECT_EQ(p.status, last ? SolverStatus::kConverged : SolverStatus::kMaxIterations);
  }
  // The race stops at the first cap the solve converges under.
  EXPECT_GE(curve.points.back().cap, full.stats.iterations);
  EXPECT_LT(curve.points[curve.points.size() - 2].cap, full.stats.iterations);
  EXPECT_EQ(curve.points.back().ncp_residual, NcpResidualOrNan(record.problem, full));
  // The residual at convergence is far below the one-iteration residual.
  EXPECT_LT(curve.points.back().ncp_residual, curve.points.front().ncp_residual);
}

TEST(RaceFrozenStep, EndsAtTheConfigurationsOwnCap) {
  const StepRecord record = RecordStep("clutter_40_walls.yaml", 60);
  Scene scene = LoadScene(ScenePath("clutter_40_walls.yaml"), {"solver.max_iterations=3"});
  RaceOptions options;
  options.min_repeats = options.max_repeats = 1;
  const RaceCurve curve = RaceFrozenStep(record, scene.settings, options);
  ASSERT_EQ(curve.points.size(), 3u);
  EXPECT_EQ(curve.points.back().cap, 3);
  EXPECT_EQ(curve.points.back().status, SolverStatus::kMaxIterations);
}

TEST(RaceFrozenStep, ACancelledRaceStopsBetweenSolves) {
  const StepRecord record = RecordStep("clutter_40_walls.yaml", 60);
  Scene scene = LoadScene(ScenePath("clutter_40_walls.yaml"));
  std::atomic<bool> cancel{false};
  RaceOptions options;
  options.min_repeats = options.max_repeats = 1;
  options.cancel = &cancel;
  options.on_point = [&](const RacePoint&) { cancel = true; };  // cancelled after one point
  const RaceCurve curve = RaceFrozenStep(record, scene.settings, options);
  EXPECT_TRUE(curve.cancelled);
  EXPECT_EQ(curve.points.size(), 1u);
}

TEST(RaceFrozenStep, RefusedParametersThrow) {
  const StepRecord record = RecordStep("box_stack.yaml", 5);
  StepSettings settings;
  settings.sap.sigma = -1;  // out of range
  EXPECT_THROW(RaceFrozenStep(record, settings), std::invalid_argument);
}

// `contactlab compare --step N` and the viewer's race are the same computation: the CLI's race
// points are RaceFrozenStep's on the same recorded step (timings aside).
TEST(RaceFrozenStep, CompareCommandRacesTheSameWay) {
  CompareOptions options;
  options.configs = {"sap", "sap:solver.max_iterations=4"};
  options.steps = 12;
  options.race_step = 10;
  std::ostringstream out;
  const std::vector<CompareResult> results =
      RunCompare(ScenePath("box_stack.yaml"), options, "", out);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_NE(out.str().find("race on step 10"), std::string::npos) << out.str();
  const StepRecord record = RecordStep("box_stack.yaml", 10);
  for (size_t c = 0; c < 2; ++c) {
    std::vector<std::string> overrides = ConfigOverrides(options.configs[c]);
    Scene scene = LoadScene(ScenePath("box_stack.yaml"), overrides);
    RaceOptions ro;
    ro.min_repeats = ro.max_repeats = 1;
    const RaceCurve curve = RaceFrozenStep(record, scene.settings, ro);
    ASSERT_EQ(curve.points.size(), results[c].race.size()) << options.configs[c];
    for (size_t i = 0; i < curve.points.size(); ++i) {
      EXPECT_EQ(curve.points[i].cap, results[c].race[i].cap);
      EXPECT_EQ(curve.points[i].iterations, results[c].race[i].iterations);
      EXPECT_EQ(curve.points[i].status, results[c].race[i].status);
      EXPECT_EQ(curve.points[i].ncp_residual, results[c].race[i].ncp_residual);
    }
  }
}

TEST(StepSummary, TheStepsNumbersAndBodies) {
  Scene scene = LoadScene(ScenePath("box_stack.yaml"));
  Simulator sim(scene.model, scene.settings);
  StepRecord record;
  for (int k = 0; k < 30; ++k) record = sim.Step();
  KinematicsCache kin;
  const StepSummary s = SummarizeStep(sim.multibody(), record, &kin);
  EXPECT_EQ(s.step, record.step);
  EXPECT_EQ(s.time, record.after.time);
  EXPECT_EQ(s.iterations, record.result.stats.iterations);
  EXPECT_EQ(s.solve_ms, record.timings.solve_ms);
  EXPECT_EQ(s.max_penetration, record.metrics.max_penetration);
  EXPECT_EQ(s.total_energy, record.metrics.kinetic_energy + record.metrics.potential_energy);
  EXPECT_EQ(s.ncp_residual, ComputeNcpResidual(record.problem, record.result).residual);
  EXPECT_EQ(s.failed, record.Failed());
  EXPECT_EQ(s.q, record.after.q);
  ASSERT_EQ(s.body_com.size(), scene.model.bodies.size());
  KinematicsCache direct;
  sim.multibody().UpdateKinematics(record.after.q, record.after.time, &direct);
  for (size_t b = 0; b < s.body_com.size(); ++b) EXPECT_EQ(s.body_com[b], direct.com_W[b]);
}

TEST(StepSummary, MaxBodyDistanceNamesTheFarthestBody) {
  const std::vector<Vec3> a{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 2, 0)};
  std::vector<Vec3> b = a;
  int body = -2;
  EXPECT_EQ(MaxBodyDistance(a, b, &body), 0.0);
  EXPECT_EQ(body, 0);
  b[2] += Vec3(0, 0, 0.5);
  b[1] += Vec3(0.1, 0, 0);
  EXPECT_DOUBLE_EQ(MaxBodyDistance(a, b, &body), 0.5);
  EXPECT_EQ(body, 2);
  b[0].x() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(MaxBodyDistance(a, b, &body), std::numeric_limits<double>::infinity());
  EXPECT_EQ(body, 0);
  EXPECT_EQ(MaxBodyDistance({}, b, &body), 0.0);
  EXPECT_EQ(body, -1);
}

}  // namespace
}  // namespace contactlab
