// Tests of the debugger's timeline (History), resuming from a recorded step, the what-if
// re-solve and the breakpoints.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/inspect/breakpoints.h"
#include "engine/inspect/history.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

Scene Load(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name, overrides);
}

// Bitwise equality (distinguishes −0 from +0 and compares NaN payloads).
bool SameBits(const VecX& a, const VecX& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

TEST(History, ScrubBackAndResumeReproducesTheTrajectoryBitForBit) {
  // Clutter: 40 bodies falling into a box, with contacts appearing and changing every step.
  Scene scene = Load("clutter_40_walls.yaml");
  Simulator sim(scene.model, scene.settings);
  History history(1000);
  const int kSteps = 70, kResume = 45;
  for (int i = 0; i < kSteps; ++i) history.Push(sim.Step());
  ASSERT_EQ(history.size(), kSteps);
  ASSERT_EQ(history.oldest_step(), 0);
  ASSERT_EQ(history.newest_step(), kSteps - 1);
  // The steps after the resume point have contacts (otherwise the test would prove little).
  ASSERT_GT(history.Get(kSteps - 1)->metrics.num_contacts, 0);
  const std::vector<StepRecord> original(
      [&] {
        std::vector<StepRecord> v;
        for (int i = 0; i < history.size(); ++i) v.push_back(history.At(i));
        return v;
      }());

  // Scrub back to step kResume and continue from there.
  history.ResumeFrom(*history.Get(kResume), &sim);
  EXPECT_EQ(history.newest_step(), kResume);
  EXPECT_EQ(sim.state().time, original[kResume].after.time);
  for (int i = kResume + 1; i < kSteps; ++i) history.Push(sim.Step());
  ASSERT_EQ(history.newest_step(), kSteps - 1);
  ASSERT_EQ(history.size(), kSteps);
  for (int i = kResume + 1; i < kSteps; ++i) {
    const StepRecord& a = original[i];
    const StepRecord* b = history.Get(i);
    ASSERT_NE(b, nullptr) << "step " << i;
    EXPECT_EQ(b->step, i);
    EXPECT_EQ(b->after.time, a.after.time) << "step " << i;
    EXPECT_TRUE(SameBits(b->after.q, a.after.q)) << "step " << i;
    EXPECT_TRUE(SameBits(b->after.v, a.after.v)) << "step " << i;
    EXPECT_EQ(b->result.stats.iterations, a.result.stats.iterations) << "step " << i;
    EXPECT_EQ(b->contacts.size(), a.contacts.size()) << "step " << i;
  }
}

TEST(History, ResumeFromTheNewestStepContinuesWithoutChange) {
  Scene scene = Load("box_on_ramp.yaml");
  Simulator a(scene.model, scene.settings), b(scene.model, scene.settings);
  History history(100);
  for (int i = 0; i < 10; ++i) history.Push(a.Step());
  for (int i = 0; i < 10; ++i) b.Step();
  history.ResumeFrom(*history.Get(9), &a);  // a no-op for the state: after == current state
  EXPECT_EQ(history.newest_step(), 9);
  for (int i = 0; i < 5; ++i) {
    history.Push(a.Step());
    const StepRecord& rb = b.Step();
    EXPECT_TRUE(SameBits(history.Get(10 + i)->after.q, rb.after.q));
    EXPECT_TRUE(SameBits(history.Get(10 + i)->after.v, rb.after.v));
  }
}

TEST(History, KeepsTheNewestStepsUpToTheCount) {
  Scene scene = Load("box_on_ramp.yaml");
  Simulator sim(scene.model, scene.settings);
  History history(5);
  std::vector<VecX> q;
  for (int i = 0; i < 12; ++i) {
    history.Push(sim.Step());
    q.push_back(sim.state().q);
    EXPECT_LE(history.size(), 5);
  }
  EXPECT_EQ(history.size(), 5);
  EXPECT_EQ(history.oldest_step(), 7);
  EXPECT_EQ(history.newest_step(), 11);
  EXPECT_EQ(history.Get(6), nullptr);
  EXPECT_EQ(history.Get(12), nullptr);
  for (int s = 7; s <= 11; ++s) {
    ASSERT_NE(history.Get(s), nullptr);
    EXPECT_EQ(history.Get(s)->step, s);
    EXPECT_TRUE(SameBits(history.Get(s)->after.q, q[s]));
  }
  EXPECT_EQ(history.At(0).step, 7);
  history.set_limits(2, history.max_bytes());
  EXPECT_EQ(history.size(), 2);
  EXPECT_EQ(history.oldest_step(), 10);
  history.Clear();
  EXPECT_TRUE(history.empty());
  EXPECT_EQ(history.bytes(), 0u);
  EXPECT_EQ(history.oldest_step(), -1);
  EXPECT_EQ(history.newest_step(), -1);
}

TEST(History, EvictsTheOldestStepsBeyondTheMemoryBudget) {
  Scene scene = Load("box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  // Record sizes grow with the contacts and matrices: a stack with contacts weighs more than an
  // empty record.
  const StepRecord& first = sim.Step();
  EXPECT_GT(ApproximateRecordBytes(first), ApproximateRecordBytes(StepRecord{}));
  const std::size_t one = ApproximateRecordBytes(first);
  ASSERT_GT(first.metrics.num_contacts, 0);

  const std::size_t budget = 3 * one + one / 2;  // room for about three records
  History history(1000, budget);
  std::vector<std::size_t> sizes;
  for (int i = 0; i < 20; ++i) {
    const StepRecord& r = sim.Step();
    sizes.push_back(ApproximateRecordBytes(r));
    history.Push(r);
    EXPECT_LE(history.bytes(), budget);
  }
  // The held records are the newest ones, and one more (the next older) would not fit.
  EXPECT_EQ(history.newest_step(), 20);
  ASSERT_GE(history.size(), 2);
  std::size_t held = 0;
  for (int i = 0; i < history.size(); ++i) held += ApproximateRecordBytes(history.At(i));
  EXPECT_EQ(held, history.bytes());
  const int next_older = history.oldest_step() - 1;  // sizes[k] is step k + 1
  EXPECT_GT(held + sizes[next_older - 1], budget);

  // A record larger than the whole budget is still kept (the newest is always held).
  History tiny(1000, 10);
  tiny.Push(sim.Step());
  tiny.Push(sim.Step());
  EXPECT_EQ(tiny.size(), 1);
  EXPECT_EQ(tiny.newest_step(), 22);
}

TEST(History, PushingARepeatedStepReplacesItAndItsSuccessors) {
  Scene scene = Load("box_on_ramp.yaml");
  Simulator sim(scene.model, scene.settings);
  History history(100);
  std::vector<StepRecord> recs;
  for (int i = 0; i < 6; ++i) recs.push_back(sim.Step());
  for (const StepRecord& r : recs) history.Push(r);
  StepRecord again = recs[3];
  again.metrics.kinetic_energy = 123.0;
  history.Push(again);
  EXPECT_EQ(history.newest_step(), 3);
  EXPECT_EQ(history.size(), 4);
  EXPECT_EQ(history.Get(3)->metrics.kinetic_energy, 123.0);
}

TEST(WhatIf, ResolvingWithTheRunsParametersReproducesTheRecordedSolve) {
  Scene scene = Load("clutter_40_walls.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int i = 0; i < 60; ++i) sim.Step();
  const StepRecord record = sim.Step();
  ASSERT_GT(record.metrics.num_contacts, 10);
  ASSERT_GT(record.result.stats.iterations, 1);
  const ResolveComparison c = CompareResolve(sim, record, scene.settings.sap);
  EXPECT_EQ(c.before.stats.iterations, record.result.stats.iterations);
  EXPECT_TRUE(SameBits(c.before.v, record.result.v));
  EXPECT_EQ(c.after.stats.status, record.result.stats.status);
  EXPECT_EQ(c.after.stats.iterations, record.result.stats.iterations);
  EXPECT_TRUE(SameBits(c.after.v, record.result.v));
  EXPECT_TRUE(SameBits(c.after.gamma, record.result.gamma));
  const IterationLog& after = c.after.stats.iteration_log;
  const IterationLog& recorded = record.result.stats.iteration_log;
  ASSERT_EQ(after.num_rows(), recorded.num_rows());
  ASSERT_EQ(after.num_series(), recorded.num_series());
  for (int k = 0; k < after.num_rows(); ++k) {
    for (int s = 0; s < after.num_series(); ++s) {
      // Same bits, or both NaN (a series not recorded).
      EXPECT_TRUE(after(k, s) == recorded(k, s) ||
                  (std::isnan(after(k, s)) && std::isnan(recorded(k, s))))
          << k << " " << after.table()[s].key;
    }
  }
}

TEST(WhatIf, StictionSlipScalesWithSigma) {
  // μ = 0.5 > tan 15°: the box sticks to the ramp. In stiction v_t = −R_t γ_t with
  // R_t = σ w (eq. 30), and γ_t is the impulse that holds the box, nearly independent of σ, so
  // the slip is proportional to σ.
  Scene scene = Load("box_on_ramp.yaml", {"materials.ramp.friction=0.5"});
  Simulator sim(scene.model, scene.settings);
  for (int i = 0; i < 100; ++i) sim.Step();
  const StepRecord record = sim.Step();
  const double slip0 = MeanStictionSlip(record.problem, record.result);
  ASSERT_GT(slip0, 0);
  EXPECT_EQ(slip0, record.metrics.mean_stiction_slip);  // same definition as the simulator's

  // The holding impulse is γ_t = m (v*_t − v_t) per unit mass and v*_t = v0_t + g sin 15° δt,
  // with v0_t ≈ slip0 (steady creep): changing σ changes the slip v_t and therefore γ_t by the
  // relative amount −(slip − slip0) / (g sin 15° δt). The prediction to first order:
  //   slip(σ') / slip0 = (σ'/σ) (1 − (slip(σ') − slip0) / (g sin 15° δt)).
  const double g_dt = 9.81 * std::sin(15.0 * kPi / 180.0) * scene.settings.time_step;
  for (double factor : {0.1, 10.0}) {
    SapParameters p = scene.settings.sap;
    p.sigma = scene.settings.sap.sigma * factor;
    const ResolveComparison c = CompareResolve(sim, record, p);
    ASSERT_EQ(c.after.stats.status, SolverStatus::kConverged);
    for (Regime r : c.after.regime) EXPECT_EQ(r, Regime::kStiction);
    const double slip = MeanStictionSlip(record.problem, c.after);
    const double predicted = factor * (1.0 - (slip - slip0) / g_dt);
    // Plain proportionality holds to the impulse change (1% for factor 10, see above) ...
    EXPECT_NEAR(slip / slip0 / factor, 1.0, 0.02) << "factor " << factor;
    // ... and the first-order prediction to the second-order terms and the box's rotation
    // (ε_r = 1e-6 on γ is far smaller); 0.2% leaves margin over the 0.01% observed.
    EXPECT_NEAR(slip / slip0 / predicted, 1.0, 2e-3) << "factor " << factor;
  }
}

// Breakpoints on hand-made records: each condition alone, then none, then several.
StepRecord QuietRecord() {
  StepRecord r;
  r.step = 7;
  r.result.stats.status = SolverStatus::kConverged;
  r.result.stats.iterations = 3;
  r.result.stats.momentum_error = 1e-8;
  r.metrics.max_penetration = 1e-5;
  return r;
}

TEST(Breakpoints, QuietStepDoesNotPause) {
  BreakpointSettings s;
  s.max_penetration = 1e-3;
  s.max_residual = 1e-6;
  EXPECT_FALSE(CheckBreakpoints(QuietRecord(), s, 100).has_value());
}

TEST(Breakpoints, PausesOnSolverFailure) {
  for (SolverStatus st : {SolverStatus::kLineSearchFailure, SolverStatus::kNonFiniteInput,
                          SolverStatus::kFactorizationFailure, SolverStatus::kNonFiniteState,
                          SolverStatus::kMemoryBudgetExceeded}) {
    StepRecord r = QuietRecord();
    r.result.stats.status = st;
    r.result.stats.message = "detail";
    const auto reason = CheckBreakpoints(r, BreakpointSettings{}, 100);
    ASSERT_TRUE(reason.has_value()) << SolverStatusName(st);
    EXPECT_NE(reason->find("solver failure"), std::string::npos) << *reason;
    EXPECT_NE(reason->find(SolverStatusName(st)), std::string::npos) << *reason;
    EXPECT_NE(reason->find("detail"), std::string::npos) << *reason;
    BreakpointSettings off;
    off.on_failure = false;
    EXPECT_FALSE(CheckBreakpoints(r, off, 100).has_value());
  }
}

// The implicit free motion (stage 1) of a swinging chain is nonlinear (Coriolis terms, gravity
// torques that depend on q^θ): one Newton iteration cannot meet a 1e-12 relative tolerance, 20
// can. A step whose free motion did not converge says so and pauses the run like a solver failure.
TEST(Breakpoints, PausesWhenTheFreeMotionDidNotConverge) {
  Scene one = Load("pendulum_chain.yaml", {"integrator=implicit_euler",
                                           "free_motion.max_iterations=1"});
  Simulator sim(one.model, one.settings);
  const StepRecord& r = sim.Step();
  EXPECT_FALSE(r.free_motion.converged);
  EXPECT_EQ(r.free_motion.iterations, 1);
  EXPECT_GT(r.free_motion.residual, one.settings.free_motion_tolerance);
  const auto reason = CheckBreakpoints(r, BreakpointSettings{}, 100);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("free motion did not converge"), std::string::npos) << *reason;
  BreakpointSettings off;
  off.on_failure = false;
  EXPECT_FALSE(CheckBreakpoints(r, off, 100).has_value());

  Scene many = Load("pendulum_chain.yaml", {"integrator=implicit_euler"});
  Simulator sim2(many.model, many.settings);
  const StepRecord& r2 = sim2.Step();
  EXPECT_TRUE(r2.free_motion.converged) << r2.free_motion.residual;
  EXPECT_GT(r2.free_motion.iterations, 1);
  EXPECT_LE(r2.free_motion.residual, many.settings.free_motion_tolerance);
  EXPECT_FALSE(CheckBreakpoints(r2, BreakpointSettings{}, 1000).has_value());

  // Explicit schemes take one solve and always count as converged.
  Scene expl = Load("pendulum_chain.yaml");
  Simulator sim3(expl.model, expl.settings);
  EXPECT_TRUE(sim3.Step().free_motion.converged);
}

TEST(Breakpoints, PausesAtTheIterationCap) {
  StepRecord r = QuietRecord();
  r.result.stats.status = SolverStatus::kMaxIterations;
  r.result.stats.iterations = 100;
  auto reason = CheckBreakpoints(r, BreakpointSettings{}, 100);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("iteration cap"), std::string::npos) << *reason;
  // Converged exactly at the cap also counts (it needed every iteration allowed).
  r.result.stats.status = SolverStatus::kConverged;
  EXPECT_TRUE(CheckBreakpoints(r, BreakpointSettings{}, 100).has_value());
  EXPECT_FALSE(CheckBreakpoints(r, BreakpointSettings{}, 101).has_value());
  BreakpointSettings off;
  off.on_iteration_cap = false;
  r.result.stats.status = SolverStatus::kMaxIterations;
  EXPECT_FALSE(CheckBreakpoints(r, off, 100).has_value());
}

TEST(Breakpoints, PausesOnPenetration) {
  StepRecord r = QuietRecord();
  BreakpointSettings s;
  s.max_penetration = 1e-3;
  r.metrics.max_penetration = 1e-3;  // at the threshold: no pause
  EXPECT_FALSE(CheckBreakpoints(r, s, 100).has_value());
  r.metrics.max_penetration = 2e-3;
  const auto reason = CheckBreakpoints(r, s, 100);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("penetration"), std::string::npos) << *reason;
  EXPECT_FALSE(CheckBreakpoints(r, BreakpointSettings{}, 100).has_value());  // inf: disabled
}

