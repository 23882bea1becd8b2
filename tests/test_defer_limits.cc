// StepSettings::defer_limits: joint-limit sides out of reach are left out of the step's problem
// and checked after the solve; a side that would act makes the step solve again with every limit
// (StepRecord::limit_resolves). The trajectories with and without deferral agree to the solver
// tolerance, the re-solve fires when a contact drives a joint into a limit left out, and the
// recorded problem of such a step re-solves to the recorded velocities bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/contact/contact_problem.h"
#include "engine/sim/simulator.h"
#include "engine/solvers/sap/sap_solver.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

const char* const kHumanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";

Scene Load(const std::string& relative) {
  return LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + relative);
}

bool SameBits(const VecX& a, const VecX& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

int LimitRows(const ContactProblem& p) {
  int n = 0;
  for (const ConstraintData& c : p.constraints) {
    n += c.kind == ConstraintKind::kUnilateral && (c.key >> 63) == 1 && ((c.key >> 62) & 1) == 0;
  }
  return n;
}

// Limit sides of the model (finite bounds of limited 1-dof joints): what AssembleProblem puts in
// without deferral.
int LimitSides(const Model& m) {
  int n = 0;
  for (const Joint& j : m.joints) {
    if (!j.limited || j.child < 0 ||
        (j.type != JointType::kRevolute && j.type != JointType::kPrismatic))
      continue;
    n += std::isfinite(j.lower) + std::isfinite(j.upper);
  }
  return n;
}

struct RunStats {
  int steps = 0, steps_deferring = 0, resolves = 0, deferred_total = 0;
  int rows_with_defer = 0;  // steps with defer on that have limit rows
  double max_dv = 0, max_dq = 0;
};

// Runs `steps` steps with defer_limits on and off from the same start. Both runs solve to
// rel_tolerance 1e-10; per step the solutions differ by about that (the SAP stopping criterion is
// relative to the velocities' scale), and the difference carried through the steps grows with
// the contact dynamics' sensitivity.
RunStats CompareRuns(Scene scene, int steps, const char* name) {
  scene.settings.sap.rel_tolerance = 1e-10;
  StepSettings on = scene.settings, off = scene.settings;
  on.defer_limits = true;
  off.defer_limits = false;
  Simulator a(scene.model, on), b(scene.model, off);
  RunStats st;
  const int sides = LimitSides(scene.model);
  for (int s = 0; s < steps; ++s) {
    const StepRecord& ra = a.Step();
    const StepRecord& rb = b.Step();
    EXPECT_FALSE(ra.Failed()) << name << " step " << s << ": " << ra.result.stats.message;
    EXPECT_FALSE(rb.Failed()) << name << " step " << s << ": " << rb.result.stats.message;
    EXPECT_EQ(rb.deferred_limits, 0);
    EXPECT_EQ(rb.limit_resolves, 0);
    // Every side is either a row or deferred.
    EXPECT_EQ(LimitRows(ra.problem) + ra.deferred_limits, sides) << name << " step " << s;
    EXPECT_EQ(LimitRows(rb.problem), sides) << name << " step " << s;
    st.steps_deferring += ra.deferred_limits > 0;
    st.deferred_total += ra.deferred_limits;
    st.rows_with_defer += LimitRows(ra.problem) > 0;
    st.resolves += ra.limit_resolves;
    const double vs = 1 + rb.after.v.lpNorm<Eigen::Infinity>();
    st.max_dv = std::max(st.max_dv, (ra.after.v - rb.after.v).lpNorm<Eigen::Infinity>() / vs);
    st.max_dq = std::max(st.max_dq, (ra.after.q - rb.after.q).lpNorm<Eigen::Infinity>());
  }
  st.steps = steps;
  std::printf(
      "%s: %d steps, %d with sides deferred (%d side-steps, %d sides), %d re-solves; "
      "max |Δv|/(1+|v|) %.3g, max |Δq| %.3g\n",
      name, st.steps, st.steps_deferring, st.deferred_total, sides, st.resolves, st.max_dv,
      st.max_dq);
  return st;
}

// Tolerances of the equivalence runs: each solve stops within rel_tolerance = 1e-10 of the exact
// step (relative to the velocities' scale), so a step's velocities with and without the deferred
// rows differ by ~1e-10 (1 + |v|); carried through the steps of a dissipative landing that stays
// within 100 times that: |Δv| <= 1e-8 (1 + |v|∞) per step, and |Δq| <= Σ δt |Δv| <= 1e-8 m (rad)
// over runs of at most 2 s at |v| of a few m/s. Measured: humanoid 6e-11 and 1e-12; the robot
// and the gripper bit for bit (their limits stay out of reach, the rows left out carry zero).
void ExpectEquivalent(const RunStats& st, const char* name, bool limits_come_into_reach) {
  EXPECT_LT(st.max_dv, 1e-8) << name;
  EXPECT_LT(st.max_dq, 1e-8) << name;
  // The runs exercise the deferral: sides are left out in some steps.
  EXPECT_GT(st.steps_deferring, 0) << name;
  if (limits_come_into_reach) {
    EXPECT_GT(st.rows_with_defer, 0) << name;
  }
}

TEST(DeferLimits, HumanoidTrajectoryEqualsEveryLimitAsARow) {
  if (!fs::exists(kHumanoid)) {
    GTEST_SKIP() << kHumanoid << " missing (Debian package libmujoco-samples)";
  }
  const Scene scene = LoadScene(kHumanoid);
  const RunStats st =
      CompareRuns(scene, static_cast<int>(std::round(2.0 / scene.settings.time_step)), "humanoid");
  // The humanoid lands and folds: some sides come within reach and are rows, the rest deferred.
  ExpectEquivalent(st, "humanoid", true);
}

TEST(DeferLimits, RobotDishPileTrajectoryEqualsEveryLimitAsARow) {
  ExpectEquivalent(CompareRuns(Load("paper/robot_dish_pile.yaml"), 240, "robot_dish_pile"),
                   "robot_dish_pile", false);
}

TEST(DeferLimits, GripperTrajectoryEqualsEveryLimitAsARow) {
  ExpectEquivalent(CompareRuns(Load("gripper.yaml"), 1500, "gripper"), "gripper", false);
}

// A bar hinged at the world about z, at rest `gap` rad below its upper limit, struck at its tip
// by a free 1 kg sphere moving at `speed` (no gravity): the limit side is out of reach at the
// step's start (v0 = v* = 0 on the hinge, gap >= 2 δt · 0 + 1e-3) and the impact drives the hinge
// into it within the step (a 5 m/s strike gives the bar ~0.5 rad/s, 0.005 rad in δt = 10 ms).
std::string StruckBarScene(double speed, double gap) {
  char buf[2000];
  std::snprintf(buf, sizeof(buf), R"(time_step: 0.01
duration: 1
gravity: [0, 0, 0]
materials: [{name: m, stiffness: 1e6, dissipation_time: 0.01, friction: 0}]
bodies:
  - name: bar
    mass: 1
    position: [0.5, 0, 0]
    joint: {type: revolute, axis: [0, 0, 1], child_frame: {position: [-0.5, 0, 0]}, limits: [-1, %.17g]}
    geoms: [{shape: box, size: [1, 0.1, 0.1], material: m}]
  - name: ball
    mass: 1
    position: [0.9, -0.2, 0]
    velocity: [0, %.17g, 0]
    geoms: [{shape: sphere, radius: 0.05, material: m}]
)",
                gap, speed);
  return buf;
}

