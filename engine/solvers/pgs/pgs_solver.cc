// PGS solver: projected block Gauss–Seidel on the dual of SAP's convex problem (formulation and
// contracts in pgs_solver.h).
//
// Per solve: A_t = L_t L_tᵀ per tree (dense Cholesky), Y_it = A_t⁻¹J_itᵀ per constraint block,
// W_ii = Σ_t J_it Y_it and the inverse of its (regularized) W_ii. Per sweep and constraint:
// v_c,i = J_i v + b_i, the block update below, v_t += Y_it Δγ_i. Per sweep, once: the iterate's
// residual e_m, primal cost and duality gap from the laws at v_c(v).
//
// Block update in the form the kernel solves it: with v = v_c,i and γ° = γ_i (the current
// impulse), c = v − W_ii γ° and, up to a constant,
//   ½(x − c)ᵀW_ii⁻¹(x − c) = ½(x − v)ᵀW_ii⁻¹(x − v) + γ°ᵀ(x − v),
// so the kernel minimizes f(x) = ½(x − v)ᵀ W⁻¹ (x − v) + γ°ᵀ(x − v) + ℓ_i(x). Written this way
// a fixed point (γ_i(x) = γ°) gives W⁻¹(x − v) = 0, i.e. x = v_c,i, whatever the round-off in
// the computed W⁻¹ (which then only perturbs the rate, not the solution).
//
// Dual bookkeeping: h_i(γ_i) = −γ_iᵀx − ℓ_i(x) at the block minimizer x (Fenchel–Young with
// equality, since γ_i = −∇ℓ_i(x)), so the dual decrease of one block update is, exactly,
//   D(γ°) − D(γ) = h_i(γ°) − h_i(γ) − Δγ_iᵀv_c,i − ½Δγ_iᵀW_iiΔγ_i,   Δγ_i = γ_i − γ°,
// and the duality gap at the iterate is Σ_i [ℓ_i(v_c,i) + h_i(γ_i) + γ_iᵀv_c,i].
#include "engine/solvers/pgs/pgs_solver.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include "engine/common/small_kernels.h"
#include "engine/solvers/common/impulse_memory.h"
#include "engine/solvers/common/problem_checks.h"
#include "engine/solvers/pgs/pgs_parameter_table.h"