TEST(Breakpoints, PausesOnResidual) {
  StepRecord r = QuietRecord();
  BreakpointSettings s;
  s.max_residual = 1e-6;
  r.result.stats.momentum_error = 1e-4;
  auto reason = CheckBreakpoints(r, s, 100);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("residual"), std::string::npos) << *reason;
  r.result.stats.momentum_error = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(CheckBreakpoints(r, s, 100).has_value());
  EXPECT_FALSE(CheckBreakpoints(r, BreakpointSettings{}, 100).has_value());  // inf: disabled
}

// Each divergence warning pauses unless its bit is cleared; the reason carries the warning's
// message.
TEST(Breakpoints, PausesOnADivergenceWarning) {
  for (int w = 0; w < kNumStepWarnings; ++w) {
    StepRecord r = QuietRecord();
    const StepWarning warning = static_cast<StepWarning>(w);
    r.diagnostics.warnings = 1u << w;
    r.diagnostics.message = std::string(StepWarningName(warning)) + ": detail";
    const auto reason = CheckBreakpoints(r, BreakpointSettings{}, 100);
    ASSERT_TRUE(reason.has_value()) << StepWarningName(warning);
    EXPECT_NE(reason->find(StepWarningName(warning)), std::string::npos) << *reason;
    EXPECT_NE(reason->find("step 7"), std::string::npos) << *reason;
    BreakpointSettings off;
    off.on_warnings &= ~(1u << w);
    EXPECT_FALSE(CheckBreakpoints(r, off, 100).has_value()) << StepWarningName(warning);
  }
}

