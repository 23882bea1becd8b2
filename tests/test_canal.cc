// Tests of the CANAL solver (seed 001, §V, Alg. 1): the surrogate's law against the paper's
// closed-form proximal projection and its Jacobian (eq. 23), the surrogate's optimality
// conditions with compliance, its gradient and Hessian (eq. 21-24) against finite differences,
// closed-form single contacts with exact Coulomb friction, the NCP residual of seed 001 on a
// resting box, a box sliding down a ramp and a stack, agreement with SAP where the two models
// coincide and SAP's gliding where they do not, random problems, and the solver contract
// (exact guess, empty problem, bad input, unsupported model, iteration cap, islands, warm start,
// determinism, parameters, series).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/contact/contact_problem.h"
#include "engine/inspect/metrics.h"
#include "engine/solvers/canal/anderson.h"
#include "engine/solvers/canal/canal_parameter_table.h"
#include "engine/solvers/canal/canal_solver.h"
#include "engine/solvers/common/problem_checks.h"
#include "engine/solvers/sap/sap_model.h"
#include "engine/solvers/sap/sap_solver.h"
#include "tests/problem_builders.h"
#include "tests/random_problem.h"

namespace contactlab {
namespace {

using test_problems::AddFreeBoxTree;
using test_problems::PointJacobian;
using test_problems::Uniform;

constexpr double kGravity = 9.81;
constexpr double kInf = std::numeric_limits<double>::infinity();

double Ncp(const ContactProblem& p, const SolverResult& r) {
  return ComputeNcpResidual(p, r, NcpModel::kCompliant).residual;
}

// A point mass m (3 dofs, A = M = m I) on the ground: one contact with J = I (normal +z).
ContactProblem MakeParticle(double m, double dt, double k, double tau_d, double mu, double phi0) {
  return test_problems::PointMassContact(m, dt, Vec3(0, 0, -kGravity * dt), k, tau_d, mu, phi0);
}

// Appends a contact whose rows are J_above v_above − J_below v_below (below < 0: the ground).
void AddContact(ContactProblem* p, int above, const Vec3& r_above, int below, const Vec3& r_below,
                double k, double tau_d, double mu, double phi0) {
  ConstraintData c;
  c.first_row = p->num_rows;
  c.num_blocks = 1;
  c.blocks[0].tree = above;
  c.blocks[0].J = PointJacobian(r_above);
  if (below >= 0) {
    c.num_blocks = 2;
    c.blocks[1].tree = below;
    c.blocks[1].J = -PointJacobian(r_below);
  }
  c.stiffness = k;
  c.dissipation_time = tau_d;
  c.friction = mu;
  c.phi0 = phi0;
  p->constraints.push_back(c);
  p->num_rows += 3;
}

// A box of mass m, half size a, on the plane z = 0 (four corner contacts, the contact frame is
// the world frame), under gravity g (a ramp of angle θ is the plane with g = 9.81 (sin θ, 0,
// −cos θ)), starting with velocity v0 (6).
ContactProblem MakeBox(double m, double a, double dt, double k, double tau_d, double mu,
                       const Vec3& g, const VecX& v0, double phi0 = 0) {
  ContactProblem p;
  p.time_step = dt;
  AddFreeBoxTree(&p, m, a);
  p.v0 = v0;
  p.v_star = v0;
  p.v_star.head<3>() += g * dt;
  for (int c = 0; c < 4; ++c) {
    const Vec3 r((c & 1) ? a : -a, (c & 2) ? a : -a, -a);
    AddContact(&p, 0, r, -1, Vec3::Zero(), k, tau_d, mu, phi0);
  }
  p.ComputeDelassusEstimates();
  return p;
}

Vec3 Gravity(double ramp_angle) {
  return kGravity * Vec3(std::sin(ramp_angle), 0, -std::cos(ramp_angle));
}

// A stack of boxes (masses m[j], half size a) on the ground, at rest: four contacts under each.
ContactProblem MakeStack(const std::vector<double>& m, double a, double dt, double k, double tau_d,
                         double mu, double phi0) {
  ContactProblem p;
  p.time_step = dt;
  for (size_t j = 0; j < m.size(); ++j) AddFreeBoxTree(&p, m[j], a);
  p.v0 = VecX::Zero(p.nv);
  p.v_star = VecX::Zero(p.nv);
  for (size_t j = 0; j < m.size(); ++j) p.v_star(6 * j + 2) = -kGravity * dt;
  for (size_t j = 0; j < m.size(); ++j) {
    for (int c = 0; c < 4; ++c) {
      const double x = (c & 1) ? a : -a, y = (c & 2) ? a : -a;
      AddContact(&p, static_cast<int>(j), Vec3(x, y, -a), static_cast<int>(j) - 1, Vec3(x, y, a), k,
                 tau_d, mu, phi0);
    }
  }
  p.ComputeDelassusEstimates();
  return p;
}

// A random problem (tests/random_problem.h: compliant k = 1e4 or rigid, cones and unilateral
// rows on one or two trees) made strictly feasible: its biases are set so that at a random
// velocity v_f every cone has v_c − v̂ inside the dual cone F* (v_n − v̂_n > μ‖v_t‖) and every
// unilateral row v_c − v̂ > 0. Without such a point rigid rows can make the problem infeasible
// (no v meets them all; the NCP has no solution and the AL multipliers grow without bound, as
// SAP's near-rigid regularization hides); with it a solution exists (strict feasibility, Acary,
// Cadoux, Lemaréchal, Malick 2011).
ContactProblem FeasibleRandomProblem(std::mt19937& rng, int trees, int constraints,
                                     const test_problems::RandomProblemOptions& o = {}) {
  ContactProblem p = test_problems::RandomProblem(rng, trees, constraints, o);
  CanalLawConstants law;
  EXPECT_EQ(PrepareCanalLaw(p, CanalParameters{}, &law), "");
  const VecX vf = 0.5 * test_problems::RandomMatrix(rng, p.nv, 1).col(0);
  VecX vc;
  p.ConstraintVelocities(vf, &vc);
  for (ConstraintData& c : p.constraints) {
    const int r = c.first_row;
    Vec3 u = Vec3::Zero();
    if (c.num_rows == 3) {
      u.head<2>() = 0.2 * test_problems::RandomMatrix(rng, 2, 1).col(0);
      u(2) = c.friction * u.head<2>().norm() + Uniform(rng, 0.01, 0.2);
    } else {
      u(0) = Uniform(rng, 0.01, 0.2);
    }
    // v_c(v_f) − v̂ = u: b ← b + (v̂ + u − v_c(v_f)).
    for (int k = 0; k < c.num_rows; ++k) c.bias(k) += law.v_hat(r + k) + u(k) - vc(r + k);
  }
  return p;
}

// The tests check accuracy to 1e-9 (velocities) on small problems: the AL tolerance 1e-9 m/s,
// below the default 1e-7 (which is set for piles of near-rigid contacts, canal_solver.h).
CanalParameters Canal() {
  CanalParameters prm;
  prm.al_tolerance = 1e-9;
  return prm;
}

SolverResult SolveCanal(const ContactProblem& p, const VecX& guess,
                        const CanalParameters& prm = Canal()) {
  CanalSolver solver(prm);
  SolverResult r;
  solver.Solve(p, guess, &r);
  return r;
}

// The per-iteration history of a cold solve: the NCP residual of the iterate after l AL
// iterations (the solve capped at l, which returns its last iterate while the AL residual keeps
// falling), l = 1..L, and the AL residuals of the full solve.
struct History {
  std::vector<double> ncp, al;
  SolverResult full;
};
History RunHistory(const ContactProblem& p, const VecX& guess, const CanalParameters& prm) {
  History h;
  h.full = SolveCanal(p, guess, prm);
  h.al = h.full.stats.iteration_log.Column(kCanalAlResidual);
  for (int l = 1; l <= h.full.stats.iterations; ++l) {
    CanalParameters capped = prm;
    capped.max_iterations = l;
    h.ncp.push_back(Ncp(p, SolveCanal(p, guess, capped)));
  }
  return h;
}

void PrintHistory(const char* name, const ContactProblem& p, const History& h) {
  std::printf("%s: %s, %d AL iterations, %d Newton steps, NCP %.2e, e_m %.2e\n", name,
              SolverStatusName(h.full.stats.status), h.full.stats.iterations,
              static_cast<int>(h.full.stats.iteration_log.Last(kCanalNewtonTotal)), Ncp(p, h.full),
              h.full.stats.momentum_error);
  const IterationLog& log = h.full.stats.iteration_log;
  for (int l = 0; l < log.num_rows(); ++l) {
    std::printf("  l=%2d  AL %.2e  beta %.0e  Newton %2.0f  NCP %.2e\n", l,
                log(l, kCanalAlResidual), log(l, kCanalBeta), log(l, kCanalNewtonIterations),
                l == 0 ? std::nan("") : h.ncp[l - 1]);
  }
}

// ---------------------------------------------------------------------------------------------
// The exact law's constants.

TEST(CanalLaw, ConstantsAreThePhysicalLawTheNcpResidualMeasures) {
  const double dt = 1e-3, k = 1e4, tau = 0.02, phi0 = -2e-3;
  ContactProblem p = MakeParticle(2.0, dt, k, tau, 0.5, phi0);
  AddContact(&p, 0, Vec3::Zero(), -1, Vec3::Zero(), kInf, tau, 0.3, phi0);  // rigid
  p.constraints.back().blocks[0].J = MatX::Identity(3, 3);  // the particle has 3 dofs
  p.ComputeDelassusEstimates();
  CanalParameters prm;
  CanalLawConstants law;
  ASSERT_EQ(PrepareCanalLaw(p, prm, &law), "");
  // Compliant: R_n = 1/(δt k (δt + τ_d)), v̂_n = −φ0/(δt + τ_d); σ = 0: R_t = 0. Same formulas
  // as the code, so equal to round-off.
  EXPECT_DOUBLE_EQ(law.R(2), 1 / (dt * k * (dt + tau)));
  EXPECT_DOUBLE_EQ(law.v_hat(2), -phi0 / (dt + tau));
  EXPECT_EQ(law.R(0), 0.0);
  EXPECT_EQ(law.R(1), 0.0);
  // Rigid (k = ∞): R_n = 0 and v̂_n = −φ0/δt, the metric's rigid law (no τ_d).
  EXPECT_EQ(law.R(5), 0.0);
  EXPECT_DOUBLE_EQ(law.v_hat(5), -phi0 / dt);
  EXPECT_EQ(law.mu[0], 0.5);
  EXPECT_EQ(law.mu[1], 0.3);
  // Both agree with the metric's physical law: its gap g_n = v_n − v̂_n + R_n γ_n.
  for (int i = 0; i < 2; ++i) {
    const PhysicalNormalLaw phys = PhysicalNormalLaw::Linear(p.constraints[i], dt);
    const double vn = 0.37, gn = 1.3;
    EXPECT_NEAR(phys.Gap(vn, gn), vn - law.v_hat(3 * i + 2) + law.R(3 * i + 2) * gn, 1e-12);
  }
  // σ > 0: R_t = σ w. Near-rigid clamp on: R_n = max(β²w/(4π²), R_n), SAP's v̂ where it acts.
  prm.sigma = 1e-3;
  prm.near_rigid_beta = 1.0;
  ASSERT_EQ(PrepareCanalLaw(p, prm, &law), "");
  const double w = p.constraints[1].w;
  EXPECT_DOUBLE_EQ(law.R(3), 1e-3 * w);
  EXPECT_DOUBLE_EQ(law.R(5), w / (4 * kPi * kPi));
  EXPECT_DOUBLE_EQ(law.v_hat(5), -phi0 / (dt + tau));
  EXPECT_EQ(law.near_rigid[1], 1);
  EXPECT_EQ(law.near_rigid[0], 0);  // 1/(δt k (δt + τ_d)) ≈ 4.8 > w/(4π²) ≈ 0.007
  // Unusable physical data is named.
  p.constraints[1].friction = -0.1;
  EXPECT_NE(PrepareCanalLaw(p, prm, &law).find("constraint 1: friction"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The surrogate (eq. 21-24).

// The paper's proximal (Euclidean) projection onto F (digest §2.3) and its Jacobian ∂Π/∂x
// (eq. 23, transposes as corrected in the digest), written from the paper, not from the code.
Vec3 ProxProjection(const Vec3& x, double mu, Mat3* dPi) {
  const double r = x.head<2>().norm(), n = x(2);
  dPi->setZero();
  if (mu == 0) {
    if (n > 0) (*dPi)(2, 2) = 1;
    return Vec3(0, 0, std::max(n, 0.0));
  }
  if (r <= mu * n) {  // stick
    dPi->setIdentity();
    return x;
  }
  if (mu * r <= -n) return Vec3::Zero();      // open
  const Eigen::Vector2d t = x.head<2>() / r;  // slip
  const double ln = (n + mu * r) / (1 + mu * mu);
  const Eigen::Matrix2d P = Eigen::Matrix2d::Identity() - t * t.transpose();
  dPi->topLeftCorner<2, 2>() = mu * mu * Eigen::Matrix2d::Identity() + (mu * n / r) * P;
  dPi->topRightCorner<2, 1>() = mu * t;
  dPi->bottomLeftCorner<1, 2>() = mu * t.transpose();
  (*dPi)(2, 2) = 1;
  *dPi /= 1 + mu * mu;
  return Vec3(mu * ln * t(0), mu * ln * t(1), ln);
}

// A random problem of rigid cones and unilateral rows (R = 0), with random λ^l and ṽ^l.
struct SurrogateCase {
  ContactProblem problem, work;
  CanalLawConstants law;
  ConstraintBundle laws;
  VecX lambda, v_tilde, v;
  double beta = 0;
};
SurrogateCase MakeSurrogateCase(std::mt19937& rng, bool rigid, double sigma) {
  SurrogateCase s;
  s.problem = test_problems::RandomProblem(rng, 3, 6, {});
  for (ConstraintData& c : s.problem.constraints) {
    if (rigid) c.stiffness = kInf;
  }
  CanalParameters prm;
  prm.sigma = sigma;
  EXPECT_EQ(PrepareCanalLaw(s.problem, prm, &s.law), "");
  s.beta = std::pow(10.0, Uniform(rng, 1, 5));
  s.lambda = test_problems::RandomMatrix(rng, s.problem.num_rows, 1).col(0);
  s.v_tilde = test_problems::RandomMatrix(rng, s.problem.num_rows, 1).col(0);
  s.v = test_problems::RandomMatrix(rng, s.problem.nv, 1).col(0);
  s.work = s.problem;
  LawParameters lp;
  s.laws.Prepare(s.problem, lp);
  SetCanalSurrogateLaws(s.problem, s.law, s.beta, &s.laws);
  SetCanalSurrogateBiases(s.problem, s.law, s.lambda, s.v_tilde, s.beta, &s.work);
  return s;
}

TEST(CanalSurrogate, LawIsThePapersProximalProjectionAndItsJacobian) {
  std::mt19937 rng(1);
  int regions[3] = {0, 0, 0};
  for (int trial = 0; trial < 300; ++trial) {
    SurrogateCase s = MakeSurrogateCase(rng, /*rigid=*/true, /*sigma=*/0);
    const ContactProblem& p = s.problem;
    VecX vc, gamma;
    std::vector<Mat3> G;
    std::vector<Regime> regime;
    s.work.ConstraintVelocities(s.v, &vc);
    s.laws.Evaluate(vc, &gamma, &G, &regime);
    VecX vc0;
    p.ConstraintVelocities(s.v, &vc0);
    for (size_t i = 0; i < p.constraints.size(); ++i) {
      const ConstraintData& c = p.constraints[i];
      const int r = c.first_row;
      // λ* = λ^l − β(v_c + ẽ) with ẽ = −v̂ + p^l (eq. 21 with u = −λ^l, e = −v̂).
      if (c.num_rows == 3) {
        const double p_n = c.friction * s.v_tilde.segment<2>(r).norm();
        const Vec3 lstar =
            s.lambda.segment<3>(r) -
            s.beta * (vc0.segment<3>(r) - s.law.v_hat.segment<3>(r) + Vec3(0, 0, p_n));
        Mat3 dPi;
        const Vec3 expect = ProxProjection(lstar, c.friction, &dPi);
        // Round-off of the two evaluations, relative to |λ*| (β up to 1e5 times O(1) velocities).
        const double tol = 1e-13 * (1 + lstar.norm());
        EXPECT_LT((gamma.segment<3>(r) - expect).norm(), tol) << "constraint " << i;
        // SAP's G = −∂γ/∂v_c = β ∂Π/∂λ* (chain rule through λ* = … − β v_c).
        EXPECT_LT((G[i] - s.beta * dPi).norm(), 1e-11 * s.beta * (1 + dPi.norm()))
            << "G\n"
            << G[i] << "\nbeta dPi\n"
            << s.beta * dPi;
        ++regions[static_cast<int>(regime[i])];
      } else {
        const double lstar = s.lambda(r) - s.beta * (vc0(r) - s.law.v_hat(r));
        EXPECT_NEAR(gamma(r), std::max(lstar, 0.0), 1e-13 * (1 + std::abs(lstar)));
      }
    }
  }
  // Every region of the projection was exercised.
  for (int k = 0; k < 3; ++k) EXPECT_GT(regions[k], 50) << k;
}

TEST(CanalSurrogate, CompliantLawSatisfiesTheSurrogatesOptimalityConditions) {
  // With R ≠ 0 (compliant normal, σ > 0), λ(v) = argmin_{λ∈F} ½λᵀ(R + I/β)λ + λᵀq with
  // q = v_c − v̂ + p^l − λ^l/β: λ ∈ F, s = (R + I/β)λ + q ∈ F* and λᵀs = 0 (the De Saxcé
  // surrogate of the compliant problem).
  std::mt19937 rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    SurrogateCase s = MakeSurrogateCase(rng, /*rigid=*/false, /*sigma=*/1e-2);
    const ContactProblem& p = s.problem;
    VecX vc_work, vc, gamma;
    s.work.ConstraintVelocities(s.v, &vc_work);
    s.laws.Evaluate(vc_work, &gamma, nullptr, nullptr);
    p.ConstraintVelocities(s.v, &vc);
    for (size_t i = 0; i < p.constraints.size(); ++i) {
      const ConstraintData& c = p.constraints[i];
      const int r = c.first_row, n = c.num_rows;
      VecX q = vc.segment(r, n) - s.law.v_hat.segment(r, n) - s.lambda.segment(r, n) / s.beta;
      if (n == 3) q(2) += c.friction * s.v_tilde.segment<2>(r).norm();
      const VecX lam = gamma.segment(r, n);
      const VecX sv = (s.law.R.segment(r, n).array() + 1 / s.beta).matrix().cwiseProduct(lam) + q;
      // Round-off scale: |q| and |λ|/β are O(1) velocities (|λ^l|/β, |v_c|).
      const double tol = 1e-12 * (1 + q.norm() + lam.norm() / s.beta);
      if (n == 3) {
        EXPECT_LE(lam.head<2>().norm(), c.friction * lam(2) + 1e-12 * (1 + lam.norm()));
        EXPECT_GE(lam(2), 0.0);
        EXPECT_LE(c.friction * sv.head<2>().norm(), sv(2) + tol) << "s in F*";
      } else {
        EXPECT_GE(lam(0), 0.0);
        EXPECT_GE(sv(0), -tol);
      }
      EXPECT_LT(std::abs(lam.dot(sv)), tol * (1 + lam.norm())) << "complementarity";
    }
  }
}

TEST(CanalSurrogate, GradientAndHessianMatchFiniteDifferences) {
  // h(v) = SAP's cost on the surrogate (work, laws) = eq. 22 up to a constant; ∇h must be
  // r(v) = A(v − v*) − Jᵀλ(v) with λ(v) the paper's projection (eq. 21), and H = A + JᵀGJ
  // (eq. 24) the derivative of ∇h.
  std::mt19937 rng(3);
  int checked = 0;
  double max_g = 0, max_h = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const bool rigid = trial % 2 == 0;
    SurrogateCase s = MakeSurrogateCase(rng, rigid, rigid ? 0.0 : 1e-2);
    const ContactProblem& w = s.work;
    const int nv = w.nv;
    VecX grad, gamma;
    const double h0 = SapCost(w, s.laws, s.v, &grad, &gamma);
    const VecX r = w.DenseA() * (s.v - w.v_star) - w.DenseJ().transpose() * gamma;
    EXPECT_LT((grad - r).norm(), 1e-12 * (1 + grad.norm()));  // same sums, round-off
    if (rigid) {
      // λ(v) from the paper's closed form, independently of the code's projection.
      VecX vc;
      s.problem.ConstraintVelocities(s.v, &vc);
      VecX lam(w.num_rows);
      for (const ConstraintData& c : s.problem.constraints) {
        const int k = c.first_row;
        if (c.num_rows == 3) {
          const double p_n = c.friction * s.v_tilde.segment<2>(k).norm();
          const Vec3 lstar =
              s.lambda.segment<3>(k) -
              s.beta * (vc.segment<3>(k) - s.law.v_hat.segment<3>(k) + Vec3(0, 0, p_n));
          Mat3 d;
          lam.segment<3>(k) = ProxProjection(lstar, c.friction, &d);
        } else {
          lam(k) = std::max(0.0, s.lambda(k) - s.beta * (vc(k) - s.law.v_hat(k)));
        }
      }
      const VecX r_paper = w.DenseA() * (s.v - w.v_star) - w.DenseJ().transpose() * lam;
      EXPECT_LT((grad - r_paper).norm(), 1e-11 * (1 + s.beta)) << "eq. 21";
    }
    // Finite differences with a step that moves λ* by ~1e-4 (|∂λ*/∂v| ~ β‖J‖, while λ* itself
    // is ~β); a trial whose step crosses a region boundary of some constraint (a kink of ∇h) is
    // skipped.
    const double step = 1e-4 / s.beta;
    auto regimes = [&](const VecX& v) {
      VecX vc, g;
      std::vector<Regime> reg;
      w.ConstraintVelocities(v, &vc);
      s.laws.Evaluate(vc, &g, nullptr, &reg);
      return reg;
    };
    const std::vector<Regime> reg0 = regimes(s.v);
    VecX g_fd(nv);
    MatX H_fd(nv, nv);
    bool crossed = false;
    for (int j = 0; j < nv && !crossed; ++j) {
      VecX vp = s.v, vm = s.v;
      vp(j) += step;
      vm(j) -= step;
      crossed = regimes(vp) != reg0 || regimes(vm) != reg0;
      VecX gp, gm;
      const double hp = SapCost(w, s.laws, vp, &gp, nullptr);
      const double hm = SapCost(w, s.laws, vm, &gm, nullptr);
      g_fd(j) = (hp - hm) / (2 * step);
      H_fd.col(j) = (gp - gm) / (2 * step);
    }
    if (crossed) continue;
    ++checked;
    const MatX H = SapDenseHessian(w, s.laws, s.v);
    // Cost differences: round-off ~10 ε |h| / step (h ~ |λ|²/β ~ β) plus the O(step²)
    // truncation of the sliding terms (relative (β step / |λ*|)² ~ 1e-8); gradient differences:
    // round-off ~10 ε |∇h| / step relative to ‖H‖ ~ β, i.e. ~1e-10 β: below 1e-5 for β <= 1e5.
    const double g_err = (grad - g_fd).norm();
    EXPECT_LT(g_err, 10 * 2.2e-16 * (1 + std::abs(h0)) / step + 1e-7 * (1 + grad.norm()));
    const double h_err = (H - H_fd).norm() / H.norm();
    EXPECT_LT(h_err, 1e-5) << "H\n" << H << "\nFD\n" << H_fd;
    // H is SPD (A ≻ 0, G ⪰ 0).
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<MatX>(H).eigenvalues().minCoeff(), 0.0);
    max_g = std::max(max_g, g_err / (1 + grad.norm()));
    max_h = std::max(max_h, h_err);
  }
  EXPECT_GT(checked, 100);  // most trials are away from region boundaries
  std::printf("surrogate FD: %d cases, max rel. gradient error %.2e, max rel. Hessian error %.2e\n",
              checked, max_g, max_h);
}

// ---------------------------------------------------------------------------------------------
// Closed-form single contacts (exact Coulomb friction, exact compliant or rigid normal law).

TEST(CanalClosedForm, RestingParticleHasTheExactNormalImpulse) {
  const double dt = 1e-2;
  for (double m : {0.1, 1.0, 7.0}) {
    for (double k : {1e3, kInf}) {
      for (double phi0 : {0.0, -1e-4}) {
        const double tau = k == kInf ? 0.0 : dt;
        const ContactProblem p = MakeParticle(m, dt, k, tau, 0.5, phi0);
        const SolverResult r = SolveCanal(p, VecX::Zero(3));
        ASSERT_EQ(r.stats.status, SolverStatus::kConverged) << r.stats.message;
        // v_n = v̂_n − R_n γ_n with m(v_n − v*_n) = γ_n:
        //   γ_n = m (v̂_n − v*_n) / (1 + m R_n);  rigid: R_n = 0, v̂_n = −φ0/δt.
        const double Rn = k == kInf ? 0 : 1 / (dt * k * (dt + tau));
        const double vhat = -phi0 / (dt + tau);
        const double gamma_n = m * (vhat + kGravity * dt) / (1 + m * Rn);
        // The AL fixed point is exact; its accuracy is the AL tolerance (1e-9 m/s) times m.
        EXPECT_NEAR(r.gamma(2), gamma_n, 1e-8 * m) << "m " << m << " k " << k;
        EXPECT_NEAR(r.v(2), vhat - Rn * gamma_n, 1e-8);
        EXPECT_EQ(r.gamma.head<2>().norm(), 0.0);  // no tangential load: exactly zero
        EXPECT_EQ(r.regime[0], Regime::kStiction);
      }
    }
  }
}

TEST(CanalClosedForm, TangentialPushSticksExactlyBelowAndSlidesAboveTheCoulombLimit) {
  const double dt = 1e-2, m = 2.0, mu = 0.4;
  for (double k : {1e4, kInf}) {
    ContactProblem p = MakeParticle(m, dt, k, 0.0, mu, 0.0);
    const double Rn = k == kInf ? 0 : 1 / (dt * k * dt);
    // The normal impulse does not depend on the tangential motion (J = I decouples the rows).
    const double gamma_n = m * kGravity * dt / (1 + m * Rn);
    for (double ratio : {0.5, 2.0}) {
      // A push whose momentum m‖v*_t‖ is `ratio` times the friction limit μ γ_n.
      const Eigen::Vector2d t(0.6, 0.8);
      const Eigen::Vector2d vt_star = ratio * mu * gamma_n / m * t;
      p.v_star = Vec3(vt_star(0), vt_star(1), -kGravity * dt);
      const SolverResult r = SolveCanal(p, VecX::Zero(3));
      ASSERT_EQ(r.stats.status, SolverStatus::kConverged) << r.stats.message;
      // The AL tolerance (1e-9 m/s) on velocities, times m on impulses.
      EXPECT_NEAR(r.gamma(2), gamma_n, 1e-8 * m);
      if (ratio < 1) {
        // Stiction: no slip at all (σ = 0), γ_t = −m v*_t (the push is cancelled).
        EXPECT_EQ(r.regime[0], Regime::kStiction);
        EXPECT_LT(r.v.head<2>().norm(), 1e-9);
        EXPECT_LT((r.gamma.head<2>() + m * vt_star).norm(), 1e-8 * m);
      } else {
        // Sliding: γ_t = −μ γ_n t̂ along the push, v_t = v*_t − μγ_n t̂/m.
        EXPECT_EQ(r.regime[0], Regime::kSliding);
        EXPECT_LT((r.gamma.head<2>() + mu * gamma_n * t).norm(), 1e-8 * m);
        EXPECT_LT((r.v.head<2>() - (vt_star - mu * gamma_n / m * t)).norm(), 1e-8);
      }
    }
  }
}

TEST(CanalClosedForm, JointLimitStopsExactly) {
  // One revolute dof (inertia I) driven into its limit (φ0 = 2 mrad of room left, v* = −1
  // rad/s): the limit row J = 1 with 0 <= λ ⊥ v − v̂ + Rλ >= 0 and I(v − v*) = λ.
  const double dt = 1e-2, I = 0.3;
  for (double k : {kInf, 50.0}) {
    ContactProblem p;
    p.time_step = dt;
    p.nv = 1;
    p.tree_v_start = {0};
    p.tree_nv = {1};
    p.A = {MatX::Constant(1, 1, I)};
    p.M = p.A;
    p.v_star = VecX::Constant(1, -1.0);
    p.v0 = p.v_star;
    ConstraintData c;
    c.kind = ConstraintKind::kUnilateral;
    c.num_rows = 1;
    c.num_blocks = 1;
    c.blocks[0].tree = 0;
    c.blocks[0].J = MatX::Constant(1, 1, 1.0);
    c.stiffness = k;
    c.dissipation_time = k == kInf ? 0.0 : dt;
    c.phi0 = 2e-3;
    p.constraints.push_back(c);
    p.num_rows = 1;
    p.ComputeDelassusEstimates();
    const SolverResult r = SolveCanal(p, p.v0);
    ASSERT_EQ(r.stats.status, SolverStatus::kConverged) << r.stats.message;
    // Rigid: v = v̂ = −φ0/δt, λ = I(v̂ − v*). Compliant: v = v̂ − Rλ with v̂ = −φ0/(δt + τ_d),
    // R = 1/(δt k (δt + τ_d)) ⇒ λ = I(v̂ − v*)/(1 + I R). AL tolerance on v, times I on λ.
    const double tau = c.dissipation_time;
    const double R = k == kInf ? 0 : 1 / (dt * k * (dt + tau));
    const double vhat = -c.phi0 / (dt + tau);
    const double lambda = I * (vhat - p.v_star(0)) / (1 + I * R);
    EXPECT_NEAR(r.gamma(0), lambda, 1e-9 * I);
    EXPECT_NEAR(r.v(0), vhat - R * lambda, 1e-9);
    EXPECT_EQ(r.regime[0], Regime::kStiction);  // the limit pushes
    EXPECT_LT(Ncp(p, r), 1e-9);
  }
}

// ---------------------------------------------------------------------------------------------
// Paper-style problems: the NCP residual of seed 001 (engine/inspect/metrics.h).

TEST(CanalSolver, BoxRestingOnAPlaneReachesNcpResidual1e8InAboutTenIterations) {
  const double dt = 1.0 / 240;  // the paper's time step
  for (double k : {1e5, kInf}) {
    // A 1 kg box slightly penetrating (φ0 = −1 mm), with a small initial spin and slide.
    VecX v0(6);
    v0 << 0.02, -0.01, -0.05, 0.1, -0.2, 0.05;
    const ContactProblem p =
        MakeBox(1.0, 0.05, dt, k, k == kInf ? 0 : dt, 0.5, Gravity(0), v0, -1e-3);
    const History h = RunHistory(p, v0, Canal());
    PrintHistory(k == kInf ? "resting box, rigid" : "resting box, k = 1e5", p, h);
    ASSERT_EQ(h.full.stats.status, SolverStatus::kConverged) << h.full.stats.message;
    EXPECT_LE(h.full.stats.iterations, 12);  // the paper: "about 10 iterations"
    EXPECT_LT(Ncp(p, h.full), 1e-8);
    EXPECT_LT(h.full.stats.momentum_error, 1e-8);  // the Newton tolerance 1e-10 and round-off
    for (Regime reg : h.full.regime) EXPECT_EQ(reg, Regime::kStiction);
  }
}

TEST(CanalSolver, BoxSlidingDownARampReachesNcpResidual1e8InAboutTenIterations) {
  const double dt = 1.0 / 240, theta = 0.5, mu = 0.3;  // tan θ = 0.55 > μ: slides
  for (double k : {1e5, kInf}) {
    VecX v0 = VecX::Zero(6);
    v0(0) = 0.5;
    const ContactProblem p = MakeBox(1.0, 0.05, dt, k, 0.0, mu, Gravity(theta), v0);
    const History h = RunHistory(p, v0, Canal());
    PrintHistory(k == kInf ? "ramp box, rigid" : "ramp box, k = 1e5", p, h);
    ASSERT_EQ(h.full.stats.status, SolverStatus::kConverged) << h.full.stats.message;
    EXPECT_LE(h.full.stats.iterations, 12);
    EXPECT_LT(Ncp(p, h.full), 1e-8);
    for (Regime reg : h.full.regime) EXPECT_EQ(reg, Regime::kSliding);
    // Exact Coulomb sliding: every corner slides along +x, so the friction impulse is −μ times
    // the total normal impulse: v_x = v0_x + g sin θ δt − μ Σγ_n/m (AL tolerance on velocities).
    double sum_n = 0;
    for (int c = 0; c < 4; ++c) sum_n += h.full.gamma(3 * c + 2);
    EXPECT_NEAR(h.full.v(0), v0(0) + kGravity * std::sin(theta) * dt - mu * sum_n, 1e-8);
    // Rigid: the box stays on the ramp, Σγ_n = m g cos θ δt.
    if (k == kInf) {
      EXPECT_NEAR(sum_n, kGravity * std::cos(theta) * dt, 1e-8);
    }
  }
}

TEST(CanalSolver, StackOfThreeBoxesWithA50To1MassRatioConverges) {
  const double dt = 1.0 / 240;
  for (double k : {1e5, kInf}) {
    // Bottom 0.1 kg, middle 5 kg, top 0.1 kg (the dish pile's 50:1 ratio), 1 mm penetration.
    const ContactProblem p = MakeStack({0.1, 5.0, 0.1}, 0.05, dt, k, 0.0, 0.5, -1e-3);
    const History h = RunHistory(p, VecX::Zero(p.nv), Canal());
    PrintHistory(k == kInf ? "stack, rigid" : "stack, k = 1e5", p, h);
    ASSERT_EQ(h.full.stats.status, SolverStatus::kConverged) << h.full.stats.message;
    EXPECT_LT(Ncp(p, h.full), 1e-8);
    EXPECT_LE(h.full.stats.iterations, 20);
    // The stack carries its weight: the ground's normal impulse is (Σ m) g δt plus the
    // impulse that stops the penetration velocity... over one step the total normal impulse on
    // the bottom box's contacts balances all three boxes' momentum change.
    double ground = 0;
    for (int c = 0; c < 4; ++c) ground += h.full.gamma(3 * c + 2);
    double momentum = 0;
    for (int j = 0; j < 3; ++j)
      momentum += p.A[j](0, 0) * (h.full.v(6 * j + 2) - p.v_star(6 * j + 2));
    EXPECT_NEAR(ground, momentum, 1e-9 * ground);  // momentum balance of the Newton solves
  }
}

TEST(CanalSolver, DishPileUnderRandomWrenchesReachesNcpResidual1e8) {
  // Seed 001's dish-piling single steps (Fig. 9): bowl, bowl, plate (0.1 kg each) and a 5 kg pot
  // (the 50:1 mass ratio), here as a stack of boxes with four corner contacts each (μ = 0.5),
  // under a random external wrench on every dish (forces up to m g, torques up to m g a), 100
  // cases, rigid (the paper's hard contact) and compliant (k = 1e5 N/m).
  const double dt = 1.0 / 240, a = 0.05;
  for (double k : {kInf, 1e5}) {
    std::mt19937 rng(21);
    std::vector<int> iterations;
    int converged = 0, newton = 0, sliding = 0;
    double max_ncp = 0;
    for (int trial = 0; trial < 100; ++trial) {
      ContactProblem p = MakeStack({0.1, 0.1, 0.1, 5.0}, a, dt, k, 0.0, 0.5, 0.0);
      for (int j = 0; j < 4; ++j) {
        const double m = p.A[j](0, 0);
        for (int c = 0; c < 6; ++c) {
          const double wrench = Uniform(rng, -1, 1) * m * kGravity * (c < 3 ? 1 : a);
          p.v_star(6 * j + c) += dt * wrench / p.A[j](c, c);
        }
      }
      const SolverResult r = SolveCanal(p, VecX::Zero(p.nv));
      if (r.stats.status != SolverStatus::kConverged) {
        EXPECT_EQ(r.stats.status, SolverStatus::kMaxIterations) << r.stats.message;
        continue;
      }
      ++converged;
      iterations.push_back(r.stats.iterations);
      newton += static_cast<int>(r.stats.iteration_log.Last(kCanalNewtonTotal));
      for (Regime g : r.regime) sliding += g == Regime::kSliding ? 1 : 0;
      const double ncp = Ncp(p, r);
      max_ncp = std::max(max_ncp, ncp);
      // The AL tolerance 1e-9 m/s bounds the velocity rows; the impulses of 0.1-5 kg bodies in
      // one step are O(1e-2) N s.
      EXPECT_LT(ncp, 1e-8) << "trial " << trial;
    }
    std::sort(iterations.begin(), iterations.end());
    std::printf(
        "dish pile, %s: %d/100 converged within 100 AL iterations, AL iterations median "
        "%d max %d, Newton steps mean %.1f, sliding contacts %d, max NCP %.2e\n",
        k == kInf ? "rigid" : "k = 1e5", converged, iterations[iterations.size() / 2],
        iterations.back(), double(newton) / converged, sliding, max_ncp);
    // Measured: rigid 97 (the De Saxcé cascade of the sliding dishes contracts slowly when
    // rigid corner contacts are redundant), compliant 100.
    EXPECT_GE(converged, k == kInf ? 95 : 100);
  }
}

// ---------------------------------------------------------------------------------------------
// CANAL against SAP.

TEST(CanalVsSap, StickingBoxAgreesWithSapAsSigmaGoesToZero) {
  // A compliant box on a ramp below the friction limit (tan θ = 0.27 < μ = 0.5): both models
  // stick. With the near-rigid clamp inactive they share the normal law; SAP's friction slips by
  // v_t = −R_t γ_t = −σ w γ_t in stiction, CANAL's does not, so the two velocities differ by
  // O(σ w ‖γ_t‖) and the difference must shrink linearly with σ.
  const double dt = 1.0 / 240, theta = 0.26;
  const ContactProblem p = MakeBox(1.0, 0.05, dt, 1e5, dt, 0.5, Gravity(theta), VecX::Zero(6));
  const SolverResult rc = SolveCanal(p, VecX::Zero(6));
  ASSERT_EQ(rc.stats.status, SolverStatus::kConverged) << rc.stats.message;
  double prev = kInf;
  for (double sigma : {1e-3, 1e-5, 1e-7}) {
    SapParameters sp;
    sp.sigma = sigma;
    sp.beta = 0.1;  // clamp β²w/(4π²) ≈ 6e-4/kg ≪ 1/(δt k (δt + τ_d)) ≈ 0.29/kg: inactive
    sp.rel_tolerance = 1e-12;
    SolverResult rs;
    ASSERT_EQ(SapSolver(sp).Solve(p, VecX::Zero(6), &rs), SolverStatus::kConverged);
    for (Regime reg : rs.regime) EXPECT_EQ(reg, Regime::kStiction);
    double slip = 0;  // max σ w ‖γ_t‖ over the contacts
    for (int c = 0; c < 4; ++c) {
      slip = std::max(slip, sigma * p.constraints[c].w * rs.gamma.segment<2>(3 * c).norm());
    }
    const double diff = (rs.v - rc.v).norm();
    std::printf("sticking box: sigma %.0e: |v_SAP - v_CANAL| = %.2e, sigma w |gamma_t| = %.2e\n",
                sigma, diff, slip);
    // The slip of each contact moves the box by at most ~ the slip (lever arms ~1, four contacts
    // sharing it) plus the AL and Newton tolerances (1e-9).
    EXPECT_LT(diff, 4 * slip + 1e-8);
    EXPECT_LT(diff, prev);
    prev = diff;
  }
  for (Regime reg : rc.regime) EXPECT_EQ(reg, Regime::kStiction);
  // Exact stiction: no contact point slips (the AL tolerance); the box only sinks into the
  // compliant ground.
  for (int c = 0; c < 4; ++c) EXPECT_LT(rc.vc.segment<2>(3 * c).norm(), 1e-9);
  // With CANAL's σ = SAP's σ the two laws coincide in stiction (ṽ = v_c − v̂ + Rγ = 0 in both):
  // the same solution up to the AL and Newton tolerances.
  CanalParameters cp;
  cp.sigma = 1e-3;
  const SolverResult rc3 = SolveCanal(p, VecX::Zero(6), cp);
  SapParameters sp;
  sp.sigma = 1e-3;
  sp.beta = 0.1;
  sp.rel_tolerance = 1e-12;
  SolverResult rs3;
  ASSERT_EQ(SapSolver(sp).Solve(p, VecX::Zero(6), &rs3), SolverStatus::kConverged);
  ASSERT_EQ(rc3.stats.status, SolverStatus::kConverged) << rc3.stats.message;
  EXPECT_LT((rc3.v - rs3.v).norm(), 1e-9);
  EXPECT_LT((rc3.gamma - rs3.gamma).norm(), 1e-9);
}

TEST(CanalVsSap, RigidStickingBoxWithSapsNearRigidClampAgreesWithSap) {
  // A rigid box (k = ∞) penetrating by 1 mm, sticking on the ramp: with near_rigid_beta = SAP's
  // β, CANAL's normal law is SAP's near-rigid one (R_n = β²w/(4π²), v̂_n = −φ0/(δt + τ_d)), so
  // again only SAP's stiction slip σ w ‖γ_t‖ separates the two velocities.
  const double dt = 1.0 / 240, theta = 0.26;
  const ContactProblem p =
      MakeBox(1.0, 0.05, dt, kInf, 0.0, 0.5, Gravity(theta), VecX::Zero(6), -1e-3);
  CanalParameters cp;
  cp.near_rigid_beta = 1.0;
  const SolverResult rc = SolveCanal(p, VecX::Zero(6), cp);
  ASSERT_EQ(rc.stats.status, SolverStatus::kConverged) << rc.stats.message;
  for (int c = 0; c < 4; ++c) EXPECT_EQ(rc.laws.Constant(c, "near_rigid"), 1.0);
  SapParameters sp;
  sp.sigma = 1e-6;
  sp.beta = 1.0;
  sp.rel_tolerance = 1e-12;
  SolverResult rs;
  ASSERT_EQ(SapSolver(sp).Solve(p, VecX::Zero(6), &rs), SolverStatus::kConverged);
  double slip = 0;
  for (int c = 0; c < 4; ++c) {
    slip = std::max(slip, sp.sigma * p.constraints[c].w * rs.gamma.segment<2>(3 * c).norm());
  }
  const double diff = (rs.v - rc.v).norm();
  std::printf("rigid sticking box, clamp on both: |v_SAP - v_CANAL| = %.2e, slip bound %.2e\n",
              diff, slip);
  EXPECT_LT(diff, 4 * slip + 1e-8);  // as in the compliant case above
  // Without the clamp CANAL solves the rigid law instead: every contact leaves the 1 mm overlap
  // in one step, v_n = −φ0/δt exactly, where the clamp's law has v_n = v̂_n − R_n γ_n (AL
  // tolerance on both).
  const SolverResult exact = SolveCanal(p, VecX::Zero(6));
  ASSERT_EQ(exact.stats.status, SolverStatus::kConverged);
  for (int c = 0; c < 4; ++c) {
    const int n = 3 * c + 2;
    const double Rn = p.constraints[c].w / (4 * kPi * kPi);
    EXPECT_NEAR(rc.vc(n), 1e-3 / dt - Rn * rc.gamma(n), 1e-9);
    EXPECT_NEAR(exact.vc(n), 1e-3 / dt, 1e-9);
    EXPECT_GT(exact.vc(n) - rc.vc(n), 1e-3);  // R_n γ_n: a visible difference
  }
}

TEST(CanalVsSap, SlidingBoxHasNoGlidingWhereSapsConvexModelHasIt) {
  // A rigid box sliding at 1 m/s on flat ground. In SAP's convex model a sliding contact has
  // ṽ_n = v_n − v̂_n + R_n γ_n = μ‖v_t + R_t γ_t‖ (SAP paper §V-A: the gliding offset), so the
  // box lifts off at about μ‖v_t‖; CANAL's exact Signorini–Coulomb law gives v_n = v̂_n = 0.
  const double dt = 1.0 / 240, mu = 0.5;
  VecX v0 = VecX::Zero(6);
  v0(0) = 1.0;
  const ContactProblem p = MakeBox(1.0, 0.05, dt, kInf, 0.0, mu, Gravity(0), v0);
  const SolverResult rc = SolveCanal(p, v0);
  ASSERT_EQ(rc.stats.status, SolverStatus::kConverged) << rc.stats.message;
  SapParameters sp;
  sp.rel_tolerance = 1e-12;
  SolverResult rs;
  ASSERT_EQ(SapSolver(sp).Solve(p, v0, &rs), SolverStatus::kConverged);
  VecX R, v_hat;
  ASSERT_TRUE(rs.laws.LinearRows(&R, &v_hat));
  for (int c = 0; c < 4; ++c) {
    const int r = 3 * c;
    // CANAL: in contact, sliding, with zero normal velocity (the AL tolerance).
    EXPECT_EQ(rc.regime[c], Regime::kSliding);
    EXPECT_GT(rc.gamma(r + 2), 0.0);
    EXPECT_NEAR(rc.vc(r + 2), 0.0, 1e-9);
    // SAP: in contact, sliding, with the predicted offset (its Newton tolerance).
    EXPECT_EQ(rs.regime[c], Regime::kSliding);
    const double offset = v_hat(r + 2) - R(r + 2) * rs.gamma(r + 2) +
                          mu * (rs.vc.segment<2>(r) + R(r) * rs.gamma.segment<2>(r)).norm();
    EXPECT_NEAR(rs.vc(r + 2), offset, 1e-9);
    EXPECT_GT(rs.vc(r + 2), 0.5 * mu * rs.vc.segment<2>(r).norm());  // a real lift-off
    std::printf(
        "sliding box contact %d: CANAL v_n %.2e, SAP v_n %.4f (predicted %.4f, "
        "mu |v_t| %.4f)\n",
        c, rc.vc(r + 2), rs.vc(r + 2), offset, mu * rs.vc.segment<2>(r).norm());
  }
  EXPECT_LT(Ncp(p, rc), 1e-8);
  EXPECT_GT(Ncp(p, rs), 1e-3);  // SAP's gliding is far from the NCP
}

// ---------------------------------------------------------------------------------------------
// The De Saxcé cascade and its Anderson acceleration (docs/canal_cascade.md).

// A solid sphere (mass m, radius r, I = 0.4 m r²) on the plane z = 0, one contact under its centre,
// starting with velocity v0 (6: v, ω), under gravity.
ContactProblem MakeSphere(double m, double r, double dt, double k, double mu, const VecX& v0) {
  ContactProblem p;
  p.time_step = dt;
  const double I = 0.4 * m * r * r;
  VecX d(6);
  d << m, m, m, I, I, I;
  p.tree_v_start = {0};
  p.tree_nv = {6};
  p.A = {MatX(d.asDiagonal())};
  p.M = p.A;
  p.nv = 6;
  p.v0 = v0;
  p.v_star = v0;
  p.v_star(2) -= kGravity * dt;
  AddContact(&p, 0, Vec3(0, 0, -r), -1, Vec3::Zero(), k, 0.0, mu, 0.0);
  p.ComputeDelassusEstimates();
  return p;
}

// The sphere sliding at 1 m/s with μ = 1 (it slides through the step: the slip falls by
// W_tt μ m g δt = 0.14 m/s).
ContactProblem SlidingSphere() {
  VecX v0 = VecX::Zero(6);
  v0(0) = 1.0;
  return MakeSphere(0.5, 0.05, 1.0 / 240, kInf, 1.0, v0);
}

TEST(CanalCascade, PlainCascadeContractsByXOverOnePlusXOnASlidingSphere) {
  // The map p → μ‖ṽ_t(p)‖ of one sliding contact (AL converged): raising p by δ lowers λ_n by
  // δ/(W_nn + μ²W_tt) (here W_nt = 0), which raises the slip by μ W_tt times that, so its
  // derivative is c = x/(1 + x), x = μ²W_tt/W_nn, not x itself: 3.5/4.5 = 0.778 for the solid
  // sphere at μ = 1 (x = 3.5 would make the plain cascade diverge). The plain cascade's residual
  // falls by c per iteration once the AL part (contracting by about 1/(1 + βW) = 2e-5) is done.
  const ContactProblem p = SlidingSphere();
  const MatX Ainv = p.A[0].inverse();
  const MatX& J = p.constraints[0].blocks[0].J;
  const MatX W = J * Ainv * J.transpose();
  const double mu = 1.0, x = mu * mu * W(0, 0) / W(2, 2);
  EXPECT_NEAR(x, 3.5, 1e-12);
  EXPECT_NEAR(W(0, 2), 0.0, 1e-12);
  const double c = x / (1 + x);
  CanalParameters prm = Canal();
  prm.cascade = CanalParameters::Cascade::kPlain;
  const SolverResult r = SolveCanal(p, p.v0, prm);
  ASSERT_EQ(r.stats.status, SolverStatus::kConverged) << r.stats.message;
  EXPECT_EQ(r.regime[0], Regime::kSliding);
  const IterationLog& log = r.stats.iteration_log;
  std::printf(
      "sliding sphere, plain cascade: %d AL iterations, %g Newton steps; cascade residual "
      "ratios:",
      r.stats.iterations, r.stats.iteration_log.Last(kCanalNewtonTotal));
  int checked = 0;
  for (int l = 3; l < log.num_rows(); ++l) {
    const double ratio = log(l, kCanalCascadeResidual) / log(l - 1, kCanalCascadeResidual);
    std::printf(" %.4f", ratio);
    // The AL part has died out after 2 iterations; from then on the ratio is c to the
    // round-off of the residuals (1e-10 of O(1) m/s against residuals above 1e-9 m/s).
    if (log(l, kCanalCascadeResidual) > 1e-8) {
      EXPECT_NEAR(ratio, c, 1e-3) << "iteration " << l;
      ++checked;
    }
  }
  std::printf(" (c = %.4f)\n", c);
  EXPECT_GE(checked, 10);
  // log(1e-9 / 1e-1) / log(c) ≈ 73 iterations to go from 0.1 m/s to 1e-9 m/s.
  EXPECT_GE(r.stats.iterations, 60);
}

TEST(CanalCascade, AndersonConvergesWhereThePlainCascadeStalls) {
  // The sliding sphere with an AL cap of 20: the plain cascade (contraction 0.778) is still at
  // about 0.778^20 of its start, while Anderson acceleration solves the one-contact affine map in
  // a few iterations. NCP < 1e-8: the AL tolerance 1e-9 m/s bounds the velocity rows and the
  // 0.5 kg sphere's impulses are O(1e-2) N s, so the residual is far below the paper's 1e-8.
  const ContactProblem p = SlidingSphere();
  CanalParameters plain = Canal(), accelerated = Canal();
  plain.cascade = CanalParameters::Cascade::kPlain;
  accelerated.cascade = CanalParameters::Cascade::kAnderson;
  plain.max_iterations = accelerated.max_iterations = 20;
  const SolverResult rp = SolveCanal(p, p.v0, plain);
  const SolverResult ra = SolveCanal(p, p.v0, accelerated);
  std::printf(
      "sliding sphere, cap 20: plain %s (AL residual %.2e, NCP %.2e); anderson %s in %d AL "
      "iterations, %g Newton steps (NCP %.2e)\n",
      SolverStatusName(rp.stats.status), rp.stats.iteration_log.Last(kCanalAlResidual), Ncp(p, rp),
      SolverStatusName(ra.stats.status), ra.stats.iterations,
      ra.stats.iteration_log.Last(kCanalNewtonTotal), Ncp(p, ra));
  EXPECT_EQ(rp.stats.status, SolverStatus::kMaxIterations);
  EXPECT_GT(rp.stats.iteration_log.Last(kCanalAlResidual), 1e-5);  // 0.1 × 0.778^20 = 7e-4
  ASSERT_EQ(ra.stats.status, SolverStatus::kConverged) << ra.stats.message;
  EXPECT_LE(ra.stats.iterations, 8);
  EXPECT_LT(Ncp(p, ra), 1e-8);
  EXPECT_EQ(ra.regime[0], Regime::kSliding);
  // The normal velocity of the sliding contact is 0 (no gliding), to the AL tolerance.
  EXPECT_LT(std::abs(ra.vc(2)), 1e-9);
  // The same solution as the plain cascade run to convergence. That one stops when a step of
  // the cascade is below 1e-9 m/s, so it is still c/(1 − c) = 3.5 such steps from its fixed
  // point: contact velocities agree to 1e-8 m/s, impulses (times O(m) = 0.5 kg) to 1e-8 N s;
  // v holds ω, which is the slip over r = 0.05 m: 1e-7.
  plain.max_iterations = 300;
  const SolverResult rfull = SolveCanal(p, p.v0, plain);
  ASSERT_EQ(rfull.stats.status, SolverStatus::kConverged);
  EXPECT_LT((ra.vc - rfull.vc).norm(), 1e-8);
  EXPECT_LT((ra.gamma - rfull.gamma).norm(), 1e-8);
  EXPECT_LT((ra.v - rfull.v).norm(), 1e-7);
}

TEST(CanalCascade, AndersonSolvesAffineMapsTheFixedPointIterationCannot) {
  // F(x) = M x + b with eigenvalues of M at 0.999 (plain iteration: 1e-3 per step) and at 1.5
  // and −1.2 (plain iteration diverges; no damping fixes the 1.5). Anderson with a memory of at
  // least the dimension is GMRES on (I − M) x = b: exact after n + 1 images in exact arithmetic;
  // 1e-9 relative leaves room for the round-off of the least-squares solves.
  std::mt19937 rng(3);
  const int n = 4;
  MatX Q = MatX::Random(n, n);
  Q = Eigen::HouseholderQR<MatX>(Q).householderQ();
  VecX eig(n);
  eig << 0.999, 1.5, -1.2, 0.3;
  const MatX M = Q * eig.asDiagonal() * Q.transpose();
  const VecX b = VecX::Random(n);
  const VecX x_star = (MatX::Identity(n, n) - M).lu().solve(b);
  AndersonAccelerator aa;
  aa.Reset(n, n + 1);
  VecX x = VecX::Zero(n), next;
  int k = 0;
  for (; k < 20 && (x - x_star).norm() > 1e-9 * x_star.norm(); ++k) {
    aa.Next(x, M * x + b, &next);
    x = next;
  }
  EXPECT_LE(k, n + 2);
  EXPECT_LT((x - x_star).norm(), 1e-9 * x_star.norm());
  // A stalled component (zero difference) does not make the extrapolation blow up: the
  // dependent column is dropped and the result stays finite and exact on the other components.
  aa.Reset(2, 3);
  VecX y = VecX::Zero(2), ynext;
  for (int i = 0; i < 10; ++i) {
    VecX f(2);
    f << 0.5 * y(0) + 1.0, 0.0;  // the second component never moves
    aa.Next(y, f, &ynext);
    ASSERT_TRUE(ynext.allFinite());
    y = ynext;
  }
  EXPECT_NEAR(y(0), 2.0, 1e-12);
  EXPECT_EQ(y(1), 0.0);
  // Clear forgets the history: the next call returns F(x).
  aa.Clear();
  VecX f(2);
  f << 7.0, 8.0;
  aa.Next(y, f, &ynext);
  EXPECT_EQ(ynext, f);
}

TEST(CanalCascade, PlainOptionIsThePapersCascade) {
  // cascade: plain reproduces the paper's Alg. 1 step by step: p^{l+1} = μ‖ṽ^{l+1}_t‖ of the
  // last surrogate (the log's cascade residual is |p^{l+1} − p^l| for the loaded contact), no
  // extrapolation (the message names no Anderson restart), and with beta_revert off β never
  // decreases.
  const ContactProblem p = SlidingSphere();
  CanalParameters prm = Canal();
  prm.cascade = CanalParameters::Cascade::kPlain;
  prm.beta_revert = false;
  const SolverResult r = SolveCanal(p, p.v0, prm);
  ASSERT_EQ(r.stats.status, SolverStatus::kConverged);
  EXPECT_EQ(r.stats.message.find("Anderson"), std::string::npos);
  const IterationLog& log = r.stats.iteration_log;
  for (int l = 1; l < log.num_rows(); ++l) EXPECT_GE(log(l, kCanalBeta), log(l - 1, kCanalBeta));
  // Deterministic: the same log twice.
  const SolverResult again = SolveCanal(p, p.v0, prm);
  ASSERT_EQ(again.stats.iteration_log.num_rows(), log.num_rows());
  for (int l = 0; l < log.num_rows(); ++l)
    EXPECT_EQ(again.stats.iteration_log(l, kCanalAlResidual), log(l, kCanalAlResidual));
}

TEST(CanalCascade, UselessBetaRaiseIsTakenBack) {
  // A 100 kg box resting on four near-rigid corners (k = 1e12 N/m, τ_d = δt = 10 ms: R_n =
  // 5e-9 1/kg) with one corner 0.2 nm deeper than the others: its velocity target differs by
  // 1e-8 m/s. The four normal impulses are statically indeterminate: the box's three normal dofs
  // leave one load pattern (±, ∓ on the diagonals) that only R_n determines, here 0.5 N s (the
  // corners carry 2.5 N s each, so none opens), and the AL moves along it by about βR_n = 5e-5
  // of the way per iteration, so ‖J v − z‖ stalls at about 1e-8 m/s. The paper's rule raises β
  // (twice, to β_max), which helps little (βR_n stays ≪ 1) and stiffens the surrogates;
  // beta_revert takes the raise back after one iteration. Measured: both converge, in 19 AL
  // iterations (12 Newton steps) with the revert and 12 (9) without: the revert costs iterations
  // here, where β_max's surrogates stay cheap. On the 40-body clutter pile (k = 1e12, frozen
  // steps of SAP's 3 s run) the surrogates at β = 1e6 hit Newton's round-off floor (e_m about
  // 1.5e-10 against the 1e-10 tolerance, 100 Newton steps each): without the revert 86 of 293
  // steps reach the AL cap and take 2487 Newton steps on average, with it 13 and 343.
  const double dt = 0.01;
  ContactProblem p = MakeBox(100.0, 0.05, dt, 1e12, dt, 1.0, Gravity(0), VecX::Zero(6));
  p.constraints[0].phi0 = -2e-10;
  for (int c = 1; c < 4; ++c) p.constraints[c].phi0 = 0;
  CanalParameters on = Canal(), off = Canal();
  off.beta_revert = false;
  on.max_iterations = off.max_iterations = 30;
  const SolverResult ron = SolveCanal(p, VecX::Zero(6), on);
  const SolverResult roff = SolveCanal(p, VecX::Zero(6), off);
  const IterationLog& lon = ron.stats.iteration_log;
  const IterationLog& loff = roff.stats.iteration_log;
  double max_on = 0;
  for (int l = 0; l < lon.num_rows(); ++l) max_on = std::max(max_on, lon(l, kCanalBeta));
  std::printf(
      "near-rigid box, one corner 0.2 nm deeper: beta_revert on: %s, %d AL iterations, %g Newton "
      "steps, largest beta %.0e, last %.0e, AL residual %.2e; off: %s, %d, %g Newton steps, last "
      "beta %.0e, AL residual %.2e\n",
      SolverStatusName(ron.stats.status), ron.stats.iterations, lon.Last(kCanalNewtonTotal), max_on,
      lon.Last(kCanalBeta), lon.Last(kCanalAlResidual), SolverStatusName(roff.stats.status),
      roff.stats.iterations, loff.Last(kCanalNewtonTotal), loff.Last(kCanalBeta),
      loff.Last(kCanalAlResidual));
  EXPECT_EQ(loff.Last(kCanalBeta), off.beta_max);
  EXPECT_GT(max_on, on.beta0);                // raised once ...
  EXPECT_EQ(lon.Last(kCanalBeta), on.beta0);  // ... and taken back
}

// ---------------------------------------------------------------------------------------------
// The Tresca cascade (cascade: tresca, tresca_anderson, hybrid): the friction bound μλ_n frozen
// at the previous AL iterate instead of the De Saxcé term.

TEST(CanalTresca, DiskLawGradientAndHessianMatchFiniteDifferences) {
  // LinearConeLaw with friction_bound = r >= 0: γ = −∂ℓ/∂v_c and G = ∂²ℓ/∂v_c² (the law's
  // contract, which SAP's Newton and exact line search rely on). Central differences with step
  // h = 1e-6 of O(1) velocities: truncation O(h²) of smooth pieces plus round-off O(ε ℓ/h), about
  // 1e-9 relative; points within 1e-3 of a region boundary (‖y_t‖ = r, y_n = 0) are skipped,
  // where the one-sided pieces differ.
  std::mt19937 rng(11);
  int checked = 0, sliding = 0, sticking = 0;
  for (int trial = 0; trial < 400; ++trial) {
    LinearConeLaw::Constants K;
    K.Rt = Uniform(rng, 0.2, 2.0);
    K.Rn = Uniform(rng, 0.2, 2.0);
    K.inv_t = 1 / K.Rt;
    K.inv_n = 1 / K.Rn;
    K.vn_hat = Uniform(rng, -0.5, 0.5);
    K.mu = 0.7;  // ignored by the disk law
    K.friction_bound = trial % 10 == 0 ? 0.0 : Uniform(rng, 0.0, 1.5);
    const Vec3 vc(Uniform(rng, -2, 2), Uniform(rng, -2, 2), Uniform(rng, -1, 1));
    const double yt = vc.head<2>().norm() * K.inv_t, yn = -(vc(2) - K.vn_hat) * K.inv_n;
    if (std::abs(yt - K.friction_bound) < 1e-3 || std::abs(yn) < 1e-3) continue;
    Vec3 gamma;
    Mat3 G;
    Regime reg;
    LinearConeLaw::Cost(K, vc.data(), gamma.data(), &G, &reg);
    const double h = 1e-6;
    Vec3 fd_gamma;
    Mat3 fd_G;
    for (int k = 0; k < 3; ++k) {
      Vec3 vp = vc, vm = vc;
      vp(k) += h;
      vm(k) -= h;
      Vec3 gp, gm;
      Mat3 Gp;
      Regime rp;
      const double lp = LinearConeLaw::Cost(K, vp.data(), gp.data(), &Gp, &rp);
      const double lm = LinearConeLaw::Cost(K, vm.data(), gm.data(), &Gp, &rp);
      fd_gamma(k) = -(lp - lm) / (2 * h);
      fd_G.col(k) = -(gp - gm) / (2 * h);
    }
    EXPECT_LT((gamma - fd_gamma).norm(), 1e-7 * (1 + gamma.norm())) << "trial " << trial;
    EXPECT_LT((G - fd_G).norm(), 1e-6 * (1 + G.norm())) << "trial " << trial;
    // The disk: ‖γ_t‖ <= r, on its edge when sliding; the normal row is SAP's unilateral law.
    EXPECT_LE(gamma.head<2>().norm(), K.friction_bound * (1 + 1e-14));
    EXPECT_NEAR(gamma(2), std::max(0.0, yn), 1e-14);
    if (reg == Regime::kSliding && K.friction_bound > 0) {
      EXPECT_NEAR(gamma.head<2>().norm(), K.friction_bound, 1e-12);
      ++sliding;
    }
    if (reg == Regime::kStiction) ++sticking;
    ++checked;
  }
  EXPECT_GT(checked, 300);
  EXPECT_GT(sliding, 50);
  EXPECT_GT(sticking, 20);
}

TEST(CanalTresca, SlidingSphereConvergesInAFewIterationsWhereTheDeSaxceCascadeNeedsSeventy) {
  // The sphere sliding at 1 m/s (μ = 1, rigid, W_nt = 0): the normal impulse does not depend on
  // the friction, so the Tresca map's cascade rate μW_nt/W_nn is 0 and only the AL's contraction
  // 1/(1 + βW_nn) = 5e-5 per iteration is left. From λ^0 = 0 the first surrogate is frictionless,
  // the second has the friction bound of a normal impulse already 5e-5 from the exact one, the
  // third 2.5e-9 relative: with the friction error taken to a velocity by w (a few 1/kg) the
  // residual is below 1e-9 m/s after the third iteration (measured: 3); 4 allows one more AL
  // contraction. The plain De Saxcé cascade contracts by 0.778 per iteration
  // (PlainCascadeContractsByXOverOnePlusXOnASlidingSphere).
  const ContactProblem p = SlidingSphere();
  CanalParameters tresca = Canal(), plain = Canal(), anderson = Canal();
  tresca.cascade = CanalParameters::Cascade::kTresca;
  plain.cascade = CanalParameters::Cascade::kPlain;
  anderson.cascade = CanalParameters::Cascade::kAnderson;
  const SolverResult rt = SolveCanal(p, p.v0, tresca);
  const SolverResult rp = SolveCanal(p, p.v0, plain);
  const SolverResult ra = SolveCanal(p, p.v0, anderson);
  std::printf(
      "sliding sphere: tresca %s in %d AL iterations (%g Newton steps, NCP %.2e); plain De Saxce "
      "%d; anderson %d\n",
      SolverStatusName(rt.stats.status), rt.stats.iterations,
      rt.stats.iteration_log.Last(kCanalNewtonTotal), Ncp(p, rt), rp.stats.iterations,
      ra.stats.iterations);
  ASSERT_EQ(rt.stats.status, SolverStatus::kConverged) << rt.stats.message;
  EXPECT_LE(rt.stats.iterations, 4);
  EXPECT_GE(rp.stats.iterations, 60);
  EXPECT_EQ(rt.regime[0], Regime::kSliding);
  EXPECT_LT(Ncp(p, rt), 1e-8);
  // No gliding: the sliding contact's normal velocity is 0 to the AL tolerance.
  EXPECT_LT(std::abs(rt.vc(2)), 1e-9);
  // Exact Coulomb friction: ‖γ_t‖ = μγ_n (the friction error is below 1e-9 m/s / w, w >= 2).
  EXPECT_NEAR(rt.gamma.head<2>().norm(), rt.gamma(2), 1e-9);
  // The exact law has one solution here; the De Saxcé cascade (Anderson) found it to its
  // tolerance too: velocities agree to the two AL tolerances, impulses to them times the mass.
  ASSERT_EQ(ra.stats.status, SolverStatus::kConverged);
  EXPECT_LT((rt.vc - ra.vc).norm(), 3e-9);
  EXPECT_LT((rt.gamma - ra.gamma).norm(), 3e-9);
}

TEST(CanalTresca, BoxOnARampSticksAndSlidesAsSapAndTheClosedFormSay) {
  const double dt = 1.0 / 240;
  const std::pair<CanalParameters::Cascade, const char*> cascades[] = {
      {CanalParameters::Cascade::kTresca, "tresca"},
      {CanalParameters::Cascade::kTrescaAnderson, "tresca_anderson"},
      {CanalParameters::Cascade::kHybrid, "hybrid"}};
  for (const auto& [cascade, name] : cascades) {
    CanalParameters prm = Canal();
    prm.cascade = cascade;
    {
      // Sticking (tan θ = 0.27 < μ = 0.5), compliant k = 1e5: SAP's friction slips by σ w ‖γ_t‖
      // in stiction, the exact law does not, so at SAP's σ = 1e-7 the two velocities agree to
      // about that slip (four contacts, lever arms ~1) plus the AL tolerance (1e-9 m/s), as in
      // CanalVsSap.StickingBoxAgreesWithSapAsSigmaGoesToZero.
      const double theta = 0.26;
      const ContactProblem p =
          MakeBox(1.0, 0.05, dt, 1e5, dt, 0.5, Gravity(theta), VecX::Zero(6));
      const SolverResult rc = SolveCanal(p, VecX::Zero(6), prm);
      ASSERT_EQ(rc.stats.status, SolverStatus::kConverged) << name << ": " << rc.stats.message;
      SapParameters sp;
      sp.sigma = 1e-7;
      sp.beta = 0.1;  // SAP's near-rigid clamp inactive: the same normal law
      sp.rel_tolerance = 1e-12;
      SolverResult rs;
      ASSERT_EQ(SapSolver(sp).Solve(p, VecX::Zero(6), &rs), SolverStatus::kConverged);
      double slip = 0;
      for (int c = 0; c < 4; ++c) {
        slip = std::max(slip, sp.sigma * p.constraints[c].w * rs.gamma.segment<2>(3 * c).norm());
      }
      std::printf("sticking box, %s: %d AL iterations, |v_SAP - v_CANAL| = %.2e (slip %.2e)\n",
                  name, rc.stats.iterations, (rs.v - rc.v).norm(), slip);
      EXPECT_LT((rs.v - rc.v).norm(), 4 * slip + 1e-8) << name;
      for (Regime reg : rc.regime) EXPECT_EQ(reg, Regime::kStiction) << name;
      for (int c = 0; c < 4; ++c) EXPECT_LT(rc.vc.segment<2>(3 * c).norm(), 1e-9) << name;
      EXPECT_LT(Ncp(p, rc), 1e-8) << name;
    }
    {
      // Sliding (tan θ = 0.55 > μ = 0.3), rigid: every corner slides along +x, so the friction
      // is −μ times the total normal impulse and the box stays on the ramp: Σγ_n = m g cos θ δt
      // and v_x = v0_x + g sin θ δt − μΣγ_n/m. The velocity tolerance is the AL tolerance, the
      // impulse one the friction error it allows (velocity / w, w >= 1 here) summed over four
      // corners.
      const double theta = 0.5, mu = 0.3;
      VecX v0 = VecX::Zero(6);
      v0(0) = 0.5;
      const ContactProblem p = MakeBox(1.0, 0.05, dt, kInf, 0.0, mu, Gravity(theta), v0);
      const SolverResult rc = SolveCanal(p, v0, prm);
      ASSERT_EQ(rc.stats.status, SolverStatus::kConverged) << name << ": " << rc.stats.message;
      std::printf("sliding box, %s: %d AL iterations, NCP %.2e\n", name, rc.stats.iterations,
                  Ncp(p, rc));
      for (Regime reg : rc.regime) EXPECT_EQ(reg, Regime::kSliding) << name;
      double sum_n = 0;
      for (int c = 0; c < 4; ++c) sum_n += rc.gamma(3 * c + 2);
      EXPECT_NEAR(sum_n, kGravity * std::cos(theta) * dt, 4e-9) << name;
      EXPECT_NEAR(rc.v(0), v0(0) + kGravity * std::sin(theta) * dt - mu * sum_n, 4e-9) << name;
      EXPECT_LT(Ncp(p, rc), 1e-8) << name;
    }
  }
}

TEST(CanalTresca, NearRigidSlidingBoxWithAnIndeterminateLoadAgreesWithTheDeSaxceCascade) {
  // A 100 kg box sliding at 1 m/s on four near-rigid corners (k = 1e12 N/m, τ_d = δt = 10 ms:
  // R_n = 5e-9 1/kg), one corner 0.2 nm deeper: the load pattern (±, ∓ on the diagonals) is set
  // by R_n alone and the AL moves along it by about βR_n = 5e-5 of the way per iteration (see
  // CanalCascade.UselessBetaRaiseIsTakenBack); the Tresca bounds μλ_n follow it. Every cascade
  // must still converge here (all corners slide the same way, so the pattern moves friction
  // between corners without changing its total or its torque), and the box's velocity is the
  // same: that pattern changes neither the net force nor the moment, so the velocities agree to
  // the AL tolerances (1e-9 m/s) times the lever-arm factors of the contact rows (about 10 for a
  // 5 cm box): 1e-8. Measured: tresca_anderson and hybrid 10 AL iterations, anderson 19.
  const double dt = 0.01;
  VecX v0 = VecX::Zero(6);
  v0(0) = 1.0;
  ContactProblem p = MakeBox(100.0, 0.05, dt, 1e12, dt, 0.5, Gravity(0), v0);
  p.constraints[0].phi0 = -2e-10;
  for (int c = 1; c < 4; ++c) p.constraints[c].phi0 = 0;
  CanalParameters tresca = Canal(), hybrid = Canal(), anderson = Canal();
  tresca.cascade = CanalParameters::Cascade::kTrescaAnderson;
  hybrid.cascade = CanalParameters::Cascade::kHybrid;
  anderson.cascade = CanalParameters::Cascade::kAnderson;
  const SolverResult rt = SolveCanal(p, v0, tresca);
  const SolverResult rh = SolveCanal(p, v0, hybrid);
  const SolverResult ra = SolveCanal(p, v0, anderson);
  std::printf(
      "near-rigid sliding box: tresca_anderson %s, %d AL iterations (NCP %.2e); hybrid %s, %d "
      "(NCP %.2e); anderson %s, %d (NCP %.2e); |v_tresca - v_anderson| = %.2e\n",
      SolverStatusName(rt.stats.status), rt.stats.iterations, Ncp(p, rt),
      SolverStatusName(rh.stats.status), rh.stats.iterations, Ncp(p, rh),
      SolverStatusName(ra.stats.status), ra.stats.iterations, Ncp(p, ra), (rt.v - ra.v).norm());
  ASSERT_EQ(rt.stats.status, SolverStatus::kConverged) << rt.stats.message;
  ASSERT_EQ(rh.stats.status, SolverStatus::kConverged) << rh.stats.message;
  ASSERT_EQ(ra.stats.status, SolverStatus::kConverged) << ra.stats.message;
  for (Regime reg : rt.regime) EXPECT_EQ(reg, Regime::kSliding);
  EXPECT_LT((rt.v - ra.v).norm(), 1e-8);
  EXPECT_LT((rh.v - ra.v).norm(), 1e-8);
  // The total normal impulse carries the weight (the box stays on the ground): m g δt, to the
  // velocity tolerance times the mass (1e-7 N s; 1e-6 allows ten times that).
  double sum_t = 0;
  for (int c = 0; c < 4; ++c) sum_t += rt.gamma(3 * c + 2);
  EXPECT_NEAR(sum_t, 100.0 * kGravity * dt, 1e-6);
}

TEST(CanalTresca, ResultLawsAreTheLinearCone) {
  // The returned laws are the linear law with R' = R + I/β (canal_solver.h), whatever the
  // cascade: the Tresca surrogate's disks are not left in them.
  CanalParameters prm = Canal();
  prm.cascade = CanalParameters::Cascade::kTrescaAnderson;
  const ContactProblem p = SlidingSphere();
  const SolverResult r = SolveCanal(p, p.v0, prm);
  ASSERT_EQ(r.stats.status, SolverStatus::kConverged);
  ConstraintBundle laws = r.laws;
  ASSERT_NE(laws.MutableLinearCone(0), nullptr);
  EXPECT_LT(laws.MutableLinearCone(0)->friction_bound, 0.0);
}

// ---------------------------------------------------------------------------------------------
// Random problems.

TEST(CanalSolver, RandomProblemsConverge) {
  std::mt19937 rng(7);
  // One solver: scratch and warm start reused across sizes. The plain cascade of a sliding
  // contact contracts by μ²W_tt/(W_nn + μ²W_tt) per iteration and these problems have μ up to
  // 1.5 on random Jacobians: a cap of 300 (500 such problems need at most 127, median 12, with
  // the plain cascade).
  CanalParameters prm = Canal();
  prm.max_iterations = 300;
  CanalSolver solver(prm);
  int solves = 0, total_al = 0, max_al = 0, total_newton = 0;
  double max_ncp = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int trees = std::uniform_int_distribution<int>(2, 5)(rng);
    const int cons = std::uniform_int_distribution<int>(1, 8)(rng);
    const ContactProblem p = FeasibleRandomProblem(rng, trees, cons);
    SolverResult r;
    const SolverStatus st = solver.Solve(p, p.v0, &r);
    ASSERT_EQ(st, SolverStatus::kConverged) << "trial " << trial << ": " << r.stats.message;
    ++solves;
    total_al += r.stats.iterations;
    max_al = std::max(max_al, r.stats.iterations);
    total_newton += static_cast<int>(r.stats.iteration_log.Last(kCanalNewtonTotal));
    const double ncp = Ncp(p, r);
    max_ncp = std::max(max_ncp, ncp);
    // The AL tolerance (1e-9 m/s) bounds the velocity rows of the residual; the random
    // Jacobians' entries are O(1), so impulses and velocities are O(1) as well.
    EXPECT_LT(ncp, 1e-7) << "trial " << trial;
    EXPECT_LT(r.stats.momentum_error, 1e-7) << "trial " << trial;
  }
  std::printf(
      "random problems: %d solves, AL iterations mean %.1f max %d, Newton steps mean "
      "%.1f, max NCP %.2e\n",
      solves, double(total_al) / solves, max_al, double(total_newton) / solves, max_ncp);
}

// ---------------------------------------------------------------------------------------------
// The solver contract.

TEST(CanalSolver, ExactGuessTakesZeroIterations) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 30; ++trial) {
    const ContactProblem p = FeasibleRandomProblem(rng, 3, 6);
    CanalSolver solver;
    SolverResult r1, r2;
    ASSERT_EQ(solver.Solve(p, p.v0, &r1), SolverStatus::kConverged) << r1.stats.message;
    // The second solve starts from r1's v and (warm start, same num_rows) r1's λ: a fixed point
    // of the AL map with momentum balanced, found at row 0 without any surrogate solve.
    ASSERT_EQ(solver.Solve(p, r1.v, &r2), SolverStatus::kConverged) << r2.stats.message;
    EXPECT_EQ(r2.stats.iterations, 0) << "trial " << trial;
    EXPECT_EQ(r2.stats.iteration_log.num_rows(), 1);
    EXPECT_EQ(r2.v, r1.v);  // returned as is: bitwise identical
    EXPECT_EQ(r2.gamma, r1.gamma);
  }
}

