// Tests of the SubADMM solver (seed 001, §VI, Alg. 2): the strict operator against the compliant
// Signorini–Coulomb conditions, the v-step against the augmented Lagrangian it minimizes (finite
// differences), the per-tree iteration against a dense reference iteration, closed-form
// one-contact cases, agreement with SAP where both solve the same problem, the NCP residual on a
// resting box and on the 50:1 stack, the factorization count per β, adaptive vs fixed β, warm
// start, determinism and the conformance items (exact guess, empty problem, non-finite input,
// unsupported model, iteration cap, breakdown).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/contact/contact_problem.h"
#include "engine/inspect/metrics.h"
#include "engine/solvers/common/problem_checks.h"
#include "engine/solvers/sap/sap_solver.h"
#include "engine/solvers/subadmm/subadmm_parameter_table.h"
#include "engine/solvers/subadmm/subadmm_solver.h"
#include "tests/problem_builders.h"
#include "tests/random_problem.h"

namespace contactlab {
namespace {

using test_problems::AddFreeBoxTree;
using test_problems::LogUniform;
using test_problems::PointJacobian;
using test_problems::PointMassContact;
using test_problems::Uniform;

constexpr double kGravity = 9.81;
constexpr double kInf = std::numeric_limits<double>::infinity();

ContactProblem RandomProblem(std::mt19937& rng, int trees, int constraints) {
  return test_problems::RandomProblem(rng, trees, constraints, {});
}

void AddContact(ContactProblem* p, int tree0, const MatX& J0, int tree1, const MatX& J1, double k,
                double tau_d, double mu, double phi0) {
  ConstraintData c;
  c.first_row = p->num_rows;
  c.num_blocks = tree1 < 0 ? 1 : 2;
  c.blocks[0].tree = tree0;
  c.blocks[0].J = J0;
  if (tree1 >= 0) {
    c.blocks[1].tree = tree1;
    c.blocks[1].J = J1;
  }
  c.stiffness = k;
  c.dissipation_time = tau_d;
  c.friction = mu;
  c.phi0 = phi0;
  p->constraints.push_back(c);
  p->num_rows += 3;
}

// A box (mass m, half size a) on the ground z = 0, touching it at its four bottom corners
// (φ0 = 0), with free-motion velocity v*: gravity over δt plus `push` along x.
ContactProblem MakeBoxOnPlane(double m, double a, double dt, double k, double tau_d, double mu,
                              double push = 0) {
  ContactProblem p;
  p.time_step = dt;
  const int t = AddFreeBoxTree(&p, m, a, Vec3(push, 0, -kGravity * dt));
  for (int c = 0; c < 4; ++c) {
    const Vec3 r((c & 1) ? a : -a, (c & 2) ? a : -a, -a);
    AddContact(&p, t, PointJacobian(r), -1, MatX(), k, tau_d, mu, 0.0);
  }
  p.ComputeDelassusEstimates();
  return p;
}

// Two boxes of half size a stacked on the ground: the lower (mass m_low) touches the ground at
// its four bottom corners, the upper (mass m_up) touches the lower's top face at its own four
// bottom corners. Contact normals +z; the box-box contacts act on both trees (|Z_i| = 2) with
// v_c = v_up(p) − v_low(p).
ContactProblem MakeStack(double m_low, double m_up, double a, double dt, double k, double tau_d,
                         double mu) {
  ContactProblem p;
  p.time_step = dt;
  const int low = AddFreeBoxTree(&p, m_low, a, Vec3(0, 0, -kGravity * dt));
  const int up = AddFreeBoxTree(&p, m_up, a, Vec3(0, 0, -kGravity * dt));
  for (int c = 0; c < 4; ++c) {
    const Vec3 r((c & 1) ? a : -a, (c & 2) ? a : -a, -a);
    AddContact(&p, low, PointJacobian(r), -1, MatX(), k, tau_d, mu, 0.0);
  }
  for (int c = 0; c < 4; ++c) {
    const Vec3 r_up((c & 1) ? a : -a, (c & 2) ? a : -a, -a);  // corner from the upper centre
    const Vec3 r_low((c & 1) ? a : -a, (c & 2) ? a : -a, a);  // same point from the lower centre
    AddContact(&p, up, PointJacobian(r_up), low, -PointJacobian(r_low), k, tau_d, mu, 0.0);
  }
  p.ComputeDelassusEstimates();
  return p;
}

SubAdmmParameters Params(double tolerance, int max_iterations) {
  SubAdmmParameters prm;
  prm.tolerance = tolerance;
  prm.max_iterations = max_iterations;
  return prm;
}

// ---------------------------------------------------------------------------------------------
// The strict operator (eq. 38 with the metric Q = |Z| I + βR).

// The natural-map residual of SCC at (ṽ, λ) with unit weight (the NCP residual's T, written
// independently of the operator under test): λ − T(λ − ṽ), T_n(x) = max(x_n, 0), T_t(x) = x_t
// clamped to the disk of radius μ T_n(x). Zero exactly when (ṽ, λ) satisfy SCC.
Vec3 NaturalMap(const Vec3& vt, const Vec3& lambda, double mu) {
  const Vec3 x = lambda - vt;
  Vec3 T;
  T(2) = std::max(x(2), 0.0);
  Eigen::Vector2d xt = x.head<2>();
  const double r = xt.norm(), radius = mu * T(2);
  if (r > radius) xt *= r > 0 ? radius / r : 0.0;
  T.head<2>() = xt;
  return lambda - T;
}

TEST(SubAdmmStrictOperator, SatisfiesCompliantSignoriniCoulomb) {
  std::mt19937 rng(1);
  int counts[3] = {0, 0, 0};
  for (int trial = 0; trial < 3000; ++trial) {
    const double beta = LogUniform(rng, 1e-2, 1e3);
    const int Z = 1 + trial % 2;
    // R from 0 (rigid / exact Coulomb) to large compliance.
    const double Rt = trial % 3 == 0 ? 0.0 : LogUniform(rng, 1e-6, 10);
    const double Rn = trial % 4 == 0 ? 0.0 : LogUniform(rng, 1e-6, 10);
    const double Qt = Z + beta * Rt, Qn = Z + beta * Rn;
    const double mu = trial % 7 == 0 ? 0.0 : Uniform(rng, 0.05, 2.0);
    const Vec3 ls(Uniform(rng, -2, 2), Uniform(rng, -2, 2), Uniform(rng, -1, 2));
    Vec3 lambda;
    const Regime regime = SubAdmmStrictCone(ls, Qt, Qn, mu, &lambda);
    ++counts[static_cast<int>(regime)];
    // ṽ = (Q λ − λ*)/β: the constraint's relative velocity the operator pairs with λ.
    const Vec3 vt = (Vec3(Qt, Qt, Qn).cwiseProduct(lambda) - ls) / beta;
    // Inputs are O(1) in λ and up to 1e2 in ṽ (β >= 1e-2): round-off of a few products.
    const double tol = 1e-13 * (1 + ls.norm()) * (1 + Qt + Qn) / beta;
    // Normal complementarity 0 <= λ_n ⊥ ṽ_n >= 0.
    EXPECT_GE(lambda(2), 0.0);
    EXPECT_GE(vt(2), -tol);
    EXPECT_LE(std::abs(lambda(2) * vt(2)), tol * (1 + lambda(2)));
    // Cone: ‖λ_t‖ <= μ λ_n (a few ulps over on the rim).
    const double lt = lambda.head<2>().norm();
    EXPECT_LE(lt, mu * lambda(2) * (1 + 1e-14) + 1e-300);
    if (regime == Regime::kStiction) {
      EXPECT_LE(vt.head<2>().norm(), tol) << "stiction: ṽ_t = 0";
    } else if (regime == Regime::kSliding) {
      // Sliding: on the rim, ṽ_t = −δ λ_t with δ >= 0 (anti-parallel, maximum dissipation).
      EXPECT_NEAR(lt, mu * lambda(2), 1e-14 * (1 + mu * lambda(2)));
      if (lt > 0) {
        const Eigen::Vector2d a = vt.head<2>(), b = lambda.head<2>();
        EXPECT_LE(a.dot(b), tol * lt) << "ṽ_t opposes λ_t";
        EXPECT_LE(std::abs(a(0) * b(1) - a(1) * b(0)), tol * lt) << "ṽ_t parallel to λ_t";
      }
    } else {
      EXPECT_EQ(lambda.norm(), 0.0);
    }
    // The same statement as one equation: the natural map vanishes (NCP residual's T).
    EXPECT_LE(NaturalMap(vt, lambda, mu).norm(), tol * (1 + beta)) << "trial " << trial;
  }
  // Every branch exercised.
  EXPECT_GT(counts[0], 300);
  EXPECT_GT(counts[1], 300);
  EXPECT_GT(counts[2], 300);
}

TEST(SubAdmmStrictOperator, SolutionIsUniqueAmongSampledCandidates) {
  // Prop. 2: λ is the only impulse with (ṽ(λ), λ) in SCC. Brute force: every other candidate λ'
  // from a grid over the cone (and its boundary) has a natural-map residual bounded away from 0.
  std::mt19937 rng(2);
  for (int trial = 0; trial < 40; ++trial) {
    const double beta = LogUniform(rng, 0.1, 10), mu = Uniform(rng, 0.2, 1.5);
    const double Qt = 1 + beta * LogUniform(rng, 1e-3, 1), Qn = 1 + beta * LogUniform(rng, 1e-3, 1);
    const Vec3 ls(Uniform(rng, -2, 2), Uniform(rng, -2, 2), Uniform(rng, -1, 2));
    Vec3 lambda;
    SubAdmmStrictCone(ls, Qt, Qn, mu, &lambda);
    auto residual = [&](const Vec3& l) {
      return NaturalMap((Vec3(Qt, Qt, Qn).cwiseProduct(l) - ls) / beta, l, mu).norm();
    };
    double best = kInf;
    Vec3 best_l;
    for (int in = 0; in <= 40; ++in) {
      const double ln = 2.0 * in / 40;
      for (int ir = 0; ir <= 10; ++ir) {
        for (int ia = 0; ia < 24; ++ia) {
          const double r = mu * ln * ir / 10, a = 2 * kPi * ia / 24;
          const Vec3 l(r * std::cos(a), r * std::sin(a), ln);
          const double res = residual(l);
          if (res < best) best = res, best_l = l;
        }
      }
    }
    // The grid minimizer lies within a grid cell (spacing 0.05 in λ_n, μλ_n/10 radially,
    // 15° in angle) of the operator's λ: any distinct zero of the residual would show up as a
    // second minimum far away.
    EXPECT_LT((best_l - lambda).norm(), 0.05 + 0.3 * mu * std::max(lambda(2), 0.05) + 0.06)
        << "trial " << trial;
    EXPECT_LE(residual(lambda), 1e-12 * (1 + ls.norm()) / beta);
  }
}

TEST(SubAdmmStrictOperator, DegenerateMetricsAndUnilateralRows) {
  Vec3 l;
  // μ = 0: frictionless, λ_t = 0, sliding unless λ*_t = 0.
  EXPECT_EQ(SubAdmmStrictCone(Vec3(0.3, -0.2, 0.5), 1, 2, 0.0, &l), Regime::kSliding);
  EXPECT_EQ(l, Vec3(0, 0, 0.25));
  EXPECT_EQ(SubAdmmStrictCone(Vec3(0, 0, 0.5), 1, 2, 0.0, &l), Regime::kStiction);
  // Q_t = 0 (|Z| = 0 with σ = 0): the limit, λ_t on the rim along λ*_t.
  EXPECT_EQ(SubAdmmStrictCone(Vec3(3, 4, 1), 0, 1, 0.5, &l), Regime::kSliding);
  EXPECT_NEAR(l(0), 0.3, 1e-15);
  EXPECT_NEAR(l(1), 0.4, 1e-15);
  EXPECT_EQ(SubAdmmStrictCone(Vec3(0, 0, 1), 0, 1, 0.5, &l), Regime::kStiction);
  EXPECT_EQ(l, Vec3(0, 0, 1));
  // Q_n = 0 (a rigid constraint on no dofs): no finite impulse, λ = 0.
  EXPECT_EQ(SubAdmmStrictCone(Vec3(1, 0, 1), 1, 0, 0.5, &l), Regime::kNoContact);
  EXPECT_EQ(l.norm(), 0.0);
  double u;
  EXPECT_EQ(SubAdmmStrictUnilateral(0.6, 2.0, &u), Regime::kStiction);
  EXPECT_EQ(u, 0.3);
  EXPECT_EQ(SubAdmmStrictUnilateral(-0.6, 2.0, &u), Regime::kNoContact);
  EXPECT_EQ(u, 0.0);
  EXPECT_EQ(SubAdmmStrictUnilateral(0.6, 0.0, &u), Regime::kNoContact);
}

// ---------------------------------------------------------------------------------------------
// The v-step (eq. 34).

TEST(SubAdmmVStep, MinimizesTheAugmentedLagrangian) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const ContactProblem p = RandomProblem(rng, 3, 5);
    const double beta = LogUniform(rng, 0.1, 10);
    VecX z(2 * p.num_rows), lambda(p.num_rows);
    for (int k = 0; k < z.size(); ++k) z(k) = Uniform(rng, -1, 1);
    for (int k = 0; k < lambda.size(); ++k) lambda(k) = Uniform(rng, -1, 1);
    VecX v;
    ASSERT_TRUE(SubAdmmDenseVStep(p, beta, z, lambda, &v));
    // L is quadratic: central differences of step h are exact up to round-off ε L / h.
    const double h = 1e-4;
    auto L = [&](const VecX& x) { return SubAdmmAugmentedLagrangian(p, beta, z, lambda, x); };
    VecX grad(p.nv);
    double scale = 0;
    for (int j = 0; j < p.nv; ++j) {
      VecX a = v, b = v;
      a(j) += h;
      b(j) -= h;
      grad(j) = (L(a) - L(b)) / (2 * h);
      scale = std::max(scale, std::abs(L(a)));
    }
    // Stationary: ∇L(v) = 0 (round-off 1e-16 |L| / h).
    EXPECT_LT(grad.norm(), 1e-10 * (1 + scale)) << "trial " << trial;
    // Hessian by second differences = A + β Σ Ĵᵀ Ĵ.
    MatX K = p.DenseA();
    for (const ConstraintData& c : p.constraints) {
      for (int k = 0; k < c.num_blocks; ++k) {
        MatX J = MatX::Zero(c.num_rows, p.nv);
        J.middleCols(p.tree_v_start[c.blocks[k].tree], p.tree_nv[c.blocks[k].tree]) = c.blocks[k].J;
        K += beta * J.transpose() * J;
      }
    }
    const double hh = 1e-2;
    for (int i = 0; i < p.nv; ++i) {
      for (int j = 0; j < p.nv; ++j) {
        VecX pp = v, pm = v, mp = v, mm = v;
        pp(i) += hh, pp(j) += hh;
        pm(i) += hh, pm(j) -= hh;
        mp(i) -= hh, mp(j) += hh;
        mm(i) -= hh, mm(j) -= hh;
        const double fd = (L(pp) - L(pm) - L(mp) + L(mm)) / (4 * hh * hh);
        // Exact for a quadratic up to round-off 1e-16 |L| / h².
        EXPECT_NEAR(fd, K(i, j), 1e-9 * (1 + scale)) << i << "," << j;
      }
    }
  }
}

