// Tests of the SAP solver (paper: Castro et al., "An Unconstrained Convex Formulation of Compliant
// Contact"): the analytic projection (eq. 27) against a brute-force minimization, the gradient,
// G and Hessian (§IV-A) against finite differences, Newton convergence properties (Alg. 2),
// dense vs block-sparse factorization, exact vs backtracking line search, the near-rigid
// regularization (eq. 29) and closed-form single-contact solutions.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include "engine/contact/contact_problem.h"
#include "engine/contact/linear_cone.h"
#include "tests/sap_test_util.h"
#include "engine/solvers/sap/sap_model.h"
#include "engine/solvers/sap/sap_solver.h"
#include "tests/problem_builders.h"
#include "tests/random_problem.h"

namespace contactlab {
namespace {

using test_problems::LogUniform;
using test_problems::RandomMatrix;
using test_problems::Uniform;

constexpr double kGravity = 9.81;

VecX RandomVector(std::mt19937& rng, int n, double scale) {
  return scale * RandomMatrix(rng, n, 1).col(0);
}

// Random SPD block: mass-like entries of order 1 kg, condition number of order 10.
MatX RandomSpd(std::mt19937& rng, int n) {
  const MatX B = RandomMatrix(rng, n, n);
  return B.transpose() * B + 0.5 * n * MatX::Identity(n, n);
}

// A problem with `num_trees` trees of 1-4 dofs (A = M random SPD) and no constraints.
ContactProblem MakeTrees(std::mt19937& rng, int num_trees, double dt) {
  ContactProblem p;
  p.time_step = dt;
  for (int t = 0; t < num_trees; ++t) {
    const int n = std::uniform_int_distribution<int>(1, 4)(rng);
    p.tree_v_start.push_back(p.nv);
    p.tree_nv.push_back(n);
    p.A.push_back(RandomSpd(rng, n));
    p.M.push_back(p.A.back());
    p.nv += n;
  }
  p.v_star = RandomVector(rng, p.nv, 1.0);
  p.v0 = RandomVector(rng, p.nv, 1.0);
  return p;
}

// Appends a constraint with random Jacobian blocks on one or two distinct trees.
ConstraintData& AddConstraint(std::mt19937& rng, ContactProblem* p, ConstraintKind kind) {
  ConstraintData c;
  c.kind = kind;
  c.num_rows = kind == ConstraintKind::kFrictionCone ? 3 : 1;
  c.first_row = p->num_rows;
  const int nt = p->num_trees();
  const int t0 = std::uniform_int_distribution<int>(0, nt - 1)(rng);
  c.num_blocks = (nt > 1 && Uniform(rng, 0, 1) < 0.5) ? 2 : 1;
  c.blocks[0].tree = t0;
  if (c.num_blocks == 2) c.blocks[1].tree = (t0 + 1 + rng() % (nt - 1)) % nt;
  for (int k = 0; k < c.num_blocks; ++k) {
    c.blocks[k].J = RandomMatrix(rng, c.num_rows, p->tree_nv[c.blocks[k].tree]);
  }
  c.bias = Vec3(Uniform(rng, -0.1, 0.1), Uniform(rng, -0.1, 0.1), Uniform(rng, -0.1, 0.1));
  c.stiffness = Uniform(rng, 0, 1) < 0.3 ? std::numeric_limits<double>::infinity()
                                         : LogUniform(rng, 1e2, 1e6);
  c.dissipation_time = Uniform(rng, 0, 1) < 0.5 ? 0.0 : p->time_step;
  c.friction = Uniform(rng, 0, 1) < 0.15 ? 0.0 : Uniform(rng, 0.1, 1.5);
  c.phi0 = Uniform(rng, -0.01, 0.01);
  p->num_rows += c.num_rows;
  p->constraints.push_back(c);
  return p->constraints.back();
}

// Random problem with mixed cones (some frictionless) and unilateral rows.
ContactProblem MakeRandomProblem(std::mt19937& rng, int num_trees, int num_constraints,
                                 double dt = 1e-2) {
  ContactProblem p = MakeTrees(rng, num_trees, dt);
  for (int i = 0; i < num_constraints; ++i) {
    AddConstraint(rng, &p,
                  Uniform(rng, 0, 1) < 0.8 ? ConstraintKind::kFrictionCone
                                           : ConstraintKind::kUnilateral);
  }
  p.ComputeDelassusEstimates();
  return p;
}

// A 1-dof-per-axis particle of mass m on the ground: one tree (3 dofs, A = M = m I), one contact
// with J = I (contact frame = world frame, normal +z).
ContactProblem MakeParticle(double m, double dt, double k, double tau_d, double mu, double phi0) {
  return test_problems::PointMassContact(m, dt, Vec3(0, 0, -kGravity * dt), k, tau_d, mu, phi0);
}

// A free box (6 dofs: v, ω in world) of mass m, half size a, resting on four corners.
ContactProblem MakeBox(double m, double a, double dt, double k, double tau_d, double mu) {
  ContactProblem p;
  p.time_step = dt;
  p.nv = 6;
  p.tree_v_start = {0};
  p.tree_nv = {6};
  const double I = m * (2 * a) * (2 * a) / 6;
  VecX d(6);
  d << m, m, m, I, I, I;
  p.A = {MatX(d.asDiagonal())};
  p.M = p.A;
  p.v_star = VecX::Zero(6);
  p.v_star(2) = -kGravity * dt;
  p.v0 = VecX::Zero(6);
  for (int c = 0; c < 4; ++c) {
    const Vec3 r((c & 1) ? a : -a, (c & 2) ? a : -a, -a);
    ConstraintData cd;
    cd.first_row = 3 * c;
    cd.num_blocks = 1;
    cd.blocks[0].tree = 0;
    cd.blocks[0].J.resize(3, 6);
    cd.blocks[0].J << Mat3::Identity(), -Skew(r);
    cd.stiffness = k;
    cd.dissipation_time = tau_d;
    cd.friction = mu;
    cd.phi0 = 0;
    p.constraints.push_back(cd);
  }
  p.num_rows = 12;
  p.ComputeDelassusEstimates();
  return p;
}

// ---------------------------------------------------------------------------------------------
// Projection.

// Euclidean projection onto {‖x_t‖ <= μ x_n} (standard second-order-cone formula, R = I).
Vec3 EuclideanConeProjection(const Vec3& x, double mu) {
  const double r = x.head<2>().norm();
  if (r <= mu * x(2)) return x;
  if (mu * r <= -x(2)) return Vec3::Zero();
  if (mu == 0) return Vec3(0, 0, std::max(0.0, x(2)));
  const double n = (x(2) + mu * r) / (1 + mu * mu);
  return Vec3(mu * n * x(0) / r, mu * n * x(1) / r, n);
}

// Brute force: projected gradient on ½(γ − y)ᵀR(γ − y) with the Euclidean projection, step 1/R_max.
Vec3 BruteForceProjection(const Vec3& y, const Vec3& R, double mu) {
  Vec3 g = EuclideanConeProjection(y, mu);
  const double step = 1.0 / R.maxCoeff();
  for (int it = 0; it < 40000; ++it) {
    const Vec3 next = EuclideanConeProjection(g - step * R.cwiseProduct(g - y), mu);
    if ((next - g).norm() < 1e-15 * (1 + y.norm())) return next;
    g = next;
  }
  return g;
}

// Draws y in a chosen region of the R-norm projection, away from the region boundaries.
Vec3 DrawY(std::mt19937& rng, Regime region, double mu, double Rt, double Rn) {
  const double th = Uniform(rng, 0, 2 * kPi);
  const Eigen::Vector2d t(std::cos(th), std::sin(th));
  const double mu_hat = mu * Rt / Rn;
  if (region == Regime::kStiction) {
    const double yn = Uniform(rng, 0.1, 2);
    const double yr = Uniform(rng, 0.05, 0.95) * mu * yn;
    return Vec3(yr * t(0), yr * t(1), yn);
  }
  const double yr = Uniform(rng, 0.1, 2);
  if (region == Regime::kNoContact) {
    const double yn = -mu_hat * yr - Uniform(rng, 0.05, 2);
    return Vec3(yr * t(0), yr * t(1), yn);
  }
  // Sliding: −μ̂ y_r < y_n < y_r/μ.
  const double lo = -mu_hat * yr, hi = mu > 0 ? yr / mu : yr + 2;
  const double yn = lo + Uniform(rng, 0.05, 0.95) * (std::min(hi, lo + 10) - lo);
  return Vec3(yr * t(0), yr * t(1), yn);
}

TEST(SapProjection, MatchesBruteForceMinimizationInAllRegions) {
  std::mt19937 rng(1);
  int counts[3] = {0, 0, 0};
  for (int trial = 0; trial < 600; ++trial) {
    const double mu = trial % 5 == 0 ? 0.0 : Uniform(rng, 0.05, 2.0);
    // R ratio kept <= 1e2 so that the brute-force projected gradient (rate 1 − R_min/R_max)
    // converges within its iteration budget.
    const double Rn = LogUniform(rng, 1e-2, 1.0);
    const double Rt = Rn * LogUniform(rng, 0.05, 20);
    const Vec3 R(Rt, Rt, Rn);
    Regime region = static_cast<Regime>(trial % 3);
    if (mu == 0 && region == Regime::kStiction) region = Regime::kSliding;  // F is a ray
    const Vec3 y = DrawY(rng, region, mu, Rt, Rn);
    Vec3 gamma;
    const Regime got = SapProjectCone(y, mu, Rt, Rn, &gamma, nullptr);
    if (mu > 0) {
      EXPECT_EQ(got, region) << "y = " << y.transpose();
    }
    ++counts[static_cast<int>(got)];
    const Vec3 brute = BruteForceProjection(y, R, mu);
    // The brute-force iteration stops at a step of 1e-15 (1 + ‖y‖); its distance to the true
    // minimizer is bounded by that step times the condition ratio (<= 400) plus round-off.
    EXPECT_LT((gamma - brute).norm(), 1e-9 * (1 + y.norm()))
        << "mu " << mu << " y " << y.transpose() << " got " << gamma.transpose() << " brute "
        << brute.transpose();
    // Feasibility: γ ∈ F (round-off of a few ulps on the products).
    EXPECT_LE(gamma.head<2>().norm(), mu * gamma(2) + 1e-14 * (1 + y.norm()));
    // Variational inequality of the projection: (y − γ)ᵀR(z − γ) <= 0 for all z ∈ F (sampled).
    for (int k = 0; k < 200; ++k) {
      const double zn = Uniform(rng, 0, 3);
      const double zr = Uniform(rng, 0, 1) * mu * zn;
      const double a = Uniform(rng, 0, 2 * kPi);
      const Vec3 z(zr * std::cos(a), zr * std::sin(a), zn);
      // Round-off of a 3-term product of O(1) quantities.
      EXPECT_LE((y - gamma).dot(R.cwiseProduct(z - gamma)), 1e-12 * (1 + y.squaredNorm()));
    }
  }
  // All three regions were exercised.
  EXPECT_GT(counts[0], 50);
  EXPECT_GT(counts[1], 50);
  EXPECT_GT(counts[2], 50);
}

TEST(SapProjection, FrictionlessIsNormalClamp) {
  Vec3 gamma;
  Mat3 G;
  EXPECT_EQ(SapProjectCone(Vec3(0.3, -0.2, 0.5), 0.0, 1e-3, 1e-2, &gamma, &G), Regime::kSliding);
  // Exact arithmetic: γ_t = 0, γ_n = y_n, G_t = 0, G_n = 1/R_n.
  EXPECT_EQ(gamma, Vec3(0, 0, 0.5));
  EXPECT_EQ(G(0, 0), 0.0);
  EXPECT_EQ(G(2, 2), 1 / 1e-2);
  EXPECT_EQ(SapProjectCone(Vec3(0.3, -0.2, -0.5), 0.0, 1e-3, 1e-2, &gamma, &G),
            Regime::kNoContact);
  EXPECT_EQ(gamma, Vec3::Zero());
}

// G = −∂γ/∂v_c by central differences, with y = −R⁻¹ v_c (v̂ = 0).
TEST(SapProjection, GMatchesFiniteDifferences) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    const double mu = trial % 4 == 0 ? 0.0 : Uniform(rng, 0.1, 1.5);
    const double Rn = LogUniform(rng, 1e-3, 1.0);
    const double Rt = Rn * LogUniform(rng, 1e-3, 1.0);
    Regime region = static_cast<Regime>(trial % 3);
    if (mu == 0 && region == Regime::kStiction) region = Regime::kSliding;
    const Vec3 R(Rt, Rt, Rn);
    const Vec3 y = DrawY(rng, region, mu, Rt, Rn);
    const Vec3 vc = -R.cwiseProduct(y);
    Vec3 gamma;
    Mat3 G;
    SapProjectCone(y, mu, Rt, Rn, &gamma, &G);
    const double h = 1e-6 * R.minCoeff();  // v_c step small against the region margins
    Mat3 G_fd;
    for (int j = 0; j < 3; ++j) {
      Vec3 gp, gm;
      const Vec3 e = Vec3::Unit(j) * h;
      SapProjectCone(-(vc + e).cwiseQuotient(R), mu, Rt, Rn, &gp, nullptr);
      SapProjectCone(-(vc - e).cwiseQuotient(R), mu, Rt, Rn, &gm, nullptr);
      G_fd.col(j) = -(gp - gm) / (2 * h);
    }
    // Central differences: O(h²) truncation plus round-off ε‖γ‖/h relative to ‖G‖ ~ 1/R_min.
    EXPECT_LT((G - G_fd).norm(), 1e-6 * (1 + G.norm()))
        << "region " << RegimeName(region) << "\nG\n" << G << "\nFD\n" << G_fd;
    // G is symmetric positive semidefinite (it is R⁻¹∇²ℓ_R R⁻¹); round-off bound.
    EXPECT_LT((G - G.transpose()).norm(), 1e-12 * G.norm() + 1e-300);
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Mat3>(G).eigenvalues().minCoeff(),
              -1e-12 * G.norm());
  }
}

