// Mouse perturbation (engine/multibody/perturbation.h, Simulator::SetPerturbation) against closed forms.
//
// The simulator applies f = k (target − p) − c v_p explicitly, evaluated at the step's start
// (q0, v0), as the generalized force J_pᵀ f in the free motion. With the default integrator
// (symplectic Euler, θ = 0) the free motion is v* = v0 + δt M(q0)⁻¹ (k(q0, v0) + J_pᵀ f); without
// gravity, contacts or initial angular velocity k is zero, and SAP returns v = v* (no
// constraints). The velocity change of one step is therefore exactly δt M⁻¹ J_pᵀ f.
// Tolerance 1e-12 on velocities of order 1e-2: the closed forms and the simulator differ only by
// a 6x6 (or 1x1) Cholesky solve and a few products, each a few ulps (~1e-17 absolute here).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/inspect/history.h"
#include "engine/sim/simulator.h"
#include "tests/test_models.h"

namespace contactlab {
namespace {

using namespace contactlab::testing;  // NOLINT

constexpr double kTol = 1e-12;

bool BitEqual(const VecX& a, const VecX& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

Pose At(const Vec3& p, const Quat& q = Quat::Identity()) {
  Pose x;
  x.p = p;
  x.q = q;
  return x;
}

// One free body (COM at its frame origin), rotated so that its world inertia is not diagonal.
struct FreeBody {
  Model m;
  int body = -1;
  double mass = 2.0;
  Mat3 inertia = Vec3(0.02, 0.03, 0.05).asDiagonal();
  Pose pose = At(Vec3(0.1, 0.2, 1.0), AxisAngleDeg(Vec3(1, 2, 3), 30));
  FreeBody() {
    body = AddFreeBody(&m, "b", mass, inertia, pose);
    m.Finalize();
  }
};

TEST(Perturbation, GrabAtComChangesVelocityByImpulseOverMass) {
  // At the COM, J_pᵀ f has no moment: Δv = δt f / m and Δω = 0. Implicit schemes give the same
  // (f is explicit, and with ω = 0 the mass matrix and bias forces do not change over the step).
  for (Integrator integ : {Integrator::kSymplecticEuler, Integrator::kExplicitEuler,
                           Integrator::kImplicitEuler, Integrator::kMidpoint}) {
    FreeBody fb;
    Simulator sim(fb.m, NoGravity(integ));
    Perturbation p;
    p.body = fb.body;
    p.point_B = Vec3::Zero();
    p.stiffness = 200;
    p.target_W = fb.pose.p + Vec3(0.05, -0.1, 0.15);  // f = 200 (0.05, −0.1, 0.15) = (10, −20, 30)
    sim.SetPerturbation(p);
    const StepRecord& rec = sim.Step();
    const Vec3 f(10, -20, 30);
    const Vec3 dv = sim.state().v.head<3>();
    EXPECT_NEAR((dv - 1e-3 * f / fb.mass).lpNorm<Eigen::Infinity>(), 0, kTol)
        << IntegratorName(integ) << ": " << dv.transpose();
    EXPECT_NEAR(sim.state().v.tail<3>().lpNorm<Eigen::Infinity>(), 0, kTol)
        << IntegratorName(integ);
    ASSERT_TRUE(rec.perturbation.has_value());
    EXPECT_EQ(rec.perturbation->body, fb.body);
    EXPECT_NEAR((rec.perturbation_point_W - fb.pose.p).norm(), 0, kTol);
  }
}

TEST(Perturbation, GrabOffComProducesMomentAboutCom) {
  // Grabbed at r from the COM: Δv = δt f / m (the COM sees the whole force) and
  // Δω = δt I_W⁻¹ (r × f) with I_W = R I_B Rᵀ. Symplectic Euler (θ = 0, the default).
  FreeBody fb;
  Simulator sim(fb.m, NoGravity());
  const Vec3 point_B(0.1, -0.05, 0.2);
  const Vec3 r_W = fb.pose.Rotate(point_B);
  const Vec3 p_W = fb.pose.p + r_W;
  Perturbation p;
  p.body = fb.body;
  p.point_B = point_B;
  p.stiffness = 200;
  p.damping = 7;  // no effect: the body starts at rest
  p.target_W = p_W + Vec3(0.05, -0.1, 0.15);
  sim.SetPerturbation(p);
  const StepRecord& rec = sim.Step();
  const Vec3 f(10, -20, 30);
  const Mat3 R = fb.pose.R();
  const Mat3 I_W = R * fb.inertia * R.transpose();
  const Vec3 dw = 1e-3 * I_W.inverse() * r_W.cross(f);
  EXPECT_NEAR((sim.state().v.head<3>() - 1e-3 * f / fb.mass).lpNorm<Eigen::Infinity>(), 0, kTol);
  EXPECT_NEAR((sim.state().v.tail<3>() - dw).lpNorm<Eigen::Infinity>(), 0, kTol)
      << sim.state().v.tail<3>().transpose() << " vs " << dw.transpose();
  EXPECT_GT(dw.norm(), 1e-2);  // the moment is not negligible: the check above can fail
  EXPECT_NEAR((rec.perturbation_point_W - p_W).norm(), 0, kTol);
}

TEST(Perturbation, DampingOpposesVelocity) {
  // Target at the grabbed point (no spring force), body translating at v0: f = −c v0, so
  // Δv = −δt c v0 / m, opposite to v0.
  FreeBody fb;
  Simulator sim(fb.m, NoGravity());
  State s = sim.state();
  const Vec3 v0(0.5, -0.3, 0.2);
  s.v.head<3>() = v0;
  sim.set_state(s);
  Perturbation p;
  p.body = fb.body;
  p.target_W = fb.pose.p;
  p.stiffness = 1000;
  p.damping = 4;
  sim.SetPerturbation(p);
  sim.Step();
  const Vec3 dv = sim.state().v.head<3>() - v0;
  EXPECT_NEAR((dv - (-1e-3 * 4 * v0 / fb.mass)).lpNorm<Eigen::Infinity>(), 0, kTol);
  EXPECT_LT(dv.dot(v0), 0);
  EXPECT_NEAR(sim.state().v.tail<3>().lpNorm<Eigen::Infinity>(), 0, kTol);
}

TEST(Perturbation, RevoluteLinkGetsMomentAboutAxis) {
  // A link hinged at the world origin about y, COM at (0, 0, −0.5), grabbed at r = (0.1, 0, −0.5)
  // with f = (3, 1, 2) N: τ = (r × f)·y = −0.5·3 − 0.1·2 = −1.7 N m. Its inertia about the axis
  // is I_yy + m (x_c² + z_c²) = 0.02 + 2·0.25 = 0.52 kg m², so Δθ̇ = δt τ / 0.52.
  Model m;
  const int link = AddJointedBody(&m, "link", -1, JointType::kRevolute, Vec3::UnitY(), Pose{},
                                  Pose{}, 2.0, Vec3(0.01, 0.02, 0.03).asDiagonal(),
                                  Vec3(0, 0, -0.5));
  m.Finalize();
  Simulator sim(m, NoGravity());
  Perturbation p;
  p.body = link;
  p.point_B = Vec3(0.1, 0, -0.5);
  p.stiffness = 10;
  p.target_W = p.point_B + Vec3(0.3, 0.1, 0.2);  // body frame = world at q = 0
  KinematicsCache kin;
  sim.multibody().UpdateKinematics(sim.state().q, 0, &kin);
  VecX tau = VecX::Zero(1);
  const PerturbationForce pf = EvaluatePerturbation(sim.multibody(), kin, sim.state().v, p, &tau);
  EXPECT_NEAR((pf.force_W - Vec3(3, 1, 2)).norm(), 0, kTol);
  ASSERT_EQ(tau.size(), 1);
  EXPECT_NEAR(tau(0), -1.7, kTol);
  sim.SetPerturbation(p);
  sim.Step();
  EXPECT_NEAR(sim.state().v(0), 1e-3 * -1.7 / 0.52, kTol);
}

TEST(Perturbation, MouseSpringIsCriticallyDampedForTheBodyMass) {
  // k = m ω², c = 2 m ω with ω = 2π·3 rad/s. Grabbed at the COM, the offset e = target − p of a
  // free body obeys ë + 2ω ė + ω² e = 0: e(t) = e0 (1 + ω t) e^{−ω t}, never crossing zero.
  // Symplectic Euler is first order: the global error is below e0·ω·δt (= 1.9e-4 · e0 for
  // δt = 1e-4 s; the recursion's actual error is about 0.3 of that bound, 5.9e-5 m for 0.1 m).
  FreeBody fb;
  StepSettings settings = NoGravity();
  settings.time_step = 1e-4;
  Simulator sim(fb.m, settings);
  const Vec3 e0(0.1, 0, 0);
  const Perturbation p = MakeMouseSpring(fb.m, fb.body, Vec3::Zero(), fb.pose.p + e0);
  const double w = 2 * kPi * 3;
  EXPECT_NEAR(p.stiffness, fb.mass * w * w, 1e-12 * p.stiffness);
  EXPECT_NEAR(p.damping, 2 * fb.mass * w, 1e-12 * p.damping);
  EXPECT_EQ(p.body, fb.body);
  sim.SetPerturbation(p);
  double max_err = 0;
  for (int n = 1; n <= 10000; ++n) {
    sim.Step();
    const double t = n * settings.time_step;
    const double e = p.target_W.x() - sim.state().q(0);
    max_err = std::max(max_err, std::abs(e - e0.x() * (1 + w * t) * std::exp(-w * t)));
    ASSERT_GT(e, 0) << "overshoot at t = " << t;
  }
  EXPECT_LT(max_err, e0.x() * w * settings.time_step);
  EXPECT_GT(max_err, 0);  // not trivially satisfied: the discrete solution is not exact
}

// A box resting on the ground, with gravity and contact: exercises the full step.
Model BoxOnGround() {
  Model m;
  AddGround(&m, Pose{}, 0);
  const Vec3 h(0.1, 0.05, 0.05);
  const int b = AddFreeBody(&m, "box", 1.0, BoxInertia(1.0, h), At(Vec3(0, 0, 0.05)));
  AddGeom(&m, b, BoxShape(h), 0);
  m.Finalize();
  return m;
}

// Drags the box by its top corner, mostly sideways: 8 N horizontally (more than the 4.9 N of
// friction, μ = 0.5) and 1 N up (less than its weight), so it slides while in contact.
Perturbation SlidingDrag() {
  Perturbation p;
  p.body = 0;
  p.point_B = Vec3(0.1, 0.05, 0.05);
  p.target_W = Vec3(0.5, 0.05, 0.15);
  p.stiffness = 20;
  p.damping = 1;
  return p;
}

TEST(Perturbation, ClearRestoresTheUnperturbedTrajectoryBitForBit) {
  const Model m = BoxOnGround();
  StepSettings s;
  s.time_step = 5e-3;
  const Perturbation p = SlidingDrag();

  // Set then cleared before stepping: identical to a run that never had one.
  Simulator never(m, s), cleared(m, s);
  cleared.SetPerturbation(p);
  cleared.ClearPerturbation();
  EXPECT_FALSE(cleared.perturbation().has_value());
  for (int i = 0; i < 40; ++i) {
    never.Step();
    const StepRecord& r = cleared.Step();
    EXPECT_FALSE(r.perturbation.has_value());
    EXPECT_TRUE(r.perturbation_point_W.isZero(0));
  }
  EXPECT_TRUE(BitEqual(never.state().q, cleared.state().q));
  EXPECT_TRUE(BitEqual(never.state().v, cleared.state().v));

  // Dragged for 20 steps, then released: from then on, identical to a fresh simulator started
  // from the same state (no perturbation state survives the release).
  Simulator dragged(m, s);
  dragged.SetPerturbation(p);
  for (int i = 0; i < 20; ++i) dragged.Step();
  Simulator reference(m, s);
  for (int i = 0; i < 20; ++i) reference.Step();
  // The drag had an effect (so the comparison below is not vacuous).
  EXPECT_GT((dragged.state().q - reference.state().q).norm(), 1e-3);
  dragged.ClearPerturbation();
  Simulator fresh(m, s);
  fresh.set_state(dragged.state());
  for (int i = 0; i < 30; ++i) {
    const StepRecord& a = dragged.Step();
    const StepRecord& b = fresh.Step();
    ASSERT_TRUE(BitEqual(a.after.q, b.after.q)) << "step " << i;
    ASSERT_TRUE(BitEqual(a.after.v, b.after.v)) << "step " << i;
  }
}

TEST(Perturbation, RecordedStepsResolveAndResume) {
  // The perturbation is part of each recorded step: its force is in the recorded free motion v*,
  // so Simulator::Resolve with the run's parameters reproduces the step's velocities (same
  // problem, same warm start, so the same iterates: 1e-12 allows only for round-off); and
  // resuming from a recorded step with the same perturbation reproduces the run bit for bit.
  const Model m = BoxOnGround();
  StepSettings s;
  s.time_step = 5e-3;
  const Perturbation p = SlidingDrag();
  Simulator sim(m, s);
  sim.SetPerturbation(p);
  History history;
  for (int i = 0; i < 30; ++i) history.Push(sim.Step());
  const StepRecord& rec = *history.Get(20);
  ASSERT_TRUE(rec.perturbation.has_value());
  EXPECT_EQ(rec.perturbation->target_W, p.target_W);
  EXPECT_FALSE(rec.contacts.empty());
  const SolverResult again = sim.Resolve(rec, s.sap);
  EXPECT_NEAR((again.v - rec.result.v).lpNorm<Eigen::Infinity>(), 0, 1e-12);
  const VecX q_end = sim.state().q, v_end = sim.state().v;
  history.ResumeFrom(rec, &sim);
  for (int i = 21; i < 30; ++i) sim.Step();
  EXPECT_TRUE(BitEqual(sim.state().q, q_end));
  EXPECT_TRUE(BitEqual(sim.state().v, v_end));
}

std::string ErrorOf(Simulator* sim, const Perturbation& p) {
  try {
    sim->SetPerturbation(p);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Perturbation, InvalidInputThrowsWithTheValidRange) {
  Model m = BoxOnGround();
  Body st;  // a static body (no joint)
  st.name = "shelf";
  m.bodies.push_back(st);
  Body pr;  // a prescribed body
  pr.name = "belt";
  pr.prescribed = true;
  m.bodies.push_back(pr);
  m.Finalize();
  Simulator sim(m, StepSettings{});
  Perturbation good;
  good.body = 0;
  good.stiffness = 10;
  good.damping = 1;
  sim.SetPerturbation(good);

  for (int body : {-1, 3, 1, 2}) {
    Perturbation p = good;
    p.body = body;
    const std::string e = ErrorOf(&sim, p);
    EXPECT_NE(e.find("perturbation body = " + std::to_string(body)), std::string::npos) << e;
    EXPECT_NE(e.find("[0, 3)"), std::string::npos) << e;
    EXPECT_NE(e.find("kinematic tree"), std::string::npos) << e;
  }
  Perturbation p = good;
  p.stiffness = -1;
  std::string e = ErrorOf(&sim, p);
  EXPECT_NE(e.find("stiffness = -1 is out of range [0, inf) N/m"), std::string::npos) << e;
  p = good;
  p.stiffness = INFINITY;
  EXPECT_NE(ErrorOf(&sim, p).find("stiffness"), std::string::npos);
  p = good;
  p.damping = NAN;
  e = ErrorOf(&sim, p);
  EXPECT_NE(e.find("damping = nan is out of range [0, inf) N s/m"), std::string::npos) << e;
  p = good;
  p.target_W.x() = NAN;
  EXPECT_NE(ErrorOf(&sim, p).find("target_W"), std::string::npos);
  // A rejected perturbation leaves the previous one in place.
  ASSERT_TRUE(sim.perturbation().has_value());
  EXPECT_EQ(sim.perturbation()->stiffness, 10);
  EXPECT_THROW(MakeMouseSpring(m, 1, Vec3::Zero(), Vec3::Zero()), std::invalid_argument);
}

}  // namespace
}  // namespace contactlab
