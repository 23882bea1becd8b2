// SAP solver (Castro et al., "An Unconstrained Convex Formulation of Compliant Contact").
//
// The constraints' laws (ℓ_i, γ_i, G_i and the regime) come prepared per step from the contact
// model (engine/contact/constraint_bundle.h), walked one segment of a law at a time.
// Newton iteration on ℓ_p (eq. 24, Alg. 2):
//   γ = γ(v_c(v)) from the laws, ∇ℓ = A(v − v*) − Jᵀγ, stop if ‖D∇ℓ‖ < ε_a + ε_r max(‖Dp‖, ‖DJᵀγ‖)
//   (eq. 26, D = diag(M)^(-1/2), p = M v), else H = A + JᵀGJ, Δv = −H⁻¹∇ℓ, and
//   α = argmin ℓ(v + αΔv) by rtsafe on dℓ/dα (§IV-B) or Armijo backtracking (§IV-C), with the
//   O(n) derivatives dℓ/dα = Δpᵀ(v(α) − v*) − Δv_cᵀγ(α), d²ℓ/dα² = ΔvᵀΔp + Δv_cᵀG(α)Δv_c,
//   Δv_c = JΔv, Δp = AΔv. A cost-stagnation test (|Δℓ| < abs + rel ℓ̄, only when α > 0.5) stops
//   at round-off. Errors reported: e_m (eq. 32) and e_μ (eq. 33).
#include "engine/solvers/sap/sap_solver.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "engine/solvers/sap/sap_parameter_table.h"
#include "engine/contact/linear_cone.h"
#include "engine/solvers/sap/sap_model.h"
#include "engine/solvers/common/islands.h"
#include "engine/solvers/common/problem_checks.h"
#include "engine/solvers/common/sap_supernodal.h"
#include "engine/common/small_kernels.h"
#include "engine/multibody/articulated_tree.h"

namespace contactlab {

namespace {

// "13.7 GB"-style size for messages (decimal units).
std::string FormatBytes(std::int64_t bytes) {
  std::ostringstream os;
  os.precision(3);
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) {
    os << b / 1e9 << " GB";
  } else if (b >= 1e6) {
    os << b / 1e6 << " MB";
  } else {
    os << b / 1e3 << " kB";
  }
  return os.str();
}

// Finite-ness of every numerical input and usability of the laws' constants (the laws' Check),
// with the first offender named.
std::string CheckFinite(const ContactProblem& p, const VecX& v_guess,
                        const ConstraintBundle& laws) {
  std::string error = CheckProblemFinite(p, v_guess);
  return error.empty() ? laws.Check() : error;
}

}  // namespace

void SapParameters::Validate() const { SapParameterTable().Validate(*this); }

LawParameters SapLawParameters(const SapParameters& params, const ContactModelParameters& contact) {
  LawParameters p;
  p.contact = contact;
  p.sigma = params.sigma;
  p.beta = params.beta;
  p.limit_beta = params.limit_beta;
  return p;
}

ConstraintBundle PrepareSapLaws(const ContactProblem& problem, const SapParameters& params,
                                const ContactModelParameters& contact) {
  ConstraintBundle laws;
  laws.Prepare(problem, SapLawParameters(params, contact));
  return laws;
}

// Working memory of one solve, kept between solves so that repeated solves of problems of the
// same size do not allocate in the dense path.
struct SapSolver::Scratch {
  // Set on the child solvers of SolveIslands: their sub-problems are copies of parts of a problem
  // the parent has validated, so the structural and finiteness checks are skipped, and the
  // parent reports the laws' constants, so the child's result does not carry them.
  bool island_child = false;
  // DefaultMemoryBudgetBytes() when the solver was made (reads the environment once).
  std::int64_t default_budget = DefaultMemoryBudgetBytes();
  // DefaultWorkBudgetFlops() likewise (environment and getrlimit read once, not per solve).
  std::int64_t default_work_budget = DefaultWorkBudgetFlops();
  ConstraintBundle laws;  // the step's prepared laws
  VecX D;             // nv, diag(M)^(-1/2) [1/√kg]
  VecX v;             // nv, current iterate [m/s]
  VecX vc;            // num_rows, J v + b [m/s]
  VecX gamma;         // num_rows, impulses [N s]
  VecX grad;          // nv, ∇ℓ_p [N s]
  VecX dv_star;       // nv, v − v* [m/s]
  VecX Adv_star;      // nv, A(v − v*) [N s]
  VecX p;             // nv, M v [N s]
  VecX jc;            // nv, Jᵀγ [N s]
  VecX tmp;           // nv
  VecX dv;            // nv, Newton direction Δv [m/s]
  VecX dvc;           // num_rows, JΔv [m/s]
  VecX dp;            // nv, AΔv [N s]
  VecX vc_trial;      // num_rows, v_c(α) [m/s]
  VecX gamma_trial;   // num_rows, γ(α) [N s]
  std::vector<Mat3> G, G_trial;          // per constraint, −∂γ/∂v_c [s/kg]
  std::vector<Regime> regime, regime_trial;  // per constraint
  // The line search's last evaluation (v_c, γ, G, regimes and ℓ_R at α = trial_alpha), reused
  // as the next iterate's evaluation when the search returns that α.
  double trial_alpha = -1, trial_cost_R = 0;
  // Line-search partition over the search's current bracket (see ls_partition in Solve): the
  // constraints that may change regime there (projected per α), and per constraint its class.
  std::vector<int> ls_active;
  std::vector<LineRegion> ls_class;
  MatX A_dense;       // nv x nv [kg]
  MatX J_dense;       // num_rows x nv [-]
  MatX GJ;            // num_rows x nv
  MatX H;             // nv x nv, A + JᵀGJ [kg]
  Eigen::LLT<MatX> llt;
  // Block-sparse path: H in tree blocks, factorized by BlockSparseCholesky (symbolic analysis
  // reused while the coupled tree pairs are unchanged).
  std::vector<std::pair<int, int>> tree_pairs;    // coupled (tree, tree) pairs of the problem
  // The problem's distinct (max, min) tree pairs of two-tree constraints, sorted, and per pair
  // the constraints on it (CSR: pair_con[pair_con_begin[k], pair_con_begin[k + 1])); built once
  // per solve, so that the coupled pairs of an iterate come out sorted without a sort.
  std::vector<std::pair<int, int>> all_pairs;
  std::vector<int> pair_con_begin, pair_con;
  std::vector<int> con_pair;    // per constraint: its index in all_pairs, or -1
  std::vector<int> pair_block;  // per entry of all_pairs: its block in the pattern, or -1
  std::vector<std::pair<std::pair<int, int>, int>> pair_sort;  // scratch: (pair, constraint)
  BlockSparseCholesky chol;
  // PCG path: H on the no-fill pattern (coupled pairs only), its IC(0) or block-Jacobi factor as
  // the preconditioner, and the CG vectors (nv each: residual r, preconditioned z, search
  // direction p, q = H p).
  BlockSparseCholesky pchol;
  VecX cg_r, cg_z, cg_p, cg_q;
  // Per constraint: diagonal blocks of its (one or two) trees and its off-diagonal block, which
  // holds J_1ᵀ G J_0 when `transposed` (else J_0ᵀ G J_1).
  struct ConstraintBlocks {
    int diag[2] = {-1, -1};
    int off = -1;
    bool transposed = false;
  };
  std::vector<ConstraintBlocks> cblocks;
  bool pattern_valid = false;  // cblocks index the blocks of chol's current pattern
  std::vector<double> gj;                         // 2 x 3 x max tree nv, G J_k per block
  // Diagonal blocks of large trees (> kStackedTreeDofs dofs, e.g. long chains): J and GJ rows of
  // the constraints in contact on the tree, stacked kStackRows at a time (column-major, leading
  // dimension kStackRows), added to H_tt as one rank-k product per chunk.
  std::vector<int> large_trees;                  // trees with more than kStackedTreeDofs dofs
  std::vector<int> tree_con_begin, tree_con;     // per tree: constraints with a block on it
  std::vector<int> tree_con_next;                // scratch of the CSR fill
  std::vector<std::pair<int, int>> stack_order;  // (−support width, constraint) of one tree
  std::vector<double> stack_J, stack_GJ;         // kStackRows x max tree nv each
  // Composite stiffness of a large tree with a TreeMotion: per dof, K_j (6 x 6, column-major)
  // and whether the dof's subtree holds a contact in contact.
  std::vector<double> tree_K;
  std::vector<char> tree_K_set;
  // Tree path (TreeSolveApplies): a problem of one large tree with TreeMotion inertias, e.g. a
  // chain on a static floor solved as its own island. H = A + JᵀGJ is the tree's mass matrix with
  // each contact's WᵀGW added to the inertia at its leaf dof and each joint limit's G J² to its
  // dof's diagonal, factored and solved by the articulated-body recursion in O(nv).
  bool tree_path = false;
  ArticulatedTreeSolver aba;
  std::vector<double> aba_inertia, aba_diag;
  std::vector<int> limit_col;  // per constraint: the column of a one-entry 1-row J, else -1
  std::vector<double> tree_work;  // 6 nv: node velocities or forces of the tree-path products
  // Island path (SapParameters::islands): the split, one child SapSolver per island slot, and
  // the merge (engine/solvers/common/islands.h).
  IslandSplitter islands;
};