// Tree masses m_t as the solver defines them (the mean over constraints on t of
// 1/λ_min(J_it A_t⁻¹ J_itᵀ)), recomputed with dense inverses.
std::vector<double> TreeMasses(const ContactProblem& p) {
  std::vector<double> sum(p.num_trees(), 0.0);
  std::vector<int> count(p.num_trees(), 0);
  for (const ConstraintData& c : p.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      const MatX W = b.J * p.A[b.tree].inverse() * b.J.transpose();
      const VecX e = Eigen::SelfAdjointEigenSolver<MatX>(W).eigenvalues();
      for (int j = 0; j < e.size(); ++j) {
        if (e(j) > 1e-12 * e(e.size() - 1)) {
          sum[b.tree] += 1 / e(j);
          ++count[b.tree];
          break;
        }
      }
    }
  }
  for (int t = 0; t < p.num_trees(); ++t) sum[t] = count[t] ? sum[t] / count[t] : 1.0;
  return sum;
}

// SubADMM written with dense matrices (SubAdmmDenseVStep) and the operator, the reference the
// per-tree solver is compared with (fixed β, cold start).
struct ReferenceAdmm {
  const ContactProblem& p;
  VecX R, v_hat, v, lambda, z;
  std::vector<double> mass;
  double beta;
  ReferenceAdmm(const ContactProblem& problem, const SubAdmmParameters& prm, double beta0)
      : p(problem), mass(TreeMasses(problem)), beta(beta0) {
    PrepareSubAdmmLaws(p, prm).LinearRows(&R, &v_hat);
    lambda = VecX::Zero(p.num_rows);
    z = VecX::Zero(2 * p.num_rows);
    v = p.v0;
    // Trees without constraints start at v*.
    std::vector<int> has(p.num_trees(), 0);
    for (const ConstraintData& c : p.constraints)
      for (int k = 0; k < c.num_blocks; ++k) has[c.blocks[k].tree] = 1;
    for (int t = 0; t < p.num_trees(); ++t) {
      if (!has[t])
        v.segment(p.tree_v_start[t], p.tree_nv[t]) =
            p.v_star.segment(p.tree_v_start[t], p.tree_nv[t]);
    }
  }
  // The z/λ-step from λ (eqs. 35-39); returns θ_p.
  double ZStep() {
    const VecX lambda_prev = lambda;
    const VecX vc = p.DenseJ() * v;  // J v without b
    double theta_p = 0;
    for (const ConstraintData& c : p.constraints) {
      const int m = c.num_rows, r0 = c.first_row, nb = c.num_blocks;
      VecX ls(m), Q(m);
      for (int r = 0; r < m; ++r) {
        ls(r) = -beta * (vc(r0 + r) + c.bias(r) - v_hat(r0 + r)) + nb * lambda_prev(r0 + r);
        Q(r) = nb + beta * R(r0 + r);
      }
      if (m == 3) {
        Vec3 l;
        SubAdmmStrictCone(Vec3(ls(0), ls(1), ls(2)), Q(0), Q(2), c.friction, &l);
        lambda.segment<3>(r0) = l;
      } else {
        SubAdmmStrictUnilateral(ls(0), Q(0), &lambda(r0));
      }
      for (int k = 0; k < nb; ++k) {
        const TreeJacobianBlock& b = c.blocks[k];
        const VecX jv = b.J * v.segment(p.tree_v_start[b.tree], p.tree_nv[b.tree]);
        const VecX y = beta * jv - lambda_prev.segment(r0, m);
        z.segment(2 * r0 + k * m, m) = (y + lambda.segment(r0, m)) / beta;
        theta_p = std::max(theta_p, (jv - z.segment(2 * r0 + k * m, m)).norm());
      }
    }
    return theta_p;
  }
  // θ_d = max_t ‖diag(M_t)^(-1/2) r_t‖ / √m_t, r = A(v − v*) − Jᵀλ.
  double DualResidual() const {
    const VecX r = p.DenseA() * (v - p.v_star) - p.DenseJ().transpose() * lambda;
    double theta_d = 0;
    for (int t = 0; t < p.num_trees(); ++t) {
      const int s = p.tree_v_start[t], n = p.tree_nv[t];
      const VecX d = p.M[t].diagonal().cwiseSqrt().cwiseInverse();
      theta_d = std::max(theta_d, r.segment(s, n).cwiseProduct(d).norm() / std::sqrt(mass[t]));
    }
    return theta_d;
  }
  void VStep() { ASSERT_TRUE(SubAdmmDenseVStep(p, beta, z, lambda, &v)); }
};