// The warm start follows constraints, not rows: the converged problem re-solved with its
// constraints in another order (keys as the simulator sets them) starts at its fixed point and
// takes 0 AL iterations; without keys (the row-count rule) the shuffled λ^0 belongs to other
// constraints and the AL has to iterate (the control: it shows the test can fail).
TEST(CanalSolver, KeyedWarmStartFollowsReorderedConstraints) {
  std::mt19937 rng(14);
  int unkeyed_iterations = 0;
  for (int trial = 0; trial < 10; ++trial) {
    ContactProblem p = FeasibleRandomProblem(rng, 3, 6);
    std::vector<int> perm(p.constraints.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(perm.size() - 1 - i);
    for (bool keyed : {true, false}) {
      ContactProblem a = p;
      for (size_t i = 0; keyed && i < a.constraints.size(); ++i) {
        a.constraints[i].key = ConstraintKeyOfContact(static_cast<int>(i), 99);
        a.constraints[i].anchor = Vec3(0, 0, static_cast<double>(i));
      }
      CanalSolver solver(Canal());
      SolverResult r1, r2;
      ASSERT_EQ(solver.Solve(a, a.v0, &r1), SolverStatus::kConverged) << r1.stats.message;
      ContactProblem b = a;
      b.constraints.clear();
      VecX gamma_b(a.num_rows);
      int row = 0;
      for (int i : perm) {
        ConstraintData c = a.constraints[i];
        gamma_b.segment(row, c.num_rows) = r1.gamma.segment(c.first_row, c.num_rows);
        c.first_row = row;
        row += c.num_rows;
        b.constraints.push_back(c);
      }
      ASSERT_EQ(solver.Solve(b, r1.v, &r2), SolverStatus::kConverged) << r2.stats.message;
      if (keyed) {
        EXPECT_EQ(r2.stats.iterations, 0) << "trial " << trial;
        // λ^0 went through the contact frame and back (C Cᵀ = I up to round-off).
        EXPECT_LT((r2.gamma - gamma_b).norm(), 1e-12 * (1 + gamma_b.norm())) << "trial " << trial;
      } else {
        unkeyed_iterations += r2.stats.iterations;
      }
    }
  }
  EXPECT_GT(unkeyed_iterations, 0);
}

// penalty_scaling: delassus gives constraint i the penalty β/w_i: the surrogate's compliance is
// R + w_i/β on every row of i and its bias shift λ w_i/β. The fixed point does not depend on the
// penalty (at λ^{l+1} = λ^l the surrogate's conditions are the problem's), so both scalings
// reach the same solution of these uniquely solvable problems, to the AL tolerance 1e-9 m/s
// over the Delassus scale (velocities; impulses relative).
TEST(CanalSolver, DelassusPenaltyScalingGivesEachConstraintBetaOverW) {
  std::mt19937 rng(23);
  ContactProblem p = FeasibleRandomProblem(rng, 3, 6);
  CanalParameters prm = Canal();
  prm.penalty_scaling = CanalParameters::PenaltyScaling::kDelassus;
  CanalLawConstants law;
  ASSERT_EQ(PrepareCanalLaw(p, prm, &law), "");
  const double beta = 30;
  ConstraintBundle laws;
  LawParameters lp;
  laws.Prepare(p, lp);
  SetCanalSurrogateLaws(p, law, beta, &laws);
  ContactProblem work = p;
  const VecX lambda = test_problems::RandomMatrix(rng, p.num_rows, 1).col(0);
  SetCanalSurrogateShift(p, law, lambda, VecX::Zero(p.constraints.size()), beta, &work);
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    ASSERT_GT(c.w, 0);
    const int r = c.first_row;
    if (const LinearConeLaw::Constants* K = laws.MutableLinearCone(static_cast<int>(i))) {
      EXPECT_DOUBLE_EQ(K->Rn, law.R(r + 2) + c.w / beta);
      EXPECT_DOUBLE_EQ(K->Rt, law.R(r) + c.w / beta);
    }
    for (int k = 0; k < c.num_rows; ++k) {
      EXPECT_DOUBLE_EQ(work.constraints[i].bias(k), c.bias(k) - lambda(r + k) * c.w / beta);
    }
  }
  for (int trial = 0; trial < 10; ++trial) {
    const ContactProblem q = FeasibleRandomProblem(rng, 3, 6);
    CanalParameters scaled = Canal();
    scaled.penalty_scaling = CanalParameters::PenaltyScaling::kDelassus;
    scaled.beta0 = 30;
    scaled.beta_max = 3000;
    const SolverResult a = SolveCanal(q, q.v0), b = SolveCanal(q, q.v0, scaled);
    ASSERT_EQ(a.stats.status, SolverStatus::kConverged) << a.stats.message;
    ASSERT_EQ(b.stats.status, SolverStatus::kConverged) << b.stats.message;
    EXPECT_LT((a.v - b.v).norm(), 1e-7 * (1 + a.v.norm())) << "trial " << trial;
    EXPECT_LT((a.gamma - b.gamma).norm(), 1e-6 * (1 + a.gamma.norm())) << "trial " << trial;
  }
}

