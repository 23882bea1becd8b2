// Closed-form physics through the whole step pipeline (collision, assembly, SAP, θ-method).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/sim/simulator.h"
#include "tests/test_models.h"

namespace contactlab {
namespace {

using namespace contactlab::testing;  // NOLINT

constexpr double kG = 9.81;

// Sphere in free fall: the discrete solutions are known exactly per scheme.
//   symplectic / implicit Euler: z_n = z0 − g δt² n(n+1)/2,  explicit Euler: z0 − g δt² n(n−1)/2,
//   midpoint: z0 − g (nδt)²/2.
TEST(Physics, FreeFallMatchesDiscreteClosedForm) {
  for (Integrator integ : {Integrator::kExplicitEuler, Integrator::kSymplecticEuler,
                           Integrator::kImplicitEuler, Integrator::kMidpoint}) {
    Model m;
    Pose p;
    p.p = Vec3(0, 0, 10);
    const int b = AddFreeBody(&m, "ball", 2.0, SphereInertia(2.0, 0.1), p);
    AddGeom(&m, b, SphereShape(0.1), 0);
    m.Finalize();
    StepSettings s;
    s.time_step = 0.01;
    s.integrator = integ;
    Simulator sim(m, s);
    const int n = 100;
    for (int i = 0; i < n; ++i) sim.Step();
    const double dt = s.time_step;
    double expected = 10;
    switch (integ) {
      case Integrator::kExplicitEuler: expected -= kG * dt * dt * n * (n - 1) / 2.0; break;
      case Integrator::kSymplecticEuler:
      case Integrator::kImplicitEuler: expected -= kG * dt * dt * n * (n + 1) / 2.0; break;
      case Integrator::kMidpoint: expected -= 0.5 * kG * (n * dt) * (n * dt); break;
    }
    // Only round-off separates the recursion from the closed form: 1e-12 m over 100 steps.
    EXPECT_NEAR(sim.state().q(2), expected, 1e-11) << IntegratorName(integ);
    EXPECT_NEAR(sim.state().q(0), 0.0, 1e-15);
  }
}

struct RampResult {
  double distance;    // displacement along the ramp after the run [m]
  double max_phi_err; // unused
};

// Drumwright's box on a 15° ramp (1 kg, 0.1 x 0.2 x 0.05 m) with Coulomb friction μ, started at
// rest and simulated for `duration`.
RampResult RunBoxOnRamp(double mu, double duration, double dt, double sigma = 1e-3) {
  Model m;
  const int mat = AddMaterial(&m, "ramp", 1e12, dt, mu);
  Pose ramp;
  ramp.q = AxisAngleDeg(Vec3::UnitY(), 15.0);
  AddGround(&m, ramp, mat);
  const Vec3 half(0.05, 0.1, 0.025);
  Pose box_pose;
  box_pose.q = ramp.q;
  box_pose.p = ramp.Apply(Vec3(0, 0, half.z()));
  const int b = AddFreeBody(&m, "box", 1.0, BoxInertia(1.0, half), box_pose);
  AddGeom(&m, b, BoxShape(half), mat);
  m.Finalize();
  StepSettings s;
  s.time_step = dt;
  s.sap.sigma = sigma;
  Simulator sim(m, s);
  const Vec3 p0 = sim.state().q.head<3>();
  const int steps = static_cast<int>(std::round(duration / dt));
  for (int i = 0; i < steps; ++i) {
    const StepRecord& r = sim.Step();
    EXPECT_EQ(r.result.stats.status, SolverStatus::kConverged) << "step " << i;
  }
  const Vec3 d = sim.state().q.head<3>() - p0;
  const Vec3 n = ramp.Rotate(Vec3::UnitZ());
  return {(d - n * n.dot(d)).norm(), 0};
}

// Sliding: s = ½ g (sin θ − μ cos θ) t², the paper's 1.270, 0.677, 0.085 m after 1 s.
TEST(Physics, BoxOnRampSlidesClosedFormDistance) {
  const double theta = 15.0 * kPi / 180.0;
  for (double mu : {0.0, 0.125, 0.25}) {
    const double expected = 0.5 * kG * (std::sin(theta) - mu * std::cos(theta));
    const RampResult r = RunBoxOnRamp(mu, 1.0, 1e-3);
    // Symplectic Euler with δt = 1e-3 over 1000 steps overshoots ½at² by 1/n = 0.1%; the
    // settling into the near-rigid contact and the regularized onset of sliding add less than
    // that. 0.5% of the distance leaves room for both and still separates μ values by far.
    EXPECT_NEAR(r.distance, expected, 5e-3 * expected + 1e-5) << "mu = " << mu;
  }
}

// Stiction: tan 15° = 0.268 < μ = 0.375, so the box holds. SAP's regularized friction lets it
// creep at about σ μ δt g (paper eq. 31); over 1 s it must stay below that bound times 1 s.
TEST(Physics, BoxOnRampHeldByFrictionCreepsBelowSlipBound) {
  const double dt = 1e-3, sigma = 1e-3, mu = 0.375;
  const RampResult r = RunBoxOnRamp(mu, 1.0, dt, sigma);
  const double bound = sigma * mu * dt * kG * 1.0;
  EXPECT_LT(r.distance, bound) << "creep " << r.distance << " m, bound " << bound << " m";
}

// Rest penetration in the near-rigid regime (paper §V-B): at rest the SAP law gives
// φ = −m g δt² R_n = −β² g δt² (m w) / (4π²) (τ_d = 0). The paper's estimate β²gδt²/(4π²) takes
// w = 1/m; eq. 29's w = ‖W_ii‖_rms gives m w = 1/√3 for a point mass (W_ii = I/m), so the
// penetration is the estimate divided by √3, still independent of mass. The point mass is a
// free sphere whose rotational inertia is so large that W_ii = I/m.
TEST(Physics, NearRigidRestPenetrationMatchesEstimate) {
  for (double beta : {1.0, 0.5}) {
    for (double mass : {0.1, 10.0}) {
      Model m;
      const int mat = AddMaterial(&m, "rigid", 1e14, 0.0, 0.5);
      AddGround(&m, Pose{}, mat);
      Pose p;
      p.p = Vec3(0, 0, 0.05);
      const int b = AddFreeBody(&m, "particle", mass, Mat3::Identity() * (1e9 * mass), p);
      AddGeom(&m, b, SphereShape(0.05), mat);
      m.Finalize();
      const double dt = 1e-2;
      StepSettings s;
      s.time_step = dt;
      s.sap.beta = beta;
      s.sap.rel_tolerance = 1e-12;
      Simulator sim(m, s);
      for (int i = 0; i < 400; ++i) sim.Step();
      const double penetration = 0.05 - sim.state().q(2);
      const double estimate = beta * beta * kG * dt * dt / (4 * kPi * kPi);
      const double expected = estimate / std::sqrt(3.0);
      // At steady state the law is linear; the rotational terms of W are 1e-9 of the
      // translational ones, so 1e-6 relative covers them and the solver tolerance.
      EXPECT_NEAR(penetration, expected, 1e-6 * expected) << "beta " << beta << " m " << mass;
      EXPECT_EQ(sim.last_record().result.laws.Constant(0, "near_rigid"), 1.0);
    }
  }
}

// Physical pendulum about a horizontal revolute joint: T = 2π √((I + m L²) / (m g L)).
TEST(Physics, PendulumPeriod) {
  Model m;
  const double L = 0.8, mass = 1.5, r = 0.05;
  AddJointedBody(&m, "bob", -1, JointType::kRevolute, Vec3::UnitY(), Pose{}, Pose{}, mass,
                 SphereInertia(mass, r), Vec3(0, 0, -L));
  m.Finalize();
  const double theta0 = 0.05;
  m.q_default(0) = theta0;
  StepSettings s;
  s.time_step = 1e-3;
  s.integrator = Integrator::kMidpoint;
  Simulator sim(m, s);
  std::vector<double> crossings;  // upward zero crossings of the angle
  double prev = sim.state().q(0);
  for (int i = 0; i < 20000 && crossings.size() < 9; ++i) {
    const double t0 = sim.state().time;
    sim.Step();
    const double cur = sim.state().q(0);
    if (prev < 0 && cur >= 0) crossings.push_back(t0 + s.time_step * (-prev) / (cur - prev));
    prev = cur;
  }
  ASSERT_GE(crossings.size(), 9u);
  const double period = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  const double I = 0.4 * mass * r * r;
  const double expected = 2 * kPi * std::sqrt((I + mass * L * L) / (mass * kG * L));
  // Finite amplitude lengthens the period by θ0²/16 = 1.6e-4; midpoint phase error at
  // ωδt = 3.5e-3 is ~1e-6; crossing interpolation ~1e-6. 5e-4 relative covers them.
  EXPECT_NEAR(period, expected, 5e-4 * expected);
}

// The spring-cylinder of the SAP paper (§VI-B), frictionless: x and z slides plus rotation about
// y, a wall spring k_s = 100 N/m on x, ground contact k = 1e4 N/m, τ_d = 0.02 s, δt = 0.02 s,
// released at x0 = 0.1 m resting at its contact equilibrium.
struct EnergyBand {
  double min_e, max_e, first_e, last_e;
};
EnergyBand RunSpringCylinder(Integrator integ, double duration) {
  Model m;
  const int mat = AddMaterial(&m, "ground", 1e4, 0.02, 0.0);
  AddGround(&m, Pose{}, mat);
  const double R = 0.05, mass = 0.5, carriage = 1e-3;
  const int bx = AddJointedBody(&m, "slide_x", -1, JointType::kPrismatic, Vec3::UnitX(), Pose{},
                                Pose{}, carriage, Mat3::Identity() * 1e-6);
  const int bz = AddJointedBody(&m, "slide_z", bx, JointType::kPrismatic, Vec3::UnitZ(), Pose{},
                                Pose{}, carriage, Mat3::Identity() * 1e-6);
  Mat3 I = Mat3::Zero();
  I.diagonal() << mass * (3 * R * R + 4 * R * R) / 12.0, 0.5 * mass * R * R,
      mass * (3 * R * R + 4 * R * R) / 12.0;
  const int bc = AddJointedBody(&m, "cylinder", bz, JointType::kRevolute, Vec3::UnitY(), Pose{},
                                Pose{}, mass, I);
  Shape cyl;
  cyl.type = ShapeType::kCylinder;
  cyl.radius = R;
  cyl.half_length = R;
  Pose along_y;
  along_y.q = AxisAngleDeg(Vec3::UnitX(), 90);
  AddGeom(&m, bc, cyl, mat, along_y);
  m.joints[m.bodies[bx].joint].spring_stiffness = 100.0;
  m.Finalize();
  const double total_mass = mass + carriage;  // moving vertically
  m.q_default(0) = 0.1;
  m.q_default(1) = R - total_mass * kG / 1e4;  // contact equilibrium φ = −m g / k
  StepSettings s;
  s.time_step = 0.02;
  s.integrator = integ;
  s.sap.rel_tolerance = 1e-12;
  Simulator sim(m, s);
  EnergyBand band{1e300, -1e300, 0, 0};
  const int steps = static_cast<int>(std::round(duration / s.time_step));
  for (int i = 0; i < steps; ++i) {
    const StepRecord& r = sim.Step();
    // Oscillator energy: total mechanical energy less the gravity energy of the bodies that move
    // with the z slide (the x carriage stays at z = 0).
    const double e = r.metrics.kinetic_energy + r.metrics.potential_energy -
                     total_mass * kG * sim.state().q(1);
    if (i == 0) band.first_e = e;
    band.last_e = e;
    band.min_e = std::min(band.min_e, e);
    band.max_e = std::max(band.max_e, e);
  }
  return band;
}

TEST(Physics, SpringCylinderMidpointConservesEnergy) {
  const EnergyBand b = RunSpringCylinder(Integrator::kMidpoint, 10.0);
  // Midpoint is exact for this quadratic energy; what remains is the solver tolerance (1e-12)
  // and round-off over 500 steps. The spring energy is 0.5 J.
  EXPECT_LT(b.max_e - b.min_e, 1e-7) << "band " << b.min_e << " .. " << b.max_e;
}

TEST(Physics, SpringCylinderSymplecticEulerStaysBounded) {
  const EnergyBand early = RunSpringCylinder(Integrator::kSymplecticEuler, 2.0);
  const EnergyBand late = RunSpringCylinder(Integrator::kSymplecticEuler, 20.0);
  const double mean = 0.5 * (late.max_e + late.min_e);
  // The paper reports a 28% peak-to-peak band. Symplectic Euler conserves the modified energy
  // ½v² + ½ω²x² − ½hω²xv exactly, so E oscillates by hω·E = 0.283 E peak to peak (ω = 14.14,
  // h = 0.02). Allow ±4 points for the reading of the paper's figure.
  const double band = (late.max_e - late.min_e) / mean;
  EXPECT_NEAR(band, 0.28, 0.04);
  // Bounded: 10x longer run, the band does not grow beyond round-off.
  EXPECT_NEAR(late.max_e, early.max_e, 1e-3 * mean);
  EXPECT_NEAR(late.min_e, early.min_e, 1e-3 * mean);
}

TEST(Physics, SpringCylinderImplicitEulerDissipates) {
  const EnergyBand b = RunSpringCylinder(Integrator::kImplicitEuler, 3.0);
  // Implicit Euler multiplies the oscillator's energy by 1/(1 + (ωδt)²) = 0.926 per step, so of
  // the 0.5 J spring energy (0.463 J after the first step) about 1e-5 J is left after 150 steps.
  EXPECT_GT(b.first_e, 0.40);
  EXPECT_LT(b.last_e, 1e-3);
}

// The same scene and parameters give bit-identical trajectories.
TEST(Physics, DeterministicTrajectories) {
  auto run = [] {
    Model m;
    const int mat = AddMaterial(&m, "wood", 1e8, 1e-3, 0.6);
    AddGround(&m, Pose{}, mat);
    for (int i = 0; i < 4; ++i) {
      Pose p;
      p.p = Vec3(0.01 * i, -0.005 * i, 0.05 + 0.11 * i);
      p.q = AxisAngleDeg(Vec3(1, 2, 3), 7.0 * i);
      const int b = AddFreeBody(&m, "box" + std::to_string(i), 1.0,
                                BoxInertia(1.0, Vec3(0.05, 0.05, 0.05)), p);
      AddGeom(&m, b, BoxShape(Vec3(0.05, 0.05, 0.05)), mat);
    }
    m.Finalize();
    StepSettings s;
    s.time_step = 5e-3;
    Simulator sim(m, s);
    std::vector<double> out;
    for (int i = 0; i < 200; ++i) {
      sim.Step();
      out.insert(out.end(), sim.state().q.data(), sim.state().q.data() + sim.state().q.size());
    }
    return out;
  };
  const std::vector<double> a = run(), b = run();
  ASSERT_EQ(a.size(), b.size());
  // Bit-identical: compare the raw doubles with ==, no tolerance.
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << "entry " << i;
}

}  // namespace
}  // namespace contactlab

