// CANAL (seed 001, §V, Alg. 1): the AL loop around SAP's Newton method. See canal_solver.h for
// the formulation; this file holds the constants of the exact law, the surrogate's laws and
// biases, the AL iteration, the island path and the result.
#include "engine/solvers/canal/canal_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "engine/contact/constraint_laws.h"
#include "engine/solvers/canal/anderson.h"
#include "engine/solvers/canal/canal_parameter_table.h"
#include "engine/solvers/common/impulse_memory.h"
#include "engine/solvers/common/problem_checks.h"

namespace contactlab {

void CanalParameters::Validate() const { CanalParameterTable().Validate(*this); }

namespace {

// Order of the CanalSeries enum (canal_solver.h).
constexpr SeriesSpec kCanalSeriesSpecs[] = {
    {"al_residual", "AL residual (slack and cascade)", "m/s", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kResidual, kSeriesDefaultPlot,
     "sqrt(||J v - z||^2 + cascade_residual^2): the change of the surrogate's slack z and frozen "
     "De Saxce term p (eq. 21) over the AL iteration, the stopping test; row 0: the first "
     "surrogate's impulse at the guess against lambda^0"},
    {"slack_residual", "||J v - z||", "m/s", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, kSeriesDefaultPlot,
     "||J v - z|| = ||lambda^{l+1} - lambda^l|| / beta (Alg. 1, digest 2.8): the paper's AL "
     "residual; beta grows when it stalls"},
    {"cascade_residual", "De Saxce lag", "m/s", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, 0u,
     "the exact law's normal-velocity error left by the frozen De Saxce term p_i = mu_i "
     "||v~_i,t|| (eq. 20-21): |p^{l+1} - p^l| for a loaded contact, max(0, -v~_n) for one out of "
     "contact; the lag of the cascade, which beta does not speed up"},
    {"beta", "AL penalty beta", "kg", SeriesAxis::kLog, SeriesType::kReal, SeriesRole::kPlain,
     kSeriesDefaultPlot,
     "penalty of the surrogate that produced the iterate; grows by kappa when the AL residual "
     "stalls (eq. 27)"},
    {"newton_iterations", "Newton steps", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, kSeriesDefaultPlot | kSeriesPerStep,
     "Newton steps (SAP's, eq. 23-26) of the surrogate that produced the iterate (0 at the "
     "guess)"},
    {"newton_total", "Newton steps (cumulative)", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u,
     "Newton steps since the start of the solve: its growth per AL iteration falls as the "
     "surrogates warm-start (the paper's sublinear time per iteration)"},
    {"gradient_norm", "||D r(v)||", "sqrt(J)", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, 0u,
     "||D (A (v - v*) - J^T lambda)|| at the end of the surrogate (r of eq. 21, scaled like "
     "SAP's eq. 26, D = diag(M)^(-1/2)); row 0 with lambda^0"},
    {"momentum_residual", "e_m (momentum residual)", "", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, 0u,
     "e_m = ||D r|| / max(||D p||, ||D J^T lambda||) (SAP eq. 32) at the iterate"},
    {"line_search_iterations", "line-search iterations", "", SeriesAxis::kLinear,
     SeriesType::kInteger, SeriesRole::kPlain, kSeriesPerStep,
     "rtsafe iterations of the exact line searches (eq. 26) of the surrogate's Newton steps"},
    {"num_stiction", "constraints: stiction", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u,
     "constraints inside the friction cone under the surrogate's projection (eq. 23 'stick')"},
    {"num_sliding", "constraints: sliding", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u,
     "constraints on the cone's boundary under the surrogate's projection ('slip')"},
    {"num_no_contact", "constraints: no_contact", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u,
     "constraints with zero impulse under the surrogate's projection ('open')"},
};
static_assert(sizeof(kCanalSeriesSpecs) / sizeof(kCanalSeriesSpecs[0]) == kNumCanalSeries,
              "one SeriesSpec per CanalSeries entry");

using Clock = std::chrono::steady_clock;

// Anderson's trust region (cascade: anderson): an extrapolation moves the state (λ/β, p) at most
// `reach` times the length of the plain step F(x) − x. It starts at kAndersonReachStart, doubles
// after each extrapolation that lowered the AL residual and is quartered (not below 1, the plain
// step's length) after one that raised it. A single difference extrapolates a contact whose
// cascade contracts by c by 1/(1 − c) plain steps (10 at c = 0.9): the doubling reaches that in
// a few iterations, while a first extrapolation across a regime change costs little.
constexpr double kAndersonReachStart = 2;
constexpr double kAndersonReachMin = 1;
constexpr double kAndersonReachMax = 1e8;
constexpr double kAndersonReachGrow = 2;
constexpr double kAndersonReachShrink = 0.25;

// A surrogate whose Newton solve reached its cap with e_m <= kNewtonFloorFactor × newton_tolerance
// is at its round-off floor (β ε ‖v_c‖ in the impulses) and accepted as solved.
constexpr double kNewtonFloorFactor = 100;

// cascade: hybrid leaves the Tresca cascade for the De Saxcé one after kHybridStall AL
// iterations that did not lower the Tresca phase's best AL residual by the factor
// kHybridProgress.
constexpr double kHybridProgress = 0.5;
constexpr int kHybridStall = 3;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// stats = SolverStats{} keeping the storage of the logs and the island list.
void ResetStats(SolverStats* stats) {
  IterationLog log = std::move(stats->iteration_log);
  IterationLog island_log = std::move(stats->island_log);
  std::vector<IslandSummary> islands = std::move(stats->islands);
  log.Reset(CanalSeriesTable());
  island_log.Reset(CanalSeriesTable());
  islands.clear();
  *stats = SolverStats{};
  stats->iteration_log = std::move(log);
  stats->island_log = std::move(island_log);
  stats->islands = std::move(islands);
}

// The regime counts of a row.
void StoreRegimeCounts(const std::vector<Regime>& regime, double* row) {
  int n[3] = {0, 0, 0};
  for (Regime r : regime) ++n[static_cast<int>(r)];
  row[kCanalNumStiction] = n[static_cast<int>(Regime::kStiction)];
  row[kCanalNumSliding] = n[static_cast<int>(Regime::kSliding)];
  row[kCanalNumNoContact] = n[static_cast<int>(Regime::kNoContact)];
}

}  // namespace

SeriesTable CanalSeriesTable() { return SeriesTable::Of(kCanalSeriesSpecs); }

// Working memory of one solve, kept between solves (and the warm-start impulses).
struct CanalSolver::Scratch {
  // The exact law's constants (R, v̂ per row; μ, near-rigid flag per constraint).
  CanalLawConstants law;
  VecX D;                 // nv, diag(M)^(-1/2) [1/√kg]
  ContactProblem work;    // the problem with the surrogate's biases b + p^l − λ^l/β
  ConstraintBundle laws;  // the surrogate's linear laws: R + I/β, v̂
  SapSolver inner;        // the surrogates' Newton solver (islands off)
  SolverResult inner_result;
  VecX v;           // nv, AL iterate v^l [m/s]
  VecX lambda;      // num_rows, λ^l [N s]
  VecX vc;          // num_rows, J v + b [m/s]
  VecX v_tilde;     // num_rows, ṽ^l = z^l − v̂ + Rλ^l [m/s]
  VecX p;           // per constraint, the frozen De Saxcé term μ‖ṽ^l_t‖ (cones) [m/s]
  VecX p_next;      // per constraint, p^{l+1} = μ‖ṽ^{l+1}_t‖ [m/s]
  VecX vc_shift;    // num_rows, J v + b' (surrogate biases) [m/s]
  VecX gamma_eval;  // num_rows, the surrogate's λ(v) at the guess [N s]
  VecX jc;          // nv, Jᵀλ
  VecX beta_row;    // num_rows, β_i of each row [kg]
  std::vector<Regime> regime;
  // The iterate returned on the iteration cap (smallest AL residual) and on convergence (last).
  VecX v_best, gamma_best;
  std::vector<Regime> regime_best;
  double beta_best = 0, cost_best = 0, residual_best = 0;
  // Anderson acceleration of the cascade: the state x = (λ^l/β, p^l) [m/s] (num_rows + nc), its
  // image f = (λ^{l+1}/β, p^{l+1}) and the extrapolated next state.
  AndersonAccelerator anderson;
  VecX aa_x, aa_f, aa_next;
  // The plain step (λ^{l+1}, p^{l+1}) and v^{l+1} that an extrapolation replaced.
  VecX lambda_plain, p_plain, v_plain;
  // λ of the previous solve, recalled per constraint identity (impulse_memory.h).
  DualWarmStart warm;
  // Island path: one child CanalSolver per island slot.
  IslandSplitter islands;
};

CanalSolver::CanalSolver(const CanalParameters& params, const ContactModelParameters& contact)
    : contact_(contact), scratch_(std::make_unique<Scratch>()) {
  set_parameters(params);
}

CanalSolver::~CanalSolver() = default;

void CanalSolver::set_parameters(const CanalParameters& p) {
  p.Validate();
  params_ = p;
}

void CanalSolver::ClearWarmStart() {
  scratch_->warm.Clear();
}

std::string PrepareCanalLaw(const ContactProblem& p, const CanalParameters& prm,
                            CanalLawConstants* out) {
  VecX* R = &out->R;
  VecX* v_hat = &out->v_hat;
  std::vector<double>* mu = &out->mu;
  std::vector<char>* near_rigid = &out->near_rigid;
  const int nc = static_cast<int>(p.constraints.size());
  const double dt = p.time_step;
  R->resize(p.num_rows);
  v_hat->resize(p.num_rows);
  mu->assign(nc, 0.0);
  near_rigid->assign(nc, 0);
  out->penalty_unit.assign(nc, 1.0);
  const bool delassus = prm.penalty_scaling == CanalParameters::PenaltyScaling::kDelassus;
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = p.constraints[i];
    const bool cone = c.kind == ConstraintKind::kFrictionCone;
    const char* what = nullptr;
    if (std::isnan(c.stiffness)) {
      what = "stiffness k is NaN";
    } else if (!std::isfinite(c.dissipation_time) || !(dt + c.dissipation_time > 0)) {
      what = "dissipation time tau_d is not finite or dt + tau_d <= 0";
    } else if (!std::isfinite(c.phi0)) {
      what = "non-finite phi0";
    } else if (!std::isfinite(c.w)) {
      what = "non-finite Delassus estimate w";
    } else if (cone && !(std::isfinite(c.friction) && c.friction >= 0)) {
      what = "friction mu is not finite and >= 0";
    }
    if (what) {
      std::ostringstream os;
      os << "constraint " << i << ": " << what;
      return os.str();
    }
    // The physical normal law the NCP residual measures (compliant, or rigid for k = ∞ / k <= 0).
    const PhysicalNormalLaw law = PhysicalNormalLaw::Linear(c, dt);
    double Rn = std::isfinite(law.D) ? 1.0 / law.D : 0.0;
    double vn_hat = law.zeta_hat;
    if (prm.near_rigid_beta > 0) {
      // SAP eq. 29 where it acts, with SAP's v̂ = −φ0/(δt + τ_d).
      const double beta = c.beta > 0 ? c.beta : prm.near_rigid_beta;
      const double w = c.w > 0 ? c.w : 1.0;
      const double clamp = beta * beta / (4 * kPi * kPi) * w;
      if (clamp > Rn) {
        Rn = clamp;
        vn_hat = -c.phi0 / (dt + c.dissipation_time);
        (*near_rigid)[i] = 1;
      }
    }
    const int r = c.first_row;
    if (delassus) out->penalty_unit[i] = c.w > 0 ? c.w : 1.0;
    if (cone) {
      const double w = c.w > 0 ? c.w : 1.0;  // w = 0 (J_i = 0): SAP's convention
      (*R)(r) = (*R)(r + 1) = prm.sigma * w;
      (*R)(r + 2) = Rn;
      (*v_hat)(r) = (*v_hat)(r + 1) = 0;
      (*v_hat)(r + 2) = vn_hat;
      (*mu)[i] = c.friction;
    } else {
      (*R)(r) = Rn;
      (*v_hat)(r) = vn_hat;
    }
  }
  return {};
}