namespace {

// Order of the SapSeries enum (sap_solver.h).
constexpr SeriesSpec kSapSeriesSpecs[] = {
    {"cost", "cost l", "J", SeriesAxis::kLog, SeriesType::kReal, SeriesRole::kObjective,
     kSeriesDefaultPlot,
     "SAP's convex cost l_p(v) at the iterate (eq. 16); plotted as the gap to the final cost"},
    {"momentum_residual", "e_m (momentum residual)", "", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kResidual, kSeriesDefaultPlot,
     "e_m = ||D grad l|| / max(||D p||, ||D J^T gamma||) (eq. 32), the stopping test of eq. 26"},
    {"gradient_norm", "||D grad l||", "sqrt(J)", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, 0u, "norm of the scaled gradient, D = diag(A)^(-1/2) (eq. 26)"},
    {"alpha", "line-search step alpha", "", SeriesAxis::kLinear, SeriesType::kReal,
     SeriesRole::kPlain, kSeriesDefaultPlot | kSeriesPerStep,
     "step length that produced the iterate (0 at the guess)"},
    {"line_search_evaluations", "line-search evaluations", "", SeriesAxis::kLinear,
     SeriesType::kInteger, SeriesRole::kPlain, kSeriesPerStep,
     "cost/derivative evaluations of l(v + alpha dv) spent to find alpha"},
    {"num_stiction", "constraints: stiction", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "constraints whose law is in stiction at the iterate"},
    {"num_sliding", "constraints: sliding", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "constraints whose law is sliding at the iterate"},
    {"num_no_contact", "constraints: no_contact", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "constraints whose law gives no impulse at the iterate"},
    {"condition_number", "cond2(H)", "", SeriesAxis::kLog, SeriesType::kReal, SeriesRole::kPlain,
     0u, "2-norm condition number of H = A + J^T G J (only with compute_condition_number)"},
    {"line_search_iterations", "line-search iterations", "", SeriesAxis::kLinear,
     SeriesType::kInteger, SeriesRole::kPlain, kSeriesPerStep,
     "inner iterations of the line search: rtsafe steps (exact) or backtracking steps"},
    {"linear_iterations", "CG iterations", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u,
     "conjugate-gradient iterations of the Newton direction computed at the iterate (PCG path; "
     "0 for a direct solve)"},
    {"linear_residual", "CG relative residual", "", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, 0u,
     "||D(H dv + grad l)|| / ||D grad l|| reached by PCG for the direction at the iterate"},
    {"forcing_term", "forcing term eta", "", SeriesAxis::kLog, SeriesType::kReal,
     SeriesRole::kPlain, 0u,
     "Eisenstat-Walker forcing term: the relative residual PCG had to reach"},
    {"scaled_condition_number", "cond2(DHD) Jacobi-scaled", "", SeriesAxis::kLog,
     SeriesType::kReal, SeriesRole::kPlain, 0u,
     "2-norm condition number of D H D, D = diag(H)^(-1/2) (only with compute_condition_number)"},
};
static_assert(sizeof(kSapSeriesSpecs) / sizeof(kSapSeriesSpecs[0]) == kNumSapSeries,
              "one SeriesSpec per SapSeries entry");

}  // namespace

SeriesTable SapSeriesTable() { return SeriesTable::Of(kSapSeriesSpecs); }

SapSolver::SapSolver(const SapParameters& params, const ContactModelParameters& contact)
    : scratch_(std::make_unique<Scratch>()) {
  set_parameters(params);
  set_contact_model(contact);
}

SapSolver::~SapSolver() = default;

SolverStatus SapSolver::SolveWithLaws(const ContactProblem& problem, const ConstraintBundle& laws,
                                      const VecX& v_guess, SolverResult* result) {
  given_laws_ = &laws;
  const SolverStatus status = Solve(problem, v_guess, result);
  given_laws_ = nullptr;
  return status;
}

void SapSolver::set_parameters(const SapParameters& p) {
  p.Validate();
  params_ = p;
}

void SapSolver::set_contact_model(const ContactModelParameters& contact) {
  const int type = static_cast<int>(contact.model);
  if (type < 0 || type >= kNumContactModelTypes) {
    throw std::invalid_argument("contact.model: unknown contact model (linear, lagged, "
                                "lagged_regularized, similar)");
  }
  const double v_s = contact.stiction_tolerance;
  if (!(v_s > 0 && v_s <= 1)) {
    std::ostringstream os;
    os << "contact.stiction_tolerance = " << v_s << " is out of range (0, 1]";
    throw std::invalid_argument(os.str());
  }
  contact_ = contact;
}

namespace {

// Trees with more dofs than this get their diagonal Hessian block JᵀGJ from stacked rows: a
// rank-3 update of an n x n block per contact reads and writes the whole block (memory bound at
// n = 1000: 16 GB of traffic for 2000 contacts), a rank-kStackRows update runs at the speed of a
// matrix product. Up to this size the per-constraint kernels are kept, so the results of small
// trees do not change by a bit.
constexpr int kStackedTreeDofs = 64;
constexpr int kStackRows = 192;

using Clock = std::chrono::steady_clock;

// Tree path (TreeSolveApplies holds): y = J x (+ b when with_bias) in O(n) instead of O(rows n):
// the dof-node velocities V_j = V_parent + φ_j x_j root to leaf, then a contact's rows are
// W V_leaf and a limit's J_k x_k. V: 6 n scratch.
void TreeMultiplyJ(const ContactProblem& p, const std::vector<int>& limit_col, const VecX& x,
                   bool with_bias, std::vector<double>* V, VecX* y) {
  const TreeMotion& tm = p.tree_motion[0];
  const int n = p.tree_nv[0];
  V->resize(6 * static_cast<size_t>(n));
  using Vec6 = Eigen::Matrix<double, 6, 1>;
  for (int j = 0; j < n; ++j) {
    Eigen::Map<Vec6> Vj(V->data() + 6 * static_cast<size_t>(j));
    Vj = tm.Phi.col(j) * x(j);
    if (tm.parent[j] >= 0) Vj += Eigen::Map<const Vec6>(V->data() + 6 * static_cast<size_t>(tm.parent[j]));
  }
  y->resize(p.num_rows);
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    double* yi = y->data() + c.first_row;
    for (int r = 0; r < c.num_rows; ++r) yi[r] = with_bias ? c.bias(r) : 0.0;
    if (c.num_blocks == 0) continue;
    const TreeJacobianBlock& b = c.blocks[0];
    if (c.num_rows == 3) {
      Eigen::Map<Vec3>(yi) +=
          b.W * Eigen::Map<const Vec6>(V->data() + 6 * static_cast<size_t>(b.leaf));
    } else if (limit_col[i] >= 0) {
      yi[0] += b.J(0, limit_col[i]) * x(limit_col[i]);
    }
  }
}

// Tree path: out += Jᵀ γ in O(n): each contact's spatial force Wᵀγ at its leaf, summed leaf to
// root, τ_j = φ_jᵀ F_j; a limit adds J_k γ to its dof. F: 6 n scratch.
void TreeAddJtTimes(const ContactProblem& p, const std::vector<int>& limit_col, const VecX& gamma,
                    std::vector<double>* F, VecX* out) {
  const TreeMotion& tm = p.tree_motion[0];
  const int n = p.tree_nv[0];
  using Vec6 = Eigen::Matrix<double, 6, 1>;
  F->assign(6 * static_cast<size_t>(n), 0.0);
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    if (c.num_blocks == 0) continue;
    const TreeJacobianBlock& b = c.blocks[0];
    if (c.num_rows == 3) {
      Eigen::Map<Vec6>(F->data() + 6 * static_cast<size_t>(b.leaf)).noalias() +=
          b.W.transpose() * gamma.segment<3>(c.first_row);
    } else if (limit_col[i] >= 0) {
      (*out)(limit_col[i]) += b.J(0, limit_col[i]) * gamma(c.first_row);
    }
  }
  for (int j = n - 1; j >= 0; --j) {
    const Eigen::Map<const Vec6> Fj(F->data() + 6 * static_cast<size_t>(j));
    (*out)(j) += tm.Phi.col(j).dot(Fj);
    if (tm.parent[j] >= 0) Eigen::Map<Vec6>(F->data() + 6 * static_cast<size_t>(tm.parent[j])) += Fj;
  }
}

// Whether the Newton system of `p` can be solved by the articulated-body recursion: one tree of
// more than kStackedTreeDofs dofs whose TreeMotion carries inertias that reproduce A's diagonal
// (A = M in per-dof form), and every constraint either a contact with a spatial form
// (TreeJacobianBlock::leaf >= 0, J = W Φ on one path) or a one-row constraint with one nonzero
// Jacobian entry (a joint limit). Anything else (a contact between two bodies of the tree, whose
// JᵀGJ couples two paths; several trees, coupled through off-diagonal blocks) keeps the block
// Cholesky path. limit_col[i]: the nonzero column of one-row constraint i, else -1.
bool TreeSolveApplies(const ContactProblem& p, std::vector<int>* limit_col) {
  if (p.num_trees() != 1 || p.tree_nv[0] <= kStackedTreeDofs) return false;
  if (p.tree_motion.size() != 1 || !p.tree_motion[0].has_inertia()) return false;
  const int n = p.tree_nv[0];
  if (static_cast<int>(p.tree_motion[0].parent.size()) != n) return false;
  if (!TreeMotionMatches(p.tree_motion[0], p.A[0])) return false;
  const int nc = static_cast<int>(p.constraints.size());
  limit_col->assign(nc, -1);
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = p.constraints[i];
    if (c.num_blocks == 0) continue;
    if (c.num_blocks != 1) return false;
    const TreeJacobianBlock& b = c.blocks[0];
    if (c.num_rows == 3) {
      if (b.leaf < 0 || b.leaf >= n) return false;
      continue;
    }
    int nz = 0;
    for (int k = 0; k < n && nz < 2; ++k) {
      if (b.J(0, k) != 0) {
        ++nz;
        (*limit_col)[i] = k;
      }
    }
    if (nz > 1) return false;
  }
  return true;
}