namespace contactlab {
namespace {

using namespace contactlab::testing;  // NOLINT

// A joint limit is a unilateral SAP constraint: a horizontal link falling about a hinge stops at
// the upper limit and rests there, violating it only by the near-rigid stabilization offset.
TEST(Physics, JointLimitStopsAFallingLink) {
  Model m;
  const double L = 0.5, mass = 2.0, upper = 0.3;
  const int b = AddJointedBody(&m, "link", -1, JointType::kRevolute, Vec3::UnitY(), Pose{},
                               Pose{}, mass, SphereInertia(mass, 0.05), Vec3(L, 0, 0));
  Joint& j = m.joints[m.bodies[b].joint];
  j.limited = true;
  j.lower = -1.0;
  j.upper = upper;
  m.Finalize();
  StepSettings s;
  s.time_step = 1e-3;
  s.sap.rel_tolerance = 1e-10;
  Simulator sim(m, s);
  double max_q = -1e9;
  for (int i = 0; i < 2000; ++i) {
    sim.Step();
    max_q = std::max(max_q, sim.state().q(0));
  }
  // Rest violation: the limit row is near-rigid (β = 0.1), so at rest the angle exceeds the
  // limit by β²/(4π²) w τ δt (w = 1/I_hinge, τ = gravity torque) — about 1e-9 rad here; the
  // impact overshoot is one step of motion at the impact speed, < 3e-3 rad.
  EXPECT_NEAR(sim.state().q(0), upper, 1e-6);
  EXPECT_LT(max_q, upper + 3e-3);
  EXPECT_NEAR(sim.state().v(0), 0.0, 1e-6);
}

// A PD actuator on a vertical slide holds the load below its setpoint by m g / kp at rest.
TEST(Physics, PdActuatorSteadyStateError) {
  Model m;
  const double mass = 1.5, kp = 2000, kd = 80, setpoint = 0.1;
  const int b = AddJointedBody(&m, "carriage", -1, JointType::kPrismatic, Vec3::UnitZ(), Pose{},
                               Pose{}, mass, SphereInertia(mass, 0.05));
  Actuator& a = m.joints[m.bodies[b].joint].actuator;
  a.enabled = true;
  a.kp = kp;
  a.kd = kd;
  a.setpoint.value = setpoint;
  m.Finalize();
  StepSettings s;
  s.time_step = 1e-3;
  s.integrator = Integrator::kImplicitEuler;
  Simulator sim(m, s);
  for (int i = 0; i < 5000; ++i) sim.Step();
  // Critically damped-ish (ζ = kd / (2√(kp m)) = 0.73) after 5 s: transients are e^-40 gone.
  EXPECT_NEAR(sim.state().q(0), setpoint - mass * kG / kp, 1e-9);
}

// A box dropped at rest on a conveyor belt (a prescribed body with surface velocity u) is
// accelerated by kinetic friction μ g until it moves with the belt at t1 = u / (μ g), then
// rides along: x(T) = ½ μ g t1² + u (T − t1).
TEST(Physics, ConveyorBeltCarriesABox) {
  Model m;
  const double mu = 0.5, u = 1.0;
  const int mat = AddMaterial(&m, "belt", 1e12, 1e-3, mu);
  Body belt;
  belt.name = "belt";
  belt.prescribed = true;
  belt.motion.surface_velocity = Vec3(u, 0, 0);
  m.bodies.push_back(belt);
  Shape plane;
  plane.type = ShapeType::kHalfSpace;
  AddGeom(&m, 0, plane, mat);
  const Vec3 half(0.05, 0.05, 0.05);
  Pose p;
  p.p = Vec3(0, 0, half.z());
  const int b = AddFreeBody(&m, "box", 1.0, BoxInertia(1.0, half), p);
  AddGeom(&m, b, BoxShape(half), mat);
  m.Finalize();
  StepSettings s;
  s.time_step = 1e-3;
  Simulator sim(m, s);
  const double T = 0.6;
  for (int i = 0; i < 600; ++i) sim.Step();
  const double t1 = u / (mu * kG);
  const double expected = 0.5 * mu * kG * t1 * t1 + u * (T - t1);
  // Sliding phase integrated with δt = 1e-3 (0.5% of t1) and stiction slip σμgδt: 0.5% of the
  // distance covers both.
  EXPECT_NEAR(sim.state().q(0), expected, 5e-3 * expected);
  EXPECT_NEAR(sim.state().v(0), u, 1e-3);
}

}  // namespace
}  // namespace contactlab