void CanalRowPenalties(const ContactProblem& p, const CanalLawConstants& law, double beta,
                       VecX* beta_row) {
  beta_row->resize(p.num_rows);
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    beta_row->segment(c.first_row, c.num_rows).setConstant(beta / law.penalty_unit[i]);
  }
}

void SetCanalSurrogateLaws(const ContactProblem& p, const CanalLawConstants& law, double beta,
                           ConstraintBundle* laws) {
  const VecX& R = law.R;
  const VecX& v_hat = law.v_hat;
  const std::vector<char>& near_rigid = law.near_rigid;
  for (int i = 0; i < static_cast<int>(p.constraints.size()); ++i) {
    const int r = p.constraints[i].first_row;
    const double inv_beta = law.penalty_unit[i] / beta;
    if (LinearConeLaw::Constants* K = laws->MutableLinearCone(i)) {
      K->Rt = R(r) + inv_beta;
      K->Rn = R(r + 2) + inv_beta;
      K->inv_t = 1.0 / K->Rt;
      K->inv_n = 1.0 / K->Rn;
      K->vn_hat = v_hat(r + 2);
      K->near_rigid = near_rigid[i] != 0;
    } else if (LinearLimitLaw::Constants* L = laws->MutableLinearLimit(i)) {
      L->R = R(r) + inv_beta;
      L->inv = 1.0 / L->R;
      L->v_hat = v_hat(r);
      L->near_rigid = near_rigid[i] != 0;
    }
  }
}