TEST(SubAdmmSolver, PerTreeIterationMatchesTheDenseReference) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 20; ++trial) {
    const ContactProblem p = RandomProblem(rng, 4, 8);
    SubAdmmParameters prm = Params(1e-300, 40);
    prm.adaptive_beta = false;
    prm.warm_start = false;
    SubAdmmSolver solver(prm);
    SolverResult r;
    solver.Solve(p, p.v0, &r);
    const IterationLog& log = r.stats.iteration_log;
    ASSERT_EQ(log.num_rows(), 41);
    ReferenceAdmm ref(p, prm, log(0, kSubAdmmBeta));
    for (int row = 0; row <= 40; ++row) {
      if (row > 0) ref.VStep();
      const double tp = ref.ZStep(), td = ref.DualResidual();
      // Per-tree LLT vs one dense LLT of the block-diagonal matrix: the same arithmetic up to
      // summation order; differences of 1e-15 relative stay below 1e-9 over 40 iterations.
      EXPECT_NEAR(log(row, kSubAdmmPrimalResidual), tp, 1e-9 * (1 + tp)) << "row " << row;
      EXPECT_NEAR(log(row, kSubAdmmDualResidual), td, 1e-9 * (1 + td)) << "row " << row;
      EXPECT_EQ(log(row, kSubAdmmBeta), log(0, kSubAdmmBeta));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Closed forms and agreement with SAP.

TEST(SubAdmmClosedForm, RestingParticleCarriesItsWeightThroughTheSpring) {
  // m (v_n − v*_n) = γ_n, γ_n = −v_n/R_n (φ0 = 0, v̂ = 0): γ_n = m g δt / (1 + m R_n).
  const double m = 2, dt = 0.01, k = 1e4, tau_d = 0.02;
  const ContactProblem p = PointMassContact(m, dt, Vec3(0, 0, -kGravity * dt), k, tau_d, 0.5, 0);
  SubAdmmSolver solver(Params(1e-12, 10000));
  SolverResult r;
  ASSERT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged) << r.stats.message;
  const double Rn = 1 / (dt * k * (dt + tau_d));
  const double gn = m * kGravity * dt / (1 + m * Rn);
  // θ_p + θ_d < 1e-12 m/s bounds the velocity error; γ errors are m times that.
  EXPECT_NEAR(r.gamma(2), gn, 1e-10);
  EXPECT_NEAR(r.v(2), -kGravity * dt + gn / m, 1e-11);
  EXPECT_NEAR(r.gamma.head<2>().norm(), 0, 1e-11);
  EXPECT_EQ(r.regime[0], Regime::kStiction);
  std::printf("resting particle: %d iterations\n", r.stats.iterations);
}

TEST(SubAdmmClosedForm, PushedParticleSticksBelowAndSlidesAboveTheFrictionLimit) {
  // Exact Coulomb (σ = 0): with γ_n fixed by the normal law, a push m‖v*_t‖ <= μγ_n is held
  // (v_t = 0, γ_t = −m v*_t); a larger one slides with γ_t = −μγ_n v*_t/‖v*_t‖.
  const double m = 1, dt = 0.01, k = 1e5, mu = 0.4;
  const double Rn = 1 / (dt * k * dt);
  const double gn = m * kGravity * dt / (1 + m * Rn);
  for (double push : {0.3, 0.9, 1.1, 3.0}) {
    const Vec3 dir(0.6, 0.8, 0);
    const double vt = push * mu * gn / m;  // push in units of the friction limit
    const ContactProblem p =
        PointMassContact(m, dt, Vec3(vt * dir(0), vt * dir(1), -kGravity * dt), k, 0, mu, 0);
    SubAdmmSolver solver(Params(1e-12, 20000));
    SolverResult r;
    ASSERT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged) << r.stats.message;
    EXPECT_NEAR(r.gamma(2), gn, 1e-10);
    if (push < 1) {
      EXPECT_EQ(r.regime[0], Regime::kStiction) << push;
      EXPECT_NEAR(r.v.head<2>().norm(), 0, 1e-11) << push;
      EXPECT_NEAR((r.gamma.head<2>() + m * vt * dir.head<2>()).norm(), 0, 1e-10) << push;
    } else {
      EXPECT_EQ(r.regime[0], Regime::kSliding) << push;
      EXPECT_NEAR((r.gamma.head<2>() + mu * gn * dir.head<2>()).norm(), 0, 1e-10) << push;
      EXPECT_NEAR((r.v.head<2>() - (vt - mu * gn / m) * dir.head<2>()).norm(), 0, 1e-11) << push;
    }
    // De Saxcé complementarity of SCC (zero for sticking and for sliding, where SAP's ṽᵀλ = 0
    // would fail by δ‖λ_t‖²): round-off plus the 1e-12 m/s tolerance times γ over the energy.
    EXPECT_LT(r.stats.complementarity_error, 1e-8) << push;
    std::printf("pushed particle (push %.1f x limit): %d iterations\n", push, r.stats.iterations);
  }
}

