// Equality constraints (Model::equalities) as bilateral constraints of the contact problem: the
// holonomic law, the Jacobians the simulator builds, and the motion of constrained systems
// against closed forms and equivalent jointed models, under every solver.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "engine/contact/constraint_bundle.h"
#include "engine/contact/constraint_laws.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"
#include "tests/equality_residuals.h"
#include "tests/test_models.h"


namespace contactlab {
namespace {

using testing::AddFreeBody;
using testing::AddJointedBody;
using testing::BoxInertia;

double Uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// ---------------------------------------------------------------------------------------------
// The law: γ = −∂ℓ/∂v_c and G = ∂γ/∂v_c by central differences, for 1 and 3 rows, compliant and
// near-rigid. ℓ is quadratic, so central differences are exact up to round-off: the tolerance is
// relative round-off of ℓ/h (ℓ ~ R γ², h = 1e-6 |v|).
template <int N>
void CheckHolonomicLawDerivatives(std::mt19937& rng) {
  using Law = HolonomicLaw<N>;
  for (int trial = 0; trial < 50; ++trial) {
    ConstraintData c;
    c.kind = ConstraintKind::kBilateral;
    c.num_rows = N;
    c.w = std::exp(Uniform(rng, -3, 3));
    c.stiffness = trial % 2 ? std::numeric_limits<double>::infinity()
                            : std::exp(Uniform(rng, 2, 10));
    c.dissipation_time = trial % 3 ? Uniform(rng, 0, 0.05) : 0.0;
    for (int k = 0; k < 3; ++k) c.g0(k) = Uniform(rng, -0.01, 0.01);
    LawParameters p;
    const double dt = 1e-3;
    const typename Law::Constants K = Law::Prepare(c, dt, 0, p);
    ASSERT_EQ(Law::Check(K), nullptr);
    EXPECT_EQ(K.near_rigid, trial % 2 == 1 || K.R == p.limit_beta * p.limit_beta /
                                                           (4 * kPi * kPi) * c.w);
    double vc[3];
    for (double& x : vc) x = Uniform(rng, -2, 2);
    double gamma[3];
    Mat3 G;
    Regime regime;
    const double ell = Law::Cost(K, vc, gamma, &G, &regime);
    EXPECT_EQ(regime, Regime::kStiction);  // always active: G = R⁻¹ ≠ 0
    for (int k = 0; k < N; ++k) {
      EXPECT_DOUBLE_EQ(K.v_hat[k], -c.g0(k) / (dt + c.dissipation_time));
      const double h = 1e-6 * (1 + std::abs(vc[k]));
      double vp[3] = {vc[0], vc[1], vc[2]}, vm[3] = {vc[0], vc[1], vc[2]};
      vp[k] += h;
      vm[k] -= h;
      double gp[3], gm[3];
      Mat3 Gp;
      Regime r;
      const double lp = Law::Cost(K, vp, gp, &Gp, &r);
      const double lm = Law::Cost(K, vm, gm, &Gp, &r);
      const double scale = 1e-12 * (std::abs(ell) + 1e-12) / h + 1e-9 * std::abs(gamma[k]);
      EXPECT_NEAR(gamma[k], -(lp - lm) / (2 * h), scale + 1e-12) << "row " << k;
      for (int j = 0; j < N; ++j) {
        const double fd = (gp[j] - gm[j]) / (2 * h);
        // G = ∂²ℓ/∂v_c² = −∂γ/∂v_c (the contract's sign: G ⪰ 0).
        EXPECT_NEAR(G(j, k), -fd, 1e-7 * K.inv) << "G(" << j << "," << k << ")";
      }
    }
    // No projection: impulses of both signs, and the slack vanishes at the law's γ.
    EXPECT_LT(Law::Slack(K, vc, gamma), 1e-12 * (1 + std::abs(ell)));
    double gamma_sq = 0;
    for (int k = 0; k < N; ++k) gamma_sq += gamma[k] * gamma[k];
    EXPECT_NEAR(ell, 0.5 * K.R * gamma_sq, 1e-12 * (1 + ell));
    // The line search's quadratic: ℓ(v + αΔv) = q0 + q1 α + ½ q2 α² exactly.
    double dv[3];
    for (double& x : dv) x = Uniform(rng, -1, 1);
    double q[3] = {0, 0, 0};
    Law::AddQuadratic(K, vc, dv, q);
    const double alpha = Uniform(rng, 0, 1);
    double va[3] = {vc[0] + alpha * dv[0], vc[1] + alpha * dv[1], vc[2] + alpha * dv[2]};
    double ga[3];
    const double la = Law::Cost(K, va, ga, nullptr, &regime);
    EXPECT_NEAR(la, q[0] + alpha * q[1] + 0.5 * alpha * alpha * q[2], 1e-9 * (1 + la));
  }
}

TEST(HolonomicLaw, GradientAndHessianMatchFiniteDifferences) {
  std::mt19937 rng(7);
  CheckHolonomicLawDerivatives<1>(rng);
  CheckHolonomicLawDerivatives<3>(rng);
}

// The bundle groups bilateral constraints by row count and names them.
TEST(HolonomicLaw, BundleDispatchAndNames) {
  ContactProblem p;
  p.time_step = 1e-3;
  p.nv = 0;
  for (int rows : {3, 1, 3}) {
    ConstraintData c;
    c.kind = ConstraintKind::kBilateral;
    c.num_rows = rows;
    c.first_row = p.num_rows;
    c.stiffness = std::numeric_limits<double>::infinity();
    c.w = 2.0;
    c.g0 = Vec3(0.01, -0.02, 0.03);
    p.num_rows += rows;
    p.constraints.push_back(c);
  }
  ConstraintBundle laws;
  laws.Prepare(p, LawParameters{});
  EXPECT_EQ(laws.num_rows(), 7);
  EXPECT_EQ(laws.Law(0), LawKind::kHolonomic3);
  EXPECT_EQ(laws.Law(1), LawKind::kHolonomic1);
  EXPECT_STREQ(LawName(laws.Law(1)), "holonomic");
  EXPECT_TRUE(laws.Check().empty());
  EXPECT_NEAR(laws.Constant(0, "v_hat_2"), 0.02 / 1e-3, 1e-9);
  EXPECT_NEAR(laws.Constant(1, "v_hat"), -0.01 / 1e-3, 1e-9);
  EXPECT_EQ(laws.Constant(2, "near_rigid"), 1.0);
  EXPECT_STREQ(ConstraintRegimeName(ConstraintKind::kBilateral, Regime::kStiction), "bilateral");
  EXPECT_STREQ(ConstraintKindName(ConstraintKind::kBilateral), "bilateral");
}

// ---------------------------------------------------------------------------------------------
Equality Connect(int a, const Vec3& pa, int b, const Vec3& pb) {
  Equality e;
  e.type = EqualityType::kConnect;
  e.body_a = a;
  e.body_b = b;
  e.a_from_anchor.p = pa;
  e.b_from_anchor.p = pb;
  return e;
}
Equality Weld(int a, const Pose& fa, int b, const Pose& fb) {
  Equality e;
  e.type = EqualityType::kWeld;
  e.body_a = a;
  e.body_b = b;
  e.a_from_anchor = fa;
  e.b_from_anchor = fb;
  return e;
}
Equality Coupling(int ja, int jb, double gear, double offset) {
  Equality e;
  e.type = EqualityType::kJointCoupling;
  e.joint_a = ja;
  e.joint_b = jb;
  e.gear = gear;
  e.offset = offset;
  return e;
}

Quat RandomQuat(std::mt19937& rng) {
  return Quat(Eigen::Vector4d(Uniform(rng, -1, 1), Uniform(rng, -1, 1), Uniform(rng, -1, 1),
                              Uniform(rng, -1, 1)))
      .normalized();
}

// Two trees: a revolute–prismatic–revolute chain from the world and a free body; every kind of
// equality within a tree, between the trees and to the world.
Model JacobianModel(std::mt19937& rng) {
  Model m;
  const Mat3 I = BoxInertia(1.0, Vec3(0.1, 0.05, 0.2));
  const int l1 = AddJointedBody(&m, "l1", -1, JointType::kRevolute, Vec3(0.3, 1, 0.2).normalized(),
                                Pose{Vec3(0, 0, 1), RandomQuat(rng)}, Pose{Vec3(0, 0, 0.2)}, 1.0, I);
  const int l2 = AddJointedBody(&m, "l2", l1, JointType::kPrismatic, Vec3(1, 0, 0),
                                Pose{Vec3(0.1, 0, -0.3), RandomQuat(rng)}, Pose{}, 0.5, I);
  const int l3 = AddJointedBody(&m, "l3", l2, JointType::kRevolute, Vec3(0, 0, 1),
                                Pose{Vec3(0, 0.2, -0.1), RandomQuat(rng)},
                                Pose{Vec3(0.05, 0, 0.1), RandomQuat(rng)}, 0.7, I);
  const int f = AddFreeBody(&m, "free", 2.0, I, Pose{Vec3(0.5, 0.2, 0.8), RandomQuat(rng)});
  const int h = AddJointedBody(&m, "h", -1, JointType::kRevolute, Vec3(0, 1, 0),
                               Pose{Vec3(1, 0, 1)}, Pose{Vec3(0, 0, 0.3)}, 1.0, I);
  auto rp = [&] { return Vec3(Uniform(rng, -0.2, 0.2), Uniform(rng, -0.2, 0.2), Uniform(rng, -0.2, 0.2)); };
  m.equalities.push_back(Connect(l1, rp(), l3, rp()));          // one tree
  m.equalities.push_back(Connect(l3, rp(), f, rp()));           // two trees
  m.equalities.push_back(Connect(f, rp(), -1, rp()));           // to the world
  m.equalities.push_back(Weld(l1, Pose{rp(), RandomQuat(rng)}, l3, Pose{rp(), RandomQuat(rng)}));
  m.equalities.push_back(Weld(l2, Pose{rp(), RandomQuat(rng)}, f, Pose{rp(), RandomQuat(rng)}));
  m.equalities.push_back(Weld(-1, Pose{rp(), RandomQuat(rng)}, f, Pose{rp(), RandomQuat(rng)}));
  m.equalities.push_back(Coupling(0, 2, 1.7, 0.1));             // one tree (l1, l3)
  m.equalities.push_back(Coupling(4, 1, -0.5, 0.0));            // two trees (h, l2)
  m.equalities.push_back(Coupling(2, -1, 0.0, 0.3));            // q_a = offset
  (void)h;
  m.Finalize();
  return m;
}

// J v = d g(q(t))/dt at random (q, v) by central differences along q(±h) = q ⊕ ±h N v (the
// exponential map for quaternions: the path of constant v). Truncation O(h² |v|³ L) ~ 1e-11 at
// h = 1e-5, round-off 1e-16/h ~ 1e-11: tolerance 1e-8.
TEST(EqualityJacobian, MatchesFiniteDifferencesOfTheConstraintFunction) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 8; ++trial) {
    Model model = JacobianModel(rng);
    StepSettings s = testing::NoGravity();
    Simulator sim(model, s);
    const Model& m = sim.model();
    const Multibody& mb = sim.multibody();
    VecX dq = VecX::Zero(m.nv);
    for (int i = 0; i < m.nv; ++i) dq(i) = Uniform(rng, -0.8, 0.8);
    State st;
    mb.IntegratePositions(m.q_default, dq, 1.0, &st.q);
    st.v = VecX(m.nv);
    for (int i = 0; i < m.nv; ++i) st.v(i) = Uniform(rng, -2, 2);
    sim.set_state(st);
    const StepRecord& rec = sim.Step();
    const ContactProblem& p = rec.problem;
    VecX vc;
    p.ConstraintVelocities(st.v, &vc);
    const double h = 1e-5;
    VecX qp, qm;
    mb.IntegratePositions(st.q, st.v, h, &qp);
    mb.IntegratePositions(st.q, st.v, -h, &qm);
    const std::vector<Vec3> gp = EqualityResiduals(m, mb, qp), gm = EqualityResiduals(m, mb, qm);
    const std::vector<Vec3> g0 = EqualityResiduals(m, mb, st.q);
    // Constraints in equality order: connect 3, weld 3 + 3, coupling 1.
    int k = 0, checked = 0;
    for (const ConstraintData& c : p.constraints) {
      if (c.kind != ConstraintKind::kBilateral) continue;
      ASSERT_LT(k, static_cast<int>(gp.size()));
      const Vec3 fd = (gp[k] - gm[k]) / (2 * h);
      for (int r = 0; r < c.num_rows; ++r) {
        EXPECT_NEAR(vc(c.first_row + r), fd(r), 1e-8)
            << "trial " << trial << " equality part " << k << " row " << r;
        EXPECT_NEAR(c.g0(r), g0[k](r), 1e-14) << "g0, part " << k;
      }
      const Equality& e = m.equalities[c.source];
      const int ta = e.type == EqualityType::kJointCoupling ? m.BodyTree(m.joints[e.joint_a].child)
                                                            : m.BodyTree(e.body_a);
      const int tb = e.type == EqualityType::kJointCoupling
                         ? (e.joint_b < 0 ? -1 : m.BodyTree(m.joints[e.joint_b].child))
                         : m.BodyTree(e.body_b);
      const int expected_blocks = (ta >= 0) + (tb >= 0) - (ta >= 0 && ta == tb);
      EXPECT_EQ(c.num_blocks, expected_blocks) << "part " << k;
      ++k;
      ++checked;
    }
    EXPECT_EQ(checked, 3 + 3 * 2 + 3);  // connects, welds (2 parts), couplings
  }
}