TEST(CanalSolver, EmptyProblemReturnsTheFreeMotion) {
  std::mt19937 rng(5);
  ContactProblem p = test_problems::RandomProblem(rng, 3, 1, {});
  p.constraints.clear();
  p.num_rows = 0;
  CanalSolver solver;
  SolverResult r;
  ASSERT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged);
  EXPECT_EQ(r.v, p.v_star);
  EXPECT_EQ(r.stats.iterations, 0);
  EXPECT_EQ(r.stats.iteration_log.num_rows(), 1);
  EXPECT_EQ(r.gamma.size(), 0);
  EXPECT_EQ(r.stats.momentum_error, 0.0);
}

TEST(CanalSolver, NonFiniteInputIsReportedWithoutIterating) {
  std::mt19937 rng(11);
  const ContactProblem p = test_problems::RandomProblem(rng, 2, 3, {});
  CanalSolver solver;
  SolverResult r;
  auto expect_refused = [&](const ContactProblem& bad, const VecX& guess, const char* what) {
    EXPECT_EQ(solver.Solve(bad, guess, &r), SolverStatus::kNonFiniteInput) << what;
    EXPECT_EQ(r.stats.iterations, 0);
    EXPECT_TRUE(r.stats.iteration_log.empty());
    EXPECT_NE(r.stats.message.find(what), std::string::npos) << r.stats.message;
    EXPECT_EQ(r.v, guess);
  };
  ContactProblem bad = p;
  bad.v_star(0) = std::nan("");
  expect_refused(bad, p.v0, "v_star");
  bad = p;
  bad.A[1](0, 0) = kInf;
  expect_refused(bad, p.v0, "A block of tree 1");
  bad = p;
  bad.constraints[1].bias(0) = std::nan("");
  expect_refused(bad, p.v0, "constraint 1");
  bad = p;
  bad.constraints[0].phi0 = kInf;
  expect_refused(bad, p.v0, "phi0");
  bad = p;
  bad.constraints[0].stiffness = std::nan("");
  expect_refused(bad, p.v0, "stiffness");
  VecX guess = p.v0;
  guess(0) = kInf;
  expect_refused(p, guess, "v_guess");
  bad = p;
  bad.num_rows += 1;
  expect_refused(bad, p.v0, "malformed");
  // The valid problem still solves with the same solver object.
  EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged);
}