TEST(SubAdmmClosedForm, JointLimitRow) {
  // One dof of inertia I against a limit: I(v − v*) = γ, γ = max(0, (v̂ − v)/R).
  ContactProblem p;
  p.time_step = 0.01;
  p.nv = 1;
  p.tree_v_start = {0};
  p.tree_nv = {1};
  p.A = {MatX::Constant(1, 1, 0.5)};
  p.M = p.A;
  p.v_star = VecX::Constant(1, -2.0);
  p.v0 = VecX::Zero(1);
  ConstraintData c;
  c.kind = ConstraintKind::kUnilateral;
  c.num_rows = 1;
  c.num_blocks = 1;
  c.blocks[0].tree = 0;
  c.blocks[0].J = MatX::Constant(1, 1, 1.0);
  c.stiffness = 1e3;
  c.dissipation_time = 0.01;
  c.phi0 = -0.001;
  p.constraints.push_back(c);
  p.num_rows = 1;
  p.ComputeDelassusEstimates();
  SubAdmmSolver solver(Params(1e-13, 10000));
  SolverResult r;
  ASSERT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged) << r.stats.message;
  const double tau = 0.01 + 0.01, R = 1 / (0.01 * 1e3 * tau), v_hat = 0.001 / tau;
  const double gamma = (v_hat - (-2.0)) / (R + 1 / 0.5);
  EXPECT_NEAR(r.gamma(0), gamma, 1e-11);
  EXPECT_NEAR(r.v(0), -2.0 + gamma / 0.5, 1e-11);
  EXPECT_EQ(r.regime[0], Regime::kStiction);
}

// max_i ‖λ_i − T(λ_i − ṽ_i)‖ (NaturalMap) of (v, γ) under SubADMM's constants: 0 exactly when
// every constraint satisfies compliant SCC at v.
double SccResidual(const ContactProblem& p, const SubAdmmParameters& prm, const VecX& v,
                   const VecX& gamma) {
  VecX R, v_hat, vc;
  PrepareSubAdmmLaws(p, prm).LinearRows(&R, &v_hat);
  p.ConstraintVelocities(v, &vc);
  const VecX vt = vc - v_hat + R.cwiseProduct(gamma);
  double worst = 0;
  for (const ConstraintData& c : p.constraints) {
    const int r = c.first_row;
    if (c.num_rows == 3) {
      worst = std::max(worst, NaturalMap(vt.segment<3>(r), gamma.segment<3>(r), c.friction).norm());
    } else {
      worst = std::max(worst, std::abs(gamma(r) - std::max(gamma(r) - vt(r), 0.0)));
    }
  }
  return worst;
}