// ---------------------------------------------------------------------------------------------
// A free box connected at a corner to the world is a spherical pendulum: the same motion as the
// box on a ball joint at that corner.
struct PendulumPair {
  Model ball, connect;
};
constexpr double kBoxMass = 1.0;
const Vec3 kHalf(0.1, 0.1, 0.1);
const Vec3 kPivot(0, 0, 1);
const Vec3 kCorner(0.1, 0.1, 0.1);  // body frame
const Vec3 kOmega0(0.5, -1.0, 3.0);  // initial angular velocity, world [rad/s]

PendulumPair MakePendulums() {
  PendulumPair p;
  const Mat3 I = BoxInertia(kBoxMass, kHalf);
  AddJointedBody(&p.ball, "box", -1, JointType::kBall, Vec3::UnitZ(), Pose{kPivot},
                 Pose{kCorner}, kBoxMass, I);
  p.ball.Finalize();
  const int b = AddFreeBody(&p.connect, "box", kBoxMass, I, Pose{kPivot - kCorner});
  Equality e = Connect(b, kCorner, -1, kPivot);
  e.name = "corner";
  p.connect.equalities.push_back(e);
  p.connect.Finalize();
  return p;
}

// Runs both pendulums for `duration` at δt; returns the max distance between their box centers
// and the max drift |g| of the connect.
void RunPendulums(double dt, double duration, SolverType solver, double* max_diff,
                  double* max_drift) {
  const PendulumPair pp = MakePendulums();
  StepSettings s;
  s.time_step = dt;
  s.solver_type = solver;
  Simulator ball(pp.ball, s), con(pp.connect, s);
  State sb = ball.state(), sc = con.state();
  sb.v = kOmega0;  // ball: ω in the parent (world) frame
  sc.v.head<3>() = kOmega0.cross(-kCorner);  // origin velocity ω × (origin − pivot)
  sc.v.tail<3>() = kOmega0;
  ball.set_state(sb);
  con.set_state(sc);
  *max_diff = 0;
  *max_drift = 0;
  const int n = static_cast<int>(std::lround(duration / dt));
  for (int k = 0; k < n; ++k) {
    ball.Step();
    const StepRecord& r = con.Step();
    ASSERT_EQ(r.result.stats.status, SolverStatus::kConverged) << "step " << k;
    KinematicsCache kb;
    ball.multibody().UpdateKinematics(ball.state().q, 0, &kb);
    const Vec3 pb = kb.X_WB[0].p;
    const Vec3 pc = con.state().q.head<3>();
    *max_diff = std::max(*max_diff, (pb - pc).norm());
    *max_drift = std::max(*max_drift, MaxResidual(con));
  }
}