// ---------------------------------------------------------------------------------------------
// Cost derivatives on whole problems.

// Places every constraint at a prescribed y at velocity v by choosing its bias b.
void SetBiasForY(const SapRegularization& reg, const VecX& v, const std::vector<Vec3>& y,
                 ContactProblem* p) {
  VecX Jv;
  SapMultiplyJ(*p, v, &Jv);
  for (size_t i = 0; i < p->constraints.size(); ++i) {
    ConstraintData& c = p->constraints[i];
    for (int r = 0; r < c.num_rows; ++r) {
      const int row = c.first_row + r;
      // y = −R⁻¹(J v + b − v̂)  ⇒  b = v̂ − R y − J v.
      c.bias(r) = reg.v_hat(row) - reg.R(row) * y[i](r) - Jv(row);
    }
  }
}

struct RegionProblem {
  ContactProblem problem;
  SapRegularization reg;
  VecX v;
  std::vector<Regime> expected;
};

// Three trees; constraints in stiction, sliding, no contact (μ > 0), a frictionless active and
// inactive cone, and an active and inactive unilateral row.
RegionProblem MakeRegionProblem(std::mt19937& rng) {
  RegionProblem out;
  ContactProblem& p = out.problem;
  p = MakeTrees(rng, 3, 1e-2);
  std::vector<Vec3> y;
  std::vector<Regime> regions = {Regime::kStiction, Regime::kSliding, Regime::kNoContact,
                                 Regime::kSliding, Regime::kNoContact};
  for (size_t i = 0; i < regions.size(); ++i) {
    ConstraintData& c = AddConstraint(rng, &p, ConstraintKind::kFrictionCone);
    c.friction = i < 3 ? Uniform(rng, 0.2, 1.2) : 0.0;
  }
  AddConstraint(rng, &p, ConstraintKind::kUnilateral);
  AddConstraint(rng, &p, ConstraintKind::kUnilateral);
  p.ComputeDelassusEstimates();
  out.reg = ComputeSapRegularization(p, SapParameters{});
  for (size_t i = 0; i < regions.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    const double Rt = out.reg.R(c.first_row), Rn = out.reg.R(c.first_row + 2);
    y.push_back(DrawY(rng, regions[i], c.friction, Rt, Rn));
  }
  y.push_back(Vec3(Uniform(rng, 0.1, 1), 0, 0));
  y.push_back(Vec3(-Uniform(rng, 0.1, 1), 0, 0));
  regions.push_back(Regime::kStiction);
  regions.push_back(Regime::kNoContact);
  out.v = RandomVector(rng, p.nv, 1.0);
  SetBiasForY(out.reg, out.v, y, &p);
  out.expected = regions;
  return out;
}