TEST(Breakpoints, ReportsEveryConditionThatHolds) {
  StepRecord r = QuietRecord();
  r.result.stats.status = SolverStatus::kLineSearchFailure;
  r.metrics.max_penetration = 1.0;
  BreakpointSettings s;
  s.max_penetration = 0.1;
  const auto reason = CheckBreakpoints(r, s, 100);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("solver failure"), std::string::npos);
  EXPECT_NE(reason->find("; "), std::string::npos);
  EXPECT_NE(reason->find("penetration"), std::string::npos);
  EXPECT_NE(reason->find("step 7"), std::string::npos);
  // The step is named once, at the start ("step 7: a; b", never "step 7: a; step 7: b").
  EXPECT_EQ(reason->rfind("step 7: ", 0), 0u) << *reason;
  EXPECT_EQ(reason->find("step 7", 1), std::string::npos) << *reason;
}

TEST(Breakpoints, APausedRunStopsAtTheFirstMatchingStep) {
  // A box dropped into the ramp with a tight penetration bound: the run pauses at a contact step.
  Scene scene = Load("box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  BreakpointSettings s;
  s.max_penetration = 1e-7;
  int paused_at = -1;
  for (int i = 0; i < 200 && paused_at < 0; ++i) {
    const StepRecord& r = sim.Step();
    if (CheckBreakpoints(r, s, scene.settings.sap.max_iterations)) paused_at = r.step;
  }
  ASSERT_GE(paused_at, 0);
  EXPECT_EQ(sim.step_count(), paused_at + 1);
}

}  // namespace
}  // namespace contactlab