// b'_i = b_i + p^l_i − λ^l_i/β: the law's v_c' − v̂ = v_c − v̂ + p^l − λ^l/β (the frozen De Saxcé
// term of eq. 21 and the multiplier's shift).
void SetCanalSurrogateBiases(const ContactProblem& p, const CanalLawConstants& law,
                             const VecX& lambda, const VecX& v_tilde, double beta,
                             ContactProblem* work) {
  VecX de_saxce;
  CanalDeSaxceTerm(p, law, v_tilde, &de_saxce);
  SetCanalSurrogateShift(p, law, lambda, de_saxce, beta, work);
}

void SetCanalSurrogateShift(const ContactProblem& p, const CanalLawConstants& law,
                            const VecX& lambda, const VecX& de_saxce, double beta,
                            ContactProblem* work) {
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    const double inv_beta = law.penalty_unit[i] / beta;
    ConstraintData& w = work->constraints[i];
    const int r = c.first_row;
    for (int k = 0; k < c.num_rows; ++k) w.bias(k) = c.bias(k) - lambda(r + k) * inv_beta;
    if (c.num_rows == 3) w.bias(2) += de_saxce(static_cast<int>(i));
  }
}

void SetCanalTrescaBounds(const ContactProblem& p, const CanalLawConstants& law,
                          const VecX& lambda, ConstraintBundle* laws) {
  for (int i = 0; i < static_cast<int>(p.constraints.size()); ++i) {
    if (LinearConeLaw::Constants* K = laws->MutableLinearCone(i)) {
      K->friction_bound = law.mu[i] * std::max(0.0, lambda(p.constraints[i].first_row + 2));
    }
  }
}

void ClearCanalTrescaBounds(const ContactProblem& p, ConstraintBundle* laws) {
  for (int i = 0; i < static_cast<int>(p.constraints.size()); ++i) {
    if (LinearConeLaw::Constants* K = laws->MutableLinearCone(i)) K->friction_bound = -1;
  }
}

void CanalDeSaxceTerm(const ContactProblem& p, const CanalLawConstants& law, const VecX& v_tilde,
                      VecX* de_saxce) {
  const int nc = static_cast<int>(p.constraints.size());
  de_saxce->setZero(nc);
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = p.constraints[i];
    if (c.num_rows != 3) continue;
    const int r = c.first_row;
    (*de_saxce)(i) = law.mu[i] * std::hypot(v_tilde(r), v_tilde(r + 1));
  }
}

namespace {

// ‖D(A(v − v*) − Jᵀλ)‖ and the scale max(‖D M v‖, ‖D Jᵀλ‖) of SAP's eq. 26 at (v, λ).
void MomentumNorms(const ContactProblem& p, const VecX& D, const VecX& v, const VecX& lambda,
                   VecX* jc, double* gradient_norm, double* scale) {
  const bool have_M = static_cast<int>(p.M.size()) == p.num_trees();
  jc->setZero(p.nv);
  p.AddJacobianTransposeTimes(lambda, jc);
  double g2 = 0, m2 = 0, i2 = 0;
  for (int t = 0; t < p.num_trees(); ++t) {
    const int s = p.tree_v_start[t], n = p.tree_nv[t];
    const auto Dt = D.segment(s, n);
    g2 += Dt.cwiseProduct(p.A[t] * (v.segment(s, n) - p.v_star.segment(s, n)) - jc->segment(s, n))
              .squaredNorm();
    m2 += Dt.cwiseProduct((have_M ? p.M[t] : p.A[t]) * v.segment(s, n)).squaredNorm();
    i2 += Dt.cwiseProduct(jc->segment(s, n)).squaredNorm();
  }
  *gradient_norm = std::sqrt(g2);
  *scale = std::sqrt(std::max(m2, i2));
}

// e_μ of the exact law: Σ_i |(ṽ_i + p_i)ᵀγ_i| / (n_c ℓ), with ṽ = v_c − v̂ + Rγ and p_i =
// (0, 0, μ‖ṽ_t‖) (the De Saxcé gap of eq. 20, 0 at a solution) and ℓ = ½‖v − v*‖²_A + ½γᵀRγ
// (the cost of eq. 24 with the law's cost at γ, since ℓ_i(v_c) is not defined for R = 0).
// ComplementarityError's definition with this law's own gap; 0 when ℓ <= 0 or no constraints.
double DeSaxceComplementarityError(const ContactProblem& p, const CanalLawConstants& law,
                                   const VecX& v, const VecX& vc, const VecX& gamma) {
  const VecX& R = law.R;
  const VecX& v_hat = law.v_hat;
  const std::vector<double>& mu = law.mu;
  const int nc = static_cast<int>(p.constraints.size());
  if (nc == 0) return 0.0;
  double ell = 0.5 * gamma.dot(R.cwiseProduct(gamma));
  for (int t = 0; t < p.num_trees(); ++t) {
    const int s = p.tree_v_start[t], n = p.tree_nv[t];
    const VecX dv = v.segment(s, n) - p.v_star.segment(s, n);
    ell += 0.5 * dv.dot(p.A[t] * dv);
  }
  if (!(ell > 0)) return 0.0;
  double slack = 0;
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = p.constraints[i];
    const int r = c.first_row;
    double g[3] = {0, 0, 0};
    for (int k = 0; k < c.num_rows; ++k) g[k] = vc(r + k) - v_hat(r + k) + R(r + k) * gamma(r + k);
    double dot = 0;
    if (c.num_rows == 3) {
      g[2] += mu[i] * std::hypot(g[0], g[1]);
      for (int k = 0; k < 3; ++k) dot += g[k] * gamma(r + k);
    } else {
      dot = g[0] * gamma(r);
    }
    slack += std::abs(dot);
  }
  return slack / nc / ell;
}

}  // namespace

