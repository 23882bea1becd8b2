// First-order solver (Drumwright, seed 002): assembly of the per-step cone program from a
// ContactProblem and the mapping of its solution back to v, γ and the regimes. The formulation
// and its symbols are in first_order_solver.h; the interior-point method is socp.h.
#include "engine/solvers/first_order/first_order_solver.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "engine/solvers/common/problem_checks.h"
#include "engine/solvers/first_order/first_order_parameter_table.h"
#include "engine/solvers/first_order/socp.h"

namespace contactlab {

namespace {

using Clock = std::chrono::steady_clock;

// Refusal thresholds of the dense method (kWorkBudgetExceeded): per interior-point iteration
// [10⁹ multiply-adds] (10-100 s at 1-10 Gflop/s), and for the dense operators [GB].
constexpr double kMaxGflopPerIteration = 100;
constexpr double kMaxDenseGigabytes = 4;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Order of the FirstOrderSeries enum (first_order_solver.h).
constexpr SeriesSpec kFirstOrderSeriesSpecs[] = {
    {"duality_gap", "relative duality gap s^T z", "", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kResidual, kSeriesDefaultPlot,
     "interior-point duality gap s^T z of the equilibrated cone program relative to the largest "
     "term of its objective, max(1, |f|, x^T P x / 2, |q^T x|, |r|); the stopping test with the "
     "two residuals (gap_tolerance)"},
    {"primal_infeasibility", "primal residual ||Gx + s - h||", "", SeriesAxis::kLog,
     SeriesType::kReal, SeriesRole::kPlain, kSeriesDefaultPlot,
     "relative primal residual ||Gx + s - h|| / max(1, ||Gx||, ||s||, ||h||) of the equilibrated "
     "cone program (feasibility_tolerance)"},
    {"dual_infeasibility", "dual residual ||Px + q + G^T z||", "", SeriesAxis::kLog,
     SeriesType::kReal, SeriesRole::kPlain, kSeriesDefaultPlot,
     "relative dual residual ||Px + q + G^T z|| / max(1, ||Px||, ||G^T z||, ||q||) of the "
     "equilibrated cone program (feasibility_tolerance)"},
    {"step_length", "step length alpha", "", SeriesAxis::kLinear, SeriesType::kReal,
     SeriesRole::kPlain, kSeriesDefaultPlot | kSeriesPerStep,
     "interior-point step that produced the iterate, a fraction step_fraction of the step to the "
     "boundary of the cones, at most 1 (0 at the start)"},
    {"objective", "objective", "N^2 s^2", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kObjective, 0u,
     "the cone program's objective at the iterate (paper: (zeta/2)|g_n|^2 + 1/2|g_t|^2 + "
     "1/2|beta_t|^2 in impulses; complementarity: 1/2 g^T (W + S^-1) g + g^T (psi - v_hat) [J]); "
     "infeasible iterates may lie below the optimum"},
    {"barrier", "barrier parameter mu", "", SeriesAxis::kLog, SeriesType::kReal, SeriesRole::kPlain,
     0u, "mu = s^T z / nu, nu = orthant rows + cones (equilibrated problem)"},
    {"centering", "centering sigma", "", SeriesAxis::kLinear, SeriesType::kReal, SeriesRole::kPlain,
     kSeriesPerStep,
     "Mehrotra's centering sigma = (1 - alpha_affine)^3 of the step (0 at the start)"},
};
static_assert(sizeof(kFirstOrderSeriesSpecs) / sizeof(kFirstOrderSeriesSpecs[0]) ==
                  kNumFirstOrderSeries,
              "one spec per FirstOrderSeries entry");

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Bitwise equality of two cone programs (sizes first).
bool SameProgram(const SocpProblem& a, const SocpProblem& b) {
  auto same = [](const auto& x, const auto& y) {
    return x.rows() == y.rows() && x.cols() == y.cols() && x == y;
  };
  return a.num_linear == b.num_linear && a.cone_sizes == b.cone_sizes && a.r == b.r &&
         same(a.P, b.P) && same(a.q, b.q) && same(a.G, b.G) && same(a.h, b.h);
}

// Row kinds of the assembled program.
enum RowKind : char { kRowNormal, kRowTangent, kRowLimit };

}  // namespace

SeriesTable FirstOrderSeriesTable() { return SeriesTable::Of(kFirstOrderSeriesSpecs); }

void FirstOrderParameters::Validate() const { FirstOrderParameterTable().Validate(*this); }

struct FirstOrderSolver::Scratch {
  FirstOrderRowConstants rows;        // per problem row
  std::vector<Eigen::LLT<MatX>> llt;  // per tree, A_t = L Lᵀ
  MatX J;                             // n_r x nv, dense Jacobian [-]
  MatX Y;                             // nv x n_r, A⁻¹Jᵀ [1/kg]
  MatX W;                             // n_r x n_r, W̃ = J A⁻¹ Jᵀ [1/kg]
  VecX psi;                           // n_r, ψ = J v* + b [m/s]
  VecX v_hat;                   // n_r, v̂ = −Kφ/κ on normal and limit rows, 0 on tangents
  std::vector<RowKind> kind;    // n_r
  std::vector<int> var_of_row;  // n_r → variable of the cone program, −1 when γ ≡ 0
  std::vector<int> row_of_var;  // variables → problem row
  SocpProblem socp;
  SocpSolver ipm;
  SocpResult ipm_result;
  // The previous solve's primal-dual point and the layout it belongs to.
  SocpPoint last_point;
  bool have_last = false;
  int last_rows = -1, last_linear = -1;
  std::vector<int> last_cones;
  SocpProblem last_program;
  VecX gamma;      // n_r
  VecX gamma_ref;  // per constraint, |hσ(0)|/(1 + S W̃_ii) [N s]
};

FirstOrderSolver::FirstOrderSolver(const FirstOrderParameters& params,
                                   const ContactModelParameters& contact)
    : contact_(contact), scratch_(std::make_unique<Scratch>()) {
  set_parameters(params);
}

FirstOrderSolver::~FirstOrderSolver() = default;

void FirstOrderSolver::set_parameters(const FirstOrderParameters& p) {
  p.Validate();
  params_ = p;
}

const FirstOrderRowConstants& FirstOrderSolver::row_constants() const { return scratch_->rows; }
const SocpProblem& FirstOrderSolver::last_program() const { return scratch_->socp; }
const std::vector<int>& FirstOrderSolver::program_rows() const { return scratch_->row_of_var; }
const SocpResult& FirstOrderSolver::last_ipm_result() const { return scratch_->ipm_result; }

SolverStatus FirstOrderSolver::Solve(const ContactProblem& problem, const VecX& v_guess,
                                     SolverResult* result) {
  const auto t_start = Clock::now();
  Scratch& sc = *scratch_;
  const FirstOrderParameters& prm = params_;
  {
    // Fresh stats, keeping the log's storage.
    IterationLog log = std::move(result->stats.iteration_log);
    result->stats = SolverStats{};
    log.Reset(FirstOrderSeriesTable());
    result->stats.iteration_log = std::move(log);
  }
  SolverStats& stats = result->stats;
  auto fail = [&](SolverStatus status, const std::string& message) {
    result->laws = ConstraintBundle{};
    FailResult(problem, v_guess, status, message, FirstOrderSeriesTable(), result);
    stats.solve_ms = MsSince(t_start);
    return status;
  };

  // Input checks before anything is assembled.
  std::string error = CheckProblemInput(problem, v_guess);
  if (!error.empty()) return fail(SolverStatus::kNonFiniteInput, error);
  if (contact_.model != ContactModelType::kLinear) {
    std::ostringstream os;
    os << "the first-order solver does not solve the contact model '"
       << ContactModelName(contact_.model)
       << "': it accepts only 'linear' (a spring k and damper k tau_d per row)";
    return fail(SolverStatus::kUnsupportedContactModel, os.str());
  }
  const int nc = static_cast<int>(problem.constraints.size());
  for (int i = 0; i < nc; ++i) {
    // The cone program has orthant and second-order-cone variables only (no free variables).
    if (problem.constraints[i].kind == ConstraintKind::kBilateral) {
      std::ostringstream os;
      os << "solver first_order does not support equality constraints (constraint " << i
         << " is bilateral); use sap, pgs or subadmm";
      return fail(SolverStatus::kUnsupportedConstraint, os.str());
    }
  }
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    const char* what = nullptr;
    if (std::isnan(c.stiffness))
      what = "stiffness k is NaN";
    else if (!(std::isfinite(c.dissipation_time) && c.dissipation_time >= 0))
      what = "dissipation time tau_d is not finite and >= 0";
    else if (!std::isfinite(c.phi0))
      what = "phi0 is not finite";
    else if (c.kind == ConstraintKind::kFrictionCone &&
             !(std::isfinite(c.friction) && c.friction >= 0))
      what = "friction mu is not finite and >= 0";
    if (what) {
      std::ostringstream os;
      os << "constraint " << i << ": " << what;
      return fail(SolverStatus::kNonFiniteInput, os.str());
    }
  }