TEST(CanalSolver, LinearModelWithUnusedFieldsOutOfRangeStillSolves) {
  // CANAL reads only the model's type; a v_s out of SAP's range must not make Solve throw.
  ContactModelParameters contact;
  contact.stiction_tolerance = 0;
  CanalSolver solver({}, contact);
  const ContactProblem p = MakeParticle(1.0, 1e-2, kInf, 0.0, 0.5, 0.0);
  SolverResult r;
  EXPECT_NO_THROW(solver.Solve(p, VecX::Zero(3), &r));
  EXPECT_EQ(r.stats.status, SolverStatus::kConverged);
}

TEST(CanalSolver, HuntCrossleyModelsAreReportedAsUnsupported) {
  std::mt19937 rng(12);
  const ContactProblem p = test_problems::RandomProblem(rng, 2, 3, {});
  for (ContactModelType model : {ContactModelType::kLagged, ContactModelType::kLaggedRegularized,
                                 ContactModelType::kSimilar}) {
    ContactModelParameters contact;
    contact.model = model;
    CanalSolver solver({}, contact);  // stored without complaint
    EXPECT_EQ(solver.contact_model().model, model);
    SolverResult r;
    EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kUnsupportedContactModel);
    // The message names the solver, the model and the accepted one.
    EXPECT_NE(r.stats.message.find("CANAL"), std::string::npos);
    EXPECT_NE(r.stats.message.find(ContactModelName(model)), std::string::npos);
    EXPECT_NE(r.stats.message.find("linear"), std::string::npos);
    EXPECT_EQ(r.stats.iterations, 0);
    EXPECT_EQ(r.v, p.v0);
  }
}

