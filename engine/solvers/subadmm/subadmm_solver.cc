// SubADMM solver (seed 001, §VI, Alg. 2): see subadmm_solver.h for the formulation.
//
// Per solve: the laws' constants (R, v̂ per row), the scaling diag(M)⁻¹, A v*, S_t = Σ_i J_itᵀJ_it
// per tree and the initial β; then row 0 (one z/λ-step at the guess) and the ADMM iterations.
// The tree factors of A_t + β S_t are computed lazily, before the first v-step that needs them
// (so a guess that converges at row 0 costs no factorization), and again after each change of β.
#include "engine/solvers/subadmm/subadmm_solver.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "engine/common/small_kernels.h"
#include "engine/solvers/common/impulse_memory.h"
#include "engine/solvers/common/problem_checks.h"
#include "engine/solvers/subadmm/subadmm_parameter_table.h"

namespace contactlab {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Largest change of β by one application of eq. 43, and the range of β around β₀: safeguards
// against a residual that is (nearly) zero, where √(θ_p/θ_d) is 0 or unbounded.
constexpr double kMaxBetaFactor = 100;
constexpr double kBetaRange = 1e8;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Order of the SubAdmmSeries enum (subadmm_solver.h).
constexpr SeriesSpec kSubAdmmSeriesSpecs[] = {
    {"primal_residual", "theta_p (primal residual)", "m/s", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, kSeriesDefaultPlot,
     "theta_p = max over constraints and trees of ||J_it v_t - z_it|| (eq. 42)"},
    {"dual_residual", "theta_d (dual residual)", "m/s", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, kSeriesDefaultPlot,
     "theta_d = max over trees of ||D_t (A_t (v_t - v*_t) - sum_i J_it^T lambda_i)|| / sqrt(m_t), "
     "D = diag(M)^-1/2, m_t the tree's mass (eq. 42, the momentum balance as a velocity)"},
    {"residual", "theta_p + theta_d", "m/s", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kResidual, kSeriesDefaultPlot,
     "the stopping residual: theta_p + theta_d < tolerance (Alg. 2)"},
    {"beta", "penalty beta", "kg", SeriesAxis::kLog, SeriesType::kReal, SeriesRole::kPlain,
     kSeriesDefaultPlot,
     "ADMM penalty used by the iteration (initial: pseudo-density; adaptive: eq. 43)"},
    {"factorizations", "tree factorizations", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u,
     "Cholesky factorizations of A_t + beta sum J_it^T J_it so far (one per tree with "
     "constraints per value of beta)"},
    {"num_stiction", "constraints: stiction", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "constraints inside the friction disk (or pushing joint limits)"},
    {"num_sliding", "constraints: sliding", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "contacts on the rim of the friction disk"},
    {"num_no_contact", "constraints: no_contact", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "constraints with zero impulse"},
};
static_assert(sizeof(kSubAdmmSeriesSpecs) / sizeof(kSubAdmmSeriesSpecs[0]) == kNumSubAdmmSeries,
              "one SeriesSpec per SubAdmmSeries entry");

// Offset of the slack z_it of block k of constraint c (size c.num_rows) in the 2 num_rows array.
inline int SlackOffset(const ConstraintData& c, int k) { return 2 * c.first_row + k * c.num_rows; }

// Σ_i |(ṽ_i + μ_i‖ṽ_t,i‖ e_n)ᵀλ_i| / (n_c ℓ), ṽ = v_c − v̂ + R λ, ℓ = ½‖v − v*‖²_A + ½ λᵀRλ: the
// complementarity of the De Saxcé form of SCC (eq. 20, C ∋ λ ⊥ ṽ + μ‖ṽ_t‖e_n ∈ C*), normalized as
// SAP's e_μ (ComplementarityError). SAP's own e_μ measures the cone complementarity of its convex
// law (ṽᵀλ = 0), which SCC does not satisfy while sliding (ṽ_tᵀλ_t < 0 there), so it is not used.
double SccComplementarityError(const ContactProblem& p, const VecX& R, const VecX& v_hat,
                               const VecX& v, const VecX& vc, const VecX& lambda) {
  const int nc = static_cast<int>(p.constraints.size());
  if (nc == 0) return 0;
  double sum = 0, cost = 0;
  for (const ConstraintData& c : p.constraints) {
    const int r = c.first_row;
    double vt[3];
    for (int k = 0; k < c.num_rows; ++k) {
      vt[k] = vc(r + k) - v_hat(r + k) + R(r + k) * lambda(r + k);
      cost += 0.5 * R(r + k) * lambda(r + k) * lambda(r + k);
    }
    double g = 0;
    for (int k = 0; k < c.num_rows; ++k) g += vt[k] * lambda(r + k);
    if (c.num_rows == 3) g += c.friction * std::hypot(vt[0], vt[1]) * lambda(r + 2);
    sum += std::abs(g);
  }
  for (int t = 0; t < p.num_trees(); ++t) {
    const int s = p.tree_v_start[t], n = p.tree_nv[t];
    const VecX dv = v.segment(s, n) - p.v_star.segment(s, n);
    cost += 0.5 * dv.dot(p.A[t] * dv);
  }
  if (!(cost > 0) || !std::isfinite(sum)) return 0;
  return sum / nc / cost;
}

}  // namespace