SolverStatus CanalSolver::Solve(const ContactProblem& problem, const VecX& v_guess,
                                SolverResult* result) {
  const auto t_start = Clock::now();
  Scratch& s = *scratch_;
  const CanalParameters& prm = params_;
  SolverStats& stats = result->stats;
  ResetStats(&stats);
  auto fail = [&](SolverStatus status, const std::string& message) {
    FailResult(problem, v_guess, status, message, CanalSeriesTable(), result);
    result->laws = ConstraintBundle{};
    stats.solve_ms = MsSince(t_start);
    return status;
  };

  // Validation before any iteration: the model, the problem's structure and finiteness, the
  // physical data of every constraint.
  if (contact_.model != ContactModelType::kLinear) {
    std::ostringstream os;
    const int type = static_cast<int>(contact_.model);
    os << "CANAL cannot solve the contact model '"
       << (type >= 0 && type < kNumContactModelTypes ? ContactModelName(contact_.model) : "unknown")
       << "': it accepts the linear model only (the augmented Lagrangian is built on the linear "
          "law's compliance R and bias v_hat)";
    return fail(SolverStatus::kUnsupportedContactModel, os.str());
  }
  for (size_t i = 0; i < problem.constraints.size(); ++i) {
    // Its surrogate laws, De Saxce bias and Tresca cascade are written for cones and limits.
    if (problem.constraints[i].kind == ConstraintKind::kBilateral) {
      std::ostringstream os;
      os << "solver canal does not support equality constraints (constraint " << i
         << " is bilateral); use sap, pgs or subadmm";
      return fail(SolverStatus::kUnsupportedConstraint, os.str());
    }
  }
  std::string error = CheckProblemInput(problem, v_guess);
  if (error.empty()) {
    error = PrepareCanalLaw(problem, prm, &s.law);
  }
  if (!error.empty()) return fail(SolverStatus::kNonFiniteInput, error);
  const bool have_M = static_cast<int>(problem.M.size()) == problem.num_trees();
  s.D.resize(problem.nv);
  for (int t = 0; t < problem.num_trees(); ++t) {
    const MatX& Mt = have_M ? problem.M[t] : problem.A[t];
    s.D.segment(problem.tree_v_start[t], problem.tree_nv[t]) =
        Mt.diagonal().cwiseMax(0).cwiseSqrt().cwiseInverse();
  }
  if (!s.D.allFinite())
    return fail(SolverStatus::kNonFiniteInput, "diag(M) has a non-positive entry");

  if (prm.islands && SolveIslands(problem, v_guess, result)) {
    stats.solve_ms = MsSince(t_start);
    return stats.status;
  }
  const SolverStatus status = SolveMonolithic(problem, v_guess, result);
  stats.solve_ms = MsSince(t_start);
  return status;
}