TEST(SubAdmmSolver, AgreesWithSapWhereNoContactSlides) {
  // With the same R (σ = 1e-3 for both, SubADMM's near-rigid clamp = SAP's β) and v̂ (τ_d = 0 on
  // rigid contacts), SAP's law and compliant SCC coincide in stiction (ṽ = 0 for both), and SAP's
  // no-contact region (ṽ in the dual cone) lies inside SCC's (ṽ_n >= 0). So a SAP solution
  // without sliding constraints solves SubADMM's problem too. SCC with friction may have other
  // solutions (SAP's convex problem has one): where SubADMM finds another one, it must satisfy
  // SCC and momentum balance as well, and that must be the exception.
  std::mt19937 rng(5);
  int compared = 0, agreed = 0;
  double worst_v = 0, worst_gamma = 0;
  int total_iterations = 0;
  for (int trial = 0; trial < 2000 && compared < 40; ++trial) {
    ContactProblem p = RandomProblem(rng, 3, 3);
    SapParameters sp;
    sp.rel_tolerance = 1e-12;
    for (ConstraintData& c : p.constraints) {
      c.friction = Uniform(rng, 1.0, 4.0);  // mostly stiction
      if (!std::isfinite(c.stiffness)) c.dissipation_time = 0;
      // SubADMM has one clamp β for contacts and limits; SAP's limit_beta differs from its β, so
      // limits get SAP's value through the per-constraint β (which both solvers honour).
      if (c.kind == ConstraintKind::kUnilateral) c.beta = sp.limit_beta;
    }
    SapSolver sap(sp);
    SolverResult rs;
    if (sap.Solve(p, p.v0, &rs) != SolverStatus::kConverged) continue;
    if (std::count(rs.regime.begin(), rs.regime.end(), Regime::kSliding) > 0) continue;
    SubAdmmParameters prm = Params(1e-11, 100000);
    prm.sigma = sp.sigma;
    prm.near_rigid_beta = sp.beta;
    // SAP's solution solves SubADMM's problem: the SCC natural map vanishes at SAP's (v, γ) up to
    // SAP's tolerance (relative 1e-12 on O(1) momenta).
    EXPECT_LT(SccResidual(p, prm, rs.v, rs.gamma), 1e-8) << "trial " << trial;
    SubAdmmSolver admm(prm);
    SolverResult ra;
    ASSERT_EQ(admm.Solve(p, p.v0, &ra), SolverStatus::kConverged) << ra.stats.message;
    ++compared;
    total_iterations += ra.stats.iterations;
    // θ_p + θ_d < 1e-11 m/s: velocities and momentum balance to ~1e-11, amplified by the
    // conditioning of the constraint block (R ~ 1e-3 w against A ~ 1): 1e-7.
    const double dv = (ra.v - rs.v).norm() / (1 + rs.v.norm());
    const double dg = (ra.gamma - rs.gamma).norm() / (1 + rs.gamma.norm());
    if (dv < 1e-7 && dg < 1e-7) {
      ++agreed;
      worst_v = std::max(worst_v, dv);
      worst_gamma = std::max(worst_gamma, dg);
    } else {
      // Another solution of the same conditions.
      EXPECT_LT(SccResidual(p, prm, ra.v, ra.gamma), 1e-8) << "trial " << trial;
      EXPECT_LT(MomentumError(p, ra.v, ra.gamma), 1e-8) << "trial " << trial;
    }
  }
  EXPECT_GE(compared, 30);
  EXPECT_GE(agreed, compared * 9 / 10);
  std::printf(
      "SAP agreement: %d of %d stiction problems (others: another SCC solution), worst rel. "
      "dv %.1e, dgamma %.1e, mean %d iterations\n",
      agreed, compared, worst_v, worst_gamma, compared ? total_iterations / compared : 0);
}

// ---------------------------------------------------------------------------------------------
// NCP residual on the paper-style problems.

// Solves `p` fresh with caps `caps` and returns the NCP residual of each result (compliant law).
std::vector<double> NcpByCap(const ContactProblem& p, SubAdmmParameters prm,
                             const std::vector<int>& caps, std::vector<int>* iterations) {
  std::vector<double> out;
  for (int cap : caps) {
    prm.max_iterations = cap;
    prm.warm_start = false;
    SubAdmmSolver solver(prm);
    SolverResult r;
    solver.Solve(p, p.v0, &r);
    out.push_back(ComputeNcpResidual(p, r).residual);
    if (iterations) iterations->push_back(r.stats.iterations);
  }
  return out;
}

TEST(SubAdmmSolver, BoxOnPlaneNcpResidualFallsLinearly) {
  // Box of 1 kg, 10 cm, at the paper's δt = 1/240 s, μ = 0.5, compliant (k = 1e5 N/m, τ_d = 0) or
  // rigid contacts; resting, and pushed sideways at 1 m/s (all four corners sliding).
  const std::vector<int> caps = {10, 20, 40, 80, 160, 320, 640};
  for (double k : {1e5, kInf}) {
    for (double push : {0.0, 1.0}) {
      const ContactProblem p = MakeBoxOnPlane(1.0, 0.05, 1.0 / 240, k, 0.0, 0.5, push);
      std::vector<int> iterations;
      const std::vector<double> ncp = NcpByCap(p, Params(1e-300, 1), caps, &iterations);
      std::printf("box on plane (k %.0e, push %.0f m/s) NCP residual by iteration cap:", k, push);
      for (size_t c = 0; c < caps.size(); ++c) std::printf(" %d:%.1e", caps[c], ncp[c]);
      std::printf("\n");
      // The residual of seed 001 (mixed units, per contact) is below 1e-6 within a few hundred
      // iterations, and falls with every doubling of the cap until it reaches round-off
      // (1e-14: the impulses are O(1e-2) N s, the velocities O(1e-1) m/s).
      EXPECT_LT(ncp[5], 1e-6) << "320 iterations";
      for (size_t c = 1; c < caps.size(); ++c) {
        if (ncp[c - 1] < 1e-14) break;
        EXPECT_LT(ncp[c], ncp[c - 1]) << "cap " << caps[c];
      }
    }
  }
}

// Normal impulses of the stack (MakeStack) at rest in closed form: by symmetry the corners share
// the load equally and nothing turns or slides, so the vertical velocities x_l, x_u of the boxes
// solve m_u (x_u + g δt) = c (x_l − x_u), m_l (x_l + g δt) = −c x_l − c (x_l − x_u) with
// c = 4/R_n (four springs of compliance R_n = 1/(δt k δt) at φ0 = 0); rigid (c → ∞): x = 0.
// Returns the total impulse between the boxes and on the ground [N s].
std::pair<double, double> StackImpulses(double m_l, double m_u, double dt, double k) {
  const double g = kGravity * dt;
  if (!std::isfinite(k)) return {m_u * g, (m_u + m_l) * g};
  const double c = 4 * dt * k * dt;
  Eigen::Matrix2d K;
  K << m_u + c, -c, -c, m_l + 2 * c;
  const Eigen::Vector2d x = K.inverse() * Eigen::Vector2d(-m_u * g, -m_l * g);
  return {c * (x(1) - x(0)), -c * x(1)};
}

