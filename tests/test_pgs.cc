// Tests of the PGS solver (projected block Gauss–Seidel on the dual of SAP's convex problem,
// engine/solvers/pgs/pgs_solver.h; the baseline of seed 001 §VII): the block objective's
// gradient and Hessian against finite differences, the exact block update against brute-force
// minimizations, the dual bookkeeping (decrease, duality gap) against closed forms, agreement with
// SAP's solution on a resting box, a box on a ramp (sticking and sliding), Hunt–Crossley models
// and random problems with bounds from strong convexity, the closed-form single contact, the
// conformance items (exact guess, empty problem, non-finite input, unsupported model), and the
// plateau of PGS on a heavy box resting on a light one.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "engine/contact/constraint_bundle.h"
#include "engine/contact/contact_problem.h"
#include "engine/contact/linear_cone.h"
#include "engine/inspect/metrics.h"
#include "engine/solvers/common/problem_checks.h"
#include "engine/solvers/pgs/pgs_parameter_table.h"
#include "engine/solvers/pgs/pgs_solver.h"
#include "engine/solvers/sap/sap_model.h"
#include "engine/solvers/sap/sap_solver.h"
#include "tests/problem_builders.h"
#include "tests/random_problem.h"

namespace contactlab {
namespace {

using test_problems::AddFreeBoxTree;
using test_problems::LogUniform;
using test_problems::PointJacobian;
using test_problems::Uniform;

constexpr double kGravity = 9.81;

Vec3 RandomVec3(std::mt19937& rng, double scale) {
  return scale * Vec3(Uniform(rng, -1, 1), Uniform(rng, -1, 1), Uniform(rng, -1, 1));
}
// Random SPD 3 x 3 with eigenvalues in [lo, hi] (random rotation).
Mat3 RandomSpd3(std::mt19937& rng, double lo, double hi) {
  const Eigen::Quaterniond q(Uniform(rng, -1, 1), Uniform(rng, -1, 1), Uniform(rng, -1, 1),
                             Uniform(rng, -1, 1));
  const Mat3 Q = q.normalized().toRotationMatrix();
  const Vec3 d(LogUniform(rng, lo, hi), LogUniform(rng, lo, hi), LogUniform(rng, lo, hi));
  return Q * d.asDiagonal() * Q.transpose();
}

// ---------------------------------------------------------------------------------------------
// Problems.

// A particle of mass m (3 dofs, A = M = m I) on the ground, contact frame = world (J = I).
ContactProblem MakeParticle(double m, double dt, double k, double tau_d, double mu, double phi0) {
  ContactProblem p =
      test_problems::PointMassContact(m, dt, Vec3(0, 0, -kGravity * dt), k, tau_d, mu, phi0);
  p.constraints[0].hunt_crossley_dissipation = 0.2;
  return p;
}

ConstraintData& AddContact(ContactProblem* p, double k, double tau_d, double mu) {
  ConstraintData c;
  c.first_row = p->num_rows;
  c.stiffness = k;
  c.dissipation_time = tau_d;
  c.friction = mu;
  c.hunt_crossley_dissipation = 0.2;
  p->num_rows += 3;
  p->constraints.push_back(c);
  return p->constraints.back();
}

// A box of mass m and half size a resting on its four bottom corners on a plane inclined by θ:
// the problem is written in the plane's frame (x down the slope, z the plane's normal), so that
// gravity has the components g (sin θ, 0, −cos θ).
ContactProblem MakeBoxOnRamp(double m, double a, double dt, double k, double tau_d, double mu,
                             double theta) {
  ContactProblem p;
  p.time_step = dt;
  AddFreeBoxTree(&p, m, a, kGravity * dt * Vec3(std::sin(theta), 0, -std::cos(theta)));
  for (int c = 0; c < 4; ++c) {
    const Vec3 r((c & 1) ? a : -a, (c & 2) ? a : -a, -a);
    ConstraintData& cd = AddContact(&p, k, tau_d, mu);
    cd.num_blocks = 1;
    cd.blocks[0].tree = 0;
    cd.blocks[0].J = PointJacobian(r);
  }
  p.ComputeDelassusEstimates();
  return p;
}

// A box of mass m_top resting on a box of mass m_bottom (both of half size a) resting on the
// ground, near-rigid contacts at the four corners of each interface (the seed 001 dish-pile
// setting of a 50:1 mass ratio). Tree 0 is the top box, tree 1 the bottom box; a horizontal push
// f_push [N] acts on the top box along x.
ContactProblem MakeStack(double m_top, double m_bottom, double a, double dt, double mu,
                         double f_push) {
  ContactProblem p;
  p.time_step = dt;
  const double k = 1e12;  // far stiffer than the step resolves: R_n from the β clamp (eq. 29)
  AddFreeBoxTree(&p, m_top, a, Vec3(f_push * dt / m_top, 0, -kGravity * dt));
  AddFreeBoxTree(&p, m_bottom, a, Vec3(0, 0, -kGravity * dt));
  for (int c = 0; c < 4; ++c) {  // top box on bottom box: v_c = v_top(point) − v_bottom(point)
    const double x = (c & 1) ? a : -a, y = (c & 2) ? a : -a;
    ConstraintData& cd = AddContact(&p, k, 0.0, mu);
    cd.num_blocks = 2;
    cd.blocks[0].tree = 0;
    cd.blocks[0].J = PointJacobian(Vec3(x, y, -a));
    cd.blocks[1].tree = 1;
    cd.blocks[1].J = -PointJacobian(Vec3(x, y, a));
  }
  for (int c = 0; c < 4; ++c) {  // bottom box on the ground
    const double x = (c & 1) ? a : -a, y = (c & 2) ? a : -a;
    ConstraintData& cd = AddContact(&p, k, 0.0, mu);
    cd.num_blocks = 1;
    cd.blocks[0].tree = 1;
    cd.blocks[0].J = PointJacobian(Vec3(x, y, -a));
  }
  p.ComputeDelassusEstimates();
  return p;
}

// ---------------------------------------------------------------------------------------------
// Reference quantities computed here, independently of the solver.

SapParameters SapTight() {
  SapParameters prm;
  prm.rel_tolerance = 1e-13;
  return prm;
}

// ‖∇ℓ_p(v)‖_{A⁻¹} with ∇ℓ_p = A(v − v*) − Jᵀγ(v_c(v)) (SAP's gradient). ℓ_p − ½‖·‖²_A is convex,
// so ‖v − v_opt‖_A <= ‖∇ℓ_p(v)‖_{A⁻¹} for any v: a certified distance to the exact solution.
double DistanceBound(const ContactProblem& p, const ConstraintBundle& laws, const VecX& v) {
  VecX grad;
  SapCost(p, laws, v, &grad, nullptr);
  const MatX A = p.DenseA();
  return std::sqrt(grad.dot(A.llt().solve(grad)));
}

double ANorm(const ContactProblem& p, const VecX& x) { return std::sqrt(x.dot(p.DenseA() * x)); }

// Dense W = J A⁻¹ Jᵀ.
MatX DenseDelassus(const ContactProblem& p) {
  const MatX J = p.DenseJ();
  return J * p.DenseA().llt().solve(J.transpose());
}

// The dual cost D(γ) = ½γᵀWγ + γᵀ(J v* + b) + Σ_i h_i(γ_i) for linear laws, with the closed form
// h_i(γ) = ½γᵀR_iγ − γᵀv̂_i on the cone (seed 000: ℓ_i = ½‖P_F(y)‖²_R is its conjugate).
double LinearDualCost(const ContactProblem& p, const ConstraintBundle& laws, const VecX& gamma) {
  VecX R, v_hat;
  EXPECT_TRUE(laws.LinearRows(&R, &v_hat));
  const VecX u = p.DenseJ() * p.v_star + p.StackedBias();
  return 0.5 * gamma.dot(DenseDelassus(p) * gamma) + gamma.dot(u) +
         0.5 * gamma.dot(R.cwiseProduct(gamma)) - gamma.dot(v_hat);
}

// ---------------------------------------------------------------------------------------------
// The block update.

// One-constraint bundles of every law (a particle in contact, or a joint limit on it).
ConstraintBundle OneConstraintLaws(ContactModelType model, bool limit, std::mt19937& rng,
                                   ContactProblem* problem_out = nullptr) {
  const double m = LogUniform(rng, 0.3, 3);
  const double dt = 1e-2;
  const double k =
      model == ContactModelType::kLinear ? LogUniform(rng, 1e2, 1e6) : LogUniform(rng, 1e3, 1e5);
  ContactProblem p = MakeParticle(m, dt, k, Uniform(rng, 0, 0.02), Uniform(rng, 0.2, 1.2),
                                  Uniform(rng, -5e-3, 1e-3));
  p.v0 = RandomVec3(rng, 0.3);
  if (limit) {
    ConstraintData& c = p.constraints[0];
    c.kind = ConstraintKind::kUnilateral;
    c.num_rows = 1;
    c.blocks[0].J = MatX::Identity(3, 3).row(2);
    p.num_rows = 1;
    p.ComputeDelassusEstimates();
  }
  LawParameters lp;
  lp.contact.model = model;
  ConstraintBundle laws;
  laws.Prepare(p, lp);
  EXPECT_EQ(laws.Check(), "");
  if (problem_out) *problem_out = p;
  return laws;
}

struct LawCase {
  ContactModelType model;
  bool limit;
  const char* name;
};
const LawCase kLawCases[] = {
    {ContactModelType::kLinear, false, "linear"},
    {ContactModelType::kLinear, true, "linear_limit"},
    {ContactModelType::kLagged, false, "lagged"},
    {ContactModelType::kLaggedRegularized, false, "lagged_regularized"},
    {ContactModelType::kSimilar, false, "similar"},
};

TEST(PgsBlock, GradientAndHessianMatchFiniteDifferences) {
  std::mt19937 rng(1);
  for (const LawCase& lc : kLawCases) {
    const int N = lc.limit ? 1 : 3;
    int checked = 0;
    for (int trial = 0; trial < 300; ++trial) {
      const ConstraintBundle laws = OneConstraintLaws(lc.model, lc.limit, rng);
      const Mat3 W = RandomSpd3(rng, 0.1, 3.0);
      Mat3 W_inv = Mat3::Zero();
      W_inv.topLeftCorner(N, N) = W.topLeftCorner(N, N).inverse();
      const Vec3 c = RandomVec3(rng, 0.2);
      Vec3 x = RandomVec3(rng, 0.2);
      if (N == 1) x.tail<2>().setZero();
      Vec3 g;
      Mat3 H;
      PgsBlockObjective(laws, 0, W_inv, c, x, &g, &H);
      // Central differences with h = 1e-6 m/s: truncation O(h²·f''') and round-off O(ε f / h)
      // are both below 1e-6 relative to the entries for these O(1) quantities.
      const double h = 1e-6;
      Vec3 g_fd = Vec3::Zero();
      Mat3 H_fd = Mat3::Zero();
      bool smooth = true;
      for (int j = 0; j < N; ++j) {
        Vec3 xp = x, xm = x;
        xp(j) += h;
        xm(j) -= h;
        Vec3 gp, gm;
        Mat3 Hp, Hm;
        g_fd(j) = (PgsBlockObjective(laws, 0, W_inv, c, xp, &gp, &Hp) -
                   PgsBlockObjective(laws, 0, W_inv, c, xm, &gm, &Hm)) /
                  (2 * h);
        H_fd.col(j) = (gp - gm) / (2 * h);
        // A region boundary of the law within h: the Hessian jumps there, skip the point.
        smooth = smooth && (Hp - Hm).norm() <= 1e-3 * (1 + H.norm());
      }
      if (!smooth) continue;
      ++checked;
      EXPECT_LT((g - g_fd).norm(), 1e-6 * (1 + g.norm())) << lc.name << " x " << x.transpose();
      EXPECT_LT((H - H_fd).norm(), 1e-5 * (1 + H.norm())) << lc.name << " x " << x.transpose();
      // The Hessian W⁻¹ + G is symmetric positive definite (G ⪰ 0, W ≻ 0).
      EXPECT_LT((H - H.transpose()).norm(), 1e-12 * H.norm());
      EXPECT_GT(
          Eigen::SelfAdjointEigenSolver<MatX>(MatX(H.topLeftCorner(N, N))).eigenvalues().minCoeff(),
          0.0);
    }
    EXPECT_GT(checked, 250) << lc.name;
  }
}

// Euclidean projection onto F = {‖x_t‖ <= μ x_n}.
Vec3 EuclideanConeProjection(const Vec3& x, double mu) {
  const double r = x.head<2>().norm();
  if (r <= mu * x(2)) return x;
  if (mu * r <= -x(2)) return Vec3::Zero();
  const double n = (x(2) + mu * r) / (1 + mu * mu);
  return Vec3(mu * n * x(0) / r, mu * n * x(1) / r, n);
}

TEST(PgsBlock, LinearLawUpdateMatchesProjectedGradientOnTheDual) {
  // For the linear law the block problem's dual is the projection of the free velocity onto the
  // cone in the metric W + R: γ = argmin_{γ∈F} ½γᵀ(W + R)γ + γᵀ(c − v̂), x = c + Wγ. Solved here
  // by plain projected gradient with the Euclidean projection (no Newton, no law code).
  std::mt19937 rng(2);
  int regions[3] = {0, 0, 0};
  for (int trial = 0; trial < 600; ++trial) {
    ContactProblem p;
    const ConstraintBundle laws = OneConstraintLaws(ContactModelType::kLinear, false, rng, &p);
    VecX R, v_hat;
    laws.LinearRows(&R, &v_hat);
    const double mu = p.constraints[0].friction;
    const double w = p.constraints[0].w;
    // W of the contact's own scale (eigenvalues 0.3 w .. 3 w) and c drawn over a range of
    // approach and slip speeds around v̂, so that all three regions occur.
    const Mat3 W = w * RandomSpd3(rng, 0.3, 3.0);
    Vec3 c = Vec3(v_hat(0), v_hat(1), v_hat(2)) + RandomVec3(rng, LogUniform(rng, 1e-3, 1));
    if (trial % 2 == 0) c(2) = v_hat(2) - std::abs(c(2) - v_hat(2));  // approaching: in contact
    if (trial % 4 == 0) c.head<2>() *= 0.05;                          // little slip: stiction
    const PgsBlockResult b = PgsBlockUpdate(laws, 0, W, c, c);
    ASSERT_TRUE(b.converged);
    ++regions[static_cast<int>(b.regime)];

    const Mat3 P = W + Mat3(R.asDiagonal());
    const Vec3 q = c - Vec3(v_hat(0), v_hat(1), v_hat(2));
    const double L = Eigen::SelfAdjointEigenSolver<Mat3>(P).eigenvalues().maxCoeff();
    Vec3 gamma = Vec3::Zero();
    double step = 0;
    for (int it = 0; it < 400000; ++it) {
      const Vec3 next = EuclideanConeProjection(gamma - (P * gamma + q) / L, mu);
      step = (next - gamma).norm();
      gamma = next;
      if (step < 1e-16 * (1 + gamma.norm())) break;
    }
    // The projected gradient stops at a step of 1e-16 (1 + ‖γ‖) (or its budget, which these
    // condition numbers, below 1e4, do not reach); its distance to the minimizer is at most that
    // step times cond(P) <= 1e4, plus round-off: 1e-10 relative.
    const double tol = 1e-10 * (1 + gamma.norm());
    EXPECT_LT((b.gamma - gamma).norm(), tol)
        << "trial " << trial << " regime " << RegimeName(b.regime);
    // x = c + Wγ: the block update's defining relation (Newton converged to round-off).
    EXPECT_LT((b.x - c - W * b.gamma).norm(), 1e-12 * (1 + c.norm() + (W * b.gamma).norm()));
  }
  for (int r = 0; r < 3; ++r) EXPECT_GE(regions[r], 50) << RegimeName(static_cast<Regime>(r));
  std::printf("[ block ] linear vs projected gradient: stiction/sliding/none %d/%d/%d\n",
              regions[0], regions[1], regions[2]);
}

TEST(PgsBlock, EveryLawUpdateMatchesAcceleratedGradientDescent) {
  // The block objective f(x) = ½(x − c)ᵀW⁻¹(x − c) + ℓ_i(x) minimized by a first-order method
  // (accelerated gradient with gradient restart and a local Lipschitz estimate; only γ_i(x) is
  // used, never G_i nor the Newton kernel) for every law. f is λ_min(W⁻¹)-strongly convex, so
  // ‖x − x*‖ <= ‖∇f(x)‖ / λ_min(W⁻¹) certifies both the reference and the kernel's answer.
  std::mt19937 rng(3);
  for (const LawCase& lc : kLawCases) {
    const int N = lc.limit ? 1 : 3;
    int regions[3] = {0, 0, 0};
    int worst_newton = 0;
    for (int trial = 0; trial < 150; ++trial) {
      const ConstraintBundle laws = OneConstraintLaws(lc.model, lc.limit, rng);
      const Mat3 W = RandomSpd3(rng, 0.3, 3.0);
      Vec3 c = RandomVec3(rng, LogUniform(rng, 1e-3, 0.3));
      if (N == 1) c.tail<2>().setZero();
      const PgsBlockResult b = PgsBlockUpdate(laws, 0, W, c, c);
      ASSERT_TRUE(b.converged) << lc.name;
      ++regions[static_cast<int>(b.regime)];
      worst_newton = std::max(worst_newton, b.iterations);
      Mat3 W_inv = Mat3::Zero();
      W_inv.topLeftCorner(N, N) = W.topLeftCorner(N, N).inverse();
      const double lmin =
          Eigen::SelfAdjointEigenSolver<MatX>(W_inv.topLeftCorner(N, N)).eigenvalues().minCoeff();
      auto grad = [&](const Vec3& x) {
        Vec3 g;
        PgsBlockObjective(laws, 0, W_inv, c, x, &g, nullptr);
        return g;
      };
      const double target = 1e-12 * (1 + c.norm());
      Vec3 x = c, y = c, gx = grad(x);
      double t = 1, L = 1;
      for (int it = 0; it < 200000 && gx.norm() / lmin > target; ++it) {
        const Vec3 gy = grad(y);
        Vec3 xn, gn;
        for (int k = 0; k < 200; ++k) {
          xn = y - gy / L;
          gn = grad(xn);
          if ((gn - gy).norm() <= L * (xn - y).norm()) break;
          L *= 2;
        }
        const double tn = 0.5 * (1 + std::sqrt(1 + 4 * t * t));
        if (gn.dot(xn - x) > 0) {  // gradient restart
          y = xn;
          t = 1;
        } else {
          y = xn + ((t - 1) / tn) * (xn - x);
          t = tn;
        }
        x = xn;
        gx = gn;
        L *= 0.9;
      }
      const double bound_ref = gx.norm() / lmin;
      const double bound_pgs = grad(b.x).norm() / lmin;
      EXPECT_LE(bound_ref, target) << lc.name << " trial " << trial;  // the reference converged
      // The kernel converged to the round-off of its gradient at x: x itself is rounded to
      // ε‖x‖, which the Hessian turns into ε‖H‖‖x‖, and the gradient's terms round to
      // ε(‖W⁻¹(x − c)‖ + ‖γ‖); a factor 64 covers the few operations of each.
      Vec3 gb;
      Mat3 Hb;
      PgsBlockObjective(laws, 0, W_inv, c, b.x, &gb, &Hb);
      // The kernel also stops once a Newton step is below 1e-14 of the block's velocity scale,
      // leaving a gradient of up to ‖H‖ times that step.
      const double eps = std::numeric_limits<double>::epsilon();
      const double floor = (Hb.norm() * (1e-14 + 64 * eps) * (b.x.norm() + c.norm()) +
                            64 * eps * ((W_inv * (b.x - c)).norm() + b.gamma.norm())) /
                           lmin;
      EXPECT_LE(bound_pgs, floor) << lc.name << " trial " << trial;
      EXPECT_LE((b.x - x).norm(), bound_ref + bound_pgs) << lc.name << " trial " << trial;
    }
    std::printf("[ block ] %s: regions stiction/sliding/none %d/%d/%d, worst %d Newton steps\n",
                lc.name, regions[0], regions[1], regions[2], worst_newton);
    if (lc.model == ContactModelType::kLinear && !lc.limit) {
      for (int r = 0; r < 3; ++r) EXPECT_GT(regions[r], 10) << lc.name << " " << r;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Closed forms and bookkeeping.

TEST(PgsSolver, SingleContactIsSolvedExactlyInOneSweep) {
  // One constraint: its block update is the whole problem, so the first sweep lands on the
  // solution and the second changes nothing. Resting particle, stiction: γ_n = (m g δt + m v̂_n)
  // / (1 + m R_n) (SAP's closed form, eq. 29 for R_n).
  const double dt = 1e-2;
  for (double m : {0.1, 1.0, 7.0}) {
    for (double k : {1e3, 1e12}) {
      const double tau_d = dt, phi0 = -1e-4;
      const ContactProblem p = MakeParticle(m, dt, k, tau_d, 0.5, phi0);
      PgsParameters prm;
      prm.momentum_tolerance = 0;
      prm.tolerance = 0;
      prm.warm_start = PgsParameters::WarmStart::kZero;
      prm.max_iterations = 2;
      PgsSolver pgs(prm);
      SolverResult r;
      pgs.Solve(p, VecX::Zero(3), &r);
      const double w = std::sqrt(3.0) / (3 * m);
      const double Rn = std::max(w / (4 * kPi * kPi), 1 / (dt * k * (dt + tau_d)));
      const double vhat = -phi0 / (dt + tau_d);
      const double gamma_n = (m * kGravity * dt + m * vhat) / (1 + m * Rn);
      // Round-off of one 3-D Newton solve on a quadratic.
      EXPECT_NEAR(r.gamma(2), gamma_n, 1e-12 * gamma_n);
      EXPECT_EQ(r.regime[0], Regime::kStiction);
      const IterationLog& log = r.stats.iteration_log;
      ASSERT_EQ(log.num_rows(), 3);
      EXPECT_NEAR(log(1, kPgsRelativeImpulseChange), 1.0, 1e-12);  // from γ = 0
      // Round-off of a repeated update: the second sweep re-solves the same block problem
      // (from x = v_c), whose answer moves by the round-off of W⁻¹ and of the Newton step.
      EXPECT_LT(log(2, kPgsRelativeImpulseChange), 1e-13);
      EXPECT_LT(log(2, kPgsMomentumResidual), 1e-13);
    }
  }
}

TEST(PgsSolver, DualDecreaseAndDualityGapMatchClosedForms) {
  // Linear laws: D(γ) in closed form. The logged decreases must add up to D(γ_0) − D(γ_final), be
  // non-negative sweep by sweep, and the logged gap must equal ℓ_p(v) + D(γ) >= 0.
  std::mt19937 rng(4);
  for (int trial = 0; trial < 20; ++trial) {
    const ContactProblem p = test_problems::RandomProblem(rng, 3, 5, {});
    PgsParameters prm;
    prm.warm_start = PgsParameters::WarmStart::kZero;
    prm.max_iterations = 30;
    prm.momentum_tolerance = 0;
    prm.tolerance = 0;
    prm.improvement_tolerance = 0;
    PgsSolver pgs(prm);
    SolverResult r;
    pgs.Solve(p, p.v0, &r);
    const IterationLog& log = r.stats.iteration_log;
    ASSERT_EQ(log.num_rows(), 31);
    const double D0 = LinearDualCost(p, r.laws, VecX::Zero(p.num_rows));  // = 0
    const double D1 = LinearDualCost(p, r.laws, r.gamma);
    const double ell_p = SapCost(p, r.laws, r.v, nullptr, nullptr);
    // Size of the costs involved [J]: the round-off of each is ~1e-16 of it.
    const double S = std::abs(D1) + std::abs(ell_p);
    double sum = 0;
    for (int k = 1; k < log.num_rows(); ++k) {
      sum += log(k, kPgsCostImprovement);
      // Each sweep decreases D (block coordinate descent), up to the round-off of its terms.
      EXPECT_GE(log(k, kPgsCostImprovement), -1e-13 * S);
    }
    // The sum of 30 sweeps' decreases accumulates the round-off of O(30 n) terms of size |D|.
    EXPECT_NEAR(sum, D0 - D1, 1e-12 * S);
    EXPECT_NEAR(log.Last(kPgsCost), ell_p, 1e-13 * S);
    EXPECT_NEAR(log.Last(kPgsDualityGap), ell_p + D1, 1e-12 * S);
    EXPECT_GE(log.Last(kPgsDualityGap), -1e-13 * S);
  }
}

// ---------------------------------------------------------------------------------------------
// Agreement with SAP.

struct Comparison {
  double distance = 0;  // ‖v_pgs − v_sap‖_A
  double bound = 0;  // min(√(2 gap), ‖∇ℓ(v_pgs)‖_{A⁻¹}) + ‖∇ℓ(v_sap)‖_{A⁻¹}
  double scale = 0;  // ‖v_sap − v*‖_A
  int sweeps = 0;
  double e_m = 0, gap = 0;
};

// Solves `p` with SAP (tight) and PGS (`prm`) and checks that they agree within a certified
// bound. ℓ_p is 1-strongly convex in the A-norm, so for any v: ‖v − v_opt‖_A <= ‖∇ℓ_p(v)‖_{A⁻¹},
// and for PGS's pair also ½‖v − v_opt‖²_A <= ℓ_p(v) − ℓ* <= ℓ_p(v) + D(γ), the duality gap PGS
// logs (checked against the closed form for linear laws; its round-off, 1e-14 |ℓ_p|, added).
// Hence ‖v_pgs − v_sap‖_A <= min(√(2 gap), ‖∇ℓ(v_pgs)‖_{A⁻¹}) + ‖∇ℓ(v_sap)‖_{A⁻¹}. The bound
// itself must be small (both converged): below `rel` ‖v_sap − v*‖_A.
Comparison CompareWithSap(const ContactProblem& p, const PgsParameters& prm,
                          const ContactModelParameters& model, double rel,
                          const std::string& what) {
  Comparison out;
  SapSolver sap(SapTight(), model);
  SolverResult rs;
  EXPECT_EQ(sap.Solve(p, p.v0, &rs), SolverStatus::kConverged) << what << rs.stats.message;
  PgsSolver pgs(prm, model);
  SolverResult rp;
  EXPECT_EQ(pgs.Solve(p, p.v0, &rp), SolverStatus::kConverged) << what << rp.stats.message;
  out.gap = rp.stats.iteration_log.Last(kPgsDualityGap);
  if (model.model == ContactModelType::kLinear) {
    const double ell_p = SapCost(p, rp.laws, rp.v, nullptr, nullptr);
    const double gap = ell_p + LinearDualCost(p, rp.laws, rp.gamma);
    // The logged gap is the closed form's up to the round-off of costs of size |ℓ_p|.
    EXPECT_NEAR(out.gap, gap, 1e-12 * std::abs(ell_p) + 1e-16) << what;
  }
  out.distance = ANorm(p, rp.v - rs.v);
  const double ell_p = rp.stats.cost;
  const double gap_bound = std::sqrt(2 * (std::max(out.gap, 0.0) + 1e-14 * std::abs(ell_p)));
  out.bound =
      std::min(gap_bound, DistanceBound(p, rp.laws, rp.v)) + DistanceBound(p, rs.laws, rs.v);
  out.scale = ANorm(p, rs.v - p.v_star);
  out.sweeps = rp.stats.iterations;
  out.e_m = rp.stats.momentum_error;
  // Round-off of v itself: 1e-13 of ‖v_sap‖_A.
  EXPECT_LE(out.distance, out.bound + 1e-13 * ANorm(p, rs.v)) << what;
  // Relative to the impulses' effect on v, or to v itself when no impulse acts.
  EXPECT_LE(out.bound, rel * std::max(out.scale, ANorm(p, rs.v))) << what;
  for (size_t i = 0; i < rp.regime.size(); ++i) {
    // Regimes agree unless a constraint sits within the bound of a region boundary; the
    // problems here are not built on a boundary.
    EXPECT_EQ(rp.regime[i], rs.regime[i]) << what << " constraint " << i;
  }
  return out;
}

// Run to round-off: the e_m test (1e-12) is rarely reachable by PGS on these problems (its
// iterate's error is amplified by the laws' stiffness 1/R), so the solve ends when the impulses
// stop changing (1e-13 relative); the dual-decrease test stays off (D is flat to round-off
// while the slow directions still converge).
PgsParameters Tight() {
  PgsParameters prm;
  prm.max_iterations = 1000000;
  prm.momentum_tolerance = 1e-12;
  prm.tolerance = 1e-13;
  prm.improvement_tolerance = 0;
  return prm;
}

TEST(PgsSolver, MatchesSapOnRestingBoxAndRamp) {
  const double m = 2.0, a = 0.1, dt = 1e-2, mu = 0.5;
  // tan θ < μ: the box sticks (up to σ slip); tan θ > μ: it slides with a = g(sin θ − μ cos θ).
  for (double theta : {0.0, 0.3, 0.6}) {
    for (double k : {1e5, 1e12}) {
      const ContactProblem p = MakeBoxOnRamp(m, a, dt, k, dt, mu, theta);
      const std::string what = "theta " + std::to_string(theta) + " k " + std::to_string(k);
      const Comparison c = CompareWithSap(p, Tight(), {}, 1e-9, what);
      std::printf(
          "[ box ramp ] theta %.1f k %.0e: %d sweeps, e_m %.2e, |v_pgs - v_sap|_A %.2e "
          "(bound %.2e, scale %.2e)\n",
          theta, k, c.sweeps, c.e_m, c.distance, c.bound, c.scale);
      PgsSolver pgs(Tight());
      SolverResult r;
      pgs.Solve(p, p.v0, &r);
      const double vx = r.v(0);
      double gamma_n = 0;
      for (int i = 0; i < 4; ++i) gamma_n += r.gamma(3 * i + 2);
      const double w = p.constraints[0].w;
      if (std::tan(theta) < mu) {
        for (Regime g : r.regime) EXPECT_EQ(g, Regime::kStiction) << what;
        // The contacts creep by the regularized friction's slip v_t,i = −R_t γ_t,i (eq. 30,
        // R_t = σ w), with Σ_i |γ_t,i| about m |v*_x|: |v_t,i| <= σ w m |v*_x|. (The box's centre
        // moves more, rocking on its normal compliance.)
        for (int i = 0; i < 4; ++i) {
          EXPECT_LE(r.vc.segment<2>(3 * i).norm(), 1e-3 * w * m * std::abs(p.v_star(0)) + 1e-14)
              << what;
        }
        // Momentum along x: the friction holds the weight's slope component.
        EXPECT_NEAR(r.gamma(0) + r.gamma(3) + r.gamma(6) + r.gamma(9), m * (vx - p.v_star(0)),
                    1e-9 * m * kGravity * dt);
      } else {
        for (Regime g : r.regime) EXPECT_EQ(g, Regime::kSliding) << what;
        // Sliding: every contact's friction is on the cone's boundary, opposing the slip along
        // x, so m (v_x − v*_x) = −μ Σγ_n (to the solve's accuracy).
        EXPECT_NEAR(vx, p.v_star(0) - mu * gamma_n / m, 1e-9 * std::abs(p.v_star(0))) << what;
        // SAP's convex friction lifts a sliding contact off by v_n = μ‖v_t‖ in the rigid limit
        // (seed 000 §V), which raises Σγ_n by m μ v_x: the slide speed lies between that limit,
        // g δt (sin θ − μ cos θ)/(1 + μ²), and the Coulomb value g δt (sin θ − μ cos θ).
        const double coulomb = kGravity * dt * (std::sin(theta) - mu * std::cos(theta));
        EXPECT_LT(vx, coulomb) << what;
        EXPECT_GT(vx, coulomb / (1 + mu * mu)) << what;
      }
    }
  }
}

TEST(PgsSolver, MatchesSapForEveryContactModel) {
  // The Hunt–Crossley laws are convex too: PGS's block updates only evaluate them, so it solves
  // the same problem as SAP under every model.
  const double m = 2.0, a = 0.1, dt = 1e-2, mu = 0.5;
  for (ContactModelType model :
       {ContactModelType::kLinear, ContactModelType::kLagged, ContactModelType::kLaggedRegularized,
        ContactModelType::kSimilar}) {
    for (double theta : {0.2, 0.6}) {
      ContactProblem p = MakeBoxOnRamp(m, a, dt, 1e5, dt, mu, theta);
      for (ConstraintData& c : p.constraints) c.phi0 = -2e-4;  // in contact at the start
      ContactModelParameters cm;
      cm.model = model;
      const std::string what =
          std::string(ContactModelName(model)) + " theta " + std::to_string(theta);
      const Comparison c = CompareWithSap(p, Tight(), cm, 1e-9, what);
      std::printf("[ models ] %s theta %.1f: %d sweeps, e_m %.2e, |dv|_A %.2e (bound %.2e)\n",
                  ContactModelName(model), theta, c.sweeps, c.e_m, c.distance, c.bound);
    }
  }
}

TEST(PgsSolver, MatchesSapOnRandomProblems) {
  std::mt19937 rng(5);
  int total = 0, worst = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const ContactProblem p = test_problems::RandomProblem(rng, 3, 5, {});
    const Comparison c = CompareWithSap(p, Tight(), {}, 1e-8, "trial " + std::to_string(trial));
    total += c.sweeps;
    worst = std::max(worst, c.sweeps);
  }
  std::printf(
      "[ random ] 40 problems (3 trees, 5 constraints) to round-off: mean %.0f "
      "sweeps, max %d\n",
      total / 40.0, worst);
}

TEST(PgsSolver, SingularDelassusBlocksConvergeToSapsSolution) {
  // A contact on a 1-dof tree (W_ii of rank 1, regularized by ε = 1e-8 λ_max: a proximal block
  // step with the same fixed point) and a contact with J = 0 (W_ii = 0: γ = γ(b)).
  ContactProblem p;
  p.time_step = 1e-2;
  p.nv = 1;
  p.tree_v_start = {0};
  p.tree_nv = {1};
  p.A = {MatX::Constant(1, 1, 2.0)};
  p.M = p.A;
  p.v_star = VecX::Constant(1, -0.1);
  p.v0 = VecX::Zero(1);
  for (int i = 0; i < 2; ++i) {
    ConstraintData& c = AddContact(&p, 1e4, 0.0, 0.6);
    c.num_blocks = 1;
    c.blocks[0].tree = 0;
    c.blocks[0].J = i == 0 ? MatX(Vec3(0.3, -0.2, 1.0)) : MatX::Zero(3, 1);
    c.bias = i == 0 ? Vec3(0.05, 0, 0) : Vec3(0.01, 0.02, -0.03);
    c.phi0 = -1e-3;
  }
  p.ComputeDelassusEstimates();
  const Comparison c = CompareWithSap(p, Tight(), {}, 1e-9, "singular");
  std::printf("[ singular W ] %d sweeps, |dv|_A %.2e (bound %.2e)\n", c.sweeps, c.distance,
              c.bound);
  // The J = 0 contact's impulse is the law's at v_c = b exactly.
  PgsSolver pgs(Tight());
  SolverResult r;
  ASSERT_EQ(pgs.Solve(p, p.v0, &r), SolverStatus::kConverged);
  VecX g;
  r.laws.Evaluate(r.vc, &g, nullptr, nullptr);
  EXPECT_LT((r.gamma.segment<3>(3) - g.segment<3>(3)).norm(), 1e-14 * g.segment<3>(3).norm());
}

TEST(PgsSolver, SymmetricSweepReachesTheSameSolution) {
  std::mt19937 rng(6);
  for (int trial = 0; trial < 10; ++trial) {
    const ContactProblem p = test_problems::RandomProblem(rng, 3, 5, {});
    PgsParameters prm = Tight();
    prm.sweep = PgsParameters::Sweep::kSymmetric;
    CompareWithSap(p, prm, {}, 1e-8, "symmetric " + std::to_string(trial));
  }
}

// ---------------------------------------------------------------------------------------------
// The plateau.

TEST(PgsSolver, HeavyBoxOnLightBoxShowsTheLinearPlateau) {
  // Seed 001's dish pile: a 5 kg box on a 0.1 kg box (50:1), near-rigid contacts, δt = 1/240 s,
  // a horizontal push on the top box below the friction limit. SAP converges to e_m <= 1e-6 in a
  // few Newton steps; PGS's error contracts by a factor close to 1 per sweep, so after the
  // AL paper's 100 sweeps it is still far from SAP's tolerance.
  const ContactProblem p = MakeStack(5.0, 0.1, 0.05, 1.0 / 240, 0.5, 0.2 * 0.5 * 5.1 * kGravity);
  SapSolver sap;
  SolverResult rs;
  ASSERT_EQ(sap.Solve(p, p.v0, &rs), SolverStatus::kConverged) << rs.stats.message;
  PgsParameters prm;                                 // defaults: 100 sweeps, e_m <= 1e-6
  prm.warm_start = PgsParameters::WarmStart::kZero;  // the cold start of the paper's PGS
  PgsSolver pgs(prm);
  SolverResult rp;
  EXPECT_EQ(pgs.Solve(p, p.v0, &rp), SolverStatus::kMaxIterations);
  const IterationLog& log = rp.stats.iteration_log;
  ASSERT_EQ(log.num_rows(), 101);
  const std::vector<double> e = log.Column(kPgsMomentumResidual);
  std::printf("[ plateau ] SAP: %d Newton iterations, e_m %.2e\n", rs.stats.iterations,
              rs.stats.momentum_error);
  for (int k : {0, 1, 2, 5, 10, 20, 50, 100}) {
    std::printf("[ plateau ] PGS sweep %3d: e_m %.3e, rel. impulse change %.3e, gap %.3e\n", k,
                e[k], log(k, kPgsRelativeImpulseChange), log(k, kPgsDualityGap));
  }
  double lo = 1e300, hi = 0;
  for (int k = 50; k < 100; ++k) {
    lo = std::min(lo, e[k + 1] / e[k]);
    hi = std::max(hi, e[k + 1] / e[k]);
  }
  const double rate = std::pow(e[100] / e[50], 1.0 / 50);
  const double gap_rate = std::pow(log(100, kPgsDualityGap) / log(50, kPgsDualityGap), 1.0 / 50);
  std::printf(
      "[ plateau ] sweeps 50-100: e_m ratio per sweep in [%.5f, %.5f], mean %.5f; duality "
      "gap mean ratio %.4f\n",
      lo, hi, rate, gap_rate);
  const NcpResidual ncp_pgs = ComputeNcpResidual(p, rp), ncp_sap = ComputeNcpResidual(p, rs);
  std::printf("[ plateau ] NCP residual (seed 001): PGS after 100 sweeps %.3e, SAP %.3e\n",
              ncp_pgs.residual, ncp_sap.residual);
  std::printf(
      "[ plateau ] after 100 sweeps: |gamma_pgs - gamma_sap| / |gamma_sap| = %.3e, "
      "|v_pgs - v_sap|_A / |v_sap - v*|_A = %.3e\n",
      (rp.gamma - rs.gamma).norm() / rs.gamma.norm(),
      ANorm(p, rp.v - rs.v) / ANorm(p, rs.v - p.v_star));
  EXPECT_LE(rs.stats.momentum_error, 1e-6);
  // Far from converged: e_m after 100 sweeps is still of order one, 1e5 times SAP's tolerance.
  EXPECT_GT(e[100], 0.1);
  // No fast phase: from sweep 50 on, each sweep changes e_m by less than 5 %, and on average it
  // decreases (a linear rate below 1, here barely).
  EXPECT_GT(lo, 0.95);
  EXPECT_LT(hi, 1.05);
  EXPECT_LT(rate, 1.0);
  // The duality gap, an upper bound on the distance to the solution in cost, contracts linearly
  // too: by a factor between 0.9 and 1 per sweep.
  EXPECT_GT(gap_rate, 0.9);
  EXPECT_LT(gap_rate, 1.0);
  // The dual cost decreased at every sweep (block coordinate descent), while slowly.
  for (int k = 1; k <= 100; ++k) EXPECT_GE(log(k, kPgsCostImprovement), 0.0) << k;
  // The solution PGS is heading to is SAP's: the distance shrinks with the iterations.
  PgsParameters long_run = Tight();
  long_run.warm_start = PgsParameters::WarmStart::kZero;
  long_run.max_iterations = 1000000;
  long_run.momentum_tolerance = 1e-8;
  PgsSolver pgs_long(long_run);
  SolverResult rl;
  EXPECT_EQ(pgs_long.Solve(p, p.v0, &rl), SolverStatus::kConverged);
  std::printf("[ plateau ] PGS to e_m <= 1e-8: %d sweeps\n", rl.stats.iterations);
  EXPECT_LT(ANorm(p, rl.v - rs.v), ANorm(p, rp.v - rs.v));
}

TEST(PgsSolver, SmallImpulseChangeIsNotASmallErrorOnThePlateau) {
  // Why the default τ_γ is 1e-12: PGS contracts by about 1 − 1e-3 per sweep on the stack, so a
  // relative impulse change of 1e-8 per sweep still leaves an error of ~1e-5 relative, which the
  // stiff laws amplify in e_m. With τ_γ = 1e-8 PGS stops ("converged") above SAP's e_m
  // tolerance; with the default it goes on to e_m <= 1e-6 (the e_m test stops it).
  const ContactProblem p = MakeStack(5.0, 0.1, 0.05, 1.0 / 240, 0.5, 0.2 * 0.5 * 5.1 * kGravity);
  PgsParameters prm;
  prm.warm_start = PgsParameters::WarmStart::kZero;
  prm.max_iterations = 1000000;
  prm.tolerance = 1e-8;
  PgsSolver loose(prm);
  SolverResult r;
  ASSERT_EQ(loose.Solve(p, p.v0, &r), SolverStatus::kConverged);
  EXPECT_GT(r.stats.momentum_error, 1e-5);
  EXPECT_LT(r.stats.iteration_log.Last(kPgsRelativeImpulseChange), 1e-8);
  std::printf("[ plateau ] tolerance 1e-8: stops after %d sweeps at e_m %.2e\n", r.stats.iterations,
              r.stats.momentum_error);
  prm.tolerance = PgsParameters{}.tolerance;
  PgsSolver tight(prm);
  ASSERT_EQ(tight.Solve(p, p.v0, &r), SolverStatus::kConverged);
  EXPECT_LE(r.stats.momentum_error, 1e-6);
  std::printf("[ plateau ] default tolerance: stops after %d sweeps at e_m %.2e\n",
              r.stats.iterations, r.stats.momentum_error);
}

// ---------------------------------------------------------------------------------------------
// Conformance.

TEST(PgsConformance, ExactGuessTakesZeroSweeps) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const ContactProblem p = test_problems::RandomProblem(rng, 3, 5, {});
    SapSolver sap(SapTight());
    SolverResult rs;
    ASSERT_EQ(sap.Solve(p, p.v0, &rs), SolverStatus::kConverged);
    // A fresh solver starts from the laws' impulses at the guess: at SAP's solution they give
    // back v = v* + A⁻¹Jᵀγ(v_c) = SAP's v, whose e_m (<= 1e-13) passes PGS's test.
    PgsSolver pgs;
    SolverResult r;
    ASSERT_EQ(pgs.Solve(p, rs.v, &r), SolverStatus::kConverged);
    EXPECT_EQ(r.stats.iterations, 0);
    EXPECT_EQ(r.stats.iteration_log.num_rows(), 1);
    // v recomputed from γ: SAP's v up to round-off (relative 1e-12 of v).
    EXPECT_LT((r.v - rs.v).norm(), 1e-10 * (1 + rs.v.norm()));
    // The same solver again: it starts from its own previous γ, converged as well.
    ASSERT_EQ(pgs.Solve(p, p.v0, &r), SolverStatus::kConverged);
    EXPECT_EQ(r.stats.iterations, 0);
  }
}

TEST(PgsConformance, EmptyProblemReturnsTheFreeMotion) {
  std::mt19937 rng(8);
  ContactProblem p = test_problems::RandomProblem(rng, 3, 1, {});
  p.constraints.clear();
  p.num_rows = 0;
  PgsSolver pgs;
  SolverResult r;
  ASSERT_EQ(pgs.Solve(p, p.v0, &r), SolverStatus::kConverged);
  EXPECT_EQ(r.v, p.v_star);
  EXPECT_EQ(r.stats.iterations, 0);
  EXPECT_EQ(r.gamma.size(), 0);
  EXPECT_EQ(r.vc.size(), 0);
  EXPECT_EQ(r.stats.momentum_error, 0.0);
  EXPECT_EQ(r.stats.iteration_log.num_rows(), 1);
  EXPECT_EQ(r.stats.cost, 0.0);
}

TEST(PgsConformance, NonFiniteAndMalformedInputAreReported) {
  std::mt19937 rng(9);
  const ContactProblem p = test_problems::RandomProblem(rng, 2, 3, {});
  PgsSolver pgs;
  SolverResult r;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ContactProblem bad = p;
  bad.v_star(0) = nan;
  EXPECT_EQ(pgs.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  EXPECT_NE(r.stats.message.find("v_star"), std::string::npos);
  EXPECT_EQ(r.stats.iterations, 0);
  EXPECT_TRUE(r.stats.iteration_log.empty());
  EXPECT_EQ(r.v.size(), p.nv);
  bad = p;
  bad.A[1](0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_EQ(pgs.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  bad = p;
  bad.constraints[0].blocks[0].J(0, 0) = nan;
  EXPECT_EQ(pgs.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  bad = p;
  bad.constraints[1].phi0 = nan;  // v̂ non-finite: the laws' Check
  EXPECT_EQ(pgs.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  EXPECT_NE(r.stats.message.find("constraint 1"), std::string::npos) << r.stats.message;
  VecX guess = p.v0;
  guess(0) = nan;
  EXPECT_EQ(pgs.Solve(p, guess, &r), SolverStatus::kNonFiniteInput);
  EXPECT_EQ(pgs.Solve(p, VecX::Zero(p.nv + 1), &r), SolverStatus::kNonFiniteInput);
  bad = p;
  bad.num_rows += 1;  // malformed
  EXPECT_EQ(pgs.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  // A not positive definite: a factorization failure, not a crash.
  bad = p;
  bad.A[0] = -MatX::Identity(p.tree_nv[0], p.tree_nv[0]);
  EXPECT_EQ(pgs.Solve(bad, p.v0, &r), SolverStatus::kFactorizationFailure);
  // The valid problem still solves with the same solver object.
  EXPECT_NE(pgs.Solve(p, p.v0, &r), SolverStatus::kNonFiniteInput);
}

TEST(PgsConformance, UnsupportedContactModelIsAStatusNotAThrow) {
  std::mt19937 rng(10);
  const ContactProblem p = test_problems::RandomProblem(rng, 2, 3, {});
  ContactModelParameters cm;
  cm.model = static_cast<ContactModelType>(7);
  PgsSolver pgs;
  EXPECT_NO_THROW(pgs.set_contact_model(cm));
  SolverResult r;
  EXPECT_EQ(pgs.Solve(p, p.v0, &r), SolverStatus::kUnsupportedContactModel);
  EXPECT_NE(r.stats.message.find("PGS"), std::string::npos);
  EXPECT_NE(r.stats.message.find("7"), std::string::npos);
  EXPECT_NE(r.stats.message.find("linear, lagged, lagged_regularized and similar"),
            std::string::npos);
  // Every real model is accepted.
  for (int m = 0; m < kNumContactModelTypes; ++m) {
    cm.model = static_cast<ContactModelType>(m);
    pgs.set_contact_model(cm);
    EXPECT_NE(pgs.Solve(p, p.v0, &r), SolverStatus::kUnsupportedContactModel);
  }
}

TEST(PgsConformance, IterationCapReturnsTheLastIterate) {
  const ContactProblem p = MakeStack(5.0, 0.1, 0.05, 1.0 / 240, 0.5, 0.0);
  PgsParameters prm;
  prm.max_iterations = 7;
  PgsSolver pgs(prm);
  SolverResult r;
  EXPECT_EQ(pgs.Solve(p, p.v0, &r), SolverStatus::kMaxIterations);
  EXPECT_EQ(r.stats.iterations, 7);
  EXPECT_EQ(r.stats.iteration_log.num_rows(), 8);
  EXPECT_NE(r.stats.message.find("7 sweeps"), std::string::npos);
  // The returned pair balances momentum exactly (v = v* + A⁻¹Jᵀγ up to round-off), and the
  // reported e_m is the laws' residual at v, the last logged one.
  EXPECT_LT(MomentumError(p, r.v, r.gamma), 1e-13);
  EXPECT_DOUBLE_EQ(r.stats.momentum_error, r.stats.iteration_log.Last(kPgsMomentumResidual));
  // v_c = J v + b at the returned v (dense product: another summation order, round-off).
  EXPECT_LT((r.vc - (p.DenseJ() * r.v + p.StackedBias())).norm(), 1e-13 * (1 + r.vc.norm()));
  EXPECT_EQ(static_cast<int>(r.regime.size()), 8);
  // Every row counts each constraint in exactly one regime.
  const IterationLog& log = r.stats.iteration_log;
  for (int k = 0; k < log.num_rows(); ++k) {
    EXPECT_EQ(log(k, kPgsNumStiction) + log(k, kPgsNumSliding) + log(k, kPgsNumNoContact), 8);
    EXPECT_LE(log(k, kPgsNumActive), 8);
    EXPECT_LE(log(k, kPgsNumChanged), 8);
  }
  EXPECT_EQ(r.laws.num_constraints(), 8);
  EXPECT_TRUE(std::isfinite(r.stats.cost));
}

TEST(PgsConformance, DeterministicBitForBit) {
  std::mt19937 rng(11);
  const ContactProblem p = test_problems::RandomProblem(rng, 4, 8, {});
  SolverResult r1, r2;
  PgsSolver a, b;
  a.Solve(p, p.v0, &r1);
  b.Solve(p, p.v0, &r2);
  EXPECT_EQ(r1.v, r2.v);
  EXPECT_EQ(r1.gamma, r2.gamma);
  EXPECT_EQ(r1.stats.iteration_log.Column(kPgsMomentumResidual),
            r2.stats.iteration_log.Column(kPgsMomentumResidual));
}

TEST(PgsConformance, WarmStartFromAnotherContactSetOnlyCostsSweeps) {
  // The previous solve's γ is reused when the row count matches, whatever the contacts: the
  // solution is unchanged (the problem is strongly convex), only the number of sweeps differs.
  std::mt19937 rng(12);
  const ContactProblem p1 = test_problems::RandomProblem(rng, 3, 5, {});
  // Another step: the constraints in another order (so p1's γ rows belong to other contacts),
  // other free velocities.
  ContactProblem p2 = p1;
  std::reverse(p2.constraints.begin(), p2.constraints.end());
  int row = 0;
  for (ConstraintData& c : p2.constraints) {
    c.first_row = row;
    row += c.num_rows;
  }
  p2.v_star = -p1.v_star;
  PgsSolver warm(Tight()), cold(Tight());
  SolverResult r;
  warm.Solve(p1, p1.v0, &r);
  SolverResult rw, rc;
  warm.Solve(p2, p2.v0, &rw);
  PgsParameters guess_start = Tight();
  guess_start.warm_start = PgsParameters::WarmStart::kGuess;
  cold.set_parameters(guess_start);
  cold.Solve(p2, p2.v0, &rc);
  EXPECT_EQ(rw.stats.status, SolverStatus::kConverged);
  EXPECT_EQ(rc.stats.status, SolverStatus::kConverged);
  // Started from p1's γ: h_i of a foreign impulse is not known, so the first sweep's dual
  // decrease is not recorded (NaN), while the start from the guess records it.
  ASSERT_GT(rw.stats.iteration_log.num_rows(), 1);
  EXPECT_TRUE(std::isnan(rw.stats.iteration_log(1, kPgsCostImprovement)));
  EXPECT_FALSE(std::isnan(rc.stats.iteration_log(1, kPgsCostImprovement)));
  // Both certified close to the exact solution: their distance below the sum of the bounds.
  EXPECT_LE(ANorm(p2, rw.v - rc.v),
            DistanceBound(p2, rw.laws, rw.v) + DistanceBound(p2, rc.laws, rc.v) + 1e-14);
}

TEST(PgsParameters, TableValidatesAndDeclaresOneResidual) {
  auto message = [](PgsParameters prm) -> std::string {
    try {
      prm.Validate();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  PgsParameters prm;
  EXPECT_EQ(message(prm), "");
  prm.sigma = -1;
  EXPECT_EQ(message(prm), "solver.pgs.sigma = -1 is out of range (0, 1]");
  prm = PgsParameters{};
  prm.max_iterations = 0;
  EXPECT_NE(message(prm).find("solver.pgs.max_iterations = 0 is out of range [1, 1e6]"),
            std::string::npos);
  prm = PgsParameters{};
  prm.tolerance = 1;
  EXPECT_NE(message(prm).find("solver.pgs.tolerance"), std::string::npos);
  EXPECT_THROW(PgsSolver{prm}, std::invalid_argument);
  // The table's defaults are the struct's, and the laws' defaults are SAP's.
  const PgsParameters d = PgsParameterTable().Defaults();
  EXPECT_EQ(d.max_iterations, PgsParameters{}.max_iterations);
  EXPECT_EQ(d.tolerance, PgsParameters{}.tolerance);
  EXPECT_EQ(d.momentum_tolerance, PgsParameters{}.momentum_tolerance);
  EXPECT_EQ(d.sigma, SapParameters{}.sigma);
  EXPECT_EQ(d.beta, SapParameters{}.beta);
  EXPECT_EQ(d.limit_beta, SapParameters{}.limit_beta);
  EXPECT_EQ(std::string(PgsParameterTable().group), "pgs");
  EXPECT_EQ(std::string(PgsParameterTable().prefix), "solver.pgs");
  // Series: exactly one residual, and it is e_m.
  const SeriesTable t = PgsSeriesTable();
  int residuals = 0;
  for (int i = 0; i < t.size; ++i) residuals += t[i].role == SeriesRole::kResidual;
  EXPECT_EQ(residuals, 1);
  EXPECT_EQ(t.FindRole(SeriesRole::kResidual), kPgsMomentumResidual);
  EXPECT_EQ(t.Find("momentum_residual"), kPgsMomentumResidual);
  EXPECT_EQ(PgsSolver().name(), std::string("PGS"));
  EXPECT_EQ(PgsSolver().series(), t);
}

}  // namespace
}  // namespace contactlab
