// Tests of engine/inspect/metrics.h: the NCP residual on hand-built one-contact problems whose exact
// Signorini-Coulomb solutions are known in closed form, the position error e_q and the log-log
// slope fits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/contact/constraint_laws.h"
#include "engine/inspect/metrics.h"
#include "engine/solvers/sap/sap_solver.h"
#include "tests/problem_builders.h"

namespace contactlab {
namespace {

constexpr double kMass = 2.0, kDt = 0.01, kTau = 0.02, kMu = 0.5;
// Stiff enough that the normal impulse at rest holds the tangential impulses used below inside
// the cone; the SAP test uses a softer contact so that SAP's R_n comes from k (soft regime).
constexpr double kK = 1e7, kSoftK = 1e5;

// A point mass (3 dofs, A = m I) with one contact whose frame is the world frame (J = I).
ContactProblem PointMass(const Vec3& v_star, double phi0, double k = kK) {
  return test_problems::PointMassContact(kMass, kDt, v_star, k, kTau, kMu, phi0);
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

// The residual of contacts given in their frames (another engine's rows) is the rigid-law
// residual of the same impulses and velocities: on the point mass, with v = v* + γ/m, both ways
// agree to round-off, and hand-computed values come out for a violation of each row.
TEST(NcpResidual, ContactFrameSamplesMatchTheRigidLawOfAProblem) {
  const Vec3 v_star(0.3, -0.2, -0.1);
  const double phi0 = -2e-4;
  const Vec3 gamma(-0.1, 0.05, 0.4);
  const ContactProblem p = PointMass(v_star, phi0);
  const NcpResidual expected = ComputeNcpResidual(p, WithGamma(gamma), NcpModel::kRigid);
  ContactFrameSample c;
  c.mu = kMu;
  c.phi0 = phi0;
  c.gamma_n = gamma.z();
  c.gamma_t = gamma.head<2>();
  const Vec3 v = v_star + gamma / kMass;
  c.v_n = v.z();
  c.v_t = v.head<2>();
  const NcpResidual r = RigidNcpResidualOfContacts({c, c}, kDt);
  EXPECT_EQ(r.num_constraints, 2);
  EXPECT_NEAR(r.residual, expected.residual / std::sqrt(2.0), 1e-14);  // sqrt(2 S) / 2
  EXPECT_NEAR(r.max_row, expected.max_row, 1e-14);
  EXPECT_EQ(RigidNcpResidualOfContacts({}, kDt).residual, 0.0);

  // A contact resting with a soft penetration (MuJoCo-like): v = 0, γ_n > 0, φ0 = −1 mm. Then
  // g_n = φ0/δt = −0.1 m/s, T_n = γ_n + 0.1, the normal row is −0.1 and the friction rows 0.
  ContactFrameSample rest;
  rest.mu = 1;
  rest.phi0 = -1e-3;
  rest.gamma_n = 0.05;
  const NcpResidual rr = RigidNcpResidualOfContacts({rest}, 0.01);
  EXPECT_NEAR(rr.residual, 0.1, 1e-15);
  // Four such contacts: sqrt(4 · 0.1²) / 4 = 0.05.
  EXPECT_NEAR(RigidNcpResidualOfContacts({rest, rest, rest, rest}, 0.01).residual, 0.05, 1e-15);
  // Frictionless (normal row only): a tangential impulse is ignored.
  ContactFrameSample frictionless = rest;
  frictionless.frictional = false;
  frictionless.gamma_t = Eigen::Vector2d(1, 1);
  EXPECT_NEAR(RigidNcpResidualOfContacts({frictionless}, 0.01).residual, 0.1, 1e-15);
  // Sliding at 1 m/s with a friction impulse of half the cone's radius, opposite the slip:
  // T_t = γ_t − v_t clamped to μ T_n = 0.2 (φ0 = 0, v_n = 0, γ_n = 0.2), the row γ_t − T_t.
  ContactFrameSample slide;
  slide.mu = 1;
  slide.gamma_n = 0.2;
  slide.gamma_t = Eigen::Vector2d(-0.1, 0);
  slide.v_t = Eigen::Vector2d(1, 0);
  EXPECT_NEAR(RigidNcpResidualOfContacts({slide}, 0.01).residual, 0.1, 1e-15);
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

// ---------------------------------------------------------------------------------------------
// The NCP residual of the Hunt–Crossley models: the normal gap measures their own law
// n(ζ) = δt (f₀ − δt k ζ)₊ (1 − d ζ)₊ (seed 004 eqs. 6, 13), written out again here.

constexpr double kHcK = 1e5, kHcD = 0.5, kHcPhi0 = -1e-4;

ContactProblem HcPointMass(const Vec3& v_star) {
  ContactProblem p = PointMass(v_star, kHcPhi0, kHcK);
  p.constraints[0].hunt_crossley_dissipation = kHcD;
  return p;
}

double HcImpulse(double zeta) {
  const double f0 = kHcK * -kHcPhi0;
  return kDt * std::max(f0 - kDt * kHcK * zeta, 0.0) * std::max(1 - kHcD * zeta, 0.0);
}
double HcSlope(double zeta) {  // −n'(ζ) inside contact
  const double f0 = kHcK * -kHcPhi0;
  return kDt * (kDt * kHcK * (1 - kHcD * zeta) + kHcD * (f0 - kDt * kHcK * zeta));
}

// Root of an increasing f on [lo, hi] by bisection to the last bit.
template <class F>
double Bisect(F f, double lo, double hi) {
  for (int i = 0; i < 200 && lo < hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    (f(mid) < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The box at rest on the ground for one step: m (v_n − v*_n) = γ_n = n(v_n), v_t = 0.
double RestingNormalImpulse(double v_star_n) {
  const double v_hat = std::min(-kHcPhi0 / kDt, 1 / kHcD);
  const double vn =
      Bisect([&](double v) { return kMass * (v - v_star_n) - HcImpulse(v); }, v_star_n, v_hat);
  return kMass * (vn - v_star_n);
}

TEST(NcpResidual, HuntCrossleyRestingBoxIsExactAndAPerturbationShowsItsGap) {
  const Vec3 v_star(0, 0, -0.1);
  const ContactProblem p = HcPointMass(v_star);
  const double gn = RestingNormalImpulse(v_star.z());
  ASSERT_GT(gn, 0.1) << "a loaded contact";
  for (ContactModelType m : {ContactModelType::kLagged, ContactModelType::kLaggedRegularized,
                             ContactModelType::kSimilar}) {
    // Exact solution (v_t = 0, so ζ = v_n for similar too): zero up to round-off of the
    // bisection (γ_n to the last bit, |n'| ~ 10 N s²/m: g_n ~ 1e-16).
    const NcpResidual r = ComputeNcpResidual(p, Vec3(0, 0, gn), m);
    EXPECT_LT(r.residual, 1e-13) << ContactModelName(m);
    // γ_n + δ: v_n rises by δ/m and n⁻¹(γ_n + δ) falls by δ/|n'|, so g_n = δ (1/m + 1/|n'|)
    // to first order (the relative error is O(δ/γ_n) = 1e-6); the row's residual is g_n.
    const double delta = 1e-6 * gn;
    const double vn = v_star.z() + gn / kMass;
    const double expected = delta * (1 / kMass + 1 / HcSlope(vn));
    const NcpResidual rp = ComputeNcpResidual(p, Vec3(0, 0, gn + delta), m);
    EXPECT_NEAR(rp.residual, expected, 1e-4 * expected) << ContactModelName(m);
  }
  // The same impulse measured against the linear law (k, τ_d) is far from exact: the residual
  // follows the model.
  EXPECT_GT(ComputeNcpResidual(p, Vec3(0, 0, gn), ContactModelType::kLinear).residual, 1e-3);
}

TEST(NcpResidual, SimilarSlidingIsExactUnderItsLawAndOffByMuSlipUnderLagged) {
  // Sliding at 2 m/s: similar's normal law reads ζ = v_n − μ‖v_t‖. Exact solution of
  // m (v − v*) = γ, γ_n = n(ζ), γ_t = −μ γ_n t̂ (t̂ along v*_t, the slip does not reverse).
  const Vec3 v_star(2.0, 0, -0.1);
  const ContactProblem p = HcPointMass(v_star);
  auto zeta = [&](double g) {
    return (v_star.z() + g / kMass) - kMu * (v_star.x() - kMu * g / kMass);
  };
  const double gn = Bisect([&](double g) { return g - HcImpulse(zeta(g)); }, 0.0, 100.0);
  const double slip = v_star.x() - kMu * gn / kMass;
  ASSERT_GT(slip, 0);
  const Vec3 gamma(-kMu * gn, 0, gn);
  EXPECT_LT(ComputeNcpResidual(p, gamma, ContactModelType::kSimilar).residual, 1e-12);
  // Under the lagged law (ζ = v_n) the normal gap is v_n − ζ = μ‖v_t‖ < γ_n here, so the normal
  // row's residual is μ‖v_t‖, and the Coulomb disk shrinks to μ (γ_n − μ‖v_t‖): the tangential
  // row's residual is μ²‖v_t‖. Together μ‖v_t‖ √(1 + μ²).
  ASSERT_LT(kMu * slip, gn);
  const double expected = kMu * slip * std::sqrt(1 + kMu * kMu);
  EXPECT_NEAR(ComputeNcpResidual(p, gamma, ContactModelType::kLagged).residual, expected,
              1e-9 * expected);
}

TEST(NcpResidual, FollowsTheModelOfTheSolveAndItsComplementarityError) {
  // SAP minimizing the lagged law at rest: the residual against the lagged law is the solver's
  // tolerance level, against the linear law (the default without a model) it is not; e_μ of the
  // Hunt–Crossley laws is the round-off of their normal law's complementarity.
  const ContactProblem p = HcPointMass(Vec3(0, 0, -0.1));
  SapParameters prm;
  prm.rel_tolerance = 1e-12;
  ContactModelParameters lagged;
  lagged.model = ContactModelType::kLagged;
  SapSolver sap(prm, lagged);
  SolverResult res;
  ASSERT_EQ(sap.Solve(p, VecX::Zero(3), &res), SolverStatus::kConverged) << res.stats.message;
  ASSERT_EQ(res.laws.model(), ContactModelType::kLagged);
  const double gn = RestingNormalImpulse(-0.1);
  EXPECT_NEAR(res.gamma(2), gn, 1e-9 * gn) << "SAP reaches the closed-form impulse";
  EXPECT_LT(ComputeNcpResidual(p, res).residual, 1e-9);
  EXPECT_GT(ComputeNcpResidual(p, res.gamma, ContactModelType::kLinear).residual, 1e-3);
  // e_μ = |γ_n (v_n − n⁻¹(γ_n))| / (n_c ℓ): round-off (ℓ ~ 1e-3 J, γ_n ~ 0.2 N s).
  EXPECT_LT(res.stats.complementarity_error, 1e-9);
  // A γ_n off the law by 1e-6 relative gives a complementarity term of the expected size:
  // γ_n · δ/|n'| (the law's gap at fixed v_n).
  LaggedLaw::Constants K = LaggedLaw::Prepare(p.constraints[0], kDt, 0.0, LawParameters{});
  const double vn = res.vc(2);
  const double delta = 1e-6 * gn;
  const double vc[3] = {0, 0, vn};
  const double gamma[3] = {0, 0, HcImpulse(vn) + delta};
  const double expected = gamma[2] * delta / HcSlope(vn);
  EXPECT_NEAR(LaggedLaw::Slack(K, vc, gamma), expected, 1e-4 * expected);
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