TEST(SubAdmmSolver, MassRatioStackConvergesButSlower) {
  // The dish-piling ratio (seed 001, Fig. 9): a 5 kg box on a 0.1 kg box on the ground, against
  // two 0.1 kg boxes. 8 contacts, 4 of them between the two trees (|Z_i| = 2).
  const double dt = 1.0 / 240, mu = 0.5, a = 0.05;
  for (double k : {1e5, kInf}) {
    int iters[2];
    for (int heavy = 0; heavy < 2; ++heavy) {
      const double m_up = heavy ? 5.0 : 0.1;
      const ContactProblem p = MakeStack(0.1, m_up, a, dt, k, 0.0, mu);
      SubAdmmParameters prm = Params(1e-8, 20000);
      prm.warm_start = false;
      SubAdmmSolver solver(prm);
      SolverResult r;
      ASSERT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged) << r.stats.message;
      iters[heavy] = r.stats.iterations;
      const double ncp = ComputeNcpResidual(p, r).residual;
      std::printf(
          "stack %s, k %.0e: %d iterations to theta_p + theta_d < 1e-8 m/s, NCP residual "
          "%.1e, beta %.3g -> %.3g\n",
          heavy ? "5 kg on 0.1 kg" : "0.1 kg on 0.1 kg", k, r.stats.iterations, ncp,
          r.stats.iteration_log(0, kSubAdmmBeta), r.stats.iteration_log.Last(kSubAdmmBeta));
      double ground = 0, between = 0;
      for (int c = 0; c < 4; ++c) ground += r.gamma(3 * c + 2);
      for (int c = 4; c < 8; ++c) between += r.gamma(3 * c + 2);
      const auto expected = StackImpulses(0.1, m_up, dt, k);
      // Velocities within ~1e-8 m/s of the solution: impulse errors of (c + m) 1e-8 <= 1e-6 N s
      // (c = 4 δt² k ≈ 7 kg), against totals of 4e-3 to 0.2 N s.
      EXPECT_NEAR(between, expected.first, 1e-6);
      EXPECT_NEAR(ground, expected.second, 1e-6);
      // The residual of seed 001 at the returned impulses: small where the solver's own test
      // passed (rigid: the rigid law's g_n = v_n + φ0/δt is what SubADMM solves).
      EXPECT_LT(ncp, 1e-7);
    }
    // Rigid contacts (the paper's setting): the ratio slows the iteration down (measured: 440
    // against 70 iterations). With springs of k = 1e5 N/m both stacks take about as many
    // iterations (68 each), so only the rigid case is asserted.
    if (!std::isfinite(k)) EXPECT_GT(iters[1], 2 * iters[0]) << "the 50:1 ratio is slower";
  }
}

TEST(SubAdmmSolver, AdaptiveBetaRecoversFromAPoorInitialBeta) {
  // Eq. 43 balances the residuals: from β₀ off by 1e3 either way the adaptive solve converges in
  // a number of iterations close to the well-scaled one, the fixed-β solve does not.
  const ContactProblem p = MakeStack(0.1, 5.0, 0.05, 1.0 / 240, 1e5, 0.0, 0.5);
  for (double scale : {1e-3, 1.0, 1e3}) {
    int it[2];
    for (int adaptive = 0; adaptive < 2; ++adaptive) {
      SubAdmmParameters prm = Params(1e-8, 5000);
      prm.beta_scale = scale;
      prm.adaptive_beta = adaptive != 0;
      prm.warm_start = false;
      SubAdmmSolver solver(prm);
      SolverResult r;
      solver.Solve(p, p.v0, &r);
      it[adaptive] = r.stats.status == SolverStatus::kConverged ? r.stats.iterations : -1;
    }
    std::printf(
        "stack 50:1, beta_scale %.0e: fixed beta %d iterations, adaptive %d "
        "(-1: not converged in 5000)\n",
        scale, it[0], it[1]);
    EXPECT_GT(it[1], 0) << "adaptive converges from beta_scale " << scale;
    if (scale != 1.0) {
      EXPECT_TRUE(it[0] < 0 || it[0] > 2 * it[1]) << "beta_scale " << scale;
    }
  }
}

TEST(SubAdmmSolver, EachTreeIsFactoredOncePerBeta) {
  std::mt19937 rng(6);
  int changed = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const ContactProblem p = RandomProblem(rng, 5, 8);
    SubAdmmParameters prm = Params(1e-10, 3000);
    prm.warm_start = false;
    SubAdmmSolver solver(prm);
    SolverResult r;
    solver.Solve(p, p.v0, &r);
    const IterationLog& log = r.stats.iteration_log;
    std::vector<int> has(p.num_trees(), 0);
    for (const ConstraintData& c : p.constraints)
      for (int k = 0; k < c.num_blocks; ++k) has[c.blocks[k].tree] = 1;
    const int trees = std::count(has.begin(), has.end(), 1);
    // Values of β used by the iterations (rows 1..): each new value is one refactorization.
    int values = 0;
    for (int row = 1; row < log.num_rows(); ++row) {
      if (row == 1 || log(row, kSubAdmmBeta) != log(row - 1, kSubAdmmBeta)) ++values;
      // The count is exact at every row.
      EXPECT_EQ(log(row, kSubAdmmFactorizations), values * trees) << "row " << row;
    }
    EXPECT_EQ(log(0, kSubAdmmFactorizations), 0);
    if (values > 1) ++changed;
  }
  EXPECT_GT(changed, 5) << "the adaptive rule changed β in some solves";
}

// ---------------------------------------------------------------------------------------------
// Warm start and determinism.

TEST(SubAdmmSolver, WarmStartFromThePreviousImpulsesSavesIterations) {
  // The next step of a resting stack: the same contacts, v* a little lower (1 mm/s). Starting
  // from the previous λ (and β) saves iterations; from a cold start the solve is as long as the
  // first one. (A tangential change of v* excites the slow mode of the iteration, the friction
  // impulses, whose error is then about as large from either start: see the report.)
  for (double k : {1e5, kInf}) {
    const ContactProblem p = MakeStack(0.1, 5.0, 0.05, 1.0 / 240, k, 0.0, 0.5);
    ContactProblem next = p;
    next.v_star(2) -= 1e-3;
    next.v_star(8) -= 1e-3;
    SubAdmmSolver solver(Params(1e-8, 20000));
    SolverResult first, warm, cold;
    ASSERT_EQ(solver.Solve(p, p.v0, &first), SolverStatus::kConverged);
    ASSERT_EQ(solver.Solve(next, first.v, &warm), SolverStatus::kConverged);
    SubAdmmSolver fresh(Params(1e-8, 20000));
    ASSERT_EQ(fresh.Solve(next, next.v0, &cold), SolverStatus::kConverged);
    std::printf("stack 50:1, k %.0e, next step: warm start %d iterations, cold %d\n", k,
                warm.stats.iterations, cold.stats.iterations);
    EXPECT_LT(warm.stats.iterations, cold.stats.iterations);
    // Both reach the same solution (unique normal impulses; friction unloaded).
    EXPECT_LT((warm.v - cold.v).norm(), 1e-7);
  }
  // A problem with other rows starts cold (no crash, no stale impulses).
  SubAdmmSolver solver(Params(1e-8, 20000));
  const ContactProblem stack = MakeStack(0.1, 5.0, 0.05, 1.0 / 240, 1e5, 0.0, 0.5);
  const ContactProblem box = MakeBoxOnPlane(1, 0.05, 1.0 / 240, 1e5, 0, 0.5);
  SolverResult r1, r2, r3;
  solver.Solve(stack, stack.v0, &r1);
  EXPECT_EQ(solver.Solve(box, box.v0, &r2), SolverStatus::kConverged) << r2.stats.message;
  SubAdmmSolver fresh(Params(1e-8, 20000));
  fresh.Solve(box, box.v0, &r3);
  EXPECT_EQ(r2.v, r3.v);  // identical to a solve with no history
}

