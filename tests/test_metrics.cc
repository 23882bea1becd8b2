// Tests of engine/inspect/metrics.h: the NCP residual on hand-built one-contact problems whose exact
// Signorini-Coulomb solutions are known in closed form, the position error e_q and the log-log
// slope fits.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/inspect/metrics.h"
#include "engine/solvers/sap/sap_solver.h"

namespace contactlab {
namespace {

constexpr double kMass = 2.0, kDt = 0.01, kTau = 0.02, kMu = 0.5;
// Stiff enough that the normal impulse at rest holds the tangential impulses used below inside
// the cone; the SAP test uses a softer contact so that SAP's R_n comes from k (soft regime).
constexpr double kK = 1e7, kSoftK = 1e5;

// A point mass (3 dofs, A = m I) with one contact whose frame is the world frame (J = I).
ContactProblem PointMass(const Vec3& v_star, double phi0, double k = kK) {
  ContactProblem p;
  p.time_step = kDt;
  p.nv = 3;
  p.tree_v_start = {0};
  p.tree_nv = {3};
  p.A = {MatX::Identity(3, 3) * kMass};
  p.M = p.A;
  p.v_star = v_star;
  p.v0 = VecX::Zero(3);
  ConstraintData c;
  c.num_blocks = 1;
  c.blocks[0].tree = 0;
  c.blocks[0].J = MatX::Identity(3, 3);
  c.stiffness = k;
  c.dissipation_time = kTau;
  c.friction = kMu;
  c.phi0 = phi0;
  p.constraints.push_back(c);
  p.num_rows = 3;
  p.ComputeDelassusEstimates();
  return p;
}

SolverResult WithGamma(const Vec3& gamma) {
  SolverResult r;
  r.gamma = gamma;
  return r;
}

// Normal impulse of the compliant law at rest in the normal direction: g_n = 0 with
// v_n = v*_n + γ_n/m, g_n = v_n + φ0/τ + γ_n/(δt k τ), τ = δt + τ_d.
double CompliantNormalImpulse(double v_star_n, double phi0) {
  const double tau = kDt + kTau;
  return -(v_star_n + phi0 / tau) / (1 / kMass + 1 / (kDt * kK * tau));
}

TEST(NcpResidual, ZeroForOpenContactWithNoImpulse) {
  const ContactProblem p = PointMass(Vec3(0.3, 0, 0.1), 0.01);
  EXPECT_EQ(ComputeNcpResidual(p, WithGamma(Vec3::Zero())).residual, 0.0);
}

TEST(NcpResidual, ZeroForExactStiction) {
  // Tangential free velocity small enough that the stiction impulse −m v*_t is inside the cone.
  const Vec3 v_star(0.01, -0.02, -0.1);
  const double phi0 = -1e-4;
  const double gn = CompliantNormalImpulse(v_star.z(), phi0);
  ASSERT_GT(gn, 0);
  const Vec3 gamma(-kMass * v_star.x(), -kMass * v_star.y(), gn);
  ASSERT_LT(gamma.head<2>().norm(), kMu * gn);
  const NcpResidual r = ComputeNcpResidual(PointMass(v_star, phi0), WithGamma(gamma));
  EXPECT_LT(r.residual, 1e-14);  // round-off of O(1) quantities
}

TEST(NcpResidual, ZeroForExactSliding) {
  // Large tangential free velocity: the impulse sits on the cone boundary, opposite the slip.
  const Vec3 v_star(2.0, 1.0, -0.1);
  const double phi0 = -1e-4;
  const double gn = CompliantNormalImpulse(v_star.z(), phi0);
  const Eigen::Vector2d dir = v_star.head<2>().normalized();
  const Vec3 gamma(-kMu * gn * dir.x(), -kMu * gn * dir.y(), gn);
  // The slip v_t = v*_t + γ_t/m keeps the direction of v*_t (it does not reverse).
  ASSERT_GT(v_star.head<2>().norm(), kMu * gn / kMass);
  const NcpResidual r = ComputeNcpResidual(PointMass(v_star, phi0), WithGamma(gamma));
  EXPECT_LT(r.residual, 1e-14);
}

TEST(NcpResidual, MeasuresAViolation) {
  // An impulse on an open contact (φ0 > 0, separating): the natural map sends γ_n to
  // max(γ_n − g_n, 0) = 0, so the normal row's residual is γ_n itself (g_n > γ_n here).
  const ContactProblem p = PointMass(Vec3(0, 0, 1.0), 0.5);
  const NcpResidual r = ComputeNcpResidual(p, WithGamma(Vec3(0, 0, 0.2)));
  EXPECT_NEAR(r.residual, 0.2, 1e-12);
  EXPECT_NEAR(r.max_row, 0.2, 1e-12);
  // A friction impulse outside the cone is clamped back onto it: residual is the excess.
  const Vec3 v_star(2.0, 0, -0.1);
  const double gn = CompliantNormalImpulse(v_star.z(), -1e-4);
  const Vec3 over(-1.5 * kMu * gn, 0, gn);
  const NcpResidual r2 = ComputeNcpResidual(PointMass(v_star, -1e-4), WithGamma(over));
  EXPECT_GT(r2.residual, 0.1 * kMu * gn);
}

TEST(NcpResidual, RigidModelUsesTheGapOverTheStep) {
  // Rigid velocity-level NCP: g_n = v_n + φ0/δt. With γ_n = −m(v*_n + φ0/δt) the normal row is
  // exact and the contact sticks (v*_t = 0).
  const Vec3 v_star(0, 0, -0.1);
  const double phi0 = -1e-4;
  const Vec3 gamma(0, 0, -kMass * (v_star.z() + phi0 / kDt));
  const ContactProblem p = PointMass(v_star, phi0);
  EXPECT_LT(ComputeNcpResidual(p, WithGamma(gamma), NcpModel::kRigid).residual, 1e-14);
  // The same impulse violates the compliant law (which asks for less).
  EXPECT_GT(ComputeNcpResidual(p, WithGamma(gamma), NcpModel::kCompliant).residual, 1e-3);
}

TEST(NcpResidual, SapStictionResidualIsItsRegularizedSlip) {
  // SAP's stiction keeps a slip v_t = −R_t γ_t; against exact Coulomb the natural-map residual
  // of the tangential rows is that slip (the normal row is exact in the soft regime, where R_n
  // comes from k and τ_d).
  const Vec3 v_star(2e-4, 0, -0.1);
  const ContactProblem p = PointMass(v_star, -1e-4, kSoftK);
  SapParameters prm;
  prm.rel_tolerance = 1e-12;
  SapSolver sap(prm);
  SolverResult res;
  ASSERT_EQ(sap.Solve(p, VecX::Zero(3), &res), SolverStatus::kConverged);
  ASSERT_EQ(res.regime[0], Regime::kStiction);
  const double slip = res.vc.head<2>().norm();
  ASSERT_GT(slip, 0);
  EXPECT_NEAR(ComputeNcpResidual(p, res).residual, slip, 1e-6 * slip + 1e-12);
}

TEST(NcpResidual, RejectsMismatchedSizes) {
  const ContactProblem p = PointMass(Vec3::Zero(), 0);
  SolverResult r;
  r.gamma = VecX::Zero(2);
  EXPECT_THROW(ComputeNcpResidual(p, r), std::invalid_argument);
}

Trajectory Sampled(double (*f)(double), double dt, double T) {
  Trajectory tr;
  const int n = static_cast<int>(std::lround(T / dt));
  for (int i = 0; i <= n; ++i) {
    VecX x(1);
    x(0) = f(i * dt);
    tr.Add(i * dt, x);
  }
  return tr;
}

TEST(PositionError, ZeroAgainstItselfAndConstantOffset) {
  const Trajectory a = Sampled([](double t) { return std::sin(t); }, 0.01, 2.0);
  EXPECT_EQ(PositionErrorRms(a, a), 0.0);
  const Trajectory b = Sampled([](double t) { return std::sin(t) + 0.25; }, 0.01, 2.0);
  EXPECT_NEAR(PositionErrorRms(b, a), 0.25, 1e-12);
}

TEST(PositionError, InterpolatesACoarserReference) {
  // x − x_ref = t on [0, 1]: e_q = (∫ t² dt)^{1/2} = 1/√3. The reference is linear, so its
  // interpolation is exact; the trapezoid rule on 1000 samples errs by about 1e-7.
  const Trajectory ref = Sampled([](double t) { return 2 * t; }, 0.25, 1.0);
  const Trajectory x = Sampled([](double t) { return 3 * t; }, 0.001, 1.0);
  EXPECT_NEAR(PositionErrorRms(x, ref), 1 / std::sqrt(3.0), 1e-6);
}

TEST(PositionError, RejectsTooFewSamples) {
  Trajectory one;
  one.Add(0, VecX::Zero(1));
  EXPECT_THROW(PositionErrorRms(one, one), std::invalid_argument);
}

TEST(Slopes, RecoverPowerLawsAndSkipInvalidPoints) {
  EXPECT_NEAR(LogLogSlope({1, 2, 4, 8}, {3, 12, 48, 192}), 2.0, 1e-12);
  EXPECT_NEAR(LogLogSlope({1, 2, 0, 4}, {1, 0.5, 7, 0.25}), -1.0, 1e-12);
  EXPECT_TRUE(std::isnan(LogLogSlope({1}, {1})));
  EXPECT_NEAR(LinearSlope({0, 1, 2}, {1, 3, 5}), 2.0, 1e-12);
}

}  // namespace
}  // namespace contactlab