namespace contactlab {

void PgsParameters::Validate() const { PgsParameterTable().Validate(*this); }

LawParameters PgsLawParameters(const PgsParameters& params, const ContactModelParameters& contact) {
  LawParameters p;
  p.contact = contact;
  p.sigma = params.sigma;
  p.beta = params.beta;
  p.limit_beta = params.limit_beta;
  return p;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = std::numeric_limits<double>::epsilon();

// Order of the PgsSeries enum (pgs_solver.h).
constexpr SeriesSpec kPgsSeriesSpecs[] = {
    {"momentum_residual", "e_m (SAP's momentum residual)", "", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kResidual, kSeriesDefaultPlot,
     "SAP's e_m = ||D grad l_p(v)|| / max(||D M v||, ||D J^T gamma(v_c(v))||) (seed 000 eq. 32) at "
     "PGS's velocities with the laws' impulses: SAP's residual at PGS's iterate"},
    {"cost", "primal cost l_p", "J", SeriesAxis::kLog, SeriesType::kReal, SeriesRole::kObjective,
     0u, "the convex cost l_p(v) = 1/2 ||v - v*||_A^2 + sum_i l_i(v_c,i) (seed 000 eq. 24) at v"},
    {"duality_gap", "duality gap l_p(v) + D(gamma)", "J", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, kSeriesDefaultPlot,
     "sum_i [l_i(v_c,i) + h_i(gamma_i) + gamma_i^T v_c,i] >= 0, an upper bound on both the primal "
     "and the dual suboptimality (NaN until every constraint has been updated once)"},
    {"cost_improvement", "dual decrease D(gamma_k-1) - D(gamma_k)", "J", SeriesAxis::kLog,
     SeriesType::kReal, SeriesRole::kPlain, kSeriesPerStep,
     "decrease of the dual cost over the sweep, the sum of the block updates' exact decreases "
     "(NaN when a warm-start impulse's conjugate h_i was not known)"},
    {"impulse_change", "||gamma_k - gamma_k-1||_inf", "N s", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, kSeriesPerStep, "largest change of an impulse component over the sweep"},
    {"relative_impulse_change", "||dgamma||_inf / ||gamma||_inf", "", SeriesAxis::kLog,
     SeriesType::kReal, SeriesRole::kPlain, kSeriesDefaultPlot | kSeriesPerStep,
     "the impulse change relative to the largest impulse: the tolerance test"},
    {"num_active", "constraints with gamma_n > 0", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "constraints whose normal impulse (PGS's gamma) is positive"},
    {"num_changed", "regime changes", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, kSeriesPerStep,
     "constraints whose regime at v_c(v) differs from the previous iterate's"},
    {"num_stiction", "constraints: stiction", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "constraints whose law is in stiction at v_c(v)"},
    {"num_sliding", "constraints: sliding", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "constraints whose law is sliding at v_c(v)"},
    {"num_no_contact", "constraints: no_contact", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "constraints whose law gives no impulse at v_c(v)"},
    {"newton_steps", "block Newton steps", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, kSeriesPerStep,
     "damped Newton iterations of the sweep's exact block updates (all constraints)"},
};
static_assert(sizeof(kPgsSeriesSpecs) / sizeof(kPgsSeriesSpecs[0]) == kNumPgsSeries,
              "one SeriesSpec per PgsSeries entry");

// Block Newton: iteration cap, Armijo constant, iterations of the exact line search.
constexpr int kMaxBlockIterations = 100;
constexpr double kArmijo = 1e-4;
constexpr int kMaxLineSearchIterations = 60;
// A Newton step below kStepConverged · scale is at round-off: converged. At the iteration cap,
// a block whose decrease is at round-off and whose step is below kStepCap · scale is accepted.
constexpr double kStepConverged = 1e-14;
constexpr double kStepCap = 1e-8;
// W_ii whose smallest eigenvalue is below kDelassusFloor λ_max gets W_ii + kDelassusFloor λ_max I.
constexpr double kDelassusFloor = 1e-8;

// Damped Newton on f(x) = ½(x − v)ᵀW⁻¹(x − v) + g°ᵀ(x − v) + ℓ(x) from x0, for a law of N rows
// (vectors in the first N entries of the Vec3s, matrices in the top-left N x N corner).
template <class Law>
PgsBlockResult SolveBlock(const typename Law::Constants& K, const Mat3& W_inv3, const Vec3& v3,
                          const Vec3& g3, const Vec3& x0) {
  constexpr int N = Law::kRows;
  using VecN = Eigen::Matrix<double, N, 1>;
  using MatN = Eigen::Matrix<double, N, N>;
  const MatN W_inv = W_inv3.template topLeftCorner<N, N>();
  const VecN v = v3.template head<N>();
  const VecN g0 = g3.template head<N>();
  PgsBlockResult out;
  Vec3 x = Vec3::Zero();
  x.template head<N>() = x0.template head<N>();
  Vec3 gamma = Vec3::Zero();
  Mat3 G = Mat3::Zero();
  Regime regime = Regime::kNoContact;
  double ell = 0, mag = 0;
  // f at xx; γ, G, regime, ℓ of the law there and the size of f's terms (round-off scale).
  auto objective = [&](const Vec3& xx, Vec3* g, Mat3* GG, Regime* r, double* l, double* m) {
    const VecN e = xx.template head<N>() - v;
    const double q = 0.5 * e.dot(W_inv * e);
    const double lin = g0.dot(e);
    GG->setZero();
    *l = Law::Cost(K, xx.data(), g->data(), GG, r);
    // The terms' sizes without cancellation (the laws' costs are sums of non-negative terms).
    *m = 0.5 * e.cwiseAbs().dot(W_inv.cwiseAbs() * e.cwiseAbs()) + g0.cwiseAbs().dot(e.cwiseAbs()) +
         std::abs(*l);
    return q + lin + *l;
  };
  double f = objective(x, &gamma, &G, &regime, &ell, &mag);
  double prev_step = std::numeric_limits<double>::infinity();
  bool last_full = false;
  for (int it = 0;; ++it) {
    const VecN xn = x.template head<N>();
    const VecN grad = W_inv * (xn - v) + g0 - gamma.template head<N>();
    MatN H = W_inv + G.template topLeftCorner<N, N>();
    H = (0.5 * (H + H.transpose())).eval();
    const Eigen::LLT<MatN> llt(H);
    if (llt.info() != Eigen::Success) break;
    const VecN d = -llt.solve(grad);
    const double step = d.cwiseAbs().maxCoeff();
    if (!std::isfinite(step) || !std::isfinite(f)) break;
    const double scale = std::max(
        {xn.cwiseAbs().maxCoeff(), v.cwiseAbs().maxCoeff(), (xn - v).cwiseAbs().maxCoeff()});
    // The Newton decrement λ² = −∇fᵀd below the round-off of f (64ε times the size of its
    // terms): a decrease that f cannot measure. Newton's steps are still accurate there and keep
    // contracting quadratically until they reach the round-off of the gradient, so they are taken
    // in full (no line search) while they contract; a full step that did not halve the one before
    // is that round-off floor.
    const double slope = grad.dot(d);
    const double noise = 64 * kEps * mag;
    const bool unmeasurable = -slope <= noise;
    if (step <= kStepConverged * scale || step == 0 ||
        (unmeasurable && last_full && step > 0.5 * prev_step)) {
      out.converged = true;
      break;
    }
    if (it == kMaxBlockIterations) {
      out.converged = unmeasurable && step <= kStepCap * scale;
      break;
    }
    // Step: the full Newton step when it satisfies Armijo's condition (with the round-off
    // allowance `noise`); else the minimizer of the convex
    // φ(α) = f(x + αd) on (0, 1), the root of φ'(α) = ∇f(x + αd)ᵀd by safeguarded Newton with
    // bisection (rtsafe; φ'' = dᵀ(W⁻¹ + G)d). The exact search matters for the Hunt–Crossley
    // friction ‖v_t‖_s with a small ε_s: far from stiction its Hessian is nearly singular along
    // v_t, the Newton step overshoots through v_t = 0, and halving steps zig-zag for hundreds of
    // iterations, while the minimizer along d lands near the kink in one search.
    Vec3 xt = Vec3::Zero(), gt = Vec3::Zero();
    Mat3 Gt = Mat3::Zero();
    Regime rt = Regime::kNoContact;
    double ellt = 0, magt = 0;
    auto at = [&](double a) {
      xt = x;
      xt.template head<N>() += a * d;
      return objective(xt, &gt, &Gt, &rt, &ellt, &magt);
    };
    // φ'(α) and φ''(α) at the last point evaluated by `at`.
    auto dphi = [&] {
      return (W_inv * (xt.template head<N>() - v) + g0 - gt.template head<N>()).dot(d);
    };
    auto d2phi = [&] { return d.dot((W_inv + Gt.template topLeftCorner<N, N>()) * d); };
    double alpha = 1;
    double ft = at(1.0);
    if (!unmeasurable && !(ft <= f + kArmijo * slope + noise)) {
      double lo = 0, hi = 1;  // φ'(0) < 0; the minimizer is in (0, 1], found by bracketing
      double a = 0.5;
      for (int ls = 0; ls < kMaxLineSearchIterations; ++ls) {
        ft = at(a);
        const double d1 = dphi(), d2 = d2phi();
        if (!std::isfinite(d1)) break;
        if (d1 < 0) {
          lo = a;
        } else {
          hi = a;
        }
        if (std::abs(d1) <= 1e-12 * std::abs(slope) || hi - lo <= 1e-15) break;
        const double newton = a - d1 / d2;
        a = d2 > 0 && newton > lo && newton < hi ? newton : 0.5 * (lo + hi);
      }
      alpha = a;
      ft = at(alpha);
      if (!(ft <= f + noise)) {
        // No measurable decrease along a descent direction: f is at its round-off although λ²
        // was above the estimate of it; the Newton step is taken in full as in that regime.
        alpha = 1;
        ft = at(alpha);
      }
    }
    x = xt;
    gamma = gt;
    G = Gt;
    regime = rt;
    ell = ellt;
    mag = magt;
    f = ft;
    last_full = alpha == 1;
    prev_step = step;
    ++out.iterations;
  }
  out.x = x;
  out.gamma = gamma;
  out.ell = ell;
  out.regime = regime;
  return out;
}

// A segment of the bundle with the address of its first constraint's constants, so that the
// sweeps can walk the segments in either direction (ConstraintBundle::ForEachSegment walks
// forward only). Valid while the bundle is not modified.
struct SegmentRef {
  LawSegment seg;
  const void* K = nullptr;
};

template <class F>
void Dispatch(const SegmentRef& r, F&& f) {
  switch (r.seg.law) {
    case LawKind::kLinearCone:
      f(LinearConeLaw{}, static_cast<const LinearConeLaw::Constants*>(r.K));
      break;
    case LawKind::kLinearLimit:
      f(LinearLimitLaw{}, static_cast<const LinearLimitLaw::Constants*>(r.K));
      break;
    case LawKind::kLagged:
      f(LaggedLaw{}, static_cast<const LaggedLaw::Constants*>(r.K));
      break;
    case LawKind::kLaggedRegularized:
      f(LaggedRegularizedLaw{}, static_cast<const LaggedRegularizedLaw::Constants*>(r.K));
      break;
    case LawKind::kSimilar:
      f(SimilarLaw{}, static_cast<const SimilarLaw::Constants*>(r.K));
      break;
    case LawKind::kHolonomic1:
      f(HolonomicLaw<1>{}, static_cast<const HolonomicConstants*>(r.K));
      break;
    case LawKind::kHolonomic3:
      f(HolonomicLaw<3>{}, static_cast<const HolonomicConstants*>(r.K));
      break;
  }
}

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

bool SupportedModel(ContactModelType m) {
  const int type = static_cast<int>(m);
  return type >= 0 && type < kNumContactModelTypes;
}

}  // namespace

SeriesTable PgsSeriesTable() { return SeriesTable::Of(kPgsSeriesSpecs); }

PgsBlockResult PgsBlockUpdate(const ConstraintBundle& laws, int i, const Mat3& W, const Vec3& c,
                              const Vec3& x0) {
  PgsBlockResult out;
  laws.ForEachSegment([&](auto law, const auto* K, const LawSegment& s) {
    using Law = decltype(law);
    if (i < s.begin || i >= s.end) return;
    constexpr int N = Law::kRows;
    Mat3 W_inv = Mat3::Zero();
    W_inv.topLeftCorner<N, N>() = W.topLeftCorner<N, N>().inverse();
    out = SolveBlock<Law>(K[i - s.begin], W_inv, c, Vec3::Zero(), x0);
  });
  return out;
}

double PgsBlockObjective(const ConstraintBundle& laws, int i, const Mat3& W_inv, const Vec3& c,
                         const Vec3& x, Vec3* gradient, Mat3* hessian) {
  double f = kNaN;
  laws.ForEachSegment([&](auto law, const auto* K, const LawSegment& s) {
    using Law = decltype(law);
    if (i < s.begin || i >= s.end) return;
    constexpr int N = Law::kRows;
    Vec3 gamma = Vec3::Zero();
    Mat3 G = Mat3::Zero();
    Regime regime;
    const Eigen::Matrix<double, N, 1> e = x.head<N>() - c.head<N>();
    const Eigen::Matrix<double, N, N> Wi = W_inv.topLeftCorner<N, N>();
    f = 0.5 * e.dot(Wi * e) + Law::Cost(K[i - s.begin], x.data(), gamma.data(), &G, &regime);
    if (gradient) {
      gradient->setZero();
      gradient->head<N>() = Wi * e - gamma.head<N>();
    }
    if (hessian) {
      hessian->setZero();
      hessian->topLeftCorner<N, N>() = Wi + G.topLeftCorner<N, N>();
    }
  });
  return f;
}

// Working memory of a solve, kept between solves (no allocation for problems of the same size),
// and the warm-start impulses.
struct PgsSolver::Scratch {
  ConstraintBundle laws;
  std::vector<SegmentRef> segments;
  std::vector<Eigen::LLT<MatX>> llt;  // per tree: A_t = L Lᵀ
  // Y_it = A_t⁻¹J_itᵀ (nv_t x rows, column-major) of block k of constraint i at
  // Y.data() + y_offset[2 i + k] [1/kg].
  std::vector<double> Y;
  std::vector<size_t> y_offset;
  std::vector<Mat3> W;       // per constraint, W_ii (rows x rows, top-left) [1/kg]
  std::vector<Mat3> W_inv;   // per constraint, (W_ii + ε_i I)⁻¹ [kg]
  std::vector<char> zero_W;  // per constraint: W_ii = 0 (J_i = 0)
  std::vector<double> h;     // per constraint, h_i(γ_i) [J]
  std::vector<char> h_known;
  VecX D;                             // nv, diag(M)^(-1/2) [1/√kg]
  VecX v, v_prev;                     // nv [m/s]
  VecX gamma, gamma_prev, gamma_law;  // num_rows [N s]: PGS's, the previous sweep's, γ(v_c(v))
  VecX vc;                            // num_rows, J v + b [m/s]
  VecX jc;                            // nv, Jᵀγ(v_c) [N s]
  VecX dv, Adv, Mv;                   // nv
  std::vector<Regime> regime, regime_prev;
  // Warm start: the last solve's γ per constraint identity (impulse_memory.h), and which
  // constraints of this solve were recalled.
  DualWarmStart warm;
  std::vector<char> recalled;
};

PgsSolver::PgsSolver(const PgsParameters& params, const ContactModelParameters& contact)
    : scratch_(std::make_unique<Scratch>()) {
  set_parameters(params);
  set_contact_model(contact);
}

PgsSolver::~PgsSolver() = default;

void PgsSolver::set_parameters(const PgsParameters& p) {
  p.Validate();
  params_ = p;
}

SolverStatus PgsSolver::Solve(const ContactProblem& problem, const VecX& v_guess,
                              SolverResult* result) {
  const auto t_start = Clock::now();
  Scratch& s = *scratch_;
  const PgsParameters& prm = params_;
  SolverStats& stats = result->stats;
  {
    // stats = {} keeping the log's storage.
    IterationLog log = std::move(stats.iteration_log);
    stats = SolverStats{};
    stats.iteration_log = std::move(log);
  }
  auto fail = [&](SolverStatus status, const std::string& message, bool keep_laws) {
    if (!keep_laws) result->laws = ConstraintBundle{};
    FailResult(problem, v_guess, status, message, PgsSeriesTable(), result);
    stats.solve_ms = MsSince(t_start);
    return status;
  };

  // Input checks, before any work.
  std::string error = CheckProblemStructure(problem, v_guess);
  if (!error.empty()) return fail(SolverStatus::kNonFiniteInput, error, false);
  if (!SupportedModel(contact_.model)) {
    std::ostringstream os;
    os << "PGS cannot solve contact model " << static_cast<int>(contact_.model)
       << " (unknown); PGS accepts linear, lagged, lagged_regularized and similar";
    return fail(SolverStatus::kUnsupportedContactModel, os.str(), false);
  }
  s.laws.Prepare(problem, PgsLawParameters(prm, contact_));
  const ConstraintBundle& laws = s.laws;
  result->laws = laws;
  error = CheckProblemFinite(problem, v_guess);
  if (error.empty()) error = laws.Check();
  if (!error.empty()) return fail(SolverStatus::kNonFiniteInput, error, true);

  const int nv = problem.nv, nr = problem.num_rows, nt = problem.num_trees();
  const int nc = static_cast<int>(problem.constraints.size());
  const bool have_M = static_cast<int>(problem.M.size()) == nt;
  // D = diag(M)^(-1/2) of e_m (A when M is absent), as MomentumError.
  s.D.resize(nv);
  for (int t = 0; t < nt; ++t) {
    const MatX& Mt = have_M ? problem.M[t] : problem.A[t];
    s.D.segment(problem.tree_v_start[t], problem.tree_nv[t]) =
        Mt.diagonal().cwiseMax(0).cwiseSqrt().cwiseInverse();
  }
  if (!s.D.allFinite()) {
    return fail(SolverStatus::kNonFiniteInput, "diag(M) has a non-positive entry", true);
  }

  IterationLog& log = stats.iteration_log;
  log.Reset(PgsSeriesTable());
  log.Reserve(std::max(prm.max_iterations, 0) + 1);

  // Residual, primal cost, duality gap and regimes at the iterate s.v (with γ = s.gamma): fills
  // the row's non-per-step series. Returns e_m.
  auto evaluate = [&](double* row) {
    problem.ConstraintVelocities(s.v, &s.vc);
    const double ell_c = laws.Evaluate(s.vc, &s.gamma_law, nullptr, &s.regime);
    s.jc.setZero(nv);
    problem.AddJacobianTransposeTimes(s.gamma_law, &s.jc);
    double grad2 = 0, mom2 = 0, imp2 = 0, quad = 0;
    for (int t = 0; t < nt; ++t) {
      const int st = problem.tree_v_start[t], n = problem.tree_nv[t];
      s.dv.segment(st, n) = s.v.segment(st, n) - problem.v_star.segment(st, n);
      s.Adv.segment(st, n).noalias() = problem.A[t] * s.dv.segment(st, n);
      s.Mv.segment(st, n).noalias() = (have_M ? problem.M[t] : problem.A[t]) * s.v.segment(st, n);
      quad += 0.5 * s.dv.segment(st, n).dot(s.Adv.segment(st, n));
      const auto Dt = s.D.segment(st, n);
      grad2 += (Dt.cwiseProduct(s.Adv.segment(st, n) - s.jc.segment(st, n))).squaredNorm();
      mom2 += Dt.cwiseProduct(s.Mv.segment(st, n)).squaredNorm();
      imp2 += Dt.cwiseProduct(s.jc.segment(st, n)).squaredNorm();
    }
    const double scale = std::sqrt(std::max(mom2, imp2));
    const double e_m = scale > 0 ? std::sqrt(grad2) / scale
                                 : (grad2 == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    row[kPgsMomentumResidual] = e_m;
    row[kPgsCost] = quad + ell_c;
    bool all_known = true;
    double sum_h = 0;
    for (int i = 0; i < nc; ++i) {
      all_known = all_known && s.h_known[i];
      sum_h += s.h[i];
    }
    row[kPgsDualityGap] = all_known ? ell_c + sum_h + s.gamma.dot(s.vc) : kNaN;
    int active = 0, counts[3] = {0, 0, 0};
    for (int i = 0; i < nc; ++i) {
      const ConstraintData& c = problem.constraints[i];
      if (s.gamma(c.first_row + c.num_rows - 1) > 0) ++active;
      ++counts[static_cast<int>(s.regime[i])];
    }
    row[kPgsNumActive] = active;
    row[kPgsNumStiction] = counts[static_cast<int>(Regime::kStiction)];
    row[kPgsNumSliding] = counts[static_cast<int>(Regime::kSliding)];
    row[kPgsNumNoContact] = counts[static_cast<int>(Regime::kNoContact)];
    return e_m;
  };
  auto finish = [&](SolverStatus status, const std::string& message) {
    stats.status = status;
    stats.message = message;
    stats.iterations = std::max(log.num_rows() - 1, 0);
    stats.cost = log.empty() ? kNaN : log.Last(kPgsCost);
    // PGS's (v, γ) balances momentum by construction (v = v* + A⁻¹Jᵀγ), so e_m at (v, γ) would
    // be round-off and hide how far γ is from the laws: the reported e_m is SAP's, at v with the
    // laws' impulses γ(v_c(v)) (the last kPgsMomentumResidual).
    stats.momentum_error = MomentumError(problem, s.v, s.gamma_law);
    // e_μ = Σ_i |g_iᵀγ_i| / (n_c ℓ_p(v)), the laws' own complementarity at PGS's pair (v_c, γ)
    // (linear: g = v_c − v̂ + Rγ, eq. 33): meaningful here, since γ is PGS's iterate and not the
    // laws' impulse at v_c. ComplementarityError's definition, with ℓ_p(v) from the last row
    // (that function passes a null γ to ConstraintBundle::Evaluate, which writes through it).
    const double cost = stats.cost;
    stats.complementarity_error =
        nc > 0 && cost > 0 ? laws.ComplementaritySlack(s.vc, s.gamma) / nc / cost : 0.0;
    result->v = s.v;
    result->vc = s.vc;
    result->gamma = s.gamma;
    result->regime = s.regime;
    if (s.gamma.allFinite()) s.warm.Store(problem, s.gamma);
    stats.solve_ms = MsSince(t_start);
    return status;
  };

  s.v = problem.v_star;
  s.gamma.setZero(nr);
  s.h.assign(nc, 0.0);
  s.h_known.assign(nc, 1);
  s.regime.assign(nc, Regime::kNoContact);
  s.vc.resize(nr);
  s.gamma_law.resize(nr);
  s.dv.resize(nv);
  s.Adv.resize(nv);
  s.Mv.resize(nv);
  if (nc == 0) {
    // No constraint: v = v*, the minimizer of ½‖v − v*‖²_A.
    evaluate(log.AddRow());
    log.row(0)[kPgsNumChanged] = log.row(0)[kPgsNewtonSteps] = 0;
    log.row(0)[kPgsCostImprovement] = log.row(0)[kPgsImpulseChange] = 0;
    log.row(0)[kPgsRelativeImpulseChange] = 0;
    return finish(SolverStatus::kConverged, "");
  }

  // Per tree: A_t = L Lᵀ.
  if (static_cast<int>(s.llt.size()) < nt) s.llt.resize(nt);
  for (int t = 0; t < nt; ++t) {
    s.llt[t].compute(problem.A[t]);
    if (s.llt[t].info() != Eigen::Success) {
      std::ostringstream os;
      os << "PGS: the A block of tree " << t << " is not positive definite (Cholesky failed)";
      return fail(SolverStatus::kFactorizationFailure, os.str(), true);
    }
  }
  // Per constraint block: Y = A_t⁻¹J_itᵀ; W_ii = Σ_t J_it Y_it; its regularized inverse.
  s.y_offset.assign(2 * static_cast<size_t>(nc), 0);
  size_t y_size = 0;
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    for (int k = 0; k < c.num_blocks; ++k) {
      s.y_offset[2 * i + k] = y_size;
      y_size += static_cast<size_t>(problem.tree_nv[c.blocks[k].tree]) * c.num_rows;
    }
  }
  if (s.Y.size() < y_size) s.Y.resize(y_size);
  s.W.resize(nc);
  s.W_inv.resize(nc);
  s.zero_W.assign(nc, 0);
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    const int rows = c.num_rows;
    Mat3& W = s.W[i];
    W.setZero();
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      const int n = problem.tree_nv[b.tree];
      Eigen::Map<MatX> Y(s.Y.data() + s.y_offset[2 * i + k], n, rows);
      Y = b.J.transpose();
      s.llt[b.tree].solveInPlace(Y);
      W.topLeftCorner(rows, rows).noalias() += b.J * Y;
    }
    W = (0.5 * (W + W.transpose())).eval();
    if (!W.allFinite()) {
      std::ostringstream os;
      os << "PGS: non-finite Delassus block W_ii of constraint " << i;
      return fail(SolverStatus::kNumericalFailure, os.str(), true);
    }
    Mat3 Wr = W;
    double lmin, lmax;
    if (rows == 3) {
      Eigen::SelfAdjointEigenSolver<Mat3> eig;
      eig.computeDirect(W, Eigen::EigenvaluesOnly);
      lmin = eig.eigenvalues()(0);
      lmax = eig.eigenvalues()(2);
    } else {
      lmin = lmax = W(0, 0);
    }
    if (!(lmax > 0)) {
      s.zero_W[i] = 1;  // J_i = 0: x = v_c,i = b_i
      s.W_inv[i].setZero();
      continue;
    }
    if (lmin < kDelassusFloor * lmax) {
      Wr.topLeftCorner(rows, rows) += kDelassusFloor * lmax * MatX::Identity(rows, rows);
    }
    s.W_inv[i].setZero();
    if (rows == 3) {
      s.W_inv[i] = Wr.llt().solve(Mat3::Identity());
    } else {
      s.W_inv[i](0, 0) = 1.0 / Wr(0, 0);
    }
    s.W_inv[i] = (0.5 * (s.W_inv[i] + s.W_inv[i].transpose())).eval();
  }
  s.segments.clear();
  laws.ForEachSegment([&](auto, const auto* K, const LawSegment& seg) {
    s.segments.push_back(SegmentRef{seg, static_cast<const void*>(K)});
  });

  // Start: γ from the previous solve, the laws at the guess, or zero (PgsParameters::warm_start).
  // The previous solve's impulses are matched per constraint (impulse_memory.h); a constraint
  // without a match starts from the laws at the guess.
  int recalled = 0;
  if (prm.warm_start == PgsParameters::WarmStart::kImpulses) {
    recalled = s.warm.Recall(problem, &s.gamma, &s.recalled);
    for (int i = 0; i < nc; ++i) {
      if (s.recalled[i]) s.h_known[i] = 0;  // h_i(γ_i) of an impulse not produced by these laws
    }
  }
  if (prm.warm_start != PgsParameters::WarmStart::kZero && recalled < nc) {
    problem.ConstraintVelocities(v_guess, &s.vc);
    for (const SegmentRef& ref : s.segments) {
      Dispatch(ref, [&](auto law, const auto* K) {
        using Law = decltype(law);
        for (int i = ref.seg.begin; i < ref.seg.end; ++i) {
          if (recalled > 0 && s.recalled[i]) continue;
          const int r = problem.constraints[i].first_row;
          Vec3 x = Vec3::Zero(), g = Vec3::Zero();
          x.head<Law::kRows>() = s.vc.segment<Law::kRows>(r);
          Regime reg;
          const double ell = Law::Cost(K[i - ref.seg.begin], x.data(), g.data(), nullptr, &reg);
          s.gamma.segment<Law::kRows>(r) = g.head<Law::kRows>();
          s.h[i] = -g.head<Law::kRows>().dot(x.head<Law::kRows>()) - ell;  // Fenchel–Young
        }
      });
    }
  }
  // v = v* + Σ_i Σ_t Y_it γ_i.
  auto add_impulse = [&](int i, const double* delta) {
    const ConstraintData& c = problem.constraints[i];
    for (int k = 0; k < c.num_blocks; ++k) {
      const int t = c.blocks[k].tree, n = problem.tree_nv[t];
      kernels::VecMap(s.v.data() + problem.tree_v_start[t], n).noalias() +=
          kernels::DynCMap(s.Y.data() + s.y_offset[2 * i + k], n, c.num_rows) *
          kernels::VecCMap(delta, c.num_rows);
    }
  };
  if (!s.gamma.allFinite()) {  // laws overflowing at an extreme guess: start from γ = 0
    s.gamma.setZero(nr);
    s.h.assign(nc, 0.0);
    s.h_known.assign(nc, 1);
  }
  for (int i = 0; i < nc; ++i) add_impulse(i, s.gamma.data() + problem.constraints[i].first_row);
  if (!s.v.allFinite()) {
    return fail(SolverStatus::kNumericalFailure,
                "PGS: the start v = v* + A^-1 J^T gamma is not finite", true);
  }

  {
    double* row0 = log.AddRow();
    const double e_m = evaluate(row0);
    row0[kPgsCostImprovement] = row0[kPgsImpulseChange] = row0[kPgsRelativeImpulseChange] = 0;
    row0[kPgsNumChanged] = row0[kPgsNewtonSteps] = 0;
    if (e_m <= prm.momentum_tolerance) return finish(SolverStatus::kConverged, "");
  }

  // One block update of constraint i (law Law, constants K). False when the block Newton failed.
  double improvement = 0, magnitude = 0;
  bool improvement_known = true;
  int newton_steps = 0;
  auto update = [&](auto law, const auto& K, int i) {
    using Law = decltype(law);
    constexpr int N = Law::kRows;
    const ConstraintData& c = problem.constraints[i];
    const int r0 = c.first_row;
    Vec3 vci = Vec3::Zero();
    vci.head<N>() = c.bias.head<N>();
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      kernels::AddJx(b.J.data(), N, problem.tree_nv[b.tree],
                     s.v.data() + problem.tree_v_start[b.tree], vci.data());
    }
    Vec3 g_old = Vec3::Zero();
    g_old.head<N>() = s.gamma.segment<N>(r0);
    PgsBlockResult blk;
    if (s.zero_W[i]) {
      blk.x = vci;
      blk.ell = Law::Cost(K, blk.x.data(), blk.gamma.data(), nullptr, &blk.regime);
      blk.converged = true;
    } else {
      blk = SolveBlock<Law>(K, s.W_inv[i], vci, g_old, vci);
      newton_steps += blk.iterations;
      if (!blk.converged) return false;
    }
    Vec3 delta = Vec3::Zero();
    delta.head<N>() = blk.gamma.head<N>() - g_old.head<N>();
    s.gamma.segment<N>(r0) = blk.gamma.head<N>();
    add_impulse(i, delta.data());
    const double h_new = -blk.gamma.head<N>().dot(blk.x.head<N>()) - blk.ell;
    const double lin = delta.head<N>().dot(vci.head<N>());
    const double quad = 0.5 * delta.head<N>().dot(s.W[i].topLeftCorner<N, N>() * delta.head<N>());
    if (s.h_known[i]) {
      improvement += s.h[i] - h_new - lin - quad;
    } else {
      improvement_known = false;
    }
    magnitude += std::abs(s.h[i]) + std::abs(h_new) + std::abs(lin) + std::abs(quad);
    s.h[i] = h_new;
    s.h_known[i] = 1;
    return true;
  };
  // A pass over the constraints, forward or backward; returns the failed constraint or -1.
  auto pass = [&](bool forward) {
    int failed = -1;
    const int ns = static_cast<int>(s.segments.size());
    for (int q = 0; q < ns && failed < 0; ++q) {
      const SegmentRef& ref = s.segments[forward ? q : ns - 1 - q];
      Dispatch(ref, [&](auto law, const auto* K) {
        const LawSegment& seg = ref.seg;
        if (forward) {
          for (int i = seg.begin; i < seg.end && failed < 0; ++i) {
            if (!update(law, K[i - seg.begin], i)) failed = i;
          }
        } else {
          for (int i = seg.end - 1; i >= seg.begin && failed < 0; --i) {
            if (!update(law, K[i - seg.begin], i)) failed = i;
          }
        }
      });
    }
    return failed;
  };

  const bool symmetric = prm.sweep == PgsParameters::Sweep::kSymmetric;
  for (int k = 1; k <= prm.max_iterations; ++k) {
    s.gamma_prev = s.gamma;
    s.v_prev = s.v;
    s.regime_prev = s.regime;
    improvement = 0;
    magnitude = 0;
    improvement_known = true;
    newton_steps = 0;
    int failed = pass(true);
    if (failed < 0 && symmetric) failed = pass(false);
    if (failed >= 0 || !s.v.allFinite() || !s.gamma.allFinite()) {
      // Back to the last finite iterate (the previous sweep's), re-evaluated for the result.
      s.gamma = s.gamma_prev;
      s.v = s.v_prev;
      problem.ConstraintVelocities(s.v, &s.vc);
      laws.Evaluate(s.vc, &s.gamma_law, nullptr, &s.regime);
      std::ostringstream os;
      if (failed >= 0) {
        os << "PGS: the exact block update of constraint " << failed
           << " did not converge in sweep " << k << " (damped Newton on the "
           << problem.constraints[failed].num_rows << "-row block problem)";
      } else {
        os << "PGS: non-finite iterate in sweep " << k;
      }
      return finish(SolverStatus::kNumericalFailure, os.str());
    }
    double* row = log.AddRow();
    const double e_m = evaluate(row);
    const double change = (s.gamma - s.gamma_prev).lpNorm<Eigen::Infinity>();
    const double gmax = s.gamma.lpNorm<Eigen::Infinity>();
    const double rel_change =
        change == 0 ? 0.0 : change / std::max(gmax, std::numeric_limits<double>::min());
    int changed = 0;
    for (int i = 0; i < nc; ++i) changed += s.regime[i] != s.regime_prev[i];
    row[kPgsCostImprovement] = improvement_known ? improvement : kNaN;
    row[kPgsImpulseChange] = change;
    row[kPgsRelativeImpulseChange] = rel_change;
    row[kPgsNumChanged] = changed;
    row[kPgsNewtonSteps] = newton_steps;
    if (e_m <= prm.momentum_tolerance || rel_change < prm.tolerance ||
        (improvement_known && prm.improvement_tolerance > 0 &&
         improvement <= prm.improvement_tolerance * magnitude)) {
      return finish(SolverStatus::kConverged, "");
    }
  }
  std::ostringstream os;
  os << "PGS: " << prm.max_iterations
     << " sweeps without convergence (e_m = " << log.Last(kPgsMomentumResidual)
     << ", relative impulse change = " << log.Last(kPgsRelativeImpulseChange) << ")";
  return finish(SolverStatus::kMaxIterations, os.str());
}

}  // namespace contactlab