void SubAdmmParameters::Validate() const { SubAdmmParameterTable().Validate(*this); }

SeriesTable SubAdmmSeriesTable() { return SeriesTable::Of(kSubAdmmSeriesSpecs); }

Regime SubAdmmStrictCone(const Vec3& lambda_star, double Qt, double Qn, double mu, Vec3* lambda) {
  // Normal (eq. 36): 0 ≤ λ_n ⊥ ṽ_n = (Q_n λ_n − λ*_n)/β ≥ 0.
  const double ln = (lambda_star(2) > 0 && Qn > 0) ? lambda_star(2) / Qn : 0.0;
  (*lambda)(2) = ln;
  if (!(ln > 0)) {
    (*lambda)(0) = (*lambda)(1) = 0;
    return Regime::kNoContact;
  }
  // Tangent (eq. 38): ṽ_t = (Q_t λ_t − λ*_t)/β is 0 inside the disk ‖λ_t‖ ≤ μ λ_n; on its rim
  // λ*_t = (Q_t + βδ) λ_t with δ ≥ 0, i.e. λ_t along λ*_t, which needs ‖λ*_t‖ ≥ Q_t μ λ_n.
  const double radius = mu * ln;
  const double xr = std::hypot(lambda_star(0), lambda_star(1));
  if (xr <= radius * Qt) {
    const double inv = Qt > 0 ? 1.0 / Qt : 0.0;  // Q_t = 0 here only with λ*_t = 0
    (*lambda)(0) = lambda_star(0) * inv;
    (*lambda)(1) = lambda_star(1) * inv;
    return Regime::kStiction;
  }
  const double scale = radius / xr;  // xr > 0 here
  (*lambda)(0) = lambda_star(0) * scale;
  (*lambda)(1) = lambda_star(1) * scale;
  return Regime::kSliding;
}

Regime SubAdmmStrictUnilateral(double lambda_star, double Q, double* lambda) {
  *lambda = (lambda_star > 0 && Q > 0) ? lambda_star / Q : 0.0;
  return *lambda > 0 ? Regime::kStiction : Regime::kNoContact;
}

ConstraintBundle PrepareSubAdmmLaws(const ContactProblem& problem,
                                    const SubAdmmParameters& params) {
  LawParameters lp;  // contact model: linear
  lp.sigma = params.sigma;
  lp.beta = params.near_rigid_beta;        // 0: the clamp β²w/(4π²) is 0, R_n is physical
  lp.limit_beta = params.near_rigid_beta;  // (ConstraintData::beta > 0 still overrides it)
  ConstraintBundle laws;
  laws.Prepare(problem, lp);
  // Rigid constraints: v̂ = −φ0/δt (velocity-level Signorini, the NCP residual's rigid law)
  // instead of the linear law's −φ0/(δt + τ_d).
  const double dt = problem.time_step;
  for (int i = 0; i < static_cast<int>(problem.constraints.size()); ++i) {
    const ConstraintData& c = problem.constraints[i];
    if (!(c.stiffness == std::numeric_limits<double>::infinity())) continue;
    if (LinearConeLaw::Constants* K = laws.MutableLinearCone(i)) K->vn_hat = -c.phi0 / dt;
    if (LinearLimitLaw::Constants* K = laws.MutableLinearLimit(i)) K->v_hat = -c.phi0 / dt;
    if (HolonomicConstants* K = laws.MutableHolonomic(i)) {
      for (int k = 0; k < c.num_rows; ++k) K->v_hat[k] = -c.g0(k) / dt;
    }
  }
  return laws;
}