// Both are first-order schemes of the same ODE, so their distance is O(δt): measured 0.31 mm at
// δt = 1 ms over 1 s and halving with δt (the test checks the ratio 2 ± 0.5 and a 1 mm bound).
// The drift: the law leaves g1 = −δt R γ per step (near-rigid R = β²w/(4π²), β = 0.1; R γ δt ~
// 1e-9 m here), and the linearization J misses the curvature of g, ½ δt² |ω|² L per step (L =
// 0.17 m, |ω| <= 5 rad/s: 2e-6 m at δt = 1 ms), which v̂ = −g0/δt removes in the next step: the
// bound is 2 δt² |ω|² L.
TEST(EqualityConnect, FreeBoxOnACornerMatchesTheBallJointPendulum) {
  double diff1, drift1, diff2, drift2;
  RunPendulums(1e-3, 1.0, SolverType::kSap, &diff1, &drift1);
  RunPendulums(5e-4, 1.0, SolverType::kSap, &diff2, &drift2);
  const double L = kCorner.norm(), w = 5.0;
  EXPECT_LT(diff1, 1e-3);
  EXPECT_GT(diff1 / diff2, 1.5);
  EXPECT_LT(diff1 / diff2, 2.5);
  EXPECT_LT(drift1, 2 * 1e-6 * w * w * L);
  EXPECT_LT(drift2, 2 * 0.25e-6 * w * w * L);
  std::printf("connect pendulum: |x_connect - x_ball| max %.3g m (dt 1 ms), %.3g m (0.5 ms); "
              "drift %.3g m, %.3g m\n", diff1, diff2, drift1, drift2);
}