TEST(SapCost, GradientAndHessianMatchFiniteDifferencesInEveryRegion) {
  std::mt19937 rng(3);
  double max_grad_err = 0, max_H_err = 0;
  for (int trial = 0; trial < 100; ++trial) {
    RegionProblem rp = MakeRegionProblem(rng);
    const ContactProblem& p = rp.problem;
    VecX grad, gamma, vc;
    const double cost = SapCost(p, rp.reg, rp.v, &grad, &gamma);
    std::vector<Regime> regime;
    p.ConstraintVelocities(rp.v, &vc);
    SapConstraintCost(p, rp.reg, vc, &gamma, nullptr, &regime);
    for (size_t i = 0; i < regime.size(); ++i) EXPECT_EQ(regime[i], rp.expected[i]) << i;
    // The gradient is A(v − v*) − Jᵀγ by its definition in the code; check that formula too.
    const VecX grad_formula = p.DenseA() * (rp.v - p.v_star) - p.DenseJ().transpose() * gamma;
    EXPECT_LT((grad - grad_formula).norm(), 1e-12 * (1 + grad.norm()));  // round-off only
    const MatX H = SapDenseHessian(p, rp.reg, rp.v);
    // Steps small against the region margins (y moves by ~h‖J‖/R, margins are >= 0.05 in y).
    const double h = 1e-4 * rp.reg.R.minCoeff();
    VecX grad_fd(p.nv);
    MatX H_fd(p.nv, p.nv);
    for (int j = 0; j < p.nv; ++j) {
      VecX vp = rp.v, vm = rp.v;
      vp(j) += h;
      vm(j) -= h;
      VecX gp, gm;
      const double cp = SapCost(p, rp.reg, vp, &gp, nullptr);
      const double cm = SapCost(p, rp.reg, vm, &gm, nullptr);
      grad_fd(j) = (cp - cm) / (2 * h);
      H_fd.col(j) = (gp - gm) / (2 * h);
    }
    // Cost FD: round-off 10 ε|ℓ|/h plus the O(h²) truncation of the sliding terms (ℓ_R is not
    // quadratic in y_t there), which is below 1e-7 ‖∇ℓ‖ at this h.
    const double grad_err = (grad - grad_fd).norm();
    EXPECT_LT(grad_err, 1e-15 * std::abs(cost) / h * 10 + 1e-7 * grad.norm()) << "cost " << cost;
    // Gradient FD: O(h²) truncation from the sliding curvature of t̂ plus round-off ε‖∇ℓ‖/h,
    // both far below 1e-6 ‖H‖ (measured max ratio printed below).
    const double H_err = (H - H_fd).norm() / H.norm();
    EXPECT_LT(H_err, 1e-6) << "H\n" << H << "\nFD\n" << H_fd;
    max_grad_err = std::max(max_grad_err, grad_err / grad.norm());
    max_H_err = std::max(max_H_err, H_err);
  }
  std::printf("FD: max relative gradient error %.2e, max relative Hessian error %.2e\n",
              max_grad_err, max_H_err);
}

// ---------------------------------------------------------------------------------------------
// Solver.

SapParameters Tight() {
  SapParameters prm;
  prm.rel_tolerance = 1e-10;
  return prm;
}

TEST(SapSolver, ExactGuessTakesZeroIterations) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 50; ++trial) {
    const ContactProblem p = MakeRandomProblem(rng, 3, 6);
    SapSolver solver;
    SolverResult r1, r2;
    ASSERT_EQ(solver.Solve(p, p.v0, &r1), SolverStatus::kConverged) << r1.stats.message;
    ASSERT_EQ(solver.Solve(p, r1.v, &r2), SolverStatus::kConverged);
    // The stopping test runs before any factorization: the converged v passes it as is.
    EXPECT_EQ(r2.stats.iterations, 0);
    EXPECT_EQ(r2.stats.iteration_log.num_rows(), 1);
    EXPECT_EQ(r2.v, r1.v);  // no step taken: bitwise identical
  }
}

TEST(SapSolver, NoContactProblemConvergesInOneIteration) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    ContactProblem p = MakeRandomProblem(rng, 3, 6);
    // Far apart: v̂_n = −φ0/(δt + τ_d) ≈ −1e4 m/s puts y_n far below zero for every v on the
    // segment from the guess to v*, so ℓ_R ≡ 0 and ℓ_p is the quadratic ½‖v − v*‖²_A.
    for (ConstraintData& c : p.constraints) c.phi0 = 200.0;
    SapSolver solver(Tight());
    SolverResult r;
    ASSERT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged) << r.stats.message;
    EXPECT_EQ(r.stats.iterations, 1);
    EXPECT_EQ(r.stats.iteration_log.Last(kSapNumNoContact), static_cast<int>(p.constraints.size()));
    // One exact Newton step on a quadratic: v = v* up to the round-off of one Cholesky solve.
    EXPECT_LT((r.v - p.v_star).norm(), 1e-12 * (1 + p.v_star.norm()));
    EXPECT_EQ(r.gamma.norm(), 0.0);  // γ is exactly 0 in the no-contact region
  }
}

struct RandomRunTotals {
  int solves = 0, total_iterations = 0, max_iterations = 0;
  long stiction = 0, sliding = 0, no_contact = 0;
};