TEST(CanalSolver, SurrogateBreakdownIsANumericalFailure) {
  // A violates the contract A ≻ 0 (−I on a tree no constraint touches): the surrogate's Newton
  // (SAP) cannot factor H, and CANAL reports that as kNumericalFailure naming the AL iteration,
  // with the guess returned (no AL iterate completed).
  ContactProblem p = MakeBox(1.0, 0.05, 1.0 / 240, kInf, 0.0, 0.5, Gravity(0), VecX::Zero(6));
  p.tree_v_start.push_back(p.nv);
  p.tree_nv.push_back(2);
  p.A.push_back(-MatX::Identity(2, 2));
  p.M.push_back(MatX::Identity(2, 2));
  p.nv += 2;
  p.v_star.conservativeResize(8);
  p.v_star.tail<2>().setZero();
  p.v0 = p.v_star;
  CanalParameters prm;
  prm.islands = false;  // as one problem, so that the bad tree is in the Newton system
  const SolverResult r = SolveCanal(p, p.v0, prm);
  EXPECT_EQ(r.stats.status, SolverStatus::kNumericalFailure);
  EXPECT_NE(r.stats.message.find("AL iteration 1"), std::string::npos) << r.stats.message;
  EXPECT_NE(r.stats.message.find("factorization_failure"), std::string::npos) << r.stats.message;
  EXPECT_EQ(r.v, p.v0);
  EXPECT_EQ(r.stats.iterations, 0);
  EXPECT_EQ(r.gamma.size(), p.num_rows);
}