  const int nv = problem.nv, nr = problem.num_rows;
  const double h = problem.time_step;
  result->laws.Prepare(problem, LawParameters{contact_});

  // Empty problem: v = v*, no iteration.
  if (nc == 0) {
    result->v = problem.v_star;
    result->vc.resize(0);
    result->gamma.resize(0);
    result->regime.clear();
    double* row = stats.iteration_log.AddRow();
    row[kFirstOrderDualityGap] = 0;
    row[kFirstOrderPrimalInfeasibility] = 0;
    row[kFirstOrderDualInfeasibility] = 0;
    row[kFirstOrderStepLength] = 0;
    row[kFirstOrderObjective] = 0;
    row[kFirstOrderBarrier] = 0;
    row[kFirstOrderCentering] = 0;
    stats.status = SolverStatus::kConverged;
    stats.momentum_error = MomentumError(problem, result->v, result->gamma);
    stats.complementarity_error = 0;
    stats.cost = 0;
    stats.solve_ms = MsSince(t_start);
    return stats.status;
  }

  // The method is dense and cubic in the rows (digest §9 item 2): refuse a problem whose dense
  // operators or interior-point iterations would take minutes or gigabytes, before allocating.
  {
    const double rows = nr, vars = nv;
    const double m_est =
        2.0 * rows;  // program rows: the problem's plus one spring row each, at most
    const double gflop =
        (m_est * m_est * m_est / 3 + rows * rows * m_est + m_est * m_est * rows) * 1e-9;
    const double gbytes = 8e-9 * (2 * rows * vars + 4 * m_est * m_est + 2 * m_est * rows);
    if (gflop > kMaxGflopPerIteration || gbytes > kMaxDenseGigabytes) {
      std::ostringstream os;
      os << "the first-order solver's dense program for " << nc << " constraints (" << nr
         << " rows) on " << nv << " dofs would need about " << gflop << " Gflop per interior-point "
         << "iteration and " << gbytes << " GB (limits " << kMaxGflopPerIteration << ", "
         << kMaxDenseGigabytes << ")";
      return fail(SolverStatus::kWorkBudgetExceeded, os.str());
    }
  }