TEST(SubAdmmSolver, DeterministicBitIdentical) {
  std::mt19937 rng(7);
  std::vector<ContactProblem> steps;
  for (int k = 0; k < 5; ++k) steps.push_back(RandomProblem(rng, 4, 7));
  SubAdmmSolver a(Params(1e-8, 500)), b(Params(1e-8, 500));
  for (const ContactProblem& p : steps) {
    SolverResult ra, rb;
    a.Solve(p, p.v0, &ra);
    b.Solve(p, p.v0, &rb);
    EXPECT_EQ(ra.v, rb.v);
    EXPECT_EQ(ra.gamma, rb.gamma);
    EXPECT_EQ(ra.stats.iterations, rb.stats.iterations);
  }
  // Without warm start a solve does not depend on the solves before it.
  SubAdmmParameters prm = Params(1e-8, 500);
  prm.warm_start = false;
  SubAdmmSolver c(prm);
  SolverResult r1, r2, r3;
  c.Solve(steps[0], steps[0].v0, &r1);
  c.Solve(steps[1], steps[1].v0, &r2);
  c.Solve(steps[0], steps[0].v0, &r3);
  EXPECT_EQ(r1.v, r3.v);
  EXPECT_EQ(r1.gamma, r3.gamma);
}

// ---------------------------------------------------------------------------------------------
// Conformance.

TEST(SubAdmmSolver, ExactGuessTakesZeroIterations) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 20; ++trial) {
    const ContactProblem p = RandomProblem(rng, 3, 6);
    SubAdmmSolver solver(Params(1e-12, 100000));
    SolverResult r1, r2;
    ASSERT_EQ(solver.Solve(p, p.v0, &r1), SolverStatus::kConverged) << r1.stats.message;
    // The solution with its own impulses (kept for the warm start): row 0's z/λ-step moves λ by
    // O(1e-12) and the residual test at the default tolerance passes before any v-step.
    SubAdmmParameters prm;
    solver.set_parameters(prm);
    ASSERT_EQ(solver.Solve(p, r1.v, &r2), SolverStatus::kConverged);
    EXPECT_EQ(r2.stats.iterations, 0);
    EXPECT_EQ(r2.stats.iteration_log.num_rows(), 1);
    EXPECT_EQ(r2.stats.iteration_log(0, kSubAdmmFactorizations), 0);
    EXPECT_EQ(r2.v, r1.v);  // no v-step taken: bitwise identical
  }
}

TEST(SubAdmmSolver, EmptyProblemReturnsFreeMotion) {
  ContactProblem p = PointMassContact(1, 0.01, Vec3(0.1, 0.2, -0.3), 1e4, 0, 0.5, 0);
  p.constraints.clear();
  p.num_rows = 0;
  SubAdmmSolver solver;
  SolverResult r;
  EXPECT_EQ(solver.Solve(p, VecX::Zero(3), &r), SolverStatus::kConverged);
  EXPECT_EQ(r.v, p.v_star);
  EXPECT_EQ(r.stats.iterations, 0);
  EXPECT_EQ(r.stats.iteration_log.num_rows(), 1);
  EXPECT_EQ(r.gamma.size(), 0);
  EXPECT_EQ(r.vc.size(), 0);
  EXPECT_TRUE(std::isnan(r.stats.cost));
}

TEST(SubAdmmSolver, NonFiniteInputIsReportedWithoutIterating) {
  std::mt19937 rng(9);
  const ContactProblem p = RandomProblem(rng, 2, 3);
  SubAdmmSolver solver;
  SolverResult r;
  auto expect_input_error = [&](const ContactProblem& bad, const VecX& guess,
                                const std::string& what) {
    EXPECT_EQ(solver.Solve(bad, guess, &r), SolverStatus::kNonFiniteInput) << what;
    EXPECT_EQ(r.stats.iterations, 0);
    EXPECT_TRUE(r.stats.iteration_log.empty());
    EXPECT_NE(r.stats.message.find(what), std::string::npos) << r.stats.message;
    EXPECT_EQ(r.v.size(), guess.size());  // FailResult: v = v_guess
  };
  ContactProblem bad = p;
  bad.v_star(0) = std::numeric_limits<double>::quiet_NaN();
  expect_input_error(bad, p.v0, "v_star");
  bad = p;
  bad.A[1](0, 0) = kInf;
  expect_input_error(bad, p.v0, "A block of tree 1");
  bad = p;
  bad.constraints[0].blocks[0].J(0, 0) = std::numeric_limits<double>::quiet_NaN();
  expect_input_error(bad, p.v0, "constraint 0");
  bad = p;
  bad.constraints[1].phi0 = std::numeric_limits<double>::quiet_NaN();
  expect_input_error(bad, p.v0, "constraint 1");
  bad = p;
  bad.constraints[2].stiffness = std::numeric_limits<double>::quiet_NaN();
  expect_input_error(bad, p.v0, "constraint 2");
  bad = p;
  bad.constraints[0].stiffness = -1;
  expect_input_error(bad, p.v0, "constraint 0");
  VecX guess = p.v0;
  guess(0) = kInf;
  expect_input_error(p, guess, "v_guess");
  expect_input_error(p, VecX::Zero(p.nv + 1), "v_guess");
  bad = p;
  bad.num_rows += 1;
  expect_input_error(bad, p.v0, "malformed");
  // Finite input whose iterates overflow: a status, a finite returned iterate, no crash.
  bad = p;
  bad.v_star(0) = bad.v_star(1) = 1e308;
  const SolverStatus overflow = solver.Solve(bad, p.v0, &r);
  EXPECT_NE(overflow, SolverStatus::kNonFiniteInput) << r.stats.message;
  EXPECT_NE(overflow, SolverStatus::kConverged) << r.stats.message;
  EXPECT_TRUE(r.v.allFinite());
  EXPECT_TRUE(r.gamma.allFinite());
  std::printf("overflowing v*: %s (%s)\n", SolverStatusName(overflow), r.stats.message.c_str());
  // The valid problem still solves with the same solver object.
  const SolverStatus status = solver.Solve(p, p.v0, &r);
  EXPECT_TRUE(status == SolverStatus::kConverged || status == SolverStatus::kMaxIterations);
  EXPECT_TRUE(r.v.allFinite());
}

TEST(SubAdmmSolver, UnsupportedContactModelIsReportedNotThrown) {
  const ContactProblem p = MakeBoxOnPlane(1, 0.05, 0.01, 1e5, 0, 0.5);
  for (ContactModelType m : {ContactModelType::kLagged, ContactModelType::kLaggedRegularized,
                             ContactModelType::kSimilar}) {
    ContactModelParameters cm;
    cm.model = m;
    SubAdmmSolver solver({}, cm);
    SolverResult r;
    EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kUnsupportedContactModel);
    EXPECT_NE(r.stats.message.find("SubADMM"), std::string::npos);
    EXPECT_NE(r.stats.message.find(ContactModelName(m)), std::string::npos);
    EXPECT_NE(r.stats.message.find("linear"), std::string::npos);
    EXPECT_EQ(r.v, p.v0);
    EXPECT_EQ(r.gamma.size(), p.num_rows);
    solver.set_contact_model({});
    EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged) << r.stats.message;
  }
}