TEST(CanalSolver, IterationCapIsReportedWithEveryResultFieldFilled) {
  const ContactProblem p =
      MakeBox(1.0, 0.05, 1.0 / 240, kInf, 0.0, 0.3, Gravity(0.5), VecX::Zero(6));
  CanalParameters prm;
  prm.max_iterations = 2;
  const SolverResult r = SolveCanal(p, VecX::Zero(6), prm);
  EXPECT_EQ(r.stats.status, SolverStatus::kMaxIterations);
  EXPECT_EQ(r.stats.iterations, 2);
  EXPECT_EQ(r.stats.iteration_log.num_rows(), 3);
  EXPECT_NE(r.stats.message.find("cap"), std::string::npos);
  // Every field filled for the returned iterate.
  EXPECT_EQ(r.v.size(), p.nv);
  EXPECT_EQ(r.gamma.size(), p.num_rows);
  EXPECT_EQ(r.regime.size(), p.constraints.size());
  EXPECT_EQ(r.laws.num_constraints(), 4);
  VecX vc;
  p.ConstraintVelocities(r.v, &vc);
  EXPECT_EQ(r.vc, vc);
  EXPECT_EQ(r.stats.momentum_error, MomentumError(p, r.v, r.gamma));
}

TEST(CanalSolver, IslandsAndTheMonolithicSolveAgree) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 20; ++trial) {
    test_problems::RandomProblemOptions o;
    o.group = 2;  // constraints couple trees within pairs: several islands
    const ContactProblem p = FeasibleRandomProblem(rng, 6, 8, o);
    CanalParameters on = Canal(), off = Canal();
    on.max_iterations = off.max_iterations = 300;  // μ up to 1.5: see RandomProblemsConverge
    off.islands = false;
    const SolverResult ri = SolveCanal(p, p.v0, on);
    const SolverResult rm = SolveCanal(p, p.v0, off);
    ASSERT_EQ(ri.stats.status, SolverStatus::kConverged) << ri.stats.message;
    ASSERT_EQ(rm.stats.status, SolverStatus::kConverged) << rm.stats.message;
    EXPECT_GE(ri.stats.islands.size(), 2u);
    EXPECT_TRUE(rm.stats.islands.empty());
    // Both are solutions of the same NCP to the AL tolerance (1e-9 m/s); impulses are O(1) per
    // unit velocity error in these O(1) problems.
    EXPECT_LT((ri.v - rm.v).norm(), 1e-7) << "trial " << trial;
    EXPECT_LT((ri.gamma - rm.gamma).norm(), 1e-7);
    EXPECT_EQ(ri.stats.iteration_log.num_rows(), ri.stats.iterations + 1);
    EXPECT_LT(Ncp(p, ri), 1e-7);
    EXPECT_EQ(ri.laws.num_constraints(), static_cast<int>(p.constraints.size()));
  }
}