bool SubAdmmDenseVStep(const ContactProblem& problem, double beta, const VecX& z,
                       const VecX& lambda, VecX* v) {
  MatX K = problem.DenseA();
  VecX rhs = K * problem.v_star;
  for (const ConstraintData& c : problem.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      MatX J = MatX::Zero(c.num_rows, problem.nv);
      J.middleCols(problem.tree_v_start[b.tree], problem.tree_nv[b.tree]) = b.J;
      K += beta * J.transpose() * J;
      rhs += J.transpose() * (beta * z.segment(SlackOffset(c, k), c.num_rows) +
                              lambda.segment(c.first_row, c.num_rows));
    }
  }
  Eigen::LLT<MatX> llt(K);
  if (llt.info() != Eigen::Success) return false;
  *v = llt.solve(rhs);
  return true;
}

double SubAdmmAugmentedLagrangian(const ContactProblem& problem, double beta, const VecX& z,
                                  const VecX& lambda, const VecX& v) {
  const VecX dv = v - problem.v_star;
  double L = 0.5 * dv.dot(problem.DenseA() * dv);
  for (const ConstraintData& c : problem.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      const VecX e = b.J * v.segment(problem.tree_v_start[b.tree], problem.tree_nv[b.tree]) -
                     z.segment(SlackOffset(c, k), c.num_rows);
      L += -lambda.segment(c.first_row, c.num_rows).dot(e) + 0.5 * beta * e.squaredNorm();
    }
  }
  return L;
}

// Working memory of one solve, kept between solves (repeated solves of same-sized problems do not
// allocate in the iterations), and the warm-start impulses.
struct SubAdmmSolver::Scratch {
  ConstraintBundle laws;              // the laws solved (PrepareSubAdmmLaws)
  VecX R, v_hat;                      // num_rows: R [1/kg], v̂ [m/s] per row
  VecX d_scale;                       // nv: (m_t diag(M_t))^(-1/2) [1/kg] (A's diagonal without M)
  std::vector<double> tree_mass;      // per tree: m_t [kg] (0: no constraint)
  VecX Av_star;                       // nv: A v* [N s]
  std::vector<int> tree_ncon;         // per tree: constraints with a block on it
  std::vector<MatX> S;                // per tree: Σ_i J_itᵀJ_it (trees with constraints)
  std::vector<Eigen::LLT<MatX>> llt;  // per tree: A_t + β S_t
  VecX v;                             // nv: iterate [m/s]
  VecX rhs;                           // nv: v-step right-hand side [N s]
  VecX lambda, lambda_prev;           // num_rows: λ^{l+1}, λ^l [N s]
  VecX z;                             // 2 num_rows: slacks z_it [m/s] (SlackOffset)
  VecX jv;                            // 2 num_rows: J_it v_t [m/s]
  VecX jt;                            // nv: Jᵀλ [N s]
  VecX av;                            // max tree nv: A_t v_t
  std::vector<Regime> regime;         // per constraint, at λ
  VecX v_best, lambda_best;           // the iterate with the smallest θ_p + θ_d
  std::vector<Regime> regime_best;
  DualWarmStart warm;    // the last solve's returned λ, per constraint (impulse_memory.h)
  double warm_beta = 0;  // the last solve's final β [kg]
};

SubAdmmSolver::SubAdmmSolver(const SubAdmmParameters& params, const ContactModelParameters& contact)
    : scratch_(std::make_unique<Scratch>()) {
  set_parameters(params);
  set_contact_model(contact);
}

SubAdmmSolver::~SubAdmmSolver() = default;

void SubAdmmSolver::set_parameters(const SubAdmmParameters& p) {
  p.Validate();
  params_ = p;
}

void SubAdmmSolver::ResetWarmStart() {
  scratch_->warm.Clear();
  scratch_->warm_beta = 0;
}