// ---------------------------------------------------------------------------------------------
// Weld: a free body welded to the world under gravity stays put within the drift the law
// allows: per step g1 = −δt R γ with γ = m g δt (the weight) and near-rigid R ≈ β² w/(4π²):
// |g| ~ β² g δt² w m/(4π²) ~ 1e-9 m; bound 1e-7 m (and 1e-6 rad).
TEST(EqualityWeld, BodyWeldedToTheWorldStays) {
  Model m;
  const Mat3 I = BoxInertia(2.0, Vec3(0.2, 0.1, 0.05));
  const Quat q0 = testing::AxisAngleDeg(Vec3(1, 2, 3), 40);
  const int b = AddFreeBody(&m, "b", 2.0, I, Pose{Vec3(0.3, 0.1, 1.0), q0});
  // F_A at (0.1, 0, 0) in the body, F_B the same world pose: g = 0 at the start.
  const Pose fa{Vec3(0.1, 0, 0), testing::AxisAngleDeg(Vec3(0, 0, 1), 30)};
  m.equalities.push_back(Weld(b, fa, -1, Pose{Vec3(0.3, 0.1, 1.0), q0} * fa));
  m.Finalize();
  StepSettings s;
  Simulator sim(m, s);
  double drift = 0;
  for (int k = 0; k < 1000; ++k) {
    const StepRecord& r = sim.Step();
    ASSERT_EQ(r.result.stats.status, SolverStatus::kConverged);
    const std::vector<Vec3> g = EqualityResiduals(sim.model(), sim.multibody(), sim.state().q);
    EXPECT_LT(g[0].norm(), 1e-7) << "step " << k;
    EXPECT_LT(g[1].norm(), 1e-6) << "step " << k;
    drift = std::max(drift, g[0].norm());
  }
  std::printf("weld to world: max position drift %.3g m\n", drift);
}