// The re-solve: a step with a side left out that the first solve would drive through its limit is
// solved again with that side as a row; the recorded problem then has the upper side as a loaded
// row, no side it still leaves out would act at its solution, and the trajectory equals the run
// without deferral. The recorded problem
// re-solved from before.v by a fresh SapSolver (what export-step's guess.txt and Resolve do) gives
// the recorded velocities bit for bit.
TEST(DeferLimits, StruckBarResolvesWithEveryLimit) {
  for (const double speed : {5.0, 20.0}) {
    SCOPED_TRACE("speed " + std::to_string(speed));
    Scene scene = ParseScene(StruckBarScene(speed, 0.005), "struck_bar.yaml");
    scene.settings.sap.rel_tolerance = 1e-10;
    StepSettings off = scene.settings;
    off.defer_limits = false;
    ASSERT_TRUE(scene.settings.defer_limits);  // the default
    Simulator sim(scene.model, scene.settings), ref(scene.model, off);
    const Scene far_scene = ParseScene(StruckBarScene(speed, 1.0), "struck_bar_far.yaml");
    Simulator far(far_scene.model, scene.settings);
    const int hinge = scene.model.FindJoint("bar");
    ASSERT_GE(hinge, 0);
    const int dof = scene.model.joints[hinge].v_start;
    int resolves = 0;
    double max_dv = 0, max_dq = 0, rate = 0, free_rate = 0;
    for (int s = 0; s < 40; ++s) {
      const StepRecord& rec = sim.Step();
      const StepRecord& rr = ref.Step();
      const StepRecord& far_rec = far.Step();
      ASSERT_FALSE(rec.Failed()) << "step " << s << ": " << rec.result.stats.message;
      ASSERT_FALSE(rr.Failed()) << "step " << s << ": " << rr.result.stats.message;
      max_dv = std::max(max_dv, (rec.after.v - rr.after.v).lpNorm<Eigen::Infinity>() /
                                    (1 + rr.after.v.lpNorm<Eigen::Infinity>()));
      max_dq = std::max(max_dq, (rec.after.q - rr.after.q).lpNorm<Eigen::Infinity>());
      EXPECT_LE(rec.limit_resolves, 3);
      if (rec.limit_resolves == 0) {
        EXPECT_EQ(rec.earlier_iterations, 0);
        continue;
      }
      ++resolves;
      SCOPED_TRACE("re-solved step " + std::to_string(s));
      // The step started with the side out of reach by the deferral criterion.
      const double gap = scene.model.joints[hinge].upper - rec.before.q(dof);
      const double approach = std::max({0.0, rec.problem.v0(dof), rec.problem.v_star(dof)});
      EXPECT_GE(gap, 2 * scene.settings.time_step * approach + 1e-3);
      // Solved again with the upper side as a row (the lower one, 1 rad away, stays left out)
      // and it acting.
      EXPECT_EQ(rec.limit_resolves, 1);
      EXPECT_EQ(rec.deferred_limits, 1);
      EXPECT_EQ(LimitRows(rec.problem), 1);
      EXPECT_GT(rec.earlier_iterations, 0);
      int upper_row = -1;
      for (const ConstraintData& c : rec.problem.constraints) {
        if (c.key == ConstraintKeyOfLimit(hinge, 1)) upper_row = c.first_row;
      }
      ASSERT_GE(upper_row, 0);
      EXPECT_GT(rec.result.gamma(upper_row), 0) << "the upper limit carries no impulse";
      // Without the limit the hinge would have passed it within this step (the same bar with its
      // limit 1 rad away, in lockstep: the same start state), while with it the end-of-step gap
      // φ0 − δt v is ~0 (a near-rigid row lets it in by a small fraction of the step's motion).
      const double dt = scene.settings.time_step;
      ASSERT_TRUE(SameBits(far_rec.before.v, rec.before.v));
      EXPECT_LT(gap - dt * far_rec.after.v(dof), -0.5 * gap)
          << "unconstrained hinge rate " << far_rec.after.v(dof);
      EXPECT_GT(gap - dt * rec.after.v(dof), -0.05 * gap) << "hinge rate " << rec.after.v(dof);
      rate = rec.after.v(dof);
      free_rate = far_rec.after.v(dof);
      // Reproducible: a fresh solver from before.v gives the recorded bits.
      SapSolver fresh(scene.settings.sap, scene.settings.contact);
      SolverResult r;
      fresh.Solve(rec.problem, rec.before.v, &r);
      EXPECT_EQ(r.stats.iterations, rec.result.stats.iterations);
      EXPECT_TRUE(SameBits(r.v, rec.result.v));
      EXPECT_TRUE(SameBits(r.gamma, rec.result.gamma));
      const SolverResult rs = sim.Resolve(rec, scene.settings.sap);
      EXPECT_TRUE(SameBits(rs.v, rec.result.v));
      // The defer-off run's step is the same step to the solver tolerance.
      EXPECT_LT((rec.result.v - rr.result.v).lpNorm<Eigen::Infinity>(),
                1e-8 * (1 + rr.result.v.lpNorm<Eigen::Infinity>()));
    }
    std::printf(
        "speed %g: %d re-solves (hinge rate %.4g rad/s, %.4g without the limit); max "
        "|Δv|/(1+|v|) %.3g, max |Δq| %.3g against defer off\n",
        speed, resolves, rate, free_rate, max_dv, max_dq);
    EXPECT_GE(resolves, 1) << "the strike never drove the hinge into a deferred limit";
    EXPECT_LT(max_dv, 1e-8);
    EXPECT_LT(max_dq, 1e-8);
  }
}

// A slow strike brings the hinge toward the limit over several steps: the side becomes a row by
// the criterion before it acts, and no re-solve is needed.
TEST(DeferLimits, SlowApproachBecomesARowWithoutResolve) {
  Scene scene = ParseScene(StruckBarScene(1.0, 0.005), "struck_bar.yaml");
  Simulator sim(scene.model, scene.settings);
  int rows = 0;
  for (int s = 0; s < 40; ++s) {
    const StepRecord& rec = sim.Step();
    ASSERT_FALSE(rec.Failed());
    EXPECT_EQ(rec.limit_resolves, 0) << "step " << s;
    rows += LimitRows(rec.problem) > 0;
  }
  EXPECT_GT(rows, 0);
}

}  // namespace
}  // namespace contactlab