// v_c + αΔv_c of the kRows rows at r, as a Vec3 (a 1-row constraint uses the first entry).
template <int kRows>
inline Vec3 LineVelocity(const VecX& vc, const VecX& dvc, int r, double alpha) {
  if constexpr (kRows == 3) {
    return vc.segment<3>(r) + alpha * dvc.segment<3>(r);
  } else {
    return Vec3(vc(r) + alpha * dvc(r), 0, 0);
  }
}

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// stats = SolverStats{} keeping the iteration log's capacity (repeated solves do not allocate).
// Clears the stats, keeping the storage of the per-iteration log and per-island lists.
void ResetStats(SolverStats* stats) {
  IterationLog log = std::move(stats->iteration_log);
  IterationLog island_log = std::move(stats->island_log);
  std::vector<IslandSummary> islands = std::move(stats->islands);
  log.Reset(SapSeriesTable());
  island_log.Reset(SapSeriesTable());
  islands.clear();
  *stats = SolverStats{};
  stats->iteration_log = std::move(log);
  stats->island_log = std::move(island_log);
  stats->islands = std::move(islands);
}

}  // namespace

SolverStatus SapSolver::Solve(const ContactProblem& problem, const VecX& v_guess,
                              SolverResult* result) {
  const auto t_start = Clock::now();
  Scratch& s = *scratch_;
  const SapParameters& prm = params_;
  SolverStats& stats = result->stats;
  ResetStats(&stats);
  const int nv = problem.nv;
  const int nr = problem.num_rows;
  const int nc = static_cast<int>(problem.constraints.size());

  auto fail_input = [&](const std::string& message) {
    stats.status = SolverStatus::kNonFiniteInput;
    stats.message = message;
    result->v = v_guess;
    result->vc.setZero(std::max(nr, 0));
    result->gamma.setZero(std::max(nr, 0));
    result->regime.assign(std::max(nc, 0), Regime::kNoContact);
    stats.solve_ms = MsSince(t_start);
    return stats.status;
  };

  // Validation before any iteration.
  std::string error = s.island_child ? std::string() : CheckProblemStructure(problem, v_guess);
  if (!error.empty()) {
    result->laws = ConstraintBundle{};
    return fail_input(error);
  }
  if (given_laws_) {
    if (given_laws_->num_constraints() != nc || given_laws_->num_rows() != nr) {
      result->laws = ConstraintBundle{};
      return fail_input("the given laws were prepared for another problem");
    }
    s.laws = *given_laws_;
  } else {
    s.laws.Prepare(problem, SapLawParameters(prm, contact_));
  }
  const ConstraintBundle& laws = s.laws;
  if (!s.island_child) {
    result->laws = s.laws;
    error = CheckFinite(problem, v_guess, s.laws);
  }
  if (!error.empty()) return fail_input(error);

  // Scaling D = diag(M)^(-1/2) of the stopping criterion (eq. 25). Uses A when M is absent.
  const bool have_M = static_cast<int>(problem.M.size()) == problem.num_trees();
  s.D.resize(nv);
  for (int t = 0; t < problem.num_trees(); ++t) {
    const MatX& Mt = have_M ? problem.M[t] : problem.A[t];
    s.D.segment(problem.tree_v_start[t], problem.tree_nv[t]) =
        Mt.diagonal().cwiseMax(0).cwiseSqrt().cwiseInverse();
  }
  if (!s.D.allFinite()) return fail_input("diag(M) has a non-positive entry");

  const bool dense = prm.linear_solver == SapParameters::LinearSolver::kDense;
  // kAuto starts on the block Cholesky and switches to PCG (for the rest of the solve) when a
  // pattern's factorization is refused by the fill limit or a budget.
  const bool auto_linear = prm.linear_solver == SapParameters::LinearSolver::kAuto;
  bool use_pcg = prm.linear_solver == SapParameters::LinearSolver::kPcg;
  s.pchol.set_incomplete(true);
  BlockSparseCholesky* ch_cur = use_pcg ? &s.pchol : &s.chol;
  if (!dense && prm.islands && !prm.compute_condition_number && !given_laws_ &&
      SolveIslands(problem, v_guess, result)) {
    if (stats.status == SolverStatus::kConverged) {
      stats.solve_ms = MsSince(t_start);
      return stats.status;
    }
    // An island over the memory or work budget: the whole problem would need more; reported as is
    // (the message names the island's size).
    if (stats.status == SolverStatus::kMemoryBudgetExceeded ||
        stats.status == SolverStatus::kWorkBudgetExceeded) {
      stats.solve_ms = MsSince(t_start);
      return stats.status;
    }
    // An island hit the iteration cap or failed: the monolithic solve below is reported instead,
    // so that the cap, the failure diagnostics and the returned iterate refer to one Newton
    // sequence on the whole problem.
    ResetStats(&stats);
  }
  s.tree_path = !dense && !prm.compute_condition_number && TreeSolveApplies(problem, &s.limit_col);
  stats.tree_recursion = s.tree_path;
  // Memory budget of the Newton system, checked before its storage is allocated.
  const std::int64_t budget = prm.memory_budget_mb > 0
                                  ? static_cast<std::int64_t>(prm.memory_budget_mb * 1048576.0)
                                  : s.default_budget;
  // Failure for a Newton system over the budget; the iterate stays at the guess.
  auto budget_message = [&](std::int64_t bytes, const std::string& detail) {
    std::ostringstream os;
    os << "the Newton system of this step needs an estimated " << FormatBytes(bytes) << " ("
       << problem.num_trees() << " trees (bodies with dofs), " << nv << " dofs, " << nc
       << " constraints, " << nr << " constraint rows; " << detail << "), more than the memory "
       << "budget of " << FormatBytes(budget)
       << " (SapParameters::memory_budget_mb, or the environment variable "
          "CONTACTLAB_MEMORY_BUDGET_MB)";
    return os.str();
  };
  if (dense) {
    // A, H and its factor (nv x nv), J and GJ (rows x nv).
    const std::int64_t n = nv, r = nr;
    const std::int64_t bytes = 8 * (3 * n * n + 2 * r * n);
    if (budget > 0 && bytes > budget) {
      stats.status = SolverStatus::kMemoryBudgetExceeded;
      stats.message = budget_message(bytes, "dense path: A, H and its factor are nv x nv");
      result->v = v_guess;
      result->vc.setZero(nr);
      result->gamma.setZero(nr);
      result->regime.assign(nc, Regime::kNoContact);
      stats.solve_ms = MsSince(t_start);
      return stats.status;
    }
    s.A_dense = problem.DenseA();
    s.J_dense = problem.DenseJ();
    s.GJ.resize(nr, nv);
    s.H.resize(nv, nv);
  } else {
    int max_nv = 0;
    for (int t = 0; t < problem.num_trees(); ++t) max_nv = std::max(max_nv, problem.tree_nv[t]);
    s.cblocks.resize(nc);
    if (static_cast<int>(s.gj.size()) < 6 * max_nv) s.gj.resize(6 * max_nv);
    const std::int64_t work_budget =
        prm.work_budget_gflop > 0
            ? static_cast<std::int64_t>(std::min(prm.work_budget_gflop * 1e9, 9e18))
            : s.default_work_budget;
    for (BlockSparseCholesky* c : {&s.chol, &s.pchol}) {
      c->set_memory_budget(budget);
      c->set_work_budget(work_budget);
    }
    s.chol.set_fill_work_limit(
        auto_linear ? static_cast<std::int64_t>(std::min(prm.pcg_auto_gflop * 1e9, 9e18)) : 0);
    // Constraints per large tree (CSR), for the stacked assembly of its diagonal block.
    s.large_trees.clear();
    for (int t = 0; t < problem.num_trees(); ++t) {
      if (problem.tree_nv[t] > kStackedTreeDofs) s.large_trees.push_back(t);
    }
    if (!s.large_trees.empty()) {
      const int nt = problem.num_trees();
      s.tree_con_begin.assign(nt + 1, 0);
      for (const ConstraintData& c : problem.constraints) {
        for (int k = 0; k < c.num_blocks; ++k) ++s.tree_con_begin[c.blocks[k].tree + 1];
      }
      for (int t = 0; t < nt; ++t) s.tree_con_begin[t + 1] += s.tree_con_begin[t];
      s.tree_con.resize(s.tree_con_begin[nt]);
      std::vector<int>& next = s.tree_con_next;
      next.assign(s.tree_con_begin.begin(), s.tree_con_begin.end() - 1);
      for (int i = 0; i < nc; ++i) {
        const ConstraintData& c = problem.constraints[i];
        for (int k = 0; k < c.num_blocks; ++k) s.tree_con[next[c.blocks[k].tree]++] = i;
      }
      const size_t need = static_cast<size_t>(kStackRows) * static_cast<size_t>(max_nv);
      if (s.stack_J.size() < need) {
        s.stack_J.resize(need);
        s.stack_GJ.resize(need);
      }
    }
  }

  // Block pattern of H for the current regimes: the diagonal tree blocks plus one block per pair
  // of trees coupled by a constraint in contact. A constraint out of contact has G_i = 0 and
  // adds nothing to H, so leaving its pair out of the pattern avoids the fill it would cause; the
  // symbolic analysis is redone only when the set of coupled pairs changes.
  //
  // Within one solve a pattern is kept while it still holds a block for every coupled pair
  // (as an original pair or as fill) and the pairs in contact number at least 3/4 of its pairs:
  // a constraint leaving contact then only leaves a zero block, and one coming into contact
  // where the pattern has room costs no analysis. The first pattern of a solve depends only on
  // the problem and the guess, so a solve does not depend on the solves before it.
  // Returns false when the pattern's factor is over the memory budget (nothing allocated).
  std::string pcg_budget_message;  // set when PCG's bound is over the work budget
  bool pairs_indexed = false;      // s.all_pairs and its constraints built for this problem
  auto update_pattern = [&]() {
   for (;;) {
    BlockSparseCholesky& ch = *ch_cur;
    if (!pairs_indexed) {
      s.pair_sort.clear();
      for (int i = 0; i < nc; ++i) {
        const ConstraintData& c = problem.constraints[i];
        if (c.num_blocks != 2) continue;
        const int a = c.blocks[0].tree, b = c.blocks[1].tree;
        if (a != b) s.pair_sort.push_back({{std::max(a, b), std::min(a, b)}, i});
      }
      std::sort(s.pair_sort.begin(), s.pair_sort.end());
      s.all_pairs.clear();
      s.pair_con_begin.clear();
      s.pair_con.resize(s.pair_sort.size());
      s.con_pair.assign(nc, -1);
      for (size_t k = 0; k < s.pair_sort.size(); ++k) {
        if (k == 0 || s.pair_sort[k].first != s.pair_sort[k - 1].first) {
          s.all_pairs.push_back(s.pair_sort[k].first);
          s.pair_con_begin.push_back(static_cast<int>(k));
        }
        s.pair_con[k] = s.pair_sort[k].second;
        s.con_pair[s.pair_sort[k].second] = static_cast<int>(s.all_pairs.size()) - 1;
      }
      s.pair_con_begin.push_back(static_cast<int>(s.pair_sort.size()));
      pairs_indexed = true;
    }
    s.tree_pairs.clear();
    for (size_t k = 0; k < s.all_pairs.size(); ++k) {
      for (int e = s.pair_con_begin[k]; e < s.pair_con_begin[k + 1]; ++e) {
        if (s.regime[s.pair_con[e]] != Regime::kNoContact) {
          s.tree_pairs.push_back(s.all_pairs[k]);
          break;
        }
      }
    }
    bool reuse = s.pattern_valid &&
                 4 * static_cast<long>(s.tree_pairs.size()) >= 3L * ch.num_pairs();
    for (size_t k = 0; reuse && k < s.tree_pairs.size(); ++k) {
      bool tr;
      reuse = ch.BlockIndex(s.tree_pairs[k].first, s.tree_pairs[k].second, &tr) >= 0;
    }
    // Within a solve a new pattern keeps the solve's elimination order (symbolic factorization
    // only); the first pattern of a solve is ordered anew unless keep_order.
    const bool analyzed = !reuse && ch.SetPattern(problem.tree_nv, s.tree_pairs,
                                                  s.pattern_valid || prm.keep_order);
    if (ch.over_budget()) {
      s.pattern_valid = false;
      if (auto_linear && !use_pcg && (ch.over_fill_limit() || ch.over_work_budget())) {
        // The factorization's fill work is over pcg_auto_gflop, or over the work budget: PCG
        // on the pattern without fill for the rest of this solve, if PCG's own bound fits the
        // budget (below). A factorization over the memory budget is refused as on the block
        // path (its message names pcg).
        use_pcg = true;
        ch_cur = &s.pchol;
        continue;
      }
      return false;
    }
    if (use_pcg && ch.work_budget() > 0) {
      // PCG's bound per Newton direction: the preconditioner's factorization plus
      // pcg_max_iterations CG iterations, each a product with H and a preconditioner solve
      // (about 4 multiply-adds per stored value of the pattern without fill). Over the work
      // budget, the step is refused as a factorization over it is.
      const double pcg_work = static_cast<double>(ch.layout().flops) +
                              4.0 * prm.pcg_max_iterations * static_cast<double>(ch.layout().values);
      if (pcg_work > static_cast<double>(ch.work_budget())) {
        s.pattern_valid = false;
        std::ostringstream w;
        w << "the Newton system of this step needs up to an estimated " << pcg_work
          << " multiply-adds per PCG direction (" << problem.num_trees()
          << " trees (bodies with dofs), " << nv << " dofs, " << nc << " constraints, " << nr
          << " constraint rows; " << ch.num_pairs() << " coupled tree pairs; "
          << ch.layout().values << " values without fill, solver.pcg_max_iterations = "
          << prm.pcg_max_iterations << "), more than the work budget of "
          << static_cast<double>(ch.work_budget())
          << " (SapParameters::work_budget_gflop, scene key solver.work_budget_gflop, or the "
             "environment variable CONTACTLAB_WORK_BUDGET_GFLOP, in 1e9 multiply-adds)";
        pcg_budget_message = w.str();
        return false;
      }
    }
    const bool refresh = analyzed || !s.pattern_valid;
    s.pattern_valid = true;
    if (refresh) {
      // Each coupled pair's block once; its constraints take it below.
      s.pair_block.resize(s.all_pairs.size());
      for (size_t k = 0; k < s.all_pairs.size(); ++k) {
        bool tr;
        s.pair_block[k] = ch.BlockIndex(s.all_pairs[k].first, s.all_pairs[k].second, &tr);
      }
    }
    for (int i = 0; i < nc; ++i) {
      const ConstraintData& c = problem.constraints[i];
      Scratch::ConstraintBlocks& cb = s.cblocks[i];
      // A kept pattern: only a constraint that came into contact on a pair the last analysis
      // did not have (its off-diagonal block is now fill) needs its block looked up.
      if (!refresh && (s.regime[i] == Regime::kNoContact || c.num_blocks < 2 || cb.off >= 0)) {
        continue;
      }
      cb = Scratch::ConstraintBlocks{};
      for (int k = 0; k < c.num_blocks; ++k) cb.diag[k] = ch.DiagonalBlock(c.blocks[k].tree);
      if (c.num_blocks == 2) {
        const int k = refresh ? s.con_pair[i] : -1;
        if (k >= 0) {
          // Stored transposed when its row tree is not the constraint's first tree.
          cb.off = s.pair_block[k];
          cb.transposed = cb.off >= 0 && ch.BlockRowTree(cb.off) != c.blocks[0].tree;
        } else {
          cb.off = ch.BlockIndex(c.blocks[0].tree, c.blocks[1].tree, &cb.transposed);
        }
      }
    }
    return true;
   }
  };
  s.pattern_valid = false;

  // y = A x: on the tree path by the composite form of A = M in O(n).
  auto multiply_A = [&](const VecX& x, VecX* y) {
    if (s.tree_path) {
      const TreeMotion& tm = problem.tree_motion[0];
      y->resize(nv);
      ArticulatedTreeSolver::Multiply(tm.Phi, tm.parent, tm.inertia.data(),
                                      tm.armature_or_null(), x.data(), y->data());
    } else {
      SapMultiplyA(problem, x, y);
    }
  };
  // Evaluates everything at s.v: v_c, γ, G, regimes, gradient, p, Jᵀγ. Returns ℓ_p. With
  // `reuse_trial`, v_c, γ, G, the regimes and ℓ_R come from the line search's evaluation at the
  // α just taken (v_c = v_c,prev + αΔv_c, which equals J v + b up to round-off).
  auto evaluate = [&](bool reuse_trial) {
    double cost_R;
    if (reuse_trial) {
      s.vc.swap(s.vc_trial);
      s.gamma.swap(s.gamma_trial);
      s.G.swap(s.G_trial);
      s.regime.swap(s.regime_trial);
      cost_R = s.trial_cost_R;
    } else {
      if (s.tree_path) {
        TreeMultiplyJ(problem, s.limit_col, s.v, true, &s.tree_work, &s.vc);
      } else {
        problem.ConstraintVelocities(s.v, &s.vc);
      }
      cost_R = laws.Evaluate(s.vc, &s.gamma, &s.G, &s.regime);
    }
    s.trial_alpha = -1;
    s.dv_star = s.v - problem.v_star;
    multiply_A(s.dv_star, &s.Adv_star);
    s.jc.setZero(nv);
    if (s.tree_path) {
      TreeAddJtTimes(problem, s.limit_col, s.gamma, &s.tree_work, &s.jc);
    } else {
      problem.AddJacobianTransposeTimes(s.gamma, &s.jc);
    }
    s.grad = s.Adv_star - s.jc;
    s.p.resize(nv);
    if (s.tree_path) {
      multiply_A(s.v, &s.p);  // A = M on this path (TreeSolveApplies)
    } else if (have_M) {
      for (int t = 0; t < problem.num_trees(); ++t) {
        const int st = problem.tree_v_start[t], n = problem.tree_nv[t];
        kernels::SetAx(problem.M[t].data(), n, s.v.data() + st, s.p.data() + st);
      }
    } else {
      SapMultiplyA(problem, s.v, &s.p);
    }
    return 0.5 * s.dv_star.dot(s.Adv_star) + cost_R;
  };

  // Assembles H = A + JᵀGJ from s.G (dense path: into s.H; block path: into s.chol). Returns
  // false (block path) when the factor of H's pattern would exceed the memory budget.
  auto assemble_hessian = [&]() {
    if (dense) {
      for (int i = 0; i < nc; ++i) {
        const ConstraintData& c = problem.constraints[i];
        s.GJ.middleRows(c.first_row, c.num_rows).noalias() =
            s.G[i].topLeftCorner(c.num_rows, c.num_rows) *
            s.J_dense.middleRows(c.first_row, c.num_rows);
      }
      s.H = s.A_dense;
      s.H.noalias() += s.J_dense.transpose() * s.GJ;
      return true;
    }
    if (s.tree_path) {
      // Node inertias: bodies (A = M) plus Σ WᵢᵀGᵢWᵢ at each contact's leaf; limits on the
      // diagonal.
      const TreeMotion& tm = problem.tree_motion[0];
      s.aba_inertia = tm.inertia;
      s.aba_diag.assign(problem.tree_nv[0], 0.0);
      if (!tm.armature.empty()) s.aba_diag = tm.armature;  // A = M: the joints' armature
      for (int i = 0; i < nc; ++i) {
        if (s.regime[i] == Regime::kNoContact) continue;
        const ConstraintData& c = problem.constraints[i];
        if (c.num_blocks == 0) continue;
        const TreeJacobianBlock& B = c.blocks[0];
        if (c.num_rows == 3) {
          const Eigen::Matrix<double, 3, 6> GW = s.G[i] * B.W;
          kernels::Map<6, 6>(s.aba_inertia.data() + 36 * static_cast<size_t>(B.leaf)).noalias() +=
              B.W.transpose() * GW;
        } else if (s.limit_col[i] >= 0) {
          const double Jk = B.J(0, s.limit_col[i]);
          s.aba_diag[s.limit_col[i]] += Jk * s.G[i](0, 0) * Jk;
        }
      }
      return true;
    }
    if (!update_pattern()) return false;
    BlockSparseCholesky& ch = *ch_cur;
    ch.SetZero();
    for (int t = 0; t < problem.num_trees(); ++t) {
      const int b = ch.DiagonalBlock(t);
      const int n = problem.tree_nv[t];
      if (n == 6) {
        kernels::Map<6, 6>(ch.BlockData(b)) += kernels::CMap<6, 6>(problem.A[t].data());
      } else {
        Eigen::Map<MatX>(ch.BlockData(b), n, n) += problem.A[t];
      }
    }
    // Per segment of one law (constraint order kept): whether G_i is diagonal in stiction.
    laws.ForEachSegment([&](auto law, const auto*, const LawSegment& seg) {
     using Law = decltype(law);
     for (int i = seg.begin; i < seg.end; ++i) {
      // No contact: G_i = 0 (the laws' contract), the constraint adds nothing to H.
      if (s.regime[i] == Regime::kNoContact) continue;
      const ConstraintData& c = problem.constraints[i];
      const Scratch::ConstraintBlocks& cb = s.cblocks[i];
      const int r = c.num_rows;
      const bool stiction = Law::kStictionHessianDiagonal && s.regime[i] == Regime::kStiction;
      const int stride = 3 * static_cast<int>(s.gj.size() / 6);
      for (int k = 0; k < c.num_blocks; ++k) {
        const TreeJacobianBlock& B = c.blocks[k];
        const int n = static_cast<int>(B.J.cols());
        double* GJ = s.gj.data() + k * stride;
        if (stiction && r == 3 && n == 6) {
          // G_i is diagonal (the law says so in stiction): GJ = diag(G_i) J, the same values as
          // the full product.
          kernels::Map<3, 6>(GJ).noalias() =
              s.G[i].diagonal().asDiagonal() * kernels::CMap<3, 6>(B.J.data());
        } else {
          kernels::SetGJ(s.G[i], B.J.data(), r, n, GJ);
        }
        // Diagonal block: lower triangle only (the factorization reads no other part). Large
        // trees get theirs from the stacked pass below.
        if (n <= kStackedTreeDofs) {
          kernels::AddJtGJLower(B.J.data(), r, n, GJ, ch.BlockData(cb.diag[k]));
        }
      }
      if (c.num_blocks == 2) {
        // Off-diagonal block J_aᵀ G J_b with a the block's row tree.
        const int a = cb.transposed ? 1 : 0, b = 1 - a;
        const MatX& Ja = c.blocks[a].J;
        const int na = static_cast<int>(Ja.cols());
        const int nb = static_cast<int>(c.blocks[b].J.cols());
        kernels::AddJtGJ(Ja.data(), r, na, s.gj.data() + b * stride, nb, ch.BlockData(cb.off));
      }
     }
    });
    // Large trees: lower(H_tt) += Σ_i J_iᵀ G_i J_i as rank-kStackRows products of stacked rows.
    // A point on a body moves with the dofs of its ancestors only, which come first in a tree's
    // dof order, so J_i is zero past some column m_i (a contact on link k of a chain: m_i = k + 1)
    // and J_iᵀ G_i J_i only touches H_tt's leading m_i x m_i block. The constraints are stacked in
    // decreasing order of m_i, each chunk updating the leading block of its largest m: a chain
    // with contacts spread along it costs ~1/3 of the full-width products.
    using StackMap = Eigen::Map<MatX, 0, Eigen::OuterStride<>>;
    //
    // Contacts with a spatial form (TreeJacobianBlock::leaf >= 0: J_i = W_i Φ on the path of
    // leaf_i) are added along the tree instead, as the composite rigid body algorithm adds
    // inertias: with K_j = Σ over the contacts in dof j's subtree of W_iᵀ G_i W_i (6 x 6),
    //   (Σ_i J_iᵀ G_i J_i)(j, k) = Φ_kᵀ K_j Φ_j   for k on the path from j to the root,
    // and zero for dofs not on one path. Cost O(36 nv + 6 Σ_j depth_j) instead of Σ_i m_i²: a
    // 2000-link chain with 4000 floor contacts, ~1.2e7 instead of ~5e9 multiply-adds.
    for (const int t : s.large_trees) {
      const int n = problem.tree_nv[t];
      bool tr;
      double* Htt = ch.BlockData(ch.BlockIndex(t, t, &tr));
      const bool spatial = static_cast<int>(problem.tree_motion.size()) > t &&
                           static_cast<int>(problem.tree_motion[t].parent.size()) == n &&
                           problem.tree_motion[t].Phi.cols() == n;
      if (spatial) {
        const TreeMotion& tm = problem.tree_motion[t];
        s.tree_K.assign(36 * static_cast<size_t>(n), 0.0);
        s.tree_K_set.assign(n, 0);
        bool any = false;
        for (int e = s.tree_con_begin[t]; e < s.tree_con_begin[t + 1]; ++e) {
          const int i = s.tree_con[e];
          if (s.regime[i] == Regime::kNoContact) continue;
          const ConstraintData& c = problem.constraints[i];
          const TreeJacobianBlock& B = c.blocks[c.blocks[0].tree == t ? 0 : 1];
          if (B.leaf < 0 || c.num_rows != 3) continue;
          const Eigen::Matrix<double, 3, 6> GW = s.G[i].topLeftCorner(3, 3) * B.W;
          kernels::Map<6, 6>(s.tree_K.data() + 36 * B.leaf).noalias() += B.W.transpose() * GW;
          s.tree_K_set[B.leaf] = 1;
          any = true;
        }
        if (any) {
          // Composite: children (higher dofs) before parents.
          for (int j = n - 1; j >= 0; --j) {
            const int p = tm.parent[j];
            if (p < 0 || !s.tree_K_set[j]) continue;
            kernels::Map<6, 6>(s.tree_K.data() + 36 * p) +=
                kernels::CMap<6, 6>(s.tree_K.data() + 36 * j);
            s.tree_K_set[p] = 1;
          }
          for (int j = 0; j < n; ++j) {
            if (!s.tree_K_set[j]) continue;
            const Eigen::Matrix<double, 6, 1> F =
                kernels::CMap<6, 6>(s.tree_K.data() + 36 * j) * tm.Phi.col(j);
            for (int k = j; k >= 0; k = tm.parent[k]) Htt[j + k * static_cast<size_t>(n)] += tm.Phi.col(k).dot(F);
          }
        }
      }
      std::vector<std::pair<int, int>>& order = s.stack_order;  // (−m_i, i)
      order.clear();
      for (int e = s.tree_con_begin[t]; e < s.tree_con_begin[t + 1]; ++e) {
        const int i = s.tree_con[e];
        if (s.regime[i] == Regime::kNoContact) continue;
        const ConstraintData& c = problem.constraints[i];
        const TreeJacobianBlock& Bt = c.blocks[c.blocks[0].tree == t ? 0 : 1];
        if (spatial && Bt.leaf >= 0 && c.num_rows == 3) continue;  // added along the tree above
        const MatX& J = Bt.J;
        int m = n;
        while (m > 0 && J.col(m - 1).isZero(0)) --m;
        if (m > 0) order.emplace_back(-m, i);
      }
      std::sort(order.begin(), order.end());
      size_t e = 0;
      while (e < order.size()) {
        const int m = -order[e].first;  // the chunk's widest support
        int rows = 0;
        for (; e < order.size(); ++e) {
          const int i = order[e].second;
          const ConstraintData& c = problem.constraints[i];
          const int r = c.num_rows;
          if (rows + r > kStackRows) break;
          const MatX& Ji = c.blocks[c.blocks[0].tree == t ? 0 : 1].J;
          StackMap J(s.stack_J.data() + rows, r, m, Eigen::OuterStride<>(kStackRows));
          StackMap GJ(s.stack_GJ.data() + rows, r, m, Eigen::OuterStride<>(kStackRows));
          J = Ji.leftCols(m);
          GJ.noalias() = s.G[i].topLeftCorner(r, r) * Ji.leftCols(m);
          rows += r;
        }
        const StackMap J(s.stack_J.data(), rows, m, Eigen::OuterStride<>(kStackRows));
        const StackMap GJ(s.stack_GJ.data(), rows, m, Eigen::OuterStride<>(kStackRows));
        Eigen::Map<MatX, 0, Eigen::OuterStride<>> H(Htt, m, m, Eigen::OuterStride<>(n));
        H.triangularView<Eigen::Lower>() += J.transpose() * GJ;
      }
    }
    return true;
  };
  auto fail_budget = [&]() {
    if (!pcg_budget_message.empty()) {
      stats.status = SolverStatus::kWorkBudgetExceeded;
      stats.message = pcg_budget_message;
      return;
    }
    const BlockSparseCholesky& chol = *ch_cur;
    const FactorLayoutSize& z = chol.layout();
    std::ostringstream os;
    os << chol.num_pairs() << " coupled tree pairs; block Cholesky factor with fill: " << z.blocks
       << " blocks, " << z.values << " values, " << static_cast<double>(z.flops)
       << " multiply-adds per factorization";
    if (chol.over_work_budget()) {
      std::ostringstream w;
      w << "the Newton system of this step needs an estimated " << static_cast<double>(z.flops)
        << " multiply-adds per factorization (" << problem.num_trees()
        << " trees (bodies with dofs), " << nv << " dofs, " << nc << " constraints, " << nr
        << " constraint rows; " << chol.num_pairs() << " coupled tree pairs; block Cholesky "
        << "factor with fill: " << z.blocks << " blocks, " << z.values << " values, "
        << FormatBytes(z.bytes) << "), more than the work budget of "
        << static_cast<double>(chol.work_budget())
        << " (SapParameters::work_budget_gflop, scene key solver.work_budget_gflop, or the "
           "environment variable CONTACTLAB_WORK_BUDGET_GFLOP, in 1e9 multiply-adds)";
      if (!use_pcg) w << "; solver.linear_solver: pcg solves the Newton system iteratively";
      stats.status = SolverStatus::kWorkBudgetExceeded;
      stats.message = w.str();
      return;
    }
    stats.status = SolverStatus::kMemoryBudgetExceeded;
    stats.message = budget_message(z.bytes, os.str());
  };

  // cond₂(H) and cond₂(D H D), D = diag(H)^(-1/2).
  auto condition_numbers = [&]() -> std::pair<double, double> {
    MatX Hd;
    if (dense) {
      Hd = s.H;
    } else {
      // Dense H from the assembled (not yet factorized) blocks.
      Hd.setZero(nv, nv);
      const BlockSparseCholesky& ch = *ch_cur;
      for (int b = 0; b < ch.num_blocks(); ++b) {
        const int ti = ch.BlockRowTree(b), tj = ch.BlockColTree(b);
        const Eigen::Map<const MatX> blk(ch.BlockData(b), ch.BlockRows(b), ch.BlockCols(b));
        const int r0 = problem.tree_v_start[ti], c0 = problem.tree_v_start[tj];
        if (ti == tj) {
          // Diagonal blocks are assembled in their lower triangle.
          Hd.block(r0, c0, blk.rows(), blk.cols()) = blk.selfadjointView<Eigen::Lower>();
        } else {
          Hd.block(r0, c0, blk.rows(), blk.cols()) = blk;
          Hd.block(c0, r0, blk.cols(), blk.rows()) = blk.transpose();
        }
      }
    }
    Eigen::SelfAdjointEigenSolver<MatX> es(Hd, Eigen::EigenvaluesOnly);
    const VecX& ev = es.eigenvalues();
    const double raw = ev.size() > 0 ? ev(ev.size() - 1) / ev(0) : 1.0;
    if (Hd.rows() == 0) return {raw, 1.0};
    const VecX d = Hd.diagonal();
    if (!(d.minCoeff() > 0)) return {raw, std::numeric_limits<double>::quiet_NaN()};
    const VecX dinv = d.cwiseSqrt().cwiseInverse();
    MatX S = dinv.asDiagonal() * Hd * dinv.asDiagonal();
    S.diagonal().setOnes();  // exactly, as JacobiScaled (engine/inspect/conditioning.h)
    Eigen::SelfAdjointEigenSolver<MatX> ss(S, Eigen::EigenvaluesOnly);
    const VecX& sv = ss.eigenvalues();
    return {raw, sv(sv.size() - 1) / sv(0)};
  };

  // ℓ(α) and its derivatives along Δv (§IV-B), with the constraints partitioned over an
  // interval [lo, hi] of α. A law with fixed regions (kHasFixedRegions: the linear laws) is, on
  // convex regions of v_c, either zero or a quadratic in v_c: for the linear law y_i(α) =
  // y_i(0) + αΔy_i is affine, and the stiction region F and the no-contact region (the polar cone
  // in the R-norm) are convex, so a constraint in the same one of them at both ends stays in it
  // on the whole interval. Out of contact it adds nothing; in stiction ½‖y_i‖²_R is a quadratic in
  // α whose coefficients are summed once (ls_q). Only the other constraints (sliding, crossing a
  // boundary, or of a law without fixed regions) are evaluated at each α, and the set shrinks as
  // the search's bracket narrows.
  double ell_A0 = 0, c1 = 0, c2 = 0;  // ℓ_A(0), Δpᵀ(v − v*), ΔvᵀΔp
  double ls_q[3] = {0, 0, 0};  // Σ over quadratic-fixed constraints: ℓ_c = q0 + q1α + ½q2α²
  // Moves the constraints of ls_active that keep one fixed region over [lo, hi] out of it.
  auto ls_partition = [&](double lo, double hi) {
    size_t kept = 0, a = 0;
    const size_t num_active = s.ls_active.size();
    laws.ForEachSegment([&](auto law, const auto* K, const LawSegment& seg) {
      using Law = decltype(law);
      for (; a < num_active && s.ls_active[a] < seg.end; ++a) {
        const int i = s.ls_active[a];
        if constexpr (!Law::kHasFixedRegions) {
          s.ls_active[kept++] = i;
        } else {
          const int r = seg.first_row + Law::kRows * (i - seg.begin);
          const auto& k = K[i - seg.begin];
          const LineRegion at_lo = Law::Region(k, LineVelocity<Law::kRows>(s.vc, s.dvc, r, lo));
          if (at_lo == LineRegion::kVaries ||
              Law::Region(k, LineVelocity<Law::kRows>(s.vc, s.dvc, r, hi)) != at_lo) {
            s.ls_active[kept++] = i;
            continue;
          }
          s.ls_class[i] = at_lo;
          if (at_lo == LineRegion::kFixedQuadratic) {
            Law::AddQuadratic(k, s.vc.data() + r, s.dvc.data() + r, ls_q);
          }
        }
      }
    });
    s.ls_active.resize(kept);
  };
  auto ls_begin = [&](double lo, double hi) {
    s.ls_active.resize(nc);
    for (int i = 0; i < nc; ++i) s.ls_active[i] = i;
    s.ls_class.assign(nc, LineRegion::kVaries);
    ls_q[0] = ls_q[1] = ls_q[2] = 0;
    s.vc_trial.resize(nr);
    s.gamma_trial.resize(nr);
    s.G_trial.resize(nc);
    s.regime_trial.resize(nc);
    ls_partition(lo, hi);
  };
  auto line_eval = [&](double alpha, double* d1, double* d2) {
    double cost_R = ls_q[0] + alpha * (ls_q[1] + 0.5 * alpha * ls_q[2]);
    double dvc_gamma = 0, q = 0;
    size_t a = 0;
    const size_t num_active = s.ls_active.size();
    laws.ForEachSegment([&](auto law, const auto* K, const LawSegment& seg) {
      using Law = decltype(law);
      for (; a < num_active && s.ls_active[a] < seg.end; ++a) {
        const int i = s.ls_active[a];
        const int r = seg.first_row + Law::kRows * (i - seg.begin);
        Regime reg_i;
        Mat3* G = d2 ? &s.G_trial[i] : nullptr;
        if constexpr (Law::kRows == 3) {
          s.vc_trial.segment<3>(r) = s.vc.segment<3>(r) + alpha * s.dvc.segment<3>(r);
        } else {
          s.vc_trial(r) = s.vc(r) + alpha * s.dvc(r);
        }
        cost_R += Law::Cost(K[i - seg.begin], s.vc_trial.data() + r, s.gamma_trial.data() + r, G,
                            &reg_i);
        if constexpr (Law::kRows == 3) {
          const auto x = s.dvc.segment<3>(r);
          dvc_gamma += x.dot(s.gamma_trial.segment<3>(r));
          if (d2) q += x.dot(*G * x);
        } else {
          dvc_gamma += s.dvc(r) * s.gamma_trial(r);
          if (d2) q += s.dvc(r) * (*G)(0, 0) * s.dvc(r);
        }
        if (d2) s.regime_trial[i] = reg_i;
      }
    });
    s.trial_alpha = d2 ? alpha : -1;
    s.trial_cost_R = cost_R;
    if (d1) *d1 = c1 + alpha * c2 + ls_q[1] + alpha * ls_q[2] - dvc_gamma;
    if (d2) *d2 = c2 + ls_q[2] + q;
    return ell_A0 + alpha * c1 + 0.5 * alpha * alpha * c2 + cost_R;
  };
  // Completes the trial evaluation at α = trial_alpha with the constraints the partition fixed
  // (the others were evaluated at that α), so that it can serve as the next iterate's.
  auto ls_complete_trial = [&]() {
    const double alpha = s.trial_alpha;
    laws.ForEachSegment([&](auto law, const auto* K, const LawSegment& seg) {
      using Law = decltype(law);
      if constexpr (Law::kHasFixedRegions) {
        int r = seg.first_row;
        for (int i = seg.begin; i < seg.end; ++i, r += Law::kRows) {
          if (s.ls_class[i] == LineRegion::kVaries) continue;
          for (int k = 0; k < Law::kRows; ++k) s.vc_trial(r + k) = s.vc(r + k) + alpha * s.dvc(r + k);
          Law::EvalFixed(K[i - seg.begin], s.ls_class[i], s.vc_trial.data() + r,
                         s.gamma_trial.data() + r, &s.G_trial[i], &s.regime_trial[i]);
        }
      }
    });
  };

  // Inexact Newton direction by preconditioned conjugate gradients on H Δv = −∇ℓ (H SPD),
  // started at Δv = 0 and stopped at ‖D r‖ <= η ‖D∇ℓ‖ (r = −∇ℓ − HΔv, the D of eq. 26), with
  // the forcing term η of Eisenstat & Walker (1996), choice 2 (γ = 0.9, exponent 2), and the
  // safeguard η >= ½ τ/‖D∇ℓ‖ (τ: the threshold of eq. 26) that stops the last direction from
  // being solved far below what the stopping test needs. Each CG iterate from 0 lowers the
  // quadratic model ½ΔvᵀHΔv + ∇ℓᵀΔv below 0, hence ∇ℓᵀΔv < 0: every returned Δv is a descent
  // direction, and the exact line search and eq. 26 decide as on the direct path. The recursive
  // residual is checked against the true one (one more product) before Δv is accepted; CG
  // restarts from the true residual if they differ. Writes the CG iterations, the true relative
  // residual and η into `rec`; returns false with the status set on a failure.
  double pcg_prev_gnorm = 0, pcg_prev_eta = 0;
  auto pcg_direction = [&](double gnorm, double tau, double* rec) {
    BlockSparseCholesky& P = s.pchol;
    P.SaveMatrix();
    const bool ic = prm.pcg_preconditioner == SapParameters::Preconditioner::kIncompleteCholesky &&
                    P.Factor();
    if (!ic && !P.FactorBlockDiagonal()) {
      stats.status = SolverStatus::kFactorizationFailure;
      stats.message = "PCG preconditioner: a diagonal tree block of H = A + JᵀGJ is not SPD";
      return false;
    }
    double eta = prm.pcg_forcing_max;
    if (pcg_prev_gnorm > 0) {
      const double ratio = gnorm / pcg_prev_gnorm;
      eta = 0.9 * ratio * ratio;
      const double kept = 0.9 * pcg_prev_eta * pcg_prev_eta;
      if (kept > 0.1) eta = std::max(eta, kept);
    }
    if (gnorm > 0) eta = std::max(eta, 0.5 * tau / gnorm);
    eta = std::min(eta, prm.pcg_forcing_max);
    pcg_prev_gnorm = gnorm;
    pcg_prev_eta = eta;
    const double target = eta * gnorm;
    s.dv.setZero(nv);
    s.cg_r = -s.grad;
    double rnorm = gnorm;
    int k = 0;
    std::string failure;
    bool done = !(rnorm > target);
    while (!done && failure.empty()) {
      // One CG run from the current Δv with r = −∇ℓ − HΔv.
      P.Solve(s.cg_r, &s.cg_z);
      s.cg_p = s.cg_z;
      double rz = s.cg_r.dot(s.cg_z);
      bool reached = false;
      while (k < prm.pcg_max_iterations) {
        P.Multiply(s.cg_p, &s.cg_q);
        const double pq = s.cg_p.dot(s.cg_q);
        if (!(pq > 0) || !std::isfinite(pq) || !(rz > 0)) {
          std::ostringstream os;
          os << "PCG broke down at CG iteration " << k << " (pᵀHp = " << pq << ", rᵀz = " << rz
             << "): H or its preconditioner is not numerically SPD";
          failure = os.str();
          break;
        }
        const double a = rz / pq;
        s.dv += a * s.cg_p;
        s.cg_r -= a * s.cg_q;
        ++k;
        rnorm = s.D.cwiseProduct(s.cg_r).norm();
        if (rnorm <= target) {
          reached = true;
          break;
        }
        P.Solve(s.cg_r, &s.cg_z);
        const double rz_next = s.cg_r.dot(s.cg_z);
        s.cg_p = s.cg_z + (rz_next / rz) * s.cg_p;
        rz = rz_next;
      }
      if (!failure.empty()) break;
      // The true residual (round-off accumulates in the recursive one).
      P.Multiply(s.dv, &s.cg_q);
      s.cg_r = -s.grad - s.cg_q;
      rnorm = s.D.cwiseProduct(s.cg_r).norm();
      done = rnorm <= target;
      if (!done && (!reached || k >= prm.pcg_max_iterations)) {
        std::ostringstream os;
        os << "PCG did not reach the forcing tolerance ‖D r‖ <= η ‖D∇ℓ‖ (η = " << eta
           << ") in " << k << " CG iterations (solver.pcg_max_iterations = "
           << prm.pcg_max_iterations << "): relative residual " << rnorm / gnorm;
        failure = os.str();
      }
    }
    rec[kSapLinearIterations] = k;
    rec[kSapLinearResidual] = gnorm > 0 ? rnorm / gnorm : 0.0;
    rec[kSapForcingTerm] = eta;
    if (!failure.empty() || !s.dv.allFinite()) {
      stats.status = SolverStatus::kLinearSolverFailure;
      stats.message = failure.empty() ? "PCG returned a non-finite direction" : failure;
      return false;
    }
    return true;
  };

  IterationLog& log = stats.iteration_log;
  log.Reserve(std::min(prm.max_iterations + 1, 128));
  s.v = v_guess;
  s.trial_alpha = -1;
  double cost = evaluate(false);
  double prev_cost = cost;
  double last_alpha = 0;
  int last_evals = 0;
  int last_ls_iterations = 0;
  int m = 0;
  for (;; ++m) {
    // This iterate's row of the log (SapSeries), stored in place.
    double* rec = log.AddRow();
    rec[kSapCost] = cost;
    const double gradient_norm = s.D.cwiseProduct(s.grad).norm();
    rec[kSapGradientNorm] = gradient_norm;
    const double scale =
        std::max(s.D.cwiseProduct(s.p).norm(), s.D.cwiseProduct(s.jc).norm());
    rec[kSapMomentumResidual] =
        scale > 0 ? gradient_norm / scale
                  : (gradient_norm == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    rec[kSapAlpha] = last_alpha;
    rec[kSapLineSearchEvaluations] = last_evals;
    rec[kSapLineSearchIterations] = last_ls_iterations;
    rec[kSapLinearIterations] = 0;
    int num_stiction = 0, num_sliding = 0, num_no_contact = 0;
    for (Regime r : s.regime) {
      if (r == Regime::kStiction)
        ++num_stiction;
      else if (r == Regime::kSliding)
        ++num_sliding;
      else
        ++num_no_contact;
    }
    rec[kSapNumStiction] = num_stiction;
    rec[kSapNumSliding] = num_sliding;
    rec[kSapNumNoContact] = num_no_contact;
    // Optimality (eq. 26), checked before any factorization.
    const bool optimal = gradient_norm < prm.abs_tolerance + prm.rel_tolerance * scale;
    // Round-off stagnation of the cost after a long step.
    const bool stagnated =
        m > 0 && last_alpha > 0.5 &&
        std::abs(cost - prev_cost) <
            prm.cost_abs_tolerance + prm.cost_rel_tolerance * 0.5 * (cost + prev_cost);
    const bool stop = optimal || stagnated || m == prm.max_iterations;
    if (prm.compute_condition_number) {
      if (!assemble_hessian()) {
        fail_budget();
        break;
      }
      const auto [raw_cond, scaled_cond] = condition_numbers();
      log.row(m)[kSapConditionNumber] = raw_cond;
      log.row(m)[kSapScaledConditionNumber] = scaled_cond;
    }
    if (optimal) {
      stats.status = SolverStatus::kConverged;
      break;
    }
    if (stagnated) {
      stats.status = SolverStatus::kConverged;
      stats.message = "stopped by the cost stagnation test (round-off)";
      break;
    }
    if (stop) {
      stats.status = SolverStatus::kMaxIterations;
      stats.message = "iteration cap reached";
      break;
    }

    // Newton direction Δv = −H⁻¹∇ℓ.
    if (!prm.compute_condition_number && !assemble_hessian()) {
      fail_budget();
      break;
    }
    bool factored;
    if (use_pcg) {
      if (!pcg_direction(gradient_norm, prm.abs_tolerance + prm.rel_tolerance * scale,
                         log.row(m))) {
        break;
      }
      factored = true;
    } else if (dense) {
      s.llt.compute(s.H);
      factored = s.llt.info() == Eigen::Success;
      if (factored) {
        s.dv = s.llt.solve(s.grad);
        s.dv = -s.dv;
      }
    } else if (s.tree_path) {
      const TreeMotion& tm = problem.tree_motion[0];
      factored = s.aba.Factor(tm.Phi, tm.parent, s.aba_inertia.data(), s.aba_diag.data());
      if (factored) {
        s.dv = s.grad;
        s.aba.Solve(s.dv.data());
        s.dv = -s.dv;
      }
    } else {
      factored = s.chol.Factor();
      if (factored) {
        s.chol.Solve(s.grad, &s.dv);
        s.dv = -s.dv;
      }
    }
    if (!factored || !s.dv.allFinite()) {
      stats.status = SolverStatus::kFactorizationFailure;
      stats.message = "Cholesky factorization of H = A + JᵀGJ failed";
      break;
    }

    // Line search along Δv.
    if (s.tree_path) {
      TreeMultiplyJ(problem, s.limit_col, s.dv, false, &s.tree_work, &s.dvc);
    } else {
      SapMultiplyJ(problem, s.dv, &s.dvc);
    }
    multiply_A(s.dv, &s.dp);
    ell_A0 = 0.5 * s.dv_star.dot(s.Adv_star);
    c1 = s.dp.dot(s.dv_star);
    c2 = s.dv.dot(s.dp);
    const double d0 = c1 - s.dvc.dot(s.gamma);  // dℓ/dα(0) = ∇ℓᵀΔv
    int evals = 0;
    int ls_iterations = 0;
    double alpha = -1;
    std::string ls_error;
    if (!(d0 < 0)) {
      std::ostringstream os;
      os << "dℓ/dα(0) = " << d0 << " is not negative: Δv is not a descent direction "
         << "(round-off in H or its factorization)";
      ls_error = os.str();
    } else if (-d0 < prm.cost_abs_tolerance + prm.cost_rel_tolerance * cost) {
      // The step cannot change the cost beyond round-off: take the Newton step.
      alpha = 1;
    } else if (prm.line_search == SapParameters::LineSearch::kExact) {
      // rtsafe on f(α) = ℓ'(α)/|ℓ'(0)| over the bracket [0, α_max]; f(0) = −1.
      const double a_max = prm.ls_alpha_max;
      double d1, d2;
      ls_begin(0, a_max);
      double part_width = a_max;
      line_eval(a_max, &d1, &d2);
      ++evals;
      if (d1 <= 0) {
        alpha = a_max;  // ℓ still decreases at α_max.
      } else {
        const double scale_f = -d0;
        const double f_tol = 1e-8;
        double lo = 0, hi = a_max;
        double x = std::min(-d0 / d2, a_max);
        if (!(x > 0)) x = 0.5 * a_max;
        const double x_tol = 1e-8 * x;
        line_eval(x, &d1, &d2);
        ++evals;
        double f = d1 / scale_f, df = d2 / scale_f;
        double dx_old = hi - lo, dx = dx_old;
        // The bracket moves to the side of x that keeps the sign change; once it has halved,
        // the constraints are partitioned again over it.
        auto narrow = [&]() {
          if (f < 0) lo = x; else hi = x;
          if (hi - lo < 0.5 * part_width) {
            ls_partition(lo, hi);
            part_width = hi - lo;
          }
        };
        if (std::abs(f) >= f_tol) {
          narrow();
          for (int it = 0; it < prm.ls_max_iterations; ++it) {
            ++ls_iterations;
            const bool newton_leaves = ((x - hi) * df - f) * ((x - lo) * df - f) > 0;
            const bool newton_slow = std::abs(2 * f) > std::abs(dx_old * df);
            dx_old = dx;
            if (newton_leaves || newton_slow) {
              dx = 0.5 * (hi - lo);
              x = lo + dx;
            } else {
              dx = f / df;
              x -= dx;
            }
            if (std::abs(dx) < x_tol) break;
            line_eval(x, &d1, &d2);
            ++evals;
            f = d1 / scale_f;
            df = d2 / scale_f;
            if (std::abs(f) < f_tol) break;
            narrow();
          }
        }
        alpha = x;
      }
    } else {
      // Backtracking α = α_max ρ^j (§IV-C). ℓ is convex along the line, so the scan continues
      // while the cost keeps decreasing and returns the last α before it rises again, provided
      // that α satisfies Armijo's condition ℓ(α) < ℓ(0) + c α dℓ/dα(0).
      double a = prm.ls_backtracking_alpha_max;
      ls_begin(0, a);
      double part_hi = a;
      double prev_ell = line_eval(a, nullptr, nullptr);
      ++evals;
      bool prev_armijo = prev_ell < cost + prm.ls_c * a * d0;
      for (int it = 1; it < prm.ls_max_iterations; ++it) {
        ++ls_iterations;
        const double next = a * prm.ls_rho;
        if (next < 0.5 * part_hi) {  // the scan only goes down: [0, a] holds what is left
          ls_partition(0, a);
          part_hi = a;
        }
        const double ell = line_eval(next, nullptr, nullptr);
        ++evals;
        if (ell > prev_ell && prev_armijo) break;
        a = next;
        prev_ell = ell;
        prev_armijo = ell < cost + prm.ls_c * a * d0;
      }
      if (prev_armijo) alpha = a;
      if (alpha < 0) ls_error = "backtracking found no step satisfying the Armijo condition";
    }
    if (alpha < 0) {
      stats.status = SolverStatus::kLineSearchFailure;
      stats.message = ls_error;
      break;
    }
    s.v += alpha * s.dv;
    prev_cost = cost;
    // Reused only for short steps: the stagnation test (applied after α > 0.5) compares costs
    // at round-off level, which needs v_c recomputed from v rather than accumulated.
    const bool reuse = alpha == s.trial_alpha && alpha <= 0.5;
    if (reuse) ls_complete_trial();
    cost = evaluate(reuse);
    last_alpha = alpha;
    last_evals = evals;
    last_ls_iterations = ls_iterations;
  }

  // Result at the last (best) iterate.
  stats.iterations = m;
  stats.cost = cost;
  stats.momentum_error = log.Last(kSapMomentumResidual);
  const double slack = laws.ComplementaritySlack(s.vc, s.gamma);
  stats.complementarity_error = (nc > 0 && cost > 0) ? slack / nc / cost : 0.0;
  result->v = s.v;
  result->vc = s.vc;
  result->gamma = s.gamma;
  result->regime = s.regime;
  stats.solve_ms = MsSince(t_start);
  return stats.status;
}

// Islands (engine/solvers/common/islands.h): the split into connected components of the
// tree/constraint graph and the merge of the islands' results are the common IslandSplitter's;
// each island is solved by a child SapSolver with the parent's parameters (islands off), its own
// Newton loop, stopping criterion (eq. 26 on the island's momentum) and line search. The child
// skips the input checks (its sub-problem is a copy of parts of the validated problem) and the
// parent reports the laws' constants and e_μ of the merged v_c, γ, and its merged log: row m
// combines the islands' rows at iteration min(m, iterations_island): cost and regime counts
// summed, ‖D∇ℓ‖ and the eq. 26 scale (‖D∇ℓ‖ / e_m) combined as root-sum-squares (e_m = their
// ratio, within √2 of the monolithic definition), α the smallest step among the islands still
// iterating at m, line-search evaluations and iterations summed over them.
// If any island does not converge, Solve discards this result and solves the whole problem.
bool SapSolver::SolveIslands(const ContactProblem& problem, const VecX& v_guess,
                             SolverResult* result) {
  Scratch& s = *scratch_;
  SapParameters child_params = params_;
  child_params.islands = false;
  auto make_child = [&]() {
    auto child = std::make_unique<SapSolver>(child_params, contact_);
    child->scratch_->island_child = true;
    return child;
  };
  auto prepare_child = [&](ContactSolver& solver) {
    SapSolver& child = static_cast<SapSolver&>(solver);
    child.params_ = child_params;
    child.contact_ = contact_;
  };
  if (!SolveByIslands(&s.islands, problem, v_guess, make_child, prepare_child, result)) {
    return false;
  }
  SolverStats& stats = result->stats;
  const int nc = static_cast<int>(problem.constraints.size());
  // Merged per-iteration log (cond₂ is defined for the whole H only: not recorded).
  IterationLog& log = stats.iteration_log;
  using M = IslandMerge;
  static const std::vector<IslandMergeRule> kRules = {
      {kSapCost, M::kSum},
      {kSapGradientNorm, M::kRootSumSquare},
      {kSapMomentumResidual, M::kMomentumResidual, kSapGradientNorm},
      {kSapAlpha, M::kMinStepping},
      {kSapLineSearchEvaluations, M::kSumStepping},
      {kSapLineSearchIterations, M::kSumStepping},
      // The direction computed at m: CG iterations summed, the largest relative residual and
      // forcing term.
      {kSapLinearIterations, M::kSumDirecting},
      {kSapLinearResidual, M::kMaxDirecting},
      {kSapForcingTerm, M::kMaxDirecting},
      {kSapNumStiction, M::kSum},
      {kSapNumSliding, M::kSum},
      {kSapNumNoContact, M::kSum}};
  MergeIslandLogs(s.islands, stats.iterations, SapSeriesTable(), kRules, &log);
  stats.momentum_error = log.Last(kSapMomentumResidual);
  const double slack = s.laws.ComplementaritySlack(result->vc, result->gamma);
  stats.complementarity_error = (nc > 0 && stats.cost > 0) ? slack / nc / stats.cost : 0.0;
  return true;
}

}  // namespace contactlab
