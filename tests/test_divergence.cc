// The simulator says when a step fails or diverges: a non-finite state is a failure status of the
// step with the state kept, and the divergence warnings (energy growth, deep penetration,
// excessive speed) fire on constructed cases and stay quiet on their controls.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/inspect/breakpoints.h"
#include "engine/sim/simulator.h"
#include "tests/test_models.h"

namespace contactlab {
namespace {

using namespace contactlab::testing;  // NOLINT

// A 1 kg ball of radius 0.1 m, free, at `z`, above a ground of stiffness k.
Model BallOverGround(double z, double k = 1e6, double tau = 0.01) {
  Model m;
  const int mat = AddMaterial(&m, "ground", k, tau, 0.5);
  AddGround(&m, Pose{}, mat);
  Pose p;
  p.p = Vec3(0, 0, z);
  const int b = AddFreeBody(&m, "ball", 1.0, SphereInertia(1.0, 0.1), p);
  AddGeom(&m, b, SphereShape(0.1), mat);
  m.Finalize();
  return m;
}

// ---------------------------------------------------------------------------------------------
// Non-finite state.

TEST(NonFiniteState, HugeVelocityFailsTheStepAndKeepsTheState) {
  StepSettings s;
  s.time_step = 1e-3;
  Simulator sim(BallOverGround(1.0), s);
  State st = sim.state();
  st.v(2) = 1e300;  // finite, but ½ m v² overflows to inf
  sim.set_state(st);
  EXPECT_NE(sim.NonFiniteQuantity(sim.state()), "");
  const StepRecord& rec = sim.Step();
  EXPECT_EQ(rec.result.stats.status, SolverStatus::kNonFiniteState);
  EXPECT_TRUE(rec.Failed());
  EXPECT_NE(rec.result.stats.message.find("not finite"), std::string::npos)
      << rec.result.stats.message;
  // The state is kept at the step's start for inspection and the step count does not move.
  EXPECT_EQ(sim.step_count(), 0);
  EXPECT_EQ(rec.after.q, rec.before.q);
  EXPECT_EQ(rec.after.time, rec.before.time);
  EXPECT_TRUE(sim.state().q.allFinite());
}

TEST(NonFiniteState, OverflowingPositionIsReported) {
  // A finite position of 1e308 m overflows the potential energy m g z.
  StepSettings s;
  Simulator sim(BallOverGround(1e308), s);
  const std::string what = sim.NonFiniteQuantity(sim.state());
  EXPECT_NE(what.find("energy"), std::string::npos) << what;
  const StepRecord& rec = sim.Step();
  EXPECT_EQ(rec.result.stats.status, SolverStatus::kNonFiniteState)
      << SolverStatusName(rec.result.stats.status);
  EXPECT_TRUE(std::isfinite(rec.metrics.kinetic_energy));
}

TEST(NonFiniteState, HugePrescribedAngularVelocityFailsInsteadOfNanPoses) {
  Model m;
  Body spinner;
  spinner.name = "spinner";
  spinner.prescribed = true;
  spinner.motion.angular_velocity = Vec3(0, 0, 1e300);
  spinner.pose0.p = Vec3(0, 0, 5);
  m.bodies.push_back(spinner);
  AddGeom(&m, 0, BoxShape(Vec3(0.1, 0.1, 0.1)), 0);
  m.Finalize();
  StepSettings s;
  s.time_step = 1e-3;
  Simulator sim(m, s);
  int failures = 0;
  for (int i = 0; i < 5; ++i) {
    const StepRecord& rec = sim.Step();
    if (rec.Failed()) ++failures;
    // Whatever the step's status, a recorded state never holds NaN poses behind "converged".
    if (rec.result.stats.status == SolverStatus::kConverged) {
      EXPECT_EQ(sim.NonFiniteQuantity(rec.after), "") << "step " << i;
    }
  }
  EXPECT_GT(failures, 0) << "a rotation angle of 1e297 rad has no finite quaternion";
}

TEST(NonFiniteState, BreakpointPausesOnANonFiniteState) {
  Simulator sim(BallOverGround(1.0), StepSettings{});
  State st = sim.state();
  st.v(2) = 1e300;
  sim.set_state(st);
  const StepRecord& rec = sim.Step();
  const std::optional<std::string> reason = CheckBreakpoints(rec, BreakpointSettings{}, 0);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("non_finite_state"), std::string::npos) << *reason;
}

// ---------------------------------------------------------------------------------------------
// Energy growth.

// A prismatic slider of mass 1 kg on a joint spring of stiffness ω² (ω in rad/s), no gravity,
// released at x0 = 0.1 m.
Model SpringSlider(double omega) {
  Model m;
  const int b = AddJointedBody(&m, "slider", -1, JointType::kPrismatic, Vec3::UnitX(), Pose{},
                               Pose{}, 1.0, SphereInertia(1.0, 0.05));
  m.joints[m.bodies[b].joint].spring_stiffness = omega * omega;
  m.Finalize();
  m.q_default(0) = 0.1;
  return m;
}

// Explicit Euler on x'' = −ω² x multiplies the energy by exactly (1 + ω²δt²) every step, with no
// energy source: at ωδt = 1 the energy doubles per step and every step must warn.
TEST(EnergyGrowth, ExplicitEulerSpringWarnsEveryStep) {
  const double omega = 100, dt = 0.01;
  StepSettings s = NoGravity(Integrator::kExplicitEuler);
  s.time_step = dt;
  Simulator sim(SpringSlider(omega), s);
  for (int i = 0; i < 10; ++i) {
    const StepRecord& rec = sim.Step();
    const StepDiagnostics& d = rec.diagnostics;
    // The ledger itself: the energy doubled (closed form, up to round-off).
    EXPECT_NEAR(d.energy_after, 2 * d.energy_before, 1e-9 * d.energy_after);
    EXPECT_TRUE(d.Has(StepWarning::kEnergyGrowth)) << "step " << i;
    EXPECT_FALSE(d.Has(StepWarning::kDeepPenetration));
    EXPECT_NE(d.message.find("energy_growth"), std::string::npos);
  }
  // The warning is a breakpoint condition, and can be switched off.
  BreakpointSettings b;
  EXPECT_TRUE(CheckBreakpoints(sim.last_record(), b, 0).has_value());
  b.on_warnings = 0;
  EXPECT_FALSE(CheckBreakpoints(sim.last_record(), b, 0).has_value());
}

// Control: symplectic Euler at ωδt = 0.1 keeps the energy within a band of relative width
// ~ωδt/2 = 5% (it conserves a modified energy); implicit Euler loses energy. Over ten periods
// neither may warn.
TEST(EnergyGrowth, StableIntegratorsDoNotWarn) {
  const double omega = 10, dt = 0.01;
  for (Integrator integ :
       {Integrator::kSymplecticEuler, Integrator::kImplicitEuler, Integrator::kMidpoint}) {
    StepSettings s = NoGravity(integ);
    s.time_step = dt;
    Simulator sim(SpringSlider(omega), s);
    const int steps = static_cast<int>(10 * 2 * kPi / omega / dt);
    for (int i = 0; i < steps; ++i) {
      const StepRecord& rec = sim.Step();
      ASSERT_EQ(rec.diagnostics.warnings, 0u)
          << IntegratorName(integ) << " step " << i << ": " << rec.diagnostics.message;
    }
  }
}

// Control for the ledger: a constant external load does work F Δx on a free body in zero
// gravity; its kinetic energy grows every step, all of it accounted for as work in.
TEST(EnergyGrowth, WorkOfALoadIsNotAWarning) {
  Model m;
  Pose p;
  const int b = AddFreeBody(&m, "puck", 2.0, SphereInertia(2.0, 0.1), p);
  AddGeom(&m, b, SphereShape(0.1), 0);
  Load load;
  load.name = "push";
  load.body = b;
  load.force[0].value = 50.0;  // [N] along x
  m.loads.push_back(load);
  m.Finalize();
  StepSettings s = NoGravity();
  s.time_step = 1e-3;
  Simulator sim(m, s);
  for (int i = 0; i < 500; ++i) {
    const StepRecord& rec = sim.Step();
    ASSERT_EQ(rec.diagnostics.warnings, 0u) << "step " << i << ": " << rec.diagnostics.message;
    ASSERT_GT(rec.diagnostics.energy_after, rec.diagnostics.energy_before);
    // Work of the step: F v1 δt for symplectic Euler (Δx = v1 δt); the bound takes the larger
    // of |F v0|, |F v1| times δt.
    EXPECT_NEAR(rec.diagnostics.injected_energy, 50.0 * rec.after.v(0) * s.time_step, 1e-12);
  }
}

// Control: a ball dropped on a compliant ground bounces; the contact spring gives back part of
// what it stored, which the ledger allows. No warning over the fall, impact and rest.
TEST(EnergyGrowth, BouncingBallDoesNotWarn) {
  StepSettings s;
  s.time_step = 1e-3;
  Simulator sim(BallOverGround(0.5, 1e5, 1e-3), s);
  for (int i = 0; i < 2000; ++i) {
    const StepRecord& rec = sim.Step();
    ASSERT_EQ(rec.diagnostics.warnings, 0u) << "step " << i << ": " << rec.diagnostics.message;
  }
}

// ---------------------------------------------------------------------------------------------
// Deep penetration.

// A ball of radius 0.1 m started 0.13 m into the ground (center at z = −0.03): deeper than its
// half-thickness (its radius). The warning refers to the contacts at the step's start.
TEST(DeepPenetration, BallStartedDeepInTheGroundWarns) {
  StepSettings s;
  s.time_step = 1e-3;
  Simulator sim(BallOverGround(-0.03), s);
  const StepRecord& rec = sim.Step();
  EXPECT_TRUE(rec.diagnostics.Has(StepWarning::kDeepPenetration)) << rec.diagnostics.message;
  // Allowed depth r = 0.1 m; the contact is 0.13 m deep.
  EXPECT_NEAR(rec.diagnostics.penetration_ratio, 0.13 / 0.1, 1e-9);
}

// Control: the same ball resting on the ground sinks m g / k_pair, where ball and ground (the
// same material, k = 1e5 N/m) act in series: k_pair = k / 2 and the depth is 1.96e-4 m, a ratio
// of 2e-3 to the allowed depth (the radius).
TEST(DeepPenetration, RestingBallDoesNotWarn) {
  StepSettings s;
  s.time_step = 1e-3;
  Simulator sim(BallOverGround(0.1, 1e5), s);
  for (int i = 0; i < 1000; ++i) {
    const StepRecord& rec = sim.Step();
    ASSERT_EQ(rec.diagnostics.warnings, 0u) << "step " << i << ": " << rec.diagnostics.message;
  }
  // τ_d = 10 ms damps the bounce within the 1 s run: 1% covers what is left of it.
  EXPECT_NEAR(sim.last_record().metrics.max_penetration, 2 * 9.81 / 1e5, 0.01 * 2 * 9.81 / 1e5);
}

// ---------------------------------------------------------------------------------------------
// Excessive speed.

// A ball of radius 0.1 m (diameter 0.2 m) in free flight, no gravity: at 50 m/s and δt = 0.01 s
// it moves 0.5 m per step, 2.5 diameters (ratio 1.25 to the allowed 2) and warns; at 30 m/s
// (1.5 diameters, ratio 0.75) it does not.
TEST(ExcessiveSpeed, FiresAboveTwoDiametersPerStep) {
  for (double speed : {50.0, 30.0}) {
    StepSettings s = NoGravity();
    s.time_step = 0.01;
    Simulator sim(BallOverGround(5.0), s);
    State st = sim.state();
    st.v(0) = speed;  // free joint: v = [v_origin, ω], world frame
    sim.set_state(st);
    const StepRecord& rec = sim.Step();
    EXPECT_NEAR(rec.diagnostics.speed_ratio, speed * 0.01 / 0.4, 1e-9) << speed;
    EXPECT_EQ(rec.diagnostics.Has(StepWarning::kExcessiveSpeed), speed > 40) << speed;
    EXPECT_FALSE(rec.diagnostics.Has(StepWarning::kEnergyGrowth)) << rec.diagnostics.message;
  }
}

}  // namespace
}  // namespace contactlab