TEST(SapSolver, RandomProblemsConvergeWithMonotoneCost) {
  std::mt19937 rng(6);
  RandomRunTotals tot;
  SapSolver solver;  // one solver: scratch reused across problems of different sizes
  for (int trial = 0; trial < 1000; ++trial) {
    const int trees = std::uniform_int_distribution<int>(2, 5)(rng);
    const int cons = std::uniform_int_distribution<int>(1, 10)(rng);
    const ContactProblem p = MakeRandomProblem(rng, trees, cons);
    SolverResult r;
    const SolverStatus st = solver.Solve(p, p.v0, &r);
    ASSERT_EQ(st, SolverStatus::kConverged) << "trial " << trial << ": " << r.stats.message;
    // Eq. 26 holds at the returned iterate unless the stagnation test stopped it.
    if (r.stats.message.empty()) {
      EXPECT_LT(r.stats.momentum_error, 1e-6);
    }
    const std::vector<double> h = r.stats.iteration_log.Column(kSapCost);
    for (size_t k = 1; k < h.size(); ++k) {
      // Monotone decrease up to the round-off of evaluating ℓ (slop 1000 ε max(1, ℓ)).
      EXPECT_LE(h[k], h[k - 1] + 1000 * 2.2e-16 * std::max(1.0, std::abs(h[k - 1])))
          << "trial " << trial << " iteration " << k;
    }
    // e_μ is zero by construction of the projection (Moreau decomposition); round-off bound.
    EXPECT_LT(r.stats.complementarity_error, 1e-9) << "trial " << trial;
    tot.total_iterations += r.stats.iterations;
    tot.max_iterations = std::max(tot.max_iterations, r.stats.iterations);
    ++tot.solves;
    for (Regime g : r.regime) {
      if (g == Regime::kStiction) ++tot.stiction;
      else if (g == Regime::kSliding) ++tot.sliding;
      else ++tot.no_contact;
    }
  }
  // The random set exercises every regime at the solution (else the test would prove little).
  EXPECT_GT(tot.stiction, 100);
  EXPECT_GT(tot.sliding, 100);
  EXPECT_GT(tot.no_contact, 100);
  std::printf("random problems: %d solves, mean %.2f iterations, max %d; regimes at solution: "
              "%ld stiction, %ld sliding, %ld no contact\n",
              tot.solves, double(tot.total_iterations) / tot.solves, tot.max_iterations,
              tot.stiction, tot.sliding, tot.no_contact);
}

TEST(SapSolver, DenseAndBlockSparseAgree) {
  std::mt19937 rng(7);
  SapParameters dense_prm = Tight(), sparse_prm = Tight();
  sparse_prm.linear_solver = SapParameters::LinearSolver::kBlockSparse;
  SapSolver dense(dense_prm), sparse(sparse_prm);
  for (int trial = 0; trial < 300; ++trial) {
    const int trees = std::uniform_int_distribution<int>(2, 6)(rng);
    const int cons = std::uniform_int_distribution<int>(1, 12)(rng);
    const ContactProblem p = MakeRandomProblem(rng, trees, cons);
    SolverResult rd, rs;
    ASSERT_EQ(dense.Solve(p, p.v0, &rd), SolverStatus::kConverged) << rd.stats.message;
    ASSERT_EQ(sparse.Solve(p, p.v0, &rs), SolverStatus::kConverged) << rs.stats.message;
    // Same Newton path: the two factorizations differ only by round-off (ordering, summation).
    EXPECT_EQ(rd.stats.iterations, rs.stats.iterations) << "trial " << trial;
    // 1e-9 relative: round-off of the factorizations (~1e-14 cond(H)) carried through the
    // iterations; both stop at e_m < 1e-10.
    EXPECT_LT((rd.v - rs.v).norm(), 1e-9 * (1 + rd.v.norm())) << "trial " << trial;
  }
}

TEST(SapSolver, DenseAndBlockSparseHessiansAgree) {
  std::mt19937 rng(8);
  SapParameters dense_prm, sparse_prm;
  dense_prm.compute_condition_number = true;
  dense_prm.max_iterations = 1;
  sparse_prm = dense_prm;
  sparse_prm.linear_solver = SapParameters::LinearSolver::kBlockSparse;
  SapSolver dense(dense_prm), sparse(sparse_prm);
  for (int trial = 0; trial < 100; ++trial) {
    const ContactProblem p = MakeRandomProblem(rng, 4, 8);
    SolverResult rd, rs;
    dense.Solve(p, p.v0, &rd);
    sparse.Solve(p, p.v0, &rs);
    // cond₂(H) from the dense and the block-assembled H at the guess: same matrix up to the
    // summation order of JᵀGJ, so the eigenvalues agree to round-off times cond(H).
    const double cd = rd.stats.iteration_log(0, kSapConditionNumber);
    const double cs = rs.stats.iteration_log(0, kSapConditionNumber);
    EXPECT_LT(std::abs(cd - cs), 1e-9 * cd);
    EXPECT_GE(cd, 1.0);
  }
}

TEST(SapSolver, ExactAndBacktrackingLineSearchesReachTheSameSolution) {
  std::mt19937 rng(9);
  SapParameters exact_prm = Tight(), bt_prm = Tight();
  bt_prm.line_search = SapParameters::LineSearch::kBacktracking;
  SapSolver exact(exact_prm), bt(bt_prm);
  int it_exact = 0, it_bt = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const ContactProblem p = MakeRandomProblem(rng, 3, 8);
    SolverResult re, rb;
    ASSERT_EQ(exact.Solve(p, p.v0, &re), SolverStatus::kConverged) << re.stats.message;
    ASSERT_EQ(bt.Solve(p, p.v0, &rb), SolverStatus::kConverged) << rb.stats.message;
    it_exact += re.stats.iterations;
    it_bt += rb.stats.iterations;
    // Both stop at e_m < 1e-10; by strong convexity ‖v − v_opt‖ <= ‖∇ℓ‖/λ_min(A), which for
    // these O(1) well-conditioned A blocks is ~1e-9 relative; 1e-7 leaves margin.
    EXPECT_LT((re.v - rb.v).norm(), 1e-7 * (1 + re.v.norm())) << "trial " << trial;
  }
  std::printf("total iterations: exact %d, backtracking %d\n", it_exact, it_bt);
}

TEST(SapSolver, ConditionNumberIsRecordedPerIteration) {
  std::mt19937 rng(10);
  const ContactProblem p = MakeRandomProblem(rng, 3, 6);
  SapParameters prm;
  prm.compute_condition_number = true;
  SapSolver solver(prm);
  SolverResult r;
  solver.Solve(p, p.v0, &r);
  const MatX H = SapDenseHessian(p, ComputeSapRegularization(p, prm), p.v0);
  const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<MatX>(H).eigenvalues();
  // Same matrix, same eigen-solver: equal up to the summation order of JᵀGJ.
  EXPECT_NEAR(r.stats.iteration_log(0, kSapConditionNumber), ev.maxCoeff() / ev.minCoeff(),
              1e-9 * ev.maxCoeff() / ev.minCoeff());
  for (double cond : r.stats.iteration_log.Column(kSapConditionNumber)) {
    EXPECT_TRUE(std::isfinite(cond));
  }
  // The Jacobi-scaled series: cond₂(D H D), D = diag(H)^(-1/2), against a dense eigen-solve.
  const Eigen::VectorXd dinv = H.diagonal().cwiseSqrt().cwiseInverse();
  const MatX S = dinv.asDiagonal() * H * dinv.asDiagonal();
  const Eigen::VectorXd sv = Eigen::SelfAdjointEigenSolver<MatX>(S).eigenvalues();
  const double scaled = sv.maxCoeff() / sv.minCoeff();
  EXPECT_NEAR(r.stats.iteration_log(0, kSapScaledConditionNumber), scaled, 1e-9 * scaled);
  for (double cond : r.stats.iteration_log.Column(kSapScaledConditionNumber)) {
    EXPECT_TRUE(std::isfinite(cond));
    EXPECT_GE(cond, 1.0 - 1e-12);
  }
}

TEST(SapSolver, ScaledConditionNumberIsNanUnlessRequested) {
  std::mt19937 rng(11);
  const ContactProblem p = MakeRandomProblem(rng, 3, 6);
  SapSolver solver;
  SolverResult r;
  solver.Solve(p, p.v0, &r);
  for (double cond : r.stats.iteration_log.Column(kSapScaledConditionNumber)) {
    EXPECT_TRUE(std::isnan(cond));
  }
}

// ---------------------------------------------------------------------------------------------
// Near-rigid regularization (eq. 29).