TEST(CanalSolver, WarmStartFromThePreviousStepSavesIterations) {
  // Two consecutive steps (the second's v0 and guess: the first's v; warm λ^0: the first's λ)
  // against a cold second step (λ^0 = 0, same guess). Resting box: the warm λ^0 is already the
  // answer. Ramp box: the iterations go to the De Saxcé cascade, whose start p^0 comes from the
  // guess v in both runs, so the warm λ^0 saves nothing there (but costs nothing either).
  const double dt = 1.0 / 240;
  for (int scenario = 0; scenario < 2; ++scenario) {
    const bool ramp = scenario == 1;
    VecX v0 = VecX::Zero(6);
    v0(0) = ramp ? 0.5 : 0.0;
    const double theta = ramp ? 0.5 : 0.0;
    const ContactProblem p1 = MakeBox(1.0, 0.05, dt, kInf, 0.0, 0.3, Gravity(theta), v0);
    CanalSolver solver(Canal());
    SolverResult r1, r2, cold;
    ASSERT_EQ(solver.Solve(p1, v0, &r1), SolverStatus::kConverged);
    const ContactProblem p2 = MakeBox(1.0, 0.05, dt, kInf, 0.0, 0.3, Gravity(theta), r1.v);
    ASSERT_EQ(solver.Solve(p2, r1.v, &r2), SolverStatus::kConverged);
    CanalSolver fresh(Canal());
    ASSERT_EQ(fresh.Solve(p2, r1.v, &cold), SolverStatus::kConverged);
    std::printf("%s box, second step: warm %d AL iterations (%g Newton steps), cold %d (%g)\n",
                ramp ? "ramp" : "resting", r2.stats.iterations,
                r2.stats.iteration_log.Last(kCanalNewtonTotal), cold.stats.iterations,
                cold.stats.iteration_log.Last(kCanalNewtonTotal));
    EXPECT_LE(r2.stats.iterations, cold.stats.iterations);
    if (!ramp) {
      EXPECT_LT(r2.stats.iterations, cold.stats.iterations);
    }
    // The same velocities either way (the AL tolerance; the rigid box's four normal impulses
    // are not unique, its velocity is).
    EXPECT_LT((r2.v - cold.v).norm(), 1e-8);
    // ClearWarmStart makes the solver cold again: bit-identical to a fresh one.
    solver.ClearWarmStart();
    SolverResult again;
    solver.Solve(p2, r1.v, &again);
    EXPECT_EQ(again.v, cold.v);
    EXPECT_EQ(again.gamma, cold.gamma);
  }
}