// Two free bodies welded together fall as one rigid body: their relative pose stays within the
// drift bound of the law (as above), and the pair's center of mass falls freely (no external
// force but gravity: z = z0 − ½ g t² within the first-order scheme's δt g t/2 ~ 5 mm at 1 s).
TEST(EqualityWeld, TwoWeldedBodiesFallAsOne) {
  Model m;
  const int a = AddFreeBody(&m, "a", 1.0, BoxInertia(1.0, Vec3(0.1, 0.1, 0.1)),
                            Pose{Vec3(0, 0, 2)});
  const int b = AddFreeBody(&m, "b", 3.0, BoxInertia(3.0, Vec3(0.2, 0.05, 0.05)),
                            Pose{Vec3(0.3, 0, 2), testing::AxisAngleDeg(Vec3(0, 1, 0), 20)});
  // Weld at the current relative pose (F_A = identity in A, F_B = X_BA).
  const Pose X_WA{Vec3(0, 0, 2)}, X_WB{Vec3(0.3, 0, 2), testing::AxisAngleDeg(Vec3(0, 1, 0), 20)};
  m.equalities.push_back(Weld(a, Pose{}, b, X_WB.Inverse() * X_WA));
  m.Finalize();
  Simulator sim(m, StepSettings{});
  State st = sim.state();
  st.v.segment<3>(0) = Vec3(0.2, 0, 0);  // a moves, b at rest: the weld must carry b along
  sim.set_state(st);
  double drift_p = 0, drift_r = 0;
  for (int k = 0; k < 1000; ++k) {
    const StepRecord& r = sim.Step();
    ASSERT_EQ(r.result.stats.status, SolverStatus::kConverged);
    const std::vector<Vec3> g = EqualityResiduals(sim.model(), sim.multibody(), sim.state().q);
    if (k > 5) {  // after the initial velocity jump is absorbed (the first steps' impulse)
      drift_p = std::max(drift_p, g[0].norm());
      drift_r = std::max(drift_r, g[1].norm());
    }
  }
  EXPECT_LT(drift_p, 1e-5);
  EXPECT_LT(drift_r, 1e-4);
  // Momentum: the pair moves at (1 · 0.2 + 3 · 0)/4 = 0.05 m/s horizontally, falls at g t.
  const VecX& v = sim.state().v;
  const Vec3 p_com_v = (1.0 * v.segment<3>(0) + 3.0 * v.segment<3>(6)) / 4.0;
  EXPECT_NEAR(p_com_v.x(), 0.05, 1e-6);
  EXPECT_NEAR(p_com_v.z(), -9.81 * 1.0, 1e-6);
  std::printf("welded pair: relative drift %.3g m, %.3g rad\n", drift_p, drift_r);
}