SolverStatus CanalSolver::SolveMonolithic(const ContactProblem& problem, const VecX& v_guess,
                                          SolverResult* result) {
  Scratch& s = *scratch_;
  const CanalParameters& prm = params_;
  SolverStats& stats = result->stats;
  const int nr = problem.num_rows;
  const int nc = static_cast<int>(problem.constraints.size());
  IterationLog& log = stats.iteration_log;
  log.Reserve(std::min(prm.max_iterations + 1, 128));

  // The laws of the surrogates: prepared for the problem's structure, constants set per β.
  LawParameters lp;
  lp.contact.model = ContactModelType::kLinear;  // the only model Solve lets through
  s.laws.Prepare(problem, lp);

  if (nc == 0) {
    // No constraint: v = v*, the minimizer of ½‖v − v*‖²_A, without iterating.
    result->v = problem.v_star;
    result->vc.resize(0);
    result->gamma.resize(0);
    result->regime.clear();
    result->laws = s.laws;
    double* row = log.AddRow();
    row[kCanalAlResidual] = 0;
    row[kCanalSlackResidual] = 0;
    row[kCanalCascadeResidual] = 0;
    row[kCanalBeta] = prm.beta0;
    row[kCanalNewtonIterations] = 0;
    row[kCanalNewtonTotal] = 0;
    row[kCanalGradientNorm] = 0;
    row[kCanalMomentumResidual] = 0;
    row[kCanalLineSearchIterations] = 0;
    StoreRegimeCounts({}, row);
    stats.status = SolverStatus::kConverged;
    stats.momentum_error = MomentumError(problem, result->v, result->gamma);
    s.warm.Store(problem, result->gamma);
    return stats.status;
  }

  SapParameters sp;
  sp.rel_tolerance = prm.newton_tolerance;
  sp.max_iterations = prm.max_newton_iterations;
  sp.islands = false;
  // SAP's cost-stagnation test is off: the surrogate's cost is dominated by the heavy bodies'
  // motion, so its round-off can hide a light body's momentum error (a 0.1 kg dish under a 5 kg
  // pot stopped at e_m ~ 1e-7 with Δℓ = 0 exactly); eq. 26 alone decides, and a line search that
  // finds no descent at the round-off floor is accepted below.
  sp.cost_abs_tolerance = 0;
  sp.cost_rel_tolerance = 0;
  s.inner.set_parameters(sp);
  // The surrogates' laws are given; the inner solver's model is the linear default
  // (set_contact_model would throw on the caller's other fields, e.g. a v_s out of range that CANAL
  // does not use).
  s.inner.set_contact_model(ContactModelParameters{});

  // Working copy of the problem (copied once per solve; only its biases change per iteration).
  s.work = problem;

  // λ^0: the previous solve's impulses matched per constraint (impulse_memory.h; a wrong start
  // only costs AL iterations), 0 for a new constraint (a soft first surrogate there).
  s.warm.Recall(problem, &s.lambda);
  double beta = prm.beta0;
  s.v = v_guess;
  problem.ConstraintVelocities(s.v, &s.vc);
  s.v_tilde = s.vc - s.law.v_hat + s.law.R.cwiseProduct(s.lambda);  // z^0 = J v^0 + b
  using Cascade = CanalParameters::Cascade;
  const bool hybrid = prm.cascade == Cascade::kHybrid;
  // The Tresca phase (the whole solve for tresca, tresca_anderson; until it stalls for hybrid).
  bool tresca =
      prm.cascade == Cascade::kTresca || prm.cascade == Cascade::kTrescaAnderson || hybrid;
  const bool anderson = prm.cascade == Cascade::kAnderson ||
                        prm.cascade == Cascade::kTrescaAnderson || hybrid;
  SetCanalSurrogateLaws(problem, s.law, beta, &s.laws);
  if (tresca) {
    // No De Saxcé term: p = 0, the friction disks μλ_n^0.
    s.p.setZero(nc);
    SetCanalSurrogateShift(problem, s.law, s.lambda, s.p, beta, &s.work);
    SetCanalTrescaBounds(problem, s.law, s.lambda, &s.laws);
  } else {
    SetCanalSurrogateBiases(problem, s.law, s.lambda, s.v_tilde, beta, &s.work);
    CanalDeSaxceTerm(problem, s.law, s.v_tilde, &s.p);  // p^l per constraint, as the biases hold
  }
  if (anderson) s.anderson.Reset(nr + nc, prm.anderson_memory);

  // Row 0: the guess (v_guess, λ^0) under the first surrogate's law.
  {
    s.work.ConstraintVelocities(s.v, &s.vc_shift);
    const double cost_R = s.laws.Evaluate(s.vc_shift, &s.gamma_eval, nullptr, &s.regime);
    double gnorm, scale;
    MomentumNorms(problem, s.D, s.v, s.lambda, &s.jc, &gnorm, &scale);
    // p^0 is p(ṽ^0) of the guess itself: no cascade lag at row 0.
    CanalRowPenalties(problem, s.law, beta, &s.beta_row);
    const double residual = (s.gamma_eval - s.lambda).cwiseQuotient(s.beta_row).norm();
    double* row = log.AddRow();
    row[kCanalAlResidual] = residual;
    row[kCanalSlackResidual] = residual;
    row[kCanalCascadeResidual] = 0;
    row[kCanalBeta] = beta;
    row[kCanalNewtonIterations] = 0;
    row[kCanalNewtonTotal] = 0;
    row[kCanalGradientNorm] = gnorm;
    row[kCanalMomentumResidual] =
        scale > 0 ? gnorm / scale : (gnorm == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    row[kCanalLineSearchIterations] = 0;
    StoreRegimeCounts(s.regime, row);
    // The guess is the fallback result (a breakdown in the first surrogate: v_guess with the
    // first surrogate's impulse there) and the result when it passes the test below (v_guess with
    // λ^0); the iteration cap returns an AL iterate.
    s.v_best = s.v;
    s.gamma_best = s.gamma_eval;
    s.regime_best = s.regime;
    s.beta_best = beta;
    s.residual_best = std::numeric_limits<double>::infinity();
    double ell_A = 0;
    for (int t = 0; t < problem.num_trees(); ++t) {
      const int st = problem.tree_v_start[t], n = problem.tree_nv[t];
      const VecX dv = s.v.segment(st, n) - problem.v_star.segment(st, n);
      ell_A += 0.5 * dv.dot(problem.A[t] * dv);
    }
    s.cost_best = ell_A + cost_R;
    // λ^0 is a fixed point of the AL map at the guess and momentum holds there (SAP eq. 26 with
    // ε_r = newton_tolerance and SAP's ε_a): the guess is the solution.
    if (residual < prm.al_tolerance &&
        gnorm < SapParameters{}.abs_tolerance + prm.newton_tolerance * scale) {
      stats.status = SolverStatus::kConverged;
      s.gamma_best = s.lambda;
    } else {
      stats.status = SolverStatus::kMaxIterations;  // until the loop says otherwise
    }
  }

  int total_newton = 0;
  int iterations = 0;
  std::string failure;
  double prev_slack = std::numeric_limits<double>::infinity();
  bool extrapolated = false;  // the current surrogate's data came from Anderson's extrapolation
  int aa_restarts = 0;
  // β schedule: a raise not followed by a ζ-fold drop of the slack is taken back (beta_revert).
  bool raised = false, raise_blocked = false;
  double beta_before_raise = beta, slack_before_raise = 0;
  double reach = kAndersonReachStart;  // Anderson's trust region, in plain steps
  int plain_steps = 0;                 // plain steps before Anderson extrapolates again
  int aa_failures = 0;                 // consecutive rejected extrapolations
  // hybrid: the Tresca phase's best residual and its iterations without a kHybridProgress-fold
  // improvement of it.
  double tresca_best = std::numeric_limits<double>::infinity();
  int tresca_stall = 0;
  while (stats.status != SolverStatus::kConverged) {
    if (iterations == prm.max_iterations) {
      stats.status = SolverStatus::kMaxIterations;
      break;
    }
    // Surrogate l (eq. 21-22) by SAP's Newton from v^l.
    SolverResult& ir = s.inner_result;
    const SolverStatus inner = s.inner.SolveWithLaws(s.work, s.laws, s.v, &ir);
    // A line search that finds no descent with momentum already within √ε_r is the round-off
    // floor of the surrogate (what SAP's stagnation test would have accepted): its iterate is the
    // surrogate's solution. Anything else but the Newton cap is a breakdown.
    const double inner_em = ir.stats.iteration_log.empty()
                                ? std::numeric_limits<double>::infinity()
                                : ir.stats.iteration_log.Last(kSapMomentumResidual);
    // The Newton cap with e_m within kNewtonFloorFactor of the tolerance is the same floor met
    // by a search that keeps finding tiny descents (measured at β = 1e6 on the 40-body clutter
    // pile: e_m 1.1e-10 to 3e-10 for 100 Newton steps against ε_r = 1e-10).
    const bool inner_at_floor = inner == SolverStatus::kMaxIterations &&
                                inner_em <= kNewtonFloorFactor * prm.newton_tolerance;
    const bool inner_converged =
        inner == SolverStatus::kConverged || inner_at_floor ||
        (inner == SolverStatus::kLineSearchFailure && inner_em <= std::sqrt(prm.newton_tolerance));
    if (!inner_converged && inner != SolverStatus::kMaxIterations) {
      std::ostringstream os;
      os << "AL iteration " << iterations + 1 << " (beta = " << beta
         << " kg): the surrogate's Newton solve (SAP) stopped with " << SolverStatusName(inner)
         << ": " << ir.stats.message;
      failure = os.str();
      stats.status = (inner == SolverStatus::kMemoryBudgetExceeded ||
                      inner == SolverStatus::kWorkBudgetExceeded)
                         ? inner
                         : SolverStatus::kNumericalFailure;
      break;
    }
    if (!ir.v.allFinite() || !ir.gamma.allFinite()) {
      std::ostringstream os;
      os << "AL iteration " << iterations + 1 << " (beta = " << beta
         << " kg): the surrogate's Newton solve returned a non-finite iterate";
      failure = os.str();
      stats.status = SolverStatus::kNumericalFailure;
      break;
    }
    ++iterations;
    const int newton = ir.stats.iterations;
    total_newton += newton;
    const IterationLog& il = ir.stats.iteration_log;
    int ls_iterations = 0;
    for (int m = 1; m < il.num_rows(); ++m) {
      ls_iterations += static_cast<int>(il(m, kSapLineSearchIterations));
    }
    // λ^{l+1}, z^{l+1} = v_c + (λ^{l+1} − λ^l)/β, ‖J v − z‖ = ‖λ^{l+1} − λ^l‖/β,
    // ṽ^{l+1} = z^{l+1} − v̂ + Rλ^{l+1}, p^{l+1} = μ‖ṽ^{l+1}_t‖ against the p^l the surrogate
    // used (0 for unilateral rows in both).
    s.v = ir.v;
    problem.ConstraintVelocities(s.v, &s.vc);
    CanalRowPenalties(problem, s.law, beta, &s.beta_row);
    const double slack = (ir.gamma - s.lambda).cwiseQuotient(s.beta_row).norm();
    s.v_tilde = s.vc + (ir.gamma - s.lambda).cwiseQuotient(s.beta_row) - s.law.v_hat + s.law.R.cwiseProduct(ir.gamma);
    if (tresca) {
      s.p_next.setZero(nc);
    } else {
      CanalDeSaxceTerm(problem, s.law, s.v_tilde, &s.p_next);
    }
    // The cascade's part of the residual: the exact law's normal-velocity error at (z, λ^{l+1}).
    // A loaded contact meets the surrogate's law with p^l: ṽ_n = p^{l+1} − p^l when sliding,
    // −p^l (and p^{l+1} = 0) when sticking, so its error is |p^{l+1} − p^l|. A contact out of
    // contact (λ^{l+1} = 0) meets the exact law whenever ṽ_n >= 0, whatever p (De Saxcé:
    // ṽ_n + μ‖ṽ_t‖ >= μ‖ṽ_t‖); the surrogate gives ṽ_n >= p^{l+1} − p^l, so its error
    // max(0, −ṽ_n) is at most |p^{l+1} − p^l|.
    // Tresca: the normal law holds exactly at (z, λ^{l+1}); the friction disk had the radius
    // μλ_n^l instead of μλ_n^{l+1}, an impulse error of μ|λ_n^{l+1} − λ_n^l| on a sliding
    // contact and max(0, ‖λ_t^{l+1}‖ − μλ_n^{l+1}) on a sticking one, taken to a velocity by
    // the constraint's Delassus estimate w_i (the slip-velocity change such an impulse change
    // makes on its own contact).
    double cascade2 = 0;
    for (int i = 0; tresca && i < nc; ++i) {
      const ConstraintData& c = problem.constraints[i];
      if (c.num_rows != 3) continue;
      const int r = c.first_row;
      const double mu = s.law.mu[i];
      double e = 0;
      if (ir.regime[i] == Regime::kSliding) {
        e = mu * std::abs(ir.gamma(r + 2) - s.lambda(r + 2));
      } else if (ir.regime[i] == Regime::kStiction) {
        e = std::max(0.0, std::hypot(ir.gamma(r), ir.gamma(r + 1)) -
                              mu * std::max(0.0, ir.gamma(r + 2)));
      }
      e *= c.w > 0 ? c.w : 1.0;
      cascade2 += e * e;
    }
    for (int i = 0; !tresca && i < nc; ++i) {
      const ConstraintData& c = problem.constraints[i];
      if (c.num_rows != 3) continue;
      double e = s.p_next(i) - s.p(i);
      if (ir.regime[i] == Regime::kNoContact) {
        e = std::min(std::abs(e), std::max(0.0, -s.v_tilde(c.first_row + 2)));
      }
      cascade2 += e * e;
    }
    const double cascade = std::sqrt(cascade2);
    const double residual = std::sqrt(slack * slack + cascade * cascade);
    if (anderson) {
      // x = (λ^l/β, p^l) and its image F(x) = (λ^{l+1}/β, p^{l+1}): ‖F(x) − x‖ is the AL residual.
      s.aa_x.resize(nr + nc);
      s.aa_f.resize(nr + nc);
      s.aa_x << s.lambda.cwiseQuotient(s.beta_row), s.p;
      s.aa_f << ir.gamma.cwiseQuotient(s.beta_row), s.p_next;
    }
    s.lambda = ir.gamma;
    s.p = s.p_next;

    double* row = log.AddRow();
    row[kCanalAlResidual] = residual;
    row[kCanalSlackResidual] = slack;
    row[kCanalCascadeResidual] = cascade;
    row[kCanalBeta] = beta;
    row[kCanalNewtonIterations] = newton;
    row[kCanalNewtonTotal] = total_newton;
    row[kCanalGradientNorm] = il.Last(kSapGradientNorm);
    row[kCanalMomentumResidual] = il.Last(kSapMomentumResidual);
    row[kCanalLineSearchIterations] = ls_iterations;
    StoreRegimeCounts(ir.regime, row);

    const bool done = residual < prm.al_tolerance && inner_converged;
    const double best_before = s.residual_best;
    if (done || residual <= s.residual_best) {
      s.v_best = s.v;
      s.gamma_best = s.lambda;
      s.regime_best = ir.regime;
      s.beta_best = beta;
      s.cost_best = ir.stats.cost;
      s.residual_best = residual;
    }
    if (done) {
      stats.status = SolverStatus::kConverged;
      break;
    }
    // Penalty schedule (eq. 27) on the slack residual, the part β controls, and only while it
    // dominates: a slack residual that follows the cascade's lag (Δλ ≈ W⁻¹Δp, so ‖J v − z‖ ≈
    // ‖Δp‖/(β W)) falls at the cascade's rate whatever β, and raising β would only stiffen the
    // surrogates.
    bool beta_changed = false;
    if (inner == SolverStatus::kMaxIterations && beta > prm.beta0 && prm.beta_revert) {
      // The raised β's surrogate needed the whole Newton cap (its round-off floor): every
      // further surrogate at this β would cost as much. Step β down and raise no more.
      beta = std::max(prm.beta0, beta / prm.kappa);
      SetCanalSurrogateLaws(problem, s.law, beta, &s.laws);
      beta_changed = true;
      raise_blocked = true;
      raised = false;
    } else if (raised && slack > prm.zeta * slack_before_raise && prm.beta_revert) {
      // The last raise did not shrink the slack by ζ: the stall is not the AL's contraction
      // (1/(1 + βW)), which β controls, but a direction where W + R is tiny (redundant
      // near-rigid contacts share their load through R alone; the AL moves there by βR per
      // iteration). A larger β only stiffens the surrogates: take it back and keep it.
      beta = beta_before_raise;
      SetCanalSurrogateLaws(problem, s.law, beta, &s.laws);
      beta_changed = true;
      raise_blocked = true;
      raised = false;
    } else if (slack > prm.zeta * prev_slack && slack > cascade && beta < prm.beta_max &&
               !raise_blocked) {
      beta_before_raise = beta;
      slack_before_raise = slack;
      beta = std::min(prm.kappa * beta, prm.beta_max);
      SetCanalSurrogateLaws(problem, s.law, beta, &s.laws);
      beta_changed = true;
      raised = true;
    } else {
      raised = false;
    }
    prev_slack = slack;
    if (anderson) {
      if (extrapolated && !(residual < best_before)) {
        // The extrapolation did not improve on the best iterate: it left the region where the
        // map is nearly affine (a regime changed) or the map cycles. Take the plain step it
        // replaced, from the iterate before it, forget the history, shorten the reach, and let
        // the plain iteration run 1, 2, 4, ... steps before the next try (so that a cascade the
        // plain iteration converges on costs at most a few wasted surrogates).
        s.anderson.Clear();
        s.lambda = s.lambda_plain;
        s.p = s.p_plain;
        s.v = s.v_plain;
        extrapolated = false;
        reach = std::max(kAndersonReachMin, reach * kAndersonReachShrink);
        plain_steps = 1 << std::min(aa_failures, 6);
        ++aa_failures;
        ++aa_restarts;
      } else {
        if (extrapolated) {
          reach = std::min(kAndersonReachMax, reach * kAndersonReachGrow);
          aa_failures = 0;
        }
        extrapolated = false;
        if (beta_changed) {
          s.anderson.Clear();  // a new β rescales the state λ/β
        } else {
          s.anderson.Next(s.aa_x, s.aa_f, &s.aa_next);
          if (plain_steps > 0) {
            --plain_steps;  // the history grows, the plain step is taken
          } else if (s.anderson.history() > 0) {
            // Trust region: the extrapolation moves x at most `reach` times as far as the plain
            // step F(x) − x (whose length is the residual).
            s.aa_next -= s.aa_x;
            const double step = s.aa_next.norm();
            const double cap = reach * residual;
            if (step > cap) s.aa_next *= cap / step;
            s.aa_next += s.aa_x;
            // Keep the plain step in case the extrapolation is rejected.
            s.lambda_plain = s.lambda;
            s.p_plain = s.p;
            s.v_plain = s.v;
            s.lambda = s.beta_row.cwiseProduct(s.aa_next.head(nr));
            s.p = s.aa_next.tail(nc).cwiseMax(0.0);  // μ‖ṽ_t‖ >= 0
            extrapolated = true;
          }
        }
      }
    }
    if (hybrid && tresca) {
      if (residual < kHybridProgress * tresca_best) {
        tresca_best = residual;
        tresca_stall = 0;
      } else if (++tresca_stall >= kHybridStall) {
        // The Tresca cascade stalls (its friction bounds follow λ_n, which redundant near-rigid
        // contacts determine only through R): continue with the De Saxcé cascade from the last
        // surrogate's iterate, p = μ‖ṽ_t‖ of that iterate, a fresh Anderson history and a fresh
        // best residual (the two cascades' residuals measure different lags).
        tresca = false;
        ClearCanalTrescaBounds(problem, &s.laws);
        s.lambda = ir.gamma;
        s.v = ir.v;
        CanalDeSaxceTerm(problem, s.law, s.v_tilde, &s.p);
        s.anderson.Clear();
        extrapolated = false;
        reach = kAndersonReachStart;
        plain_steps = 0;
        aa_failures = 0;
        s.residual_best = std::numeric_limits<double>::infinity();
      }
    }
    SetCanalSurrogateShift(problem, s.law, s.lambda, s.p, beta, &s.work);
    if (tresca) SetCanalTrescaBounds(problem, s.law, s.lambda, &s.laws);
  }

  // Result: the last iterate on convergence, else the AL iterate of smallest AL residual (on a
  // breakdown before any AL iterate: the guess with the first surrogate's impulse there).
  stats.iterations = iterations;
  result->v = s.v_best;
  result->gamma = s.gamma_best;
  result->regime = s.regime_best;
  problem.ConstraintVelocities(result->v, &result->vc);
  SetCanalSurrogateLaws(problem, s.law, s.beta_best, &s.laws);
  ClearCanalTrescaBounds(problem, &s.laws);
  result->laws = s.laws;
  stats.cost = s.cost_best;
  stats.momentum_error = MomentumError(problem, result->v, result->gamma);
  stats.complementarity_error =
      DeSaxceComplementarityError(problem, s.law, result->v, result->vc, result->gamma);
  std::ostringstream os;
  if (!failure.empty()) {
    os << failure << "; ";
  } else if (stats.status == SolverStatus::kMaxIterations) {
    os << "AL iteration cap reached (smallest AL residual " << s.residual_best << " m/s); ";
  }
  os << iterations << " AL iterations, " << total_newton << " Newton steps";
  if (aa_restarts > 0) os << ", " << aa_restarts << " Anderson restarts";
  stats.message = os.str();
  s.warm.Store(problem, result->gamma);
  return stats.status;
}

// Islands (engine/solvers/common/islands.h): each island is solved by a child CanalSolver with
// the parent's parameters (islands off) and its own β schedule and stopping test; its λ^0 comes
// from the parent's warm start (the whole problem's last impulses, matched per constraint). The merged log's row m combines the islands'
// rows at iteration min(m, iterations_island): the residuals and ‖D r‖ as root-sum-squares (the
// 2-norm over all rows, as one solve defines them), e_m as SAP's merge does (‖D r‖ over the
// root-sum-square of the islands' eq. 26 scales), β the largest, regime counts and cumulative
// Newton steps summed, Newton steps and line-search iterations summed over the islands still
// iterating at m. Each island stops on its own AL residual, so the merged last row can exceed
// al_tolerance by up to √(islands).
bool CanalSolver::SolveIslands(const ContactProblem& problem, const VecX& v_guess,
                               SolverResult* result) {
  Scratch& s = *scratch_;
  CanalParameters child_params = params_;
  child_params.islands = false;
  auto make_child = [&]() { return std::make_unique<CanalSolver>(child_params, contact_); };
  auto prepare_child = [&](ContactSolver& solver) {
    CanalSolver& child = static_cast<CanalSolver&>(solver);
    child.params_ = child_params;
    child.contact_ = contact_;
    child.scratch_->warm.set_parent(&s.warm);
  };
  if (!SolveByIslands(&s.islands, problem, v_guess, make_child, prepare_child, result)) {
    return false;
  }
  SolverStats& stats = result->stats;
  using M = IslandMerge;
  static const std::vector<IslandMergeRule> kRules = {
      {kCanalAlResidual, M::kRootSumSquare},
      {kCanalSlackResidual, M::kRootSumSquare},
      {kCanalCascadeResidual, M::kRootSumSquare},
      {kCanalBeta, M::kMax},
      {kCanalNewtonIterations, M::kSumStepping},
      {kCanalNewtonTotal, M::kSum},
      {kCanalGradientNorm, M::kRootSumSquare},
      {kCanalMomentumResidual, M::kMomentumResidual, kCanalGradientNorm},
      {kCanalLineSearchIterations, M::kSumStepping},
      {kCanalNumStiction, M::kSum},
      {kCanalNumSliding, M::kSum},
      {kCanalNumNoContact, M::kSum}};
  MergeIslandLogs(s.islands, stats.iterations, CanalSeriesTable(), kRules,
                  &stats.iteration_log);
  const int total_newton = static_cast<int>(stats.iteration_log.Last(kCanalNewtonTotal));
  // The laws: each island's last surrogate's constants, at the problem's constraint indices.
  LawParameters lp;
  lp.contact.model = ContactModelType::kLinear;  // the only model Solve lets through
  s.laws.Prepare(problem, lp);
  for (int k = 0; k < s.islands.num_islands(); ++k) {
    IslandSplitter::Island& isl = s.islands.island(k);
    for (size_t j = 0; j < isl.constraints.size(); ++j) {
      const int i = isl.constraints[j];
      const int jj = static_cast<int>(j);
      if (LinearConeLaw::Constants* K = s.laws.MutableLinearCone(i)) {
        if (const LinearConeLaw::Constants* Kc = isl.result.laws.MutableLinearCone(jj)) *K = *Kc;
      } else if (LinearLimitLaw::Constants* L = s.laws.MutableLinearLimit(i)) {
        if (const LinearLimitLaw::Constants* Lc = isl.result.laws.MutableLinearLimit(jj)) *L = *Lc;
      }
    }
  }
  result->laws = s.laws;
  stats.momentum_error = MomentumError(problem, result->v, result->gamma);
  stats.complementarity_error =
      DeSaxceComplementarityError(problem, s.law, result->v, result->vc, result->gamma);
  std::ostringstream os;
  if (!stats.message.empty()) os << stats.message << "; ";
  os << stats.islands.size() << " islands, at most " << stats.iterations << " AL iterations, "
     << total_newton << " Newton steps in all";
  stats.message = os.str();
  s.warm.Store(problem, result->gamma);
  return true;
}

}  // namespace contactlab