  // Per-tree Cholesky factors of A and the dense Delassus operator W̃ = J A⁻¹ Jᵀ.
  const int nt = problem.num_trees();
  sc.llt.resize(nt);
  for (int t = 0; t < nt; ++t) {
    if (problem.tree_nv[t] == 0) continue;
    sc.llt[t].compute(problem.A[t]);
    if (sc.llt[t].info() != Eigen::Success) {
      std::ostringstream os;
      os << "the A block of tree " << t << " is not positive definite (Cholesky failed)";
      return fail(SolverStatus::kNumericalFailure, os.str());
    }
  }
  sc.J.setZero(nr, nv);
  for (const ConstraintData& c : problem.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      sc.J.block(c.first_row, problem.tree_v_start[b.tree], c.num_rows, problem.tree_nv[b.tree]) +=
          b.J;
    }
  }
  sc.Y.resize(nv, nr);
  for (int t = 0; t < nt; ++t) {
    const int s0 = problem.tree_v_start[t], n = problem.tree_nv[t];
    if (n == 0) continue;
    sc.Y.middleRows(s0, n) = sc.llt[t].solve(sc.J.middleCols(s0, n).transpose());
  }
  sc.W.noalias() = sc.J * sc.Y;
  sc.W = 0.5 * (sc.W + sc.W.transpose()).eval();  // exactly symmetric
  problem.ConstraintVelocities(problem.v_star, &sc.psi);

  // Row constants: K, B, S = h²K + hB, φ (after the convention), hσ(0) = −hKφ − Sψ, v̂ = −Kφ/κ.
  FirstOrderRowConstants& rc = sc.rows;
  rc.K.setZero(nr);
  rc.B.setZero(nr);
  rc.S.setZero(nr);
  rc.phi.setZero(nr);
  rc.sigma0.setZero(nr);
  sc.v_hat.setZero(nr);
  sc.kind.assign(nr, kRowNormal);
  sc.var_of_row.assign(nr, -1);
  sc.row_of_var.clear();
  for (const ConstraintData& c : problem.constraints) {
    const bool rigid = !std::isfinite(c.stiffness) || c.stiffness <= 0;
    const double K = rigid ? prm.rigid_stiffness : std::min(c.stiffness, prm.rigid_stiffness);
    const double B = K * c.dissipation_time;
    const double kappa = h * K + B;
    const double phi = prm.phi_convention == FirstOrderParameters::PhiConvention::kSigned
                           ? c.phi0
                           : std::min(c.phi0, 0.0);
    const int rn = c.first_row + c.num_rows - 1;  // the normal (or limit) row
    rc.K(rn) = K;
    rc.B(rn) = B;
    rc.S(rn) = h * kappa;
    rc.phi(rn) = phi;
    rc.sigma0(rn) = -h * K * phi - rc.S(rn) * sc.psi(rn);
    sc.v_hat(rn) = -K * phi / kappa;
    if (c.kind == ConstraintKind::kFrictionCone) {
      for (int k = 0; k < 2; ++k) {
        const int r = c.first_row + k;
        sc.kind[r] = kRowTangent;
        rc.S(r) = prm.friction_damping;  // K_t = 0, h B_t = friction_damping
        rc.B(r) = prm.friction_damping / h;
        rc.sigma0(r) = -rc.S(r) * sc.psi(r);
        if (c.friction > 0) {
          sc.var_of_row[r] = static_cast<int>(sc.row_of_var.size());
          sc.row_of_var.push_back(r);
        }
      }
    } else {
      sc.kind[rn] = kRowLimit;
    }
    sc.var_of_row[rn] = static_cast<int>(sc.row_of_var.size());
    sc.row_of_var.push_back(rn);
  }
  const int nx = static_cast<int>(sc.row_of_var.size());

  // The cone program (socp.h): orthant rows first (spring rows of the paper's formulation, then
  // γ >= 0 of limits and frictionless contacts), then one 3-row cone per contact with μ > 0.
  SocpProblem& sp = sc.socp;
  const bool paper = prm.formulation == FirstOrderParameters::Formulation::kPaper;
  int num_spring = 0, num_nonneg = 0, num_cones = 0;
  for (const ConstraintData& c : problem.constraints) {
    if (paper) ++num_spring;
    if (c.kind == ConstraintKind::kFrictionCone && c.friction > 0) {
      ++num_cones;
    } else {
      ++num_nonneg;
    }
  }
  const int m = num_spring + num_nonneg + 3 * num_cones;
  sp.num_linear = num_spring + num_nonneg;
  sp.cone_sizes.assign(num_cones, 3);
  sp.G.setZero(m, nx);
  sp.h.setZero(m);
  sp.r = 0;
  // W̃ restricted to the variables' rows and columns.
  auto w_row = [&](int row, int var) { return sc.W(row, sc.row_of_var[var]); };
  if (paper) {
    // Objective: (ζ/2)‖γ_n,u‖² + ½‖γ_t‖² + ½‖C γ + d‖², C = P_t + S_t W̃_t, d = S_t ψ_t
    // (β_t = γ_t − hσ_t(γ) = γ_t + S_t(ψ_t + W̃_tγ)), i.e. P = Z + CᵀC, q = Cᵀd, r = ½‖d‖².
    const double zeta = prm.normal_weight / h;
    int num_t = 0;
    for (int x = 0; x < nx; ++x) num_t += sc.kind[sc.row_of_var[x]] == kRowTangent ? 1 : 0;
    MatX C(num_t, nx);
    VecX d(num_t);
    VecX Z(nx);
    int k = 0;
    for (int x = 0; x < nx; ++x) {
      const int r = sc.row_of_var[x];
      Z(x) = sc.kind[r] == kRowTangent ? 1.0 : zeta;
      if (sc.kind[r] != kRowTangent) continue;
      for (int y = 0; y < nx; ++y) C(k, y) = rc.S(r) * w_row(r, y);
      C(k, x) += 1.0;
      d(k) = rc.S(r) * sc.psi(r);
      ++k;
    }
    sp.P.noalias() = C.transpose() * C;
    sp.P.diagonal() += Z;
    sp.q.noalias() = C.transpose() * d;
    sp.r = 0.5 * d.squaredNorm();
    // Spring rows: γ_x + S_x (W̃γ)_x >= hσ_x(0), i.e. −(e_x + S_x W̃_x)γ + s = −hσ_x(0).
    int row = 0;
    for (const ConstraintData& c : problem.constraints) {
      const int rn = c.first_row + c.num_rows - 1;
      for (int y = 0; y < nx; ++y) sp.G(row, y) = -rc.S(rn) * w_row(rn, y);
      sp.G(row, sc.var_of_row[rn]) -= 1.0;
      sp.h(row) = -rc.sigma0(rn);
      ++row;
    }
  } else {
    // Complementarity: ½γᵀ(W̃ + S⁻¹)γ + γᵀ(ψ − v̂).
    sp.P.resize(nx, nx);
    sp.q.resize(nx);
    for (int x = 0; x < nx; ++x) {
      const int r = sc.row_of_var[x];
      for (int y = 0; y < nx; ++y) sp.P(x, y) = w_row(r, y);
      sp.P(x, x) += 1.0 / rc.S(r);
      sp.q(x) = sc.psi(r) - sc.v_hat(r);
    }
  }
  {
    int row = num_spring;
    int cone_row = sp.num_linear;
    for (const ConstraintData& c : problem.constraints) {
      const int rn = c.first_row + c.num_rows - 1;
      if (c.kind == ConstraintKind::kFrictionCone && c.friction > 0) {
        // s = (μγ_n, γ_r, γ_s) ∈ Q³.
        sp.G(cone_row, sc.var_of_row[rn]) = -c.friction;
        sp.G(cone_row + 1, sc.var_of_row[c.first_row]) = -1.0;
        sp.G(cone_row + 2, sc.var_of_row[c.first_row + 1]) = -1.0;
        cone_row += 3;
      } else {
        sp.G(row, sc.var_of_row[rn]) = -1.0;  // γ >= 0
        ++row;
      }
    }
  }

  // Interior-point solve, from the previous point when it passes the stopping test here.
  SocpSettings settings;
  settings.gap_tolerance = prm.gap_tolerance;
  settings.feasibility_tolerance = prm.feasibility_tolerance;
  settings.max_iterations = prm.max_iterations;
  settings.step_fraction = prm.step_fraction;
  settings.refinement_steps = prm.refinement_steps;
  settings.reduced_tolerance = prm.reduced_tolerance;
  const bool same_layout = sc.have_last && sc.last_rows == nr && sc.last_linear == sp.num_linear &&
                           sc.last_cones == sp.cone_sizes;
  // The same program as last time (bitwise): its previous answer is the answer.
  const bool same_program = same_layout && SameProgram(sc.last_program, sp);
  const SocpStatus ipm_status = sc.ipm.Solve(sp, settings, &sc.ipm_result,
                                             same_layout ? &sc.last_point : nullptr, same_program);
  const SocpResult& ir = sc.ipm_result;
  if (ir.point.x.size() != nx) {
    return fail(SolverStatus::kNumericalFailure, "first-order: " + ir.message);
  }
  sc.have_last = ipm_status == SocpStatus::kOptimal || ipm_status == SocpStatus::kReducedAccuracy;
  sc.last_point = ir.point;
  if (sc.have_last && !same_program) sc.last_program = sp;
  sc.last_rows = nr;
  sc.last_linear = sp.num_linear;
  sc.last_cones = sp.cone_sizes;

  // γ from the program's variables; v = v* + A⁻¹Jᵀγ and v_c = J v + b below.
  sc.gamma.setZero(nr);
  for (int x = 0; x < nx; ++x) sc.gamma(sc.row_of_var[x]) = ir.point.x(x);

  // Zero impulses. The paper's objective has a zero gradient at γ = 0, so the interior point
  // reaches an inactive constraint only as the square root of its gap: an impulse below
  // 10 √ε_gap of the problem's impulse scale, the largest γ_ref = |hσ(0)|/(1 + S W̃_ii) (the
  // impulse a row's spring law asks for from the free motion), is that round-off of a zero.
  // Such constraints get γ = 0 and the regime no contact; v follows from the corrected γ.
  double ref_max = 0;
  sc.gamma_ref.resize(nc);
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    const int rn = c.first_row + c.num_rows - 1;
    sc.gamma_ref(i) = std::abs(rc.sigma0(rn)) / (1 + rc.S(rn) * sc.W(rn, rn));
    ref_max = std::max(ref_max, sc.gamma_ref(i));
  }
  const double zero_factor = 10 * std::sqrt(prm.gap_tolerance);
  result->regime.resize(nc);
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    const int rn = c.first_row + c.num_rows - 1;
    const double gn = sc.gamma(rn);
    const double zero = zero_factor * ref_max;
    Regime reg = Regime::kNoContact;
    if (!(gn > zero)) {
      sc.gamma.segment(c.first_row, c.num_rows).setZero();
    } else if (c.kind == ConstraintKind::kUnilateral) {
      reg = Regime::kStiction;
    } else if (!(c.friction > 0)) {
      reg = Regime::kSliding;  // set below from the slip (SAP's projection reports it so)
    } else {
      // Sliding where ‖γ_t‖ reaches μγ_n (the interior point stays ~1e-10 relative inside).
      const double gt = sc.gamma.segment<2>(c.first_row).norm();
      reg = gt >= (1 - 1e-6) * c.friction * gn ? Regime::kSliding : Regime::kStiction;
    }
    result->regime[i] = reg;
  }
  result->gamma = sc.gamma;
  result->v = problem.v_star;
  result->v.noalias() += sc.Y * sc.gamma;
  problem.ConstraintVelocities(result->v, &result->vc);
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    if (result->regime[i] == Regime::kSliding && !(c.friction > 0) &&
        result->vc.segment<2>(c.first_row).norm() == 0) {
      result->regime[i] = Regime::kStiction;  // frictionless without any slip
    }
  }

  // The laws with the regularization this solver uses: R = 1/S (R_n = 1/(h²K + hB) without a
  // near-rigid clamp, R_t = 1/friction_damping), v̂ = −Kφ/κ. For the complementarity variant
  // they are exactly the laws it solves, so e_μ is round-off; for the paper's formulation e_μ
  // measures how far its min-norm solution is from complementarity (digest §9, item 9).
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    const int rn = c.first_row + c.num_rows - 1;
    if (LinearConeLaw::Constants* L = result->laws.MutableLinearCone(i)) {
      L->Rn = 1.0 / rc.S(rn);
      L->inv_n = rc.S(rn);
      L->Rt = 1.0 / prm.friction_damping;
      L->inv_t = prm.friction_damping;
      L->vn_hat = sc.v_hat(rn);
      L->near_rigid = false;
    } else if (LinearLimitLaw::Constants* L = result->laws.MutableLinearLimit(i)) {
      L->R = 1.0 / rc.S(rn);
      L->inv = rc.S(rn);
      L->v_hat = sc.v_hat(rn);
      L->near_rigid = false;
    }
  }

  // Per-iteration log.
  IterationLog& log = stats.iteration_log;
  log.Reserve(static_cast<int>(ir.log.size()));
  for (size_t k = 0; k < ir.log.size(); ++k) {
    const SocpIterate& it = ir.log[k];
    double* row = log.AddRow();
    row[kFirstOrderDualityGap] = it.gap;
    row[kFirstOrderPrimalInfeasibility] = it.primal_res;
    row[kFirstOrderDualInfeasibility] = it.dual_res;
    row[kFirstOrderStepLength] = k == 0 ? 0.0 : it.step;
    row[kFirstOrderObjective] = it.pcost;
    row[kFirstOrderBarrier] = it.mu;
    row[kFirstOrderCentering] = k == 0 ? 0.0 : it.sigma;
  }
  stats.iterations = ir.iterations;
  switch (ipm_status) {
    case SocpStatus::kOptimal:
      stats.status = SolverStatus::kConverged;
      break;
    case SocpStatus::kReducedAccuracy:
      // Round-off stopped the interior point short of the tolerances but within
      // reduced_tolerance: accepted, and said so in the message.
      stats.status = SolverStatus::kConverged;
      break;
    case SocpStatus::kMaxIterations:
      stats.status = SolverStatus::kMaxIterations;
      break;
    case SocpStatus::kNumericalFailure:
      stats.status = SolverStatus::kNumericalFailure;
      break;
    case SocpStatus::kPrimalInfeasible:
    case SocpStatus::kDualInfeasible:
      // The program is feasible and strictly convex by construction (digest §4, §6): a
      // certificate can only come from round-off.
      stats.status = SolverStatus::kNumericalFailure;
      break;
  }
  if (stats.status != SolverStatus::kConverged || ipm_status == SocpStatus::kReducedAccuracy) {
    stats.message = std::string("first-order interior point: ") + SocpStatusName(ipm_status) +
                    (ir.message.empty() ? "" : ": " + ir.message);
  }
  stats.momentum_error = MomentumError(problem, result->v, result->gamma);
  stats.complementarity_error =
      ComplementarityError(problem, result->laws, result->v, result->vc, result->gamma);
  stats.cost = ir.pcost;
  stats.solve_ms = MsSince(t_start);
  return stats.status;
}

}  // namespace contactlab