// ---------------------------------------------------------------------------------------------
// Joint coupling: two pendulums on hinges (separate trees) with q_a = 0.1 + 2 q_b, moving under
// gravity for 1 s. Near-rigid: |g| <= δt R γ + O(δt² q̇²): bound 1e-5 rad.
TEST(EqualityCoupling, GearedHingesKeepTheirRatio) {
  Model m;
  const Mat3 I = BoxInertia(1.0, Vec3(0.05, 0.05, 0.2));
  AddJointedBody(&m, "a", -1, JointType::kRevolute, Vec3::UnitY(), Pose{Vec3(0, 0, 1)},
                 Pose{Vec3(0, 0, 0.2)}, 1.0, I);
  AddJointedBody(&m, "b", -1, JointType::kRevolute, Vec3::UnitY(), Pose{Vec3(1, 0, 1)},
                 Pose{Vec3(0, 0, 0.4)}, 2.0, I);
  m.equalities.push_back(Coupling(0, 1, 2.0, 0.1));
  m.Finalize();
  Simulator sim(m, StepSettings{});
  State st = sim.state();
  st.q << 0.1 + 2 * 0.3, 0.3;
  sim.set_state(st);
  double worst = 0, travel = 0;
  for (int k = 0; k < 1000; ++k) {
    const StepRecord& r = sim.Step();
    ASSERT_EQ(r.result.stats.status, SolverStatus::kConverged);
    const VecX& q = sim.state().q;
    worst = std::max(worst, std::abs(q(0) - 0.1 - 2 * q(1)));
    travel = std::max(travel, std::abs(q(1) - 0.3));
  }
  EXPECT_LT(worst, 1e-5);
  EXPECT_GT(travel, 0.1);  // it did move
  std::printf("geared hinges: max |q_a - 0.1 - 2 q_b| %.3g rad over %.3g rad of travel\n", worst,
              travel);
}