SolverStatus SubAdmmSolver::Solve(const ContactProblem& problem, const VecX& v_guess,
                                  SolverResult* result) {
  const auto t_start = Clock::now();
  Scratch& s = *scratch_;
  const SubAdmmParameters& prm = params_;
  SolverStats& stats = result->stats;
  {
    // stats = SolverStats{}, keeping the log's storage.
    IterationLog log = std::move(stats.iteration_log);
    IterationLog island_log = std::move(stats.island_log);
    stats = SolverStats{};
    stats.iteration_log = std::move(log);
    stats.island_log = std::move(island_log);
    stats.iteration_log.Reset(SubAdmmSeriesTable());
    stats.island_log.Reset(SubAdmmSeriesTable());
  }
  stats.cost = kNaN;  // no objective: SCC with friction is not the optimality condition of one
  auto fail = [&](SolverStatus status, const std::string& message) {
    FailResult(problem, v_guess, status, message, SubAdmmSeriesTable(), result);
    stats.cost = kNaN;
    stats.solve_ms = MsSince(t_start);
    return status;
  };

  // Validation before any iteration.
  std::string error = CheckProblemStructure(problem, v_guess);
  if (!error.empty()) {
    result->laws = ConstraintBundle{};
    return fail(SolverStatus::kNonFiniteInput, error);
  }
  if (contact_.model != ContactModelType::kLinear) {
    result->laws = ConstraintBundle{};
    return fail(SolverStatus::kUnsupportedContactModel,
                std::string("SubADMM does not solve the contact model '") +
                    ContactModelName(contact_.model) +
                    "': it accepts the linear model only (compliant Signorini-Coulomb with "
                    "R_n = 1/(dt k (dt + tau_d)))");
  }
  error = CheckProblemFinite(problem, v_guess);
  if (!error.empty()) {
    result->laws = ConstraintBundle{};
    return fail(SolverStatus::kNonFiniteInput, error);
  }
  s.laws = PrepareSubAdmmLaws(problem, prm);
  result->laws = s.laws;
  s.laws.LinearRows(&s.R, &s.v_hat);  // always linear laws here
  const int nv = problem.nv;
  const int nr = problem.num_rows;
  const int nc = static_cast<int>(problem.constraints.size());
  const int nt = problem.num_trees();
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    // k > 0 (+inf: rigid) and τ_d >= 0 explicitly: a NaN k or τ_d would reach R_n as the clamp
    // (std::max drops a NaN second argument) instead of failing.
    bool ok = c.stiffness > 0 && std::isfinite(c.dissipation_time) && c.dissipation_time >= 0 &&
              (c.num_rows != 3 || (std::isfinite(c.friction) && c.friction >= 0));
    for (int k = 0; ok && k < c.num_rows; ++k) {
      const double R = s.R(c.first_row + k);
      ok = std::isfinite(R) && R >= 0 && std::isfinite(s.v_hat(c.first_row + k));
    }
    if (!ok) {
      std::ostringstream os;
      os << "constraint " << i
         << ": needs k > 0 (inf: rigid), finite tau_d >= 0, finite mu >= 0, and finite R >= 0 "
            "and v_hat (check w and phi0)";
      return fail(SolverStatus::kNonFiniteInput, os.str());
    }
  }

  IterationLog& log = stats.iteration_log;
  auto add_row = [&](double tp, double td, double beta, int factorizations, const int* counts) {
    double* row = log.AddRow();
    row[kSubAdmmPrimalResidual] = tp;
    row[kSubAdmmDualResidual] = td;
    row[kSubAdmmResidual] = tp + td;
    row[kSubAdmmBeta] = beta;
    row[kSubAdmmFactorizations] = factorizations;
    row[kSubAdmmNumStiction] = counts[0];
    row[kSubAdmmNumSliding] = counts[1];
    row[kSubAdmmNumNoContact] = counts[2];
  };

  // Empty problem: v = v*, nothing to iterate.
  if (nc == 0) {
    result->v = problem.v_star;
    result->vc.resize(0);
    result->gamma.resize(0);
    result->regime.clear();
    const int zeros[3] = {0, 0, 0};
    add_row(0, 0, kNaN, 0, zeros);
    stats.status = SolverStatus::kConverged;
    stats.momentum_error = MomentumError(problem, result->v, result->gamma);
    s.warm.Clear();
    stats.solve_ms = MsSince(t_start);
    return stats.status;
  }

  // Scaling of θ_d: 1/diag(M) here, times 1/m_t below once the tree masses are known.
  const bool have_M = static_cast<int>(problem.M.size()) == nt;
  s.d_scale.resize(nv);
  s.Av_star.resize(nv);
  int max_nv = 0;
  for (int t = 0; t < nt; ++t) {
    const int st = problem.tree_v_start[t], n = problem.tree_nv[t];
    if (n == 0) continue;
    max_nv = std::max(max_nv, n);
    const MatX& Mt = have_M ? problem.M[t] : problem.A[t];
    for (int j = 0; j < n; ++j) {
      if (!(Mt(j, j) > 0)) {
        std::ostringstream os;
        os << "diag(M) of tree " << t << " has a non-positive entry";
        return fail(SolverStatus::kNonFiniteInput, os.str());
      }
      s.d_scale(st + j) = 1.0 / Mt(j, j);  // made D_t/√m_t once m_t is known
    }
    kernels::SetAx(problem.A[t].data(), n, problem.v_star.data() + st, s.Av_star.data() + st);
  }
  s.av.resize(max_nv);

  // Per tree: constraint count and S_t = Σ_i J_itᵀJ_it.
  s.tree_ncon.assign(nt, 0);
  for (const ConstraintData& c : problem.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) ++s.tree_ncon[c.blocks[k].tree];
  }
  if (static_cast<int>(s.S.size()) < nt) s.S.resize(nt);
  if (static_cast<int>(s.llt.size()) < nt) s.llt.resize(nt);
  int factored_trees = 0;  // trees with constraints and dofs: one factorization each per β
  for (int t = 0; t < nt; ++t) {
    if (s.tree_ncon[t] > 0 && problem.tree_nv[t] > 0) {
      s.S[t].setZero(problem.tree_nv[t], problem.tree_nv[t]);
      ++factored_trees;
    }
  }
  for (const ConstraintData& c : problem.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      if (problem.tree_nv[b.tree] > 0) s.S[b.tree].noalias() += b.J.transpose() * b.J;
    }
  }

  // Tree masses m_t: the mean over the constraints on tree t of 1/λ_min(J_it A_t⁻¹ J_itᵀ) (the
  // smallest positive eigenvalue), the largest mass the constraint sees: for a point on a free
  // body, the body's mass m_b of the paper's pseudo-density (the direction through the centre of
  // mass moves the body without turning it); for a joint limit, the dof's effective inertia.
  s.tree_mass.assign(nt, 0.0);
  {
    std::vector<int> mass_count(nt, 0);
    for (int t = 0; t < nt; ++t) {
      if (s.tree_ncon[t] == 0 || problem.tree_nv[t] == 0) continue;
      s.llt[t].compute(problem.A[t]);
      if (s.llt[t].info() != Eigen::Success) {
        std::ostringstream os;
        os << "the A block of tree " << t << " is not positive definite (Cholesky failed)";
        return fail(SolverStatus::kNumericalFailure, os.str());
      }
    }
    for (const ConstraintData& c : problem.constraints) {
      for (int k = 0; k < c.num_blocks; ++k) {
        const TreeJacobianBlock& b = c.blocks[k];
        if (problem.tree_nv[b.tree] == 0) continue;
        const MatX W = b.J * s.llt[b.tree].solve(b.J.transpose());  // J_it A_t⁻¹ J_itᵀ
        const VecX eig = Eigen::SelfAdjointEigenSolver<MatX>(W, Eigen::EigenvaluesOnly)
                             .eigenvalues();  // increasing
        const double max_eig = eig(eig.size() - 1);
        double min_eig = 0;
        for (int e = 0; e < eig.size() && min_eig == 0; ++e) {
          if (eig(e) > 1e-12 * max_eig) min_eig = eig(e);
        }
        if (min_eig > 0 && std::isfinite(min_eig)) {
          s.tree_mass[b.tree] += 1.0 / min_eig;
          ++mass_count[b.tree];
        }
      }
    }
    for (int t = 0; t < nt; ++t) {
      if (mass_count[t] > 0) s.tree_mass[t] /= mass_count[t];
    }
  }

  // Initial β (§VI-D): beta_scale × the geometric mean over trees with constraints of the
  // pseudo-density m_t / n_t.
  double beta = 0;
  {
    double log_sum = 0;
    int count = 0;
    for (int t = 0; t < nt; ++t) {
      if (!(s.tree_mass[t] > 0)) continue;
      log_sum += std::log(s.tree_mass[t] / s.tree_ncon[t]);
      ++count;
    }
    // No tree sees a constraint (every Jacobian zero): β only scales the slacks; 1 kg.
    beta = prm.beta_scale * (count > 0 ? std::exp(log_sum / count) : 1.0);
    if (!(beta > 0 && std::isfinite(beta))) {
      return fail(SolverStatus::kNumericalFailure,
                  "the initial penalty beta is not finite and positive (check A and J)");
    }
  }
  // Scaling of θ_d per tree: D_t/√m_t, D_t = diag(M_t)^(-1/2). Trees without a mass (no
  // constraint: v_t = v*_t exactly, r_t = 0) use 1 kg.
  for (int t = 0; t < nt; ++t) {
    const int st = problem.tree_v_start[t], n = problem.tree_nv[t];
    const double m = s.tree_mass[t] > 0 ? s.tree_mass[t] : 1.0;
    for (int j = 0; j < n; ++j) s.d_scale(st + j) = std::sqrt(s.d_scale(st + j) / m);
  }
  const double beta_min = beta / kBetaRange, beta_max = beta * kBetaRange;

  // Starting λ: the previous solve's, matched per constraint (impulse_memory.h; 0 for a new
  // constraint): a wrong start only costs iterations, never the solution.
  const bool warm = prm.warm_start && s.warm.Recall(problem, &s.lambda) > 0;
  if (!warm) s.lambda.setZero(nr);
  // β too: the previous solve's final β balanced the residuals of a problem of the same shape,
  // where the pseudo-density is only a first estimate (kept within kBetaRange of this β₀).
  if (warm && s.warm_beta > 0) beta = std::clamp(s.warm_beta, beta_min, beta_max);
  s.lambda_prev.resize(nr);
  s.z.resize(2 * nr);
  s.jv.resize(2 * nr);
  s.jt.resize(nv);
  s.rhs.resize(nv);
  s.regime.resize(nc);
  // The guess, except on trees without constraints: their exact v_t = v*_t is taken at once, so
  // that a solve that stops at row 0 returns them exact too.
  s.v = v_guess;
  for (int t = 0; t < nt; ++t) {
    if (s.tree_ncon[t] == 0) {
      s.v.segment(problem.tree_v_start[t], problem.tree_nv[t]) =
          problem.v_star.segment(problem.tree_v_start[t], problem.tree_nv[t]);
    }
  }

  // z/λ-step (eqs. 35-39) at the current v from λ^l (moved to lambda_prev); returns θ_p and the
  // regime counts (stiction, sliding, no contact).
  int counts[3];
  auto z_step = [&]() {
    std::swap(s.lambda, s.lambda_prev);
    counts[0] = counts[1] = counts[2] = 0;
    double theta_p = 0;
    for (int i = 0; i < nc; ++i) {
      const ConstraintData& c = problem.constraints[i];
      const int m = c.num_rows, r0 = c.first_row, nb = c.num_blocks;
      double jv_sum[3] = {0, 0, 0};
      for (int k = 0; k < nb; ++k) {
        const TreeJacobianBlock& b = c.blocks[k];
        double* jv = s.jv.data() + SlackOffset(c, k);
        for (int r = 0; r < m; ++r) jv[r] = 0;
        kernels::AddJx(b.J.data(), m, problem.tree_nv[b.tree],
                       s.v.data() + problem.tree_v_start[b.tree], jv);
        for (int r = 0; r < m; ++r) jv_sum[r] += jv[r];
      }
      // λ* = −(Σ_t y_it + β(b_i − v̂_i)), y_it = β J_it v_t − λ_i^l; Q = |Z_i| + β R.
      const double* lp = s.lambda_prev.data() + r0;
      double ls[3], Q[3];
      for (int r = 0; r < m; ++r) {
        ls[r] = -beta * (jv_sum[r] + c.bias(r) - s.v_hat(r0 + r)) + nb * lp[r];
        Q[r] = nb + beta * s.R(r0 + r);
      }
      double* l = s.lambda.data() + r0;
      Regime regime;
      if (c.kind == ConstraintKind::kBilateral) {
        // K = ℝ^m: the z/λ-step's projection is the identity, λ = λ*/Q per row.
        for (int r = 0; r < m; ++r) l[r] = Q[r] > 0 ? ls[r] / Q[r] : 0.0;
        regime = Regime::kStiction;
      } else if (m == 3) {
        Vec3 lam;
        regime = SubAdmmStrictCone(Vec3(ls[0], ls[1], ls[2]), Q[0], Q[2], c.friction, &lam);
        l[0] = lam(0);
        l[1] = lam(1);
        l[2] = lam(2);
      } else {
        regime = SubAdmmStrictUnilateral(ls[0], Q[0], l);
      }
      s.regime[i] = regime;
      ++counts[static_cast<int>(regime)];
      // z_it = (y_it + λ_i)/β = J_it v_t + (λ_i − λ_i^l)/β, so ‖J_it v_t − z_it‖ = ‖Δλ_i‖/β for
      // every block of constraint i (θ_p is formed from Δλ directly, without the cancellation).
      double d2 = 0;
      double dl[3];
      for (int r = 0; r < m; ++r) {
        dl[r] = (l[r] - lp[r]) / beta;
        d2 += dl[r] * dl[r];
      }
      for (int k = 0; k < nb; ++k) {
        double* z = s.z.data() + SlackOffset(c, k);
        const double* jv = s.jv.data() + SlackOffset(c, k);
        for (int r = 0; r < m; ++r) z[r] = jv[r] + dl[r];
      }
      if (nb > 0) theta_p = std::max(theta_p, std::sqrt(d2));
    }
    return theta_p;
  };

  // θ_d = max_t ‖D_t (A_t(v_t − v*_t) − Σ_i J_itᵀλ_i)‖/√m_t at the current v and λ.
  auto dual_residual = [&]() {
    s.jt.setZero();
    problem.AddJacobianTransposeTimes(s.lambda, &s.jt);
    double theta_d = 0;
    for (int t = 0; t < nt; ++t) {
      const int st = problem.tree_v_start[t], n = problem.tree_nv[t];
      if (n == 0) continue;
      kernels::SetAx(problem.A[t].data(), n, s.v.data() + st, s.av.data());
      double r2 = 0;
      for (int j = 0; j < n; ++j) {
        const double r = (s.av(j) - s.Av_star(st + j) - s.jt(st + j)) * s.d_scale(st + j);
        r2 += r * r;
      }
      theta_d = std::max(theta_d, std::sqrt(r2));
    }
    return theta_d;
  };

  // v-step (eq. 34): (A_t + β S_t) v_t = A_t v*_t + Σ_i J_itᵀ(β z_it + λ_i) per tree; trees
  // without constraints take v*.
  auto v_step = [&]() {
    s.rhs = s.Av_star;
    for (const ConstraintData& c : problem.constraints) {
      const double* l = s.lambda.data() + c.first_row;
      for (int k = 0; k < c.num_blocks; ++k) {
        const TreeJacobianBlock& b = c.blocks[k];
        const double* z = s.z.data() + SlackOffset(c, k);
        double w[3];
        for (int r = 0; r < c.num_rows; ++r) w[r] = beta * z[r] + l[r];
        kernels::AddJtx(b.J.data(), c.num_rows, problem.tree_nv[b.tree], w,
                        s.rhs.data() + problem.tree_v_start[b.tree]);
      }
    }
    for (int t = 0; t < nt; ++t) {
      const int st = problem.tree_v_start[t], n = problem.tree_nv[t];
      if (n == 0) continue;
      if (s.tree_ncon[t] == 0) {
        s.v.segment(st, n) = problem.v_star.segment(st, n);
      } else {
        s.llt[t].solveInPlace(s.rhs.segment(st, n));
        s.v.segment(st, n) = s.rhs.segment(st, n);
      }
    }
  };

  // Factors A_t + β S_t of every tree with constraints; false (with the message) on failure.
  int factorizations = 0;
  auto factor = [&](std::string* message) {
    for (int t = 0; t < nt; ++t) {
      if (s.tree_ncon[t] == 0 || problem.tree_nv[t] == 0) continue;
      s.llt[t].compute(problem.A[t] + beta * s.S[t]);
      ++factorizations;
      if (s.llt[t].info() != Eigen::Success) {
        std::ostringstream os;
        os << "tree " << t << ": A_t + beta sum J^T J is not positive definite (Cholesky failed, "
           << "beta = " << beta << ")";
        *message = os.str();
        return false;
      }
    }
    return true;
  };

  log.Reserve(std::min(prm.max_iterations, 1000) + 1);
  auto all_finite = [&]() { return std::isfinite(s.v.sum() * 0.0 + s.lambda.sum() * 0.0); };
  auto keep_best = [&]() {
    s.v_best = s.v;
    s.lambda_best = s.lambda;
    s.regime_best = s.regime;
  };

  // Row 0: the guess, after one z/λ-step from the starting λ.
  double theta_p = z_step();
  double theta_d = dual_residual();
  add_row(theta_p, theta_d, beta, 0, counts);
  double best = theta_p + theta_d;
  int best_iteration = 0;
  SolverStatus status = SolverStatus::kMaxIterations;
  std::string message;
  if (!all_finite() || !std::isfinite(best)) {
    status = SolverStatus::kNumericalFailure;
    message = "SubADMM: non-finite impulses at the guess; returned the guess with zero impulses";
    s.v = v_guess;
    s.lambda.setZero();
    s.regime.assign(nc, Regime::kNoContact);
    best = std::numeric_limits<double>::infinity();
  } else if (best < prm.tolerance) {
    status = SolverStatus::kConverged;
  }
  keep_best();

  int iterations = 0;
  bool need_factor = true;
  while (status == SolverStatus::kMaxIterations && iterations < prm.max_iterations) {
    if (need_factor) {
      if (!factor(&message)) {
        status = SolverStatus::kNumericalFailure;
        break;
      }
      need_factor = false;
    }
    ++iterations;
    const double beta_used = beta;
    v_step();
    theta_p = z_step();
    theta_d = dual_residual();
    add_row(theta_p, theta_d, beta_used, factorizations, counts);
    const double res = theta_p + theta_d;
    if (!all_finite() || !std::isfinite(res)) {
      std::ostringstream os;
      os << "non-finite iterate at iteration " << iterations << " (beta = " << beta_used << ")";
      message = os.str();
      status = SolverStatus::kNumericalFailure;
      break;
    }
    if (res < best) {
      best = res;
      best_iteration = iterations;
      keep_best();
    }
    if (res < prm.tolerance) {
      status = SolverStatus::kConverged;
      break;
    }
    // Residual balancing (eq. 43).
    if (prm.adaptive_beta && iterations % prm.beta_update_interval == 0 && theta_p > 0 &&
        theta_d > 0 &&
        (theta_p > prm.balance_ratio * theta_d || theta_d > prm.balance_ratio * theta_p)) {
      const double f =
          std::clamp(std::sqrt(theta_p / theta_d), 1.0 / kMaxBetaFactor, kMaxBetaFactor);
      const double new_beta = std::clamp(beta * f, beta_min, beta_max);
      if (new_beta != beta) {
        beta = new_beta;
        need_factor = true;
      }
    }
  }

  if (status == SolverStatus::kMaxIterations) {
    std::ostringstream os;
    os << "SubADMM: theta_p + theta_d = " << log.Last(kSubAdmmResidual) << " m/s after "
       << iterations << " iterations (tolerance " << prm.tolerance
       << "); returned the iterate of iteration " << best_iteration << " (" << best << " m/s)";
    message = os.str();
  } else if (status == SolverStatus::kNumericalFailure && std::isfinite(best)) {
    message = "SubADMM: " + message + "; returned the iterate of iteration " +
              std::to_string(best_iteration);
  }

  result->v = s.v_best;
  result->gamma = s.lambda_best;
  result->regime = s.regime_best;
  problem.ConstraintVelocities(result->v, &result->vc);
  stats.status = status;
  stats.message = message;
  stats.iterations = iterations;
  stats.momentum_error = MomentumError(problem, result->v, result->gamma);
  stats.complementarity_error =
      SccComplementarityError(problem, s.R, s.v_hat, result->v, result->vc, result->gamma);
  s.warm.Store(problem, s.lambda_best);
  s.warm_beta = beta;
  stats.solve_ms = MsSince(t_start);
  return status;
}

}  // namespace contactlab