TEST(CanalSolver, SolvesAreDeterministic) {
  const ContactProblem p = MakeStack({0.1, 5.0, 0.1}, 0.05, 1.0 / 240, kInf, 0.0, 0.5, -1e-3);
  const SolverResult a = SolveCanal(p, VecX::Zero(p.nv));
  const SolverResult b = SolveCanal(p, VecX::Zero(p.nv));
  EXPECT_EQ(a.v, b.v);  // bitwise
  EXPECT_EQ(a.gamma, b.gamma);
  EXPECT_EQ(a.stats.iterations, b.stats.iterations);
  EXPECT_EQ(a.stats.iteration_log.Column(kCanalAlResidual),
            b.stats.iteration_log.Column(kCanalAlResidual));
}

TEST(CanalSolver, ResultFieldsAreFilled) {
  const ContactProblem p =
      MakeBox(1.0, 0.05, 1.0 / 240, 1e5, 0.0, 0.3, Gravity(0.5), VecX::Zero(6));
  const SolverResult r = SolveCanal(p, VecX::Zero(6));
  ASSERT_EQ(r.stats.status, SolverStatus::kConverged);
  VecX vc;
  p.ConstraintVelocities(r.v, &vc);
  EXPECT_EQ(r.vc, vc);
  EXPECT_EQ(r.regime.size(), 4u);
  // The laws: the last surrogate's R' = R + I/β, physical v̂ (the inspector's constants).
  const double beta = r.stats.iteration_log.Last(kCanalBeta);
  const double Rn = 1 / (p.time_step * 1e5 * p.time_step);
  EXPECT_DOUBLE_EQ(r.laws.Constant(0, "R_n"), Rn + 1 / beta);
  EXPECT_DOUBLE_EQ(r.laws.Constant(0, "R_t"), 1 / beta);
  EXPECT_EQ(r.laws.Check(), "");
  EXPECT_TRUE(std::isfinite(r.stats.cost));
  EXPECT_GT(r.stats.cost, 0.0);
  // The De Saxcé complementarity of the exact law vanishes at the solution (AL tolerance
  // against O(1e-2) impulses and costs).
  EXPECT_LT(r.stats.complementarity_error, 1e-6);
  EXPECT_NE(r.stats.message.find("Newton steps"), std::string::npos);
  // Row 0 is the guess: no Newton step; later rows count them.
  const IterationLog& log = r.stats.iteration_log;
  EXPECT_EQ(log(0, kCanalNewtonIterations), 0.0);
  double sum = 0;
  for (int l = 1; l < log.num_rows(); ++l) {
    sum += log(l, kCanalNewtonIterations);
    EXPECT_EQ(log(l, kCanalNewtonTotal), sum);
    EXPECT_GE(log(l, kCanalBeta), log(l - 1, kCanalBeta));  // β never decreases
  }
  EXPECT_LT(log.Last(kCanalAlResidual), CanalParameters{}.al_tolerance);
}

TEST(CanalParametersTest, TableDeclaresTheContractAndValidates) {
  const ParamTable<CanalParameters>& t = CanalParameterTable();
  EXPECT_STREQ(t.group, "canal");
  EXPECT_STREQ(t.prefix, "solver.canal");
  for (const char* key :
       {"beta0", "kappa", "beta_max", "zeta", "al_tolerance", "newton_tolerance", "max_iterations",
        "max_newton_iterations", "sigma", "near_rigid_beta", "islands"}) {
    const ParamField<CanalParameters>* f = t.Find(key);
    ASSERT_NE(f, nullptr) << key;
    EXPECT_GT(std::string(f->spec.help).size(), 20u) << key;
  }
  // Defaults of the table and of the struct agree.
  const CanalParameters d = t.Defaults(), s{};
  for (const auto& f : t.fields) EXPECT_EQ(f.get(d), f.get(s)) << f.spec.key;
  auto message = [](CanalParameters prm) -> std::string {
    try {
      prm.Validate();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message(CanalParameters{}), "");
  CanalParameters prm;
  prm.kappa = 1;
  EXPECT_NE(message(prm).find("solver.canal.kappa = 1 is out of range"), std::string::npos);
  prm = CanalParameters{};
  prm.zeta = 1.5;
  EXPECT_NE(message(prm).find("solver.canal.zeta"), std::string::npos);
  prm = CanalParameters{};
  prm.beta0 = std::nan("");
  EXPECT_NE(message(prm).find("solver.canal.beta0"), std::string::npos);
  prm = CanalParameters{};
  prm.max_iterations = 0;
  EXPECT_THROW(CanalSolver{prm}, std::invalid_argument);
  CanalSolver solver;
  EXPECT_THROW(solver.set_parameters(prm), std::invalid_argument);
  EXPECT_STREQ(solver.name(), "CANAL");
}

TEST(CanalSolver, SeriesDeclareOneResidual) {
  const SeriesTable t = CanalSeriesTable();
  EXPECT_EQ(t.size, kNumCanalSeries);
  int residuals = 0;
  for (int i = 0; i < t.size; ++i) residuals += t[i].role == SeriesRole::kResidual ? 1 : 0;
  EXPECT_EQ(residuals, 1);
  EXPECT_EQ(t.FindRole(SeriesRole::kResidual), kCanalAlResidual);
  EXPECT_EQ(t.Find("al_residual"), kCanalAlResidual);
  EXPECT_EQ(t.Find("beta"), kCanalBeta);
  EXPECT_EQ(t.Find("newton_iterations"), kCanalNewtonIterations);
  EXPECT_EQ(CanalSolver().series(), t);
}

}  // namespace
}  // namespace contactlab