TEST(SubAdmmSolver, IterationCapReturnsTheBestIterate) {
  const ContactProblem p = MakeStack(0.1, 5.0, 0.05, 1.0 / 240, 1e5, 0.0, 0.5);
  SubAdmmSolver solver(Params(1e-12, 7));
  SolverResult r;
  EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kMaxIterations);
  EXPECT_EQ(r.stats.iterations, 7);
  EXPECT_EQ(r.stats.iteration_log.num_rows(), 8);
  EXPECT_NE(r.stats.message.find("returned the iterate of iteration"), std::string::npos);
  std::vector<double> res = r.stats.iteration_log.Column("residual");
  const double best = *std::min_element(res.begin(), res.end());
  // The returned pair (v, γ) has the smallest residual of the log: re-solving from it with its λ
  // gives that residual at row 0 (up to the difference between row 0's z/λ-step and the row's).
  EXPECT_TRUE(r.v.allFinite());
  EXPECT_TRUE(r.gamma.allFinite());
  EXPECT_GT(best, 0);
  // Every field filled.
  EXPECT_EQ(r.vc.size(), p.num_rows);
  EXPECT_EQ(r.regime.size(), p.constraints.size());
  EXPECT_EQ(r.laws.num_constraints(), static_cast<int>(p.constraints.size()));
  EXPECT_TRUE(std::isfinite(r.stats.momentum_error));
  EXPECT_TRUE(std::isnan(r.stats.cost));
}

TEST(SubAdmmSolver, IndefiniteAIsANumericalFailure) {
  std::mt19937 rng(10);
  ContactProblem p = RandomProblem(rng, 2, 3);
  p.A[0] = -p.A[0];  // not SPD: the subsystem matrix cannot be factored
  p.M[0] = p.A[0].cwiseAbs();
  SubAdmmSolver solver;
  SolverResult r;
  const SolverStatus s = solver.Solve(p, p.v0, &r);
  EXPECT_EQ(s, SolverStatus::kNumericalFailure);
  EXPECT_NE(r.stats.message.find("tree 0"), std::string::npos) << r.stats.message;
  EXPECT_TRUE(r.v.allFinite());
}

// ---------------------------------------------------------------------------------------------
// Laws, parameters and series.

TEST(SubAdmmLaws, BundleHoldsTheConstantsSolved) {
  const double dt = 0.01;
  ContactProblem p = PointMassContact(1, dt, Vec3(0, 0, -0.1), 1e4, 0.02, 0.5, -0.001);
  SubAdmmParameters prm;
  ConstraintBundle laws = PrepareSubAdmmLaws(p, prm);
  EXPECT_DOUBLE_EQ(laws.Constant(0, "R_n"), 1 / (dt * 1e4 * (dt + 0.02)));
  EXPECT_EQ(laws.Constant(0, "R_t"), 0.0);  // σ = 0: exact Coulomb
  EXPECT_DOUBLE_EQ(laws.Constant(0, "v_hat_n"), 0.001 / (dt + 0.02));
  EXPECT_EQ(laws.Constant(0, "near_rigid"), 0.0);
  // Rigid: R_n = 0 and v̂_n = −φ0/δt; with the clamp, R_n = β²w/(4π²).
  p.constraints[0].stiffness = kInf;
  laws = PrepareSubAdmmLaws(p, prm);
  EXPECT_EQ(laws.Constant(0, "R_n"), 0.0);
  EXPECT_DOUBLE_EQ(laws.Constant(0, "v_hat_n"), 0.001 / dt);
  prm.near_rigid_beta = 1;
  prm.sigma = 1e-3;
  laws = PrepareSubAdmmLaws(p, prm);
  EXPECT_DOUBLE_EQ(laws.Constant(0, "R_n"), p.constraints[0].w / (4 * kPi * kPi));
  EXPECT_DOUBLE_EQ(laws.Constant(0, "R_t"), 1e-3 * p.constraints[0].w);
  EXPECT_EQ(laws.Constant(0, "near_rigid"), 1.0);
}

TEST(SubAdmmParametersTest, TableDefaultsAndValidation) {
  const ParamTable<SubAdmmParameters>& t = SubAdmmParameterTable();
  EXPECT_STREQ(t.group, "subadmm");
  EXPECT_STREQ(t.prefix, "solver.subadmm");
  const SubAdmmParameters d = t.Defaults(), s;
  EXPECT_EQ(d.max_iterations, s.max_iterations);
  EXPECT_EQ(d.tolerance, s.tolerance);
  EXPECT_EQ(d.beta_scale, s.beta_scale);
  EXPECT_EQ(d.adaptive_beta, s.adaptive_beta);
  EXPECT_EQ(d.balance_ratio, s.balance_ratio);
  EXPECT_EQ(d.beta_update_interval, s.beta_update_interval);
  EXPECT_EQ(d.sigma, s.sigma);
  EXPECT_EQ(d.near_rigid_beta, s.near_rigid_beta);
  EXPECT_EQ(d.warm_start, s.warm_start);
  EXPECT_EQ(t.fields.size(), 9u);  // one entry per field
  auto message = [](SubAdmmParameters prm) -> std::string {
    try {
      prm.Validate();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  SubAdmmParameters prm;
  EXPECT_EQ(message(prm), "");
  prm.tolerance = 0;
  EXPECT_NE(message(prm).find("solver.subadmm.tolerance"), std::string::npos) << message(prm);
  prm = {};
  prm.balance_ratio = 1;
  EXPECT_NE(message(prm).find("balance_ratio"), std::string::npos);
  prm = {};
  prm.sigma = -1e-3;
  EXPECT_NE(message(prm).find("sigma"), std::string::npos);
  prm = {};
  prm.max_iterations = 0;
  EXPECT_THROW(SubAdmmSolver{prm}, std::invalid_argument);
  SubAdmmSolver solver;
  EXPECT_THROW(solver.set_parameters(prm), std::invalid_argument);
}

TEST(SubAdmmSeries, OneResidualRoleAndNamedColumns) {
  const SeriesTable t = SubAdmmSeriesTable();
  EXPECT_EQ(t.size, kNumSubAdmmSeries);
  EXPECT_EQ(t.FindRole(SeriesRole::kResidual), kSubAdmmResidual);
  int residual_roles = 0;
  for (int i = 0; i < t.size; ++i) residual_roles += t[i].role == SeriesRole::kResidual;
  EXPECT_EQ(residual_roles, 1);
  EXPECT_EQ(t.Find("primal_residual"), kSubAdmmPrimalResidual);
  EXPECT_EQ(t.Find("dual_residual"), kSubAdmmDualResidual);
  EXPECT_EQ(t.Find("beta"), kSubAdmmBeta);
  EXPECT_EQ(t.Find("factorizations"), kSubAdmmFactorizations);
  SubAdmmSolver solver;
  EXPECT_EQ(solver.series(), t);
  EXPECT_STREQ(solver.name(), "SubADMM");
}

}  // namespace
}  // namespace contactlab