// With k = 1e12 the compliant value 1/(δt k (δt + τ_d)) is ~1e-8, far below the clamp
// β²w/(4π²) at β = 1. Removing the clamp (β = 1e-6) leaves R_n ~ 1e-8, so G_n = 1/R_n ~ 1e8.
// Measured with this implementation: the exact line search still converges without the clamp
// (SAP's globally convergent Newton method does not break on these small problems), so the test
// asserts what does degrade: cond(H) grows by more than two orders of magnitude (~700x for
// the particle, ~3000x for the box) and the box
// impact needs more Newton iterations (4 with the clamp, 9 without).
TEST(SapSolver, NearRigidClampKeepsTheSolveWellConditioned) {
  const double dt = 1e-2;
  for (double tau_d : {0.0, dt}) {
    for (int scenario = 0; scenario < 2; ++scenario) {
      ContactProblem p;
      VecX guess;
      if (scenario == 0) {
        // A 1 kg particle resting on the ground, slightly penetrating, with a tangential
        // velocity to stop: the Newton iterates go from sliding to stiction.
        p = MakeParticle(1.0, dt, 1e12, tau_d, 0.5, -1e-4);
        p.v_star = Vec3(0.3, -0.1, -kGravity * dt);
        guess = Vec3(0.3, -0.1, 0.0);
      } else {
        // A 1 kg box hitting the ground on four corners while sliding and spinning.
        p = MakeBox(1.0, 0.05, dt, 1e12, tau_d, 0.5);
        p.v_star << 1.0, 0.3, -1.0, 2.0, -3.0, 5.0;
        guess = p.v_star;
      }
      SapParameters clamp_prm;
      clamp_prm.compute_condition_number = true;
      SapParameters no_clamp = clamp_prm;
      no_clamp.beta = 1e-6;  // β²w/(4π²) ~ 1e-14 < 1/(δt k (δt + τ_d)): clamp inactive
      SolverResult rc, rn;
      SapSolver(clamp_prm).Solve(p, guess, &rc);
      SapSolver(no_clamp).Solve(p, guess, &rn);
      for (size_t i = 0; i < p.constraints.size(); ++i) {
        EXPECT_EQ(RegularizationOf(rc).near_rigid[i], 1);
        EXPECT_EQ(RegularizationOf(rn).near_rigid[i], 0);
      }
      EXPECT_EQ(rc.stats.status, SolverStatus::kConverged);
      EXPECT_LE(rc.stats.iterations, 30);
      double max_cond_c = 0, max_cond_n = 0;
      for (double h : rc.stats.iteration_log.Column(kSapConditionNumber))
        max_cond_c = std::max(max_cond_c, h);
      for (double h : rn.stats.iteration_log.Column(kSapConditionNumber))
        max_cond_n = std::max(max_cond_n, h);
      // G_n grows from 4π²/(β²w) ~ 1e2 to 1/R_n ~ 1e8; the stiction G_t = 1/(σw) ~ 1e3 bounds
      // cond(H) from below in both cases, so the measured growth is 700x-6000x, not 1e6.
      EXPECT_GT(max_cond_n, 1e2 * max_cond_c);
      EXPECT_GE(rn.stats.iterations, rc.stats.iterations);
      if (scenario == 1) {
        EXPECT_GT(rn.stats.iterations, rc.stats.iterations);
      }
      std::printf("%s tau_d %.3g: beta=1: %s, %d iterations, e_m %.2e, max cond(H) %.3g | "
                  "beta=1e-6: %s, %d iterations, e_m %.2e, max cond(H) %.3g\n",
                  scenario == 0 ? "particle" : "box", tau_d, SolverStatusName(rc.stats.status),
                  rc.stats.iterations, rc.stats.momentum_error, max_cond_c,
                  SolverStatusName(rn.stats.status), rn.stats.iterations,
                  rn.stats.momentum_error, max_cond_n);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Closed-form single contacts.

TEST(SapClosedForm, RestingParticleNormalImpulse) {
  const double dt = 1e-2, g = kGravity;
  for (double m : {0.1, 1.0, 7.0}) {
    for (double k : {1e3, 1e12}) {
      for (double phi0 : {0.0, -1e-4}) {
        const double tau_d = dt;
        ContactProblem p = MakeParticle(m, dt, k, tau_d, 0.5, phi0);
        SapSolver solver(Tight());
        SolverResult r;
        ASSERT_EQ(solver.Solve(p, VecX::Zero(3), &r), SolverStatus::kConverged);
        // w = ‖I/m‖_F / 3 = √3/(3m) (RMS of W_ii's entries); R_n from eq. 29,
        // v̂_n = −φ0/(δt + τ_d).
        const double w = std::sqrt(3.0) / (3 * m);
        const double Rn = std::max(w / (4 * kPi * kPi), 1 / (dt * k * (dt + tau_d)));
        const double vhat = -phi0 / (dt + tau_d);
        // Stiction with γ_n = −(v_n − v̂_n)/R_n and m(v_n − v*_n) = γ_n:
        //   γ_n = (m g δt + m v̂_n) / (1 + m R_n).
        const double gamma_n = (m * g * dt + m * vhat) / (1 + m * Rn);
        EXPECT_EQ(r.regime[0], Regime::kStiction);
        // One Newton step solves this quadratic exactly; 1e-10 covers the round-off.
        EXPECT_NEAR(r.gamma(2), gamma_n, 1e-10 * gamma_n);
        EXPECT_NEAR(RegularizationOf(r).R(2), Rn, 1e-14 * Rn);  // same formula, round-off only
        EXPECT_EQ(RegularizationOf(r).near_rigid[0], k > 1e6 ? 1 : 0);
        EXPECT_NEAR(r.gamma.head<2>().norm(), 0.0, 1e-15);  // no tangential load
      }
    }
  }
}

TEST(SapClosedForm, TangentialPushSticksBelowAndSlidesAboveFrictionLimit) {
  const double dt = 1e-2, g = kGravity, m = 2.0, mu = 0.4;
  ContactProblem p = MakeParticle(m, dt, 1e12, dt, mu, 0.0);
  const double Rt = 1e-3 * p.constraints[0].w;  // σ w
  // Below the limit: push with f = 0.5 μ m g along x.
  {
    const double f = 0.5 * mu * m * g;
    p.v_star = Vec3(f * dt / m, 0, -g * dt);
    SapSolver solver(Tight());
    SolverResult r;
    ASSERT_EQ(solver.Solve(p, VecX::Zero(3), &r), SolverStatus::kConverged);
    EXPECT_EQ(r.regime[0], Regime::kStiction);
    // Stiction: γ_t = −v_t/R_t and m(v_t − v*_t) = γ_t ⇒ v_t = m v*_t R_t/(1 + m R_t).
    const double vt = m * p.v_star(0) * Rt / (1 + m * Rt);
    EXPECT_NEAR(r.v(0), vt, 1e-10 * vt);     // round-off of the Newton solve
    EXPECT_NEAR(r.gamma(0), -r.v(0) / Rt, 1e-10 * std::abs(r.gamma(0)));
    // The friction impulse balances the push up to the regularization slip: γ_t ≈ −f δt.
    EXPECT_NEAR(r.gamma(0), -f * dt, 2 * m * Rt * f * dt);  // relative error m R_t/(1 + m R_t)
  }
  // Above: f = 2 μ m g.
  {
    const double f = 2 * mu * m * g;
    p.v_star = Vec3(f * dt / m, 0, -g * dt);
    SapSolver solver(Tight());
    SolverResult r;
    ASSERT_EQ(solver.Solve(p, VecX::Zero(3), &r), SolverStatus::kConverged);
    EXPECT_EQ(r.regime[0], Regime::kSliding);
    const double Rn = RegularizationOf(r).R(2);
    const double mu_tilde2 = mu * mu * Rt / Rn;
    // Sliding along +x: γ_n R_n (1 + μ̃²) = −v_n + v̂_n + μ v_t, v_t = v*_t − μγ_n/m,
    // v_n = v*_n + γ_n/m ⇒ γ_n = (μ v*_t − v*_n) / (R_n (1 + μ̃²) + (1 + μ²)/m)  (v̂_n = 0).
    const double gamma_n =
        (mu * p.v_star(0) - p.v_star(2)) / (Rn * (1 + mu_tilde2) + (1 + mu * mu) / m);
    EXPECT_NEAR(r.gamma(2), gamma_n, 1e-10 * gamma_n);  // round-off of the Newton iterates
    EXPECT_NEAR(r.gamma(0), -mu * r.gamma(2), 1e-12 * r.gamma(2));  // on the cone, opposing slip
    EXPECT_NEAR(r.gamma(1), 0.0, 1e-12 * r.gamma(2));
    EXPECT_GT(r.v(0), 0.0);
  }
}

// ---------------------------------------------------------------------------------------------
// Regularization, Delassus estimate, input checks.

TEST(SapRegularization, FollowsEquations29And30) {
  ContactProblem p = MakeParticle(2.0, 1e-3, 1e4, 0.02, 0.5, -2e-3);
  ConstraintData limit;
  limit.kind = ConstraintKind::kUnilateral;
  limit.first_row = 3;
  limit.num_rows = 1;
  limit.num_blocks = 1;
  limit.blocks[0].tree = 0;
  limit.blocks[0].J = MatX::Zero(1, 3);
  limit.blocks[0].J(0, 1) = 1;
  limit.stiffness = std::numeric_limits<double>::infinity();
  limit.phi0 = 0.01;
  p.constraints.push_back(limit);
  p.num_rows = 4;
  p.ComputeDelassusEstimates();
  SapParameters prm;
  const SapRegularization reg = ComputeSapRegularization(p, prm);
  const double w = std::sqrt(3.0) / 6;  // ‖I/2‖_F / 3: RMS of the entries of W_ii = I/2
  EXPECT_NEAR(p.constraints[0].w, w, 1e-15);  // Cholesky of 2I is exact; round-off of the norm
  EXPECT_NEAR(p.constraints[1].w, 0.5, 1e-15);
  const double dt = 1e-3;
  // Compliant branch: 1/(δt k (δt + τ_d)) = 1/(1e-3·1e4·0.021) ≈ 4.76 > w/(4π²).
  EXPECT_DOUBLE_EQ(reg.R(2), 1 / (dt * 1e4 * (dt + 0.02)));
  EXPECT_DOUBLE_EQ(reg.R(0), 1e-3 * w);
  EXPECT_DOUBLE_EQ(reg.R(1), 1e-3 * w);
  EXPECT_DOUBLE_EQ(reg.v_hat(2), 2e-3 / (dt + 0.02));
  EXPECT_EQ(reg.near_rigid[0], 0);
  // Limit row: k = ∞ ⇒ near-rigid with limit_beta = 0.1.
  EXPECT_DOUBLE_EQ(reg.R(3), 0.01 / (4 * kPi * kPi) * 0.5);
  EXPECT_DOUBLE_EQ(reg.v_hat(3), -0.01 / dt);
  EXPECT_EQ(reg.near_rigid[1], 1);
  // Per-constraint β override.
  p.constraints[1].beta = 2.0;
  EXPECT_DOUBLE_EQ(ComputeSapRegularization(p, prm).R(3), 4 / (4 * kPi * kPi) * 0.5);
}

TEST(SapRegularization, DelassusEstimateSumsTwoTrees) {
  ContactProblem p;
  p.time_step = 1e-2;
  p.nv = 6;
  p.tree_v_start = {0, 3};
  p.tree_nv = {3, 3};
  p.A = {1.0 * MatX::Identity(3, 3), 4.0 * MatX::Identity(3, 3)};
  p.M = p.A;
  ConstraintData c;
  c.num_blocks = 2;
  c.blocks[0] = {0, MatX::Identity(3, 3)};
  c.blocks[1] = {1, -MatX::Identity(3, 3)};
  p.constraints.push_back(c);
  p.num_rows = 3;
  p.ComputeDelassusEstimates();
  // W_ii = I/1 + I/4 ⇒ ‖W‖_F / 3 = 1.25 √3 / 3.
  EXPECT_NEAR(p.constraints[0].w, 1.25 * std::sqrt(3.0) / 3, 1e-15);
  // Dense views agree with the per-tree products.
  const VecX v = (VecX(6) << 1, 2, 3, 4, 5, 6).finished();
  VecX vc, jt = VecX::Zero(6);
  p.ConstraintVelocities(v, &vc);
  EXPECT_EQ(vc, p.DenseJ() * v + p.StackedBias());  // exact: same products of small integers
  p.AddJacobianTransposeTimes(vc, &jt);
  EXPECT_EQ(jt, p.DenseJ().transpose() * vc);
}

TEST(SapSolver, NonFiniteInputIsReportedWithoutIterating) {
  std::mt19937 rng(11);
  ContactProblem p = MakeRandomProblem(rng, 2, 3);
  SapSolver solver;
  SolverResult r;
  ContactProblem bad = p;
  bad.v_star(0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(solver.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  EXPECT_EQ(r.stats.iterations, 0);
  EXPECT_TRUE(r.stats.iteration_log.empty());
  EXPECT_NE(r.stats.message.find("v_star"), std::string::npos);
  bad = p;
  bad.A[1](0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_EQ(solver.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  bad = p;
  bad.constraints[0].blocks[0].J(0, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(solver.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  bad = p;
  bad.constraints[0].phi0 = std::numeric_limits<double>::quiet_NaN();  // v̂ non-finite
  EXPECT_EQ(solver.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  VecX guess = p.v0;
  guess(0) = std::numeric_limits<double>::infinity();
  EXPECT_EQ(solver.Solve(p, guess, &r), SolverStatus::kNonFiniteInput);
  bad = p;
  bad.constraints[1].bias(0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(solver.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  EXPECT_NE(r.stats.message.find("constraint 1"), std::string::npos) << r.stats.message;
  bad = p;
  bad.M[0](0, 0) = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(solver.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  EXPECT_NE(r.stats.message.find("M block of tree 0"), std::string::npos) << r.stats.message;
  // Finite entries whose sum overflows are not mistaken for non-finite input (the screen that
  // sums them falls back to the entry-by-entry check).
  bad = p;
  bad.v_star(0) = bad.v_star(1) = 1e308;
  solver.Solve(bad, p.v0, &r);
  EXPECT_NE(r.stats.status, SolverStatus::kNonFiniteInput) << r.stats.message;
  // Two Jacobian blocks of one constraint on the same tree: refused, naming the constraint.
  bad = p;
  for (ConstraintData& c : bad.constraints) {
    if (c.num_blocks != 2) continue;
    c.blocks[1].tree = c.blocks[0].tree;
    c.blocks[1].J = c.blocks[0].J;
    break;
  }
  EXPECT_EQ(solver.Solve(bad, p.v0, &r), SolverStatus::kNonFiniteInput);
  EXPECT_NE(r.stats.message.find("both Jacobian blocks on tree"), std::string::npos)
      << r.stats.message;
  // The valid problem still solves with the same solver object.
  EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged);
}

TEST(SapParametersTest, ValidateNamesFieldAndRange) {
  auto message = [](SapParameters prm) -> std::string {
    try {
      prm.Validate();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  SapParameters prm;
  EXPECT_EQ(message(prm), "");
  prm.sigma = -1;
  EXPECT_EQ(message(prm), "solver.sigma = -1 is out of range (0, 1]");
  prm = SapParameters{};
  prm.beta = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(message(prm).find("solver.beta"), std::string::npos);
  EXPECT_NE(message(prm).find("(0, 10]"), std::string::npos);
  prm = SapParameters{};
  prm.rel_tolerance = 1;
  EXPECT_NE(message(prm).find("solver.rel_tolerance = 1 is out of range (0, 1)"), std::string::npos);
  prm = SapParameters{};
  prm.max_iterations = 0;
  EXPECT_NE(message(prm).find("solver.max_iterations = 0 is out of range [1, 10000]"),
            std::string::npos);
  prm = SapParameters{};
  prm.ls_rho = 1.5;
  EXPECT_NE(message(prm).find("solver.ls_rho"), std::string::npos);
  EXPECT_THROW(SapSolver{prm}, std::invalid_argument);
}

TEST(SapSolver, IndefiniteHessianIsAFactorizationFailure) {
  // A violates the contract A ≻ 0 (−I on a tree): H = A + JᵀGJ has a negative pivot in the tree
  // no constraint touches, so the Cholesky factorization must fail and the guess is returned.
  std::mt19937 rng(13);
  ContactProblem p = MakeRandomProblem(rng, 2, 2);
  p.constraints.resize(1);
  p.constraints[0].num_blocks = 1;
  p.num_rows = p.constraints[0].num_rows;
  p.ComputeDelassusEstimates();
  const int free_tree = 1 - p.constraints[0].blocks[0].tree;
  p.A[free_tree] = -MatX::Identity(p.tree_nv[free_tree], p.tree_nv[free_tree]);
  for (auto solver_kind : {SapParameters::LinearSolver::kDense,
                           SapParameters::LinearSolver::kBlockSparse}) {
    SapParameters prm;
    prm.linear_solver = solver_kind;
    SapSolver solver(prm);
    SolverResult r;
    EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kFactorizationFailure);
    EXPECT_EQ(r.stats.iterations, 0);
    EXPECT_EQ(r.v, p.v0);  // the best (only) iterate is the guess
    EXPECT_FALSE(r.stats.message.empty());
  }
}

// A tolerance below round-off (ε_r = 1e-15) cannot be met by eq. 26 on most problems; the
// cost-stagnation test must then stop the iteration with a converged status, never a failure.
TEST(SapSolver, StagnationTestStopsAtRoundOff) {
  std::mt19937 rng(14);
  SapParameters prm;
  prm.rel_tolerance = 1e-15;
  SapSolver solver(prm);
  int stagnated = 0;
  double max_em = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const ContactProblem p = MakeRandomProblem(rng, 3, 8);
    SolverResult r;
    ASSERT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged) << r.stats.message;
    if (!r.stats.message.empty()) ++stagnated;
    max_em = std::max(max_em, r.stats.momentum_error);
  }
  // Most of these solves hit round-off first (measured: ~84%), so the test exercises the rule.
  EXPECT_GT(stagnated, 100);
  // Round-off level of e_m: ε times cond(H) (<= ~1e6 here) with margin.
  EXPECT_LT(max_em, 1e-8);
  std::printf("round-off run: %d of 300 stopped by stagnation, max e_m %.2e\n", stagnated, max_em);
}

// One Newton step with the exact line search lands where ℓ is stationary along Δv:
// ∇ℓ(v₁)·Δv = dℓ/dα(α) ≈ 0, unless α was capped at α_max.
TEST(SapSolver, ExactLineSearchFindsTheMinimumAlongTheDirection) {
  std::mt19937 rng(15);
  SapParameters prm;
  prm.max_iterations = 1;
  SapSolver solver(prm);
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const ContactProblem p = MakeRandomProblem(rng, 3, 8);
    SolverResult r;
    solver.Solve(p, p.v0, &r);
    if (r.stats.iterations != 1) continue;
    const double alpha = r.stats.iteration_log(1, kSapAlpha);
    if (alpha >= prm.ls_alpha_max) continue;
    const SapRegularization reg = ComputeSapRegularization(p, prm);
    const VecX dv = (r.v - p.v0) / alpha;
    VecX g0, g1;
    SapCost(p, reg, p.v0, &g0, nullptr);
    SapCost(p, reg, r.v, &g1, nullptr);
    // rtsafe stops at |ℓ'(α)| < 1e-8 |ℓ'(0)| or at a step below 1e-8 α₀; the second case leaves
    // |ℓ'(α)| <= 1e-8 α₀ ℓ''; 1e-6 |ℓ'(0)| bounds both with margin.
    EXPECT_LT(std::abs(g1.dot(dv)), 1e-6 * std::abs(g0.dot(dv))) << "trial " << trial;
    EXPECT_LT(g0.dot(dv), 0.0);  // a descent direction
    ++checked;
  }
  EXPECT_GT(checked, 100);  // most first steps are interior to (0, α_max)
}

// The line search projects only the constraints that can change regime on its bracket; the
// others contribute a fixed quadratic (stiction) or nothing (no contact), and a short step takes
// the search's evaluation, completed with those constraints, as the next iterate's. Every
// iterate must still report the cost and impulses of a fresh evaluation at its v.
TEST(SapSolver, IterateMatchesAFreshEvaluationAfterEveryLineSearch) {
  std::mt19937 rng(17);
  int compared = 0, short_steps = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const ContactProblem p = MakeRandomProblem(rng, 4, 16);
    for (int cap = 1; cap <= 6; ++cap) {
      SapParameters prm;
      prm.max_iterations = cap;
      prm.rel_tolerance = 1e-14;
      prm.islands = false;
      SapSolver solver(prm);
      SolverResult r;
      if (solver.Solve(p, p.v0, &r) != SolverStatus::kMaxIterations) break;
      const SapRegularization reg = ComputeSapRegularization(p, prm);
      VecX gamma;
      const double cost = SapCost(p, reg, r.v, nullptr, &gamma);
      // v_c accumulated along the steps differs from J v + b by round-off only: relative 1e-9
      // on the cost and the impulses (cond(H) of these problems is below ~1e6).
      EXPECT_NEAR(r.stats.iteration_log.Last(kSapCost), cost, 1e-9 * std::abs(cost))
          << trial << " " << cap;
      EXPECT_LE((r.gamma - gamma).norm(), 1e-9 * (1 + gamma.norm())) << trial << " " << cap;
      if (r.stats.iteration_log.Last(kSapAlpha) <= 0.5) ++short_steps;
      ++compared;
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(short_steps, 10);  // the reuse path is exercised
}

TEST(SapSolver, ConstraintWithZeroJacobianDoesNotChangeTheSolution) {
  // A rigid (k = ∞) contact whose Jacobian vanishes (e.g. a point on a hinge axis) has w = 0;
  // it cannot act on v, so adding it must leave the solution unchanged.
  std::mt19937 rng(16);
  ContactProblem p = MakeRandomProblem(rng, 3, 5);
  SapSolver solver(Tight());
  SolverResult r1, r2;
  ASSERT_EQ(solver.Solve(p, p.v0, &r1), SolverStatus::kConverged);
  ConstraintData& c = AddConstraint(rng, &p, ConstraintKind::kFrictionCone);
  c.blocks[0].J.setZero();
  if (c.num_blocks == 2) c.blocks[1].J.setZero();
  c.stiffness = std::numeric_limits<double>::infinity();
  p.ComputeDelassusEstimates();
  EXPECT_EQ(p.constraints.back().w, 0.0);  // exact: products of zeros
  ASSERT_EQ(solver.Solve(p, p.v0, &r2), SolverStatus::kConverged) << r2.stats.message;
  // Both solves stop at e_m < 1e-10 on the same cost up to a constant: same v to ~1e-9.
  EXPECT_LT((r1.v - r2.v).norm(), 1e-8 * (1 + r1.v.norm()));
}

TEST(SapSolver, IterationCapIsReported) {
  std::mt19937 rng(12);
  const ContactProblem p = MakeRandomProblem(rng, 3, 8);
  SapParameters prm;
  prm.max_iterations = 1;
  prm.rel_tolerance = 1e-15;
  SapSolver solver(prm);
  SolverResult r;
  const SolverStatus st = solver.Solve(p, p.v0, &r);
  // One Newton step rarely reaches ε_r = 1e-15 on a problem with contacts; when it does the
  // status is converged with one iteration, which is also checked.
  if (st == SolverStatus::kMaxIterations) {
    EXPECT_EQ(r.stats.iterations, 1);
    EXPECT_EQ(r.stats.iteration_log.num_rows(), 2);
  } else {
    EXPECT_EQ(st, SolverStatus::kConverged);
  }
}

// Both linear-solver paths check the memory their Newton system needs against the budget before
// allocating it, and refuse with a named status, a message giving the problem's sizes and the
// iterate left at the guess; within the budget the same problem solves.
TEST(SapSolver, MemoryBudgetRefusalNamesTheProblemSize) {
  std::mt19937 rng(40);
  ContactProblem p = MakeRandomProblem(rng, 6, 12);
  for (const auto solver_kind :
       {SapParameters::LinearSolver::kDense, SapParameters::LinearSolver::kBlockSparse}) {
    SapParameters prm = Tight();
    prm.linear_solver = solver_kind;
    prm.islands = false;
    prm.memory_budget_mb = 1e-4;  // 104 bytes: less than one 6 x 6 block needs
    SapSolver solver(prm);
    SolverResult r;
    EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kMemoryBudgetExceeded);
    const std::string& msg = r.stats.message;
    EXPECT_NE(msg.find("6 trees"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(p.nv) + " dofs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("12 constraints"), std::string::npos) << msg;
    EXPECT_NE(msg.find("memory budget of 0.104 kB"), std::string::npos) << msg;
    EXPECT_EQ(r.v, p.v0);
    EXPECT_STREQ(SolverStatusName(r.stats.status), "memory_budget_exceeded");
    prm.memory_budget_mb = 1;
    solver.set_parameters(prm);
    EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged) << r.stats.message;
  }
  SapParameters bad;
  bad.memory_budget_mb = -1;
  EXPECT_THROW(bad.Validate(), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Every contact model through the same solver.

constexpr ContactModelType kAllModels[] = {ContactModelType::kLinear, ContactModelType::kLagged,
                                           ContactModelType::kLaggedRegularized,
                                           ContactModelType::kSimilar};

// The dense reference path and the block path (with and without islands) minimize the same cost
// under every model's laws. The Hunt–Crossley laws need a finite k: the near-rigid k = ∞ of the
// random problems becomes 1e8 N/m, and each contact gets a Hunt–Crossley d in [0, 20] s/m.
TEST(ContactModels, DenseAndBlockSparseAgreeForEveryModel) {
  for (const ContactModelType model : kAllModels) {
    std::mt19937 rng(11);
    ContactModelParameters contact;
    contact.model = model;
    SapParameters dense_prm = Tight(), block_prm = Tight(), island_prm = Tight();
    dense_prm.linear_solver = SapParameters::LinearSolver::kDense;
    block_prm.linear_solver = SapParameters::LinearSolver::kBlockSparse;
    block_prm.islands = false;
    island_prm.linear_solver = SapParameters::LinearSolver::kBlockSparse;
    island_prm.islands = true;
    SapSolver dense(dense_prm, contact), block(block_prm, contact), island(island_prm, contact);
    int active = 0;
    for (int trial = 0; trial < 150; ++trial) {
      const int trees = std::uniform_int_distribution<int>(2, 6)(rng);
      const int cons = std::uniform_int_distribution<int>(1, 12)(rng);
      ContactProblem p = MakeRandomProblem(rng, trees, cons);
      for (ConstraintData& c : p.constraints) {
        if (!std::isfinite(c.stiffness)) c.stiffness = 1e8;
        c.hunt_crossley_dissipation = Uniform(rng, 0, 1) < 0.3 ? 0.0 : Uniform(rng, 0.1, 20);
      }
      SolverResult rd, rb, ri;
      ASSERT_EQ(dense.Solve(p, p.v0, &rd), SolverStatus::kConverged)
          << ContactModelName(model) << " trial " << trial << ": " << rd.stats.message;
      ASSERT_EQ(block.Solve(p, p.v0, &rb), SolverStatus::kConverged)
          << ContactModelName(model) << " trial " << trial << ": " << rb.stats.message;
      ASSERT_EQ(island.Solve(p, p.v0, &ri), SolverStatus::kConverged)
          << ContactModelName(model) << " trial " << trial << ": " << ri.stats.message;
      EXPECT_EQ(rd.laws.model(), model);
      // Both stop at e_m < 1e-10 (Tight); the minimizer is unique (strongly convex cost), so the
      // iterates agree to the stopping tolerance times cond(H) (≲ 1e3 here) plus the round-off
      // of the factorizations: 1e-7 relative.
      EXPECT_LT((rd.v - rb.v).norm(), 1e-7 * (1 + rd.v.norm()))
          << ContactModelName(model) << " trial " << trial;
      EXPECT_LT((rd.v - ri.v).norm(), 1e-7 * (1 + rd.v.norm()))
          << ContactModelName(model) << " trial " << trial;
      for (Regime r : rd.regime) active += r != Regime::kNoContact;
    }
    // The random set has constraints in contact at the solution (else it would prove little).
    EXPECT_GT(active, 100) << ContactModelName(model);
  }
}

// A 1 kg box at rest on four corners, each pressed x0 = m g/(4k) into the ground: under every
// Hunt–Crossley model n(0) = δt k x0 per corner, so v = 0 is the solution and the normal impulses
// carry the weight, Σγ_n = m g δt. Solved from the free-fall guess v* (Newton has to work).
TEST(ContactModels, HuntCrossleyBoxRestingOnGroundCarriesItsWeight) {
  const double m = 1.0, dt = 1e-2, k = 1e5;
  for (const ContactModelType model : {ContactModelType::kLagged,
                                       ContactModelType::kLaggedRegularized,
                                       ContactModelType::kSimilar}) {
    for (const double d : {0.0, 10.0}) {
      ContactProblem p = MakeBox(m, 0.05, dt, k, 0.0, 0.5);
      for (ConstraintData& c : p.constraints) {
        c.phi0 = -m * kGravity / (4 * k);
        c.hunt_crossley_dissipation = d;
      }
      ContactModelParameters contact;
      contact.model = model;
      SapParameters prm;  // ε_r = 1e-6
      SapSolver solver(prm, contact);
      SolverResult r;
      ASSERT_EQ(solver.Solve(p, p.v_star, &r), SolverStatus::kConverged) << r.stats.message;
      EXPECT_GT(r.stats.iterations, 0) << "the guess v* is not the solution";
      double sum_n = 0;
      for (const ConstraintData& c : p.constraints) sum_n += r.gamma(c.first_row + 2);
      // Stopping rule ‖D∇ℓ‖ < ε_r max(‖Dp‖, ‖DJᵀγ‖): the momentum balance m(v − v*) = Σγ holds
      // to ε_r Σγ, and v = 0 to the same relative order: 10 ε_r m g δt.
      const double weight = m * kGravity * dt;
      EXPECT_NEAR(sum_n, weight, 10 * prm.rel_tolerance * weight)
          << ContactModelName(model) << " d " << d;
      EXPECT_LT(r.v.norm(), 10 * prm.rel_tolerance * kGravity * dt) << ContactModelName(model);
      for (Regime g : r.regime) EXPECT_EQ(g, Regime::kStiction) << ContactModelName(model);
      double n0 = 0;
      ASSERT_TRUE(r.laws.Describe(0).Find("n0", &n0));
      EXPECT_NEAR(n0, weight / 4, 1e-12 * weight) << "γ_n0 = δt k x0 at v0 = 0";
    }
  }
}

}  // namespace
}  // namespace contactlab