// ---------------------------------------------------------------------------------------------
// Validation in Model::Finalize: messages name the equality.
TEST(EqualityModel, FinalizeRejectsBadEqualities) {
  auto base = [] {
    Model m;
    AddJointedBody(&m, "a", -1, JointType::kRevolute, Vec3::UnitY(), Pose{}, Pose{}, 1.0,
                   Mat3::Identity() * 0.01);
    AddJointedBody(&m, "b", -1, JointType::kBall, Vec3::UnitY(), Pose{}, Pose{}, 1.0,
                   Mat3::Identity() * 0.01);
    return m;
  };
  auto expect_error = [&](Equality e, const std::string& what) {
    Model m = base();
    e.name = "eq1";
    m.equalities.push_back(e);
    try {
      m.Finalize();
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& ex) {
      const std::string msg = ex.what();
      EXPECT_NE(msg.find("equality 'eq1'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  };
  expect_error(Coupling(0, 1, 1, 0), "not a 1-dof joint");
  expect_error(Coupling(0, 7, 1, 0), "joint_b index out of range");
  expect_error(Coupling(0, 0, 1, 0), "same joint");
  expect_error(Connect(0, Vec3::Zero(), 5, Vec3::Zero()), "body_b index out of range");
  expect_error(Connect(0, Vec3(NAN, 0, 0), 1, Vec3::Zero()), "anchor on A");
  expect_error(Connect(0, Vec3::Zero(), 0, Vec3::Zero()), "same body");
  Equality e = Connect(0, Vec3::Zero(), 1, Vec3::Zero());
  e.stiffness = 0;
  expect_error(e, "stiffness");
  e.stiffness = 1e5;
  e.dissipation_time = -1;
  expect_error(e, "dissipation_time");
  Model ok = base();
  ok.equalities.push_back(Connect(0, Vec3::Zero(), -1, Vec3::Zero()));
  EXPECT_NO_THROW(ok.Finalize());
}

// ---------------------------------------------------------------------------------------------
// A four-bar linkage (a parallelogram: crank, coupler, rocker on hinges about y) closed by a
// connect between the coupler's end and the rocker's end (two trees). Every solver either solves
// it with the loop closed (drift bounded) or refuses the step with kUnsupportedConstraint.
Model FourBar() {
  Model m;
  const Mat3 I = BoxInertia(0.5, Vec3(0.02, 0.02, 0.15));
  // Crank: hinge at (0, 0, 1), link hanging 0.3 m down (body frame at the hinge).
  const int crank = AddJointedBody(&m, "crank", -1, JointType::kRevolute, Vec3::UnitY(),
                                   Pose{Vec3(0, 0, 1)}, Pose{}, 0.5, I, Vec3(0, 0, -0.15));
  // Coupler: hinge at the crank's end, horizontal bar 0.5 m along x.
  const int coupler = AddJointedBody(&m, "coupler", crank, JointType::kRevolute, Vec3::UnitY(),
                                     Pose{Vec3(0, 0, -0.3)}, Pose{}, 0.8,
                                     BoxInertia(0.8, Vec3(0.25, 0.02, 0.02)), Vec3(0.25, 0, 0));
  // Rocker: hinge at (0.5, 0, 1), hanging 0.3 m.
  const int rocker = AddJointedBody(&m, "rocker", -1, JointType::kRevolute, Vec3::UnitY(),
                                    Pose{Vec3(0.5, 0, 1)}, Pose{}, 0.5, I, Vec3(0, 0, -0.15));
  Equality e = Connect(coupler, Vec3(0.5, 0, 0), rocker, Vec3(0, 0, -0.3));
  e.name = "loop";
  m.equalities.push_back(e);
  m.Finalize();
  return m;
}

struct FourBarRun {
  SolverStatus status = SolverStatus::kConverged;
  std::string message;
  double max_drift = 0;
  double swing = 0;  // max |q_crank|
};

FourBarRun RunFourBar(SolverType solver, int steps) {
  StepSettings s;
  s.solver_type = solver;
  Simulator sim(FourBar(), s);
  State st = sim.state();
  st.v(0) = 2.0;  // crank; the others must follow the parallelogram
  st.v(1) = -2.0;  // coupler stays horizontal: q_coupler = −q_crank
  st.v(2) = 2.0;
  sim.set_state(st);
  FourBarRun out;
  for (int k = 0; k < steps; ++k) {
    const StepRecord& r = sim.Step();
    if (r.result.stats.status != SolverStatus::kConverged &&
        r.result.stats.status != SolverStatus::kMaxIterations) {
      out.status = r.result.stats.status;
      out.message = r.result.stats.message;
      return out;
    }
    out.max_drift = std::max(out.max_drift, MaxResidual(sim));
    out.swing = std::max(out.swing, std::abs(sim.state().q(0)));
  }
  return out;
}

// The bound: the curvature term of the linearization, δt² |q̇|² L per step (|q̇| <= 3 rad/s,
// L = 0.3 m: 2.7e-6 m at 1 ms), plus the solver's tolerance on the equation (its velocity
// residual times δt); 1e-4 m leaves room for the iterative solvers' looser tolerances.
void ExpectFourBarSolvedOrRefused(SolverType solver, bool supported) {
  const FourBarRun r = RunFourBar(solver, 1000);
  if (supported) {
    EXPECT_EQ(r.status, SolverStatus::kConverged) << SolverTypeName(solver) << ": " << r.message;
    EXPECT_LT(r.max_drift, 1e-4) << SolverTypeName(solver);
    EXPECT_GT(r.swing, 0.2) << SolverTypeName(solver);
    std::printf("four-bar, %s: loop drift %.3g m, crank swing %.3g rad\n", SolverTypeName(solver),
                r.max_drift, r.swing);
  } else {
    EXPECT_EQ(r.status, SolverStatus::kUnsupportedConstraint)
        << SolverTypeName(solver) << ": " << r.message;
    EXPECT_NE(r.message.find("does not support equality constraints"), std::string::npos)
        << r.message;
  }
}

TEST(EqualitySolvers, SapSolvesTheFourBar) { ExpectFourBarSolvedOrRefused(SolverType::kSap, true); }
TEST(EqualitySolvers, PgsSolvesTheFourBar) { ExpectFourBarSolvedOrRefused(SolverType::kPgs, true); }
TEST(EqualitySolvers, SubAdmmSolvesTheFourBar) {
  ExpectFourBarSolvedOrRefused(SolverType::kSubAdmm, true);
}
TEST(EqualitySolvers, CanalRefusesTheFourBar) {
  ExpectFourBarSolvedOrRefused(SolverType::kCanal, false);
}
TEST(EqualitySolvers, FirstOrderRefusesTheFourBar) {
  ExpectFourBarSolvedOrRefused(SolverType::kFirstOrder, false);
}

// An inactive equality adds no constraint.
TEST(EqualityModel, InactiveEqualityIsNotAConstraint) {
  Model m = FourBar();
  m.equalities[0].active = false;
  Simulator sim(m, StepSettings{});
  const StepRecord& r = sim.Step();
  for (const ConstraintData& c : r.problem.constraints) {
    EXPECT_NE(c.kind, ConstraintKind::kBilateral);
  }
}

}  // namespace
}  // namespace contactlab
