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
#include "engine/solvers/common/sap_supernodal.h"
#include "engine/common/small_kernels.h"
#include "engine/multibody/articulated_tree.h"

namespace contactlab {

namespace {

// Structural checks a malformed problem would crash on. Returns an empty string if well formed.
std::string CheckStructure(const ContactProblem& p, const VecX& v_guess) {
  std::ostringstream os;
  const int nt = p.num_trees();
  if (p.nv < 0 || static_cast<int>(p.tree_v_start.size()) != nt ||
      static_cast<int>(p.A.size()) != nt) {
    return "malformed problem: tree arrays (tree_v_start, tree_nv, A) differ in size";
  }
  int total = 0;
  for (int t = 0; t < nt; ++t) {
    const int s = p.tree_v_start[t], n = p.tree_nv[t];
    if (s < 0 || n < 0 || s + n > p.nv || p.A[t].rows() != n || p.A[t].cols() != n ||
        (static_cast<int>(p.M.size()) == nt && (p.M[t].rows() != n || p.M[t].cols() != n))) {
      os << "malformed problem: tree " << t << " has an inconsistent range or A/M block size";
      return os.str();
    }
    total += n;
  }
  if (total != p.nv) return "malformed problem: the trees do not cover the nv velocities";
  if (p.v_star.size() != p.nv) return "malformed problem: v_star has the wrong size";
  if (v_guess.size() != p.nv) return "malformed input: v_guess has the wrong size";
  if (!(p.time_step > 0)) return "malformed problem: time_step must be > 0";
  int rows = 0;
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    const int expected = c.kind == ConstraintKind::kFrictionCone ? 3 : 1;
    bool ok = c.num_rows == expected && c.first_row == rows && c.num_blocks >= 0 &&
              c.num_blocks <= 2;
    for (int k = 0; ok && k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      ok = b.tree >= 0 && b.tree < nt && b.J.rows() == c.num_rows &&
           b.J.cols() == p.tree_nv[b.tree];
    }
    if (!ok) {
      os << "malformed problem: constraint " << i << " has inconsistent rows or Jacobian blocks";
      return os.str();
    }
    if (c.num_blocks == 2 && c.blocks[0].tree == c.blocks[1].tree) {
      // The Hessian, the Delassus estimate and the island split take the two blocks of a
      // constraint to act on two different trees.
      os << "malformed problem: constraint " << i << " has both Jacobian blocks on tree "
         << c.blocks[0].tree << " (give one block, their sum)";
      return os.str();
    }
    rows += c.num_rows;
  }
  if (rows != p.num_rows) return "malformed problem: num_rows differs from the constraints' rows";
  return {};
}

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

// x·0 is 0 for finite x and NaN for ±inf and NaN: one sum screens a whole array.
inline double FiniteScreen(const double* x, Eigen::Index n) {
  return Eigen::Map<const VecX>(x, n).sum() * 0.0;
}

// True when every input CheckFinite examines is finite: a branch-free screen over the arrays, so
// that the usual (valid) case costs one pass over the data.
bool AllInputsFinite(const ContactProblem& p, const VecX& v_guess) {
  double acc = FiniteScreen(p.v_star.data(), p.v_star.size()) +
               FiniteScreen(v_guess.data(), v_guess.size());
  const bool have_M = static_cast<int>(p.M.size()) == p.num_trees();
  for (int t = 0; t < p.num_trees(); ++t) {
    acc += FiniteScreen(p.A[t].data(), p.A[t].size());
    if (have_M) acc += FiniteScreen(p.M[t].data(), p.M[t].size());
  }
  for (const ConstraintData& c : p.constraints) {
    acc += FiniteScreen(c.bias.data(), c.num_rows);
    for (int k = 0; k < c.num_blocks; ++k) {
      acc += FiniteScreen(c.blocks[k].J.data(), c.blocks[k].J.size());
    }
  }
  return acc == 0;
}

// Finite-ness of every numerical input and usability of the laws' constants (the laws' Check),
// with the first offender named.
std::string CheckFinite(const ContactProblem& p, const VecX& v_guess,
                        const ConstraintBundle& laws) {
  if (AllInputsFinite(p, v_guess)) return laws.Check();
  std::ostringstream os;
  if (!p.v_star.allFinite()) return "non-finite v_star";
  if (!v_guess.allFinite()) return "non-finite v_guess";
  for (int t = 0; t < p.num_trees(); ++t) {
    if (!p.A[t].allFinite()) {
      os << "non-finite A block of tree " << t;
      return os.str();
    }
    if (static_cast<int>(p.M.size()) == p.num_trees() && !p.M[t].allFinite()) {
      os << "non-finite M block of tree " << t;
      return os.str();
    }
  }
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    bool ok = c.bias.head(c.num_rows).allFinite();
    for (int k = 0; k < c.num_blocks; ++k) ok = ok && c.blocks[k].J.allFinite();
    if (!ok) {
      os << "constraint " << i << ": non-finite Jacobian or bias";
      return os.str();
    }
  }
  return laws.Check();
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
  BlockSparseCholesky chol;
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
  // Island path: tree -> island, and per island its sub-problem, solver and result (reused).
  std::vector<int> tree_root, tree_island, island_of_root, constraint_island;
  // Island storage is a pool of slots. An island takes the slot that held the island with the
  // same first tree and sizes (trees, dofs, constraints, rows) the last time, else one whose
  // island had the same sizes, else a free one, so that its sub-problem, guess, result and child
  // solver keep their storage although island ids change from step to step. Key: the sizes,
  // then the first tree.
  using IslandSizes = std::array<int, 5>;
  struct Island {
    std::vector<int> trees, constraints;  // indices into the full problem, increasing
    ContactProblem problem;
    VecX guess;
    SolverResult result;
    std::unique_ptr<SapSolver> solver;
    IslandSizes sizes = {-1, -1, -1, -1, -1};  // key of the island the slot held last
  };
  std::vector<Island> islands;               // slots
  std::vector<int> slot_of;                  // island id -> slot
  std::vector<IslandSizes> island_sizes;     // island id -> sizes
  std::vector<std::pair<IslandSizes, int>> slot_keys;  // (sizes, slot), sorted
  std::vector<int> slot_cursor;              // per slot_keys group start: next entry to try
  std::vector<char> slot_taken;
  int num_islands = 0;
};

SapSolver::SapSolver(const SapParameters& params, const ContactModelParameters& contact)
    : scratch_(std::make_unique<Scratch>()) {
  set_parameters(params);
  set_contact_model(contact);
}

SapSolver::~SapSolver() = default;

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

// stats = SolverStats{} keeping the history's capacity (repeated solves do not allocate).
// Clears the stats, keeping the storage of the per-iteration and per-island lists.
void ResetStats(SolverStats* stats) {
  std::vector<IterationRecord> history = std::move(stats->history);
  std::vector<IslandSummary> islands = std::move(stats->islands);
  history.clear();
  islands.clear();
  *stats = SolverStats{};
  stats->history = std::move(history);
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
  std::string error = s.island_child ? std::string() : CheckStructure(problem, v_guess);
  if (!error.empty()) {
    result->laws = ConstraintBundle{};
    return fail_input(error);
  }
  s.laws.Prepare(problem, SapLawParameters(prm, contact_));
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
  if (!dense && prm.islands && !prm.compute_condition_number &&
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
    s.chol.set_memory_budget(budget);
    s.chol.set_work_budget(prm.work_budget_gflop > 0
                               ? static_cast<std::int64_t>(std::min(prm.work_budget_gflop * 1e9, 9e18))
                               : DefaultWorkBudgetFlops());
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
  auto update_pattern = [&]() {
    s.tree_pairs.clear();
    for (int i = 0; i < nc; ++i) {
      const ConstraintData& c = problem.constraints[i];
      if (c.num_blocks == 2 && s.regime[i] != Regime::kNoContact) {
        const int a = c.blocks[0].tree, b = c.blocks[1].tree;
        if (a != b) s.tree_pairs.emplace_back(std::max(a, b), std::min(a, b));
      }
    }
    std::sort(s.tree_pairs.begin(), s.tree_pairs.end());
    s.tree_pairs.erase(std::unique(s.tree_pairs.begin(), s.tree_pairs.end()),
                       s.tree_pairs.end());
    bool reuse = s.pattern_valid &&
                 4 * static_cast<long>(s.tree_pairs.size()) >= 3L * s.chol.num_pairs();
    for (size_t k = 0; reuse && k < s.tree_pairs.size(); ++k) {
      bool tr;
      reuse = s.chol.BlockIndex(s.tree_pairs[k].first, s.tree_pairs[k].second, &tr) >= 0;
    }
    // Within a solve a new pattern keeps the solve's elimination order (symbolic factorization
    // only); the first pattern of a solve is ordered anew.
    const bool analyzed =
        !reuse && s.chol.SetPattern(problem.tree_nv, s.tree_pairs, s.pattern_valid);
    if (s.chol.over_budget()) {
      s.pattern_valid = false;
      return false;
    }
    const bool refresh = analyzed || !s.pattern_valid;
    s.pattern_valid = true;
    for (int i = 0; i < nc; ++i) {
      const ConstraintData& c = problem.constraints[i];
      Scratch::ConstraintBlocks& cb = s.cblocks[i];
      // A kept pattern: only a constraint that came into contact on a pair the last analysis
      // did not have (its off-diagonal block is now fill) needs its block looked up.
      if (!refresh && (s.regime[i] == Regime::kNoContact || c.num_blocks < 2 || cb.off >= 0)) {
        continue;
      }
      bool tr = false;
      cb = Scratch::ConstraintBlocks{};
      for (int k = 0; k < c.num_blocks; ++k) cb.diag[k] = s.chol.BlockIndex(c.blocks[k].tree,
                                                                             c.blocks[k].tree, &tr);
      if (c.num_blocks == 2) {
        cb.off = s.chol.BlockIndex(c.blocks[0].tree, c.blocks[1].tree, &cb.transposed);
      }
    }
    return true;
  };
  s.pattern_valid = false;

  // y = A x: on the tree path by the composite form of A = M in O(n).
  auto multiply_A = [&](const VecX& x, VecX* y) {
    if (s.tree_path) {
      const TreeMotion& tm = problem.tree_motion[0];
      y->resize(nv);
      ArticulatedTreeSolver::Multiply(tm.Phi, tm.parent, tm.inertia.data(), nullptr, x.data(),
                                      y->data());
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
    BlockSparseCholesky& ch = s.chol;
    ch.SetZero();
    for (int t = 0; t < problem.num_trees(); ++t) {
      bool tr;
      const int b = ch.BlockIndex(t, t, &tr);
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
    const FactorLayoutSize& z = s.chol.layout();
    std::ostringstream os;
    os << s.chol.num_pairs() << " coupled tree pairs; block Cholesky factor with fill: " << z.blocks
       << " blocks, " << z.values << " values, " << static_cast<double>(z.flops)
       << " multiply-adds per factorization";
    if (s.chol.over_work_budget()) {
      std::ostringstream w;
      w << "the Newton system of this step needs an estimated " << static_cast<double>(z.flops)
        << " multiply-adds per factorization (" << problem.num_trees()
        << " trees (bodies with dofs), " << nv << " dofs, " << nc << " constraints, " << nr
        << " constraint rows; " << s.chol.num_pairs() << " coupled tree pairs; block Cholesky "
        << "factor with fill: " << z.blocks << " blocks, " << z.values << " values, "
        << FormatBytes(z.bytes) << "), more than the work budget of "
        << static_cast<double>(s.chol.work_budget())
        << " (SapParameters::work_budget_gflop, scene key solver.work_budget_gflop, or the "
           "environment variable CONTACTLAB_WORK_BUDGET_GFLOP, in 1e9 multiply-adds)";
      stats.status = SolverStatus::kWorkBudgetExceeded;
      stats.message = w.str();
      return;
    }
    stats.status = SolverStatus::kMemoryBudgetExceeded;
    stats.message = budget_message(z.bytes, os.str());
  };

  auto condition_number = [&]() {
    MatX Hd;
    if (dense) {
      Hd = s.H;
    } else {
      // Dense H from the assembled (not yet factorized) blocks.
      Hd.setZero(nv, nv);
      const BlockSparseCholesky& ch = s.chol;
      for (int b = 0; b < ch.num_blocks(); ++b) {
        const int ti = ch.BlockRowTree(b), tj = ch.BlockColTree(b);
        const Eigen::Map<const MatX> blk(s.chol.BlockData(b), ch.BlockRows(b), ch.BlockCols(b));
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
    return ev.size() > 0 ? ev(ev.size() - 1) / ev(0) : 1.0;
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

  stats.history.reserve(std::min(prm.max_iterations + 1, 128));
  s.v = v_guess;
  s.trial_alpha = -1;
  double cost = evaluate(false);
  double prev_cost = cost;
  double last_alpha = 0;
  int last_evals = 0;
  int m = 0;
  for (;; ++m) {
    IterationRecord rec;
    rec.iteration = m;
    rec.cost = cost;
    rec.gradient_norm = s.D.cwiseProduct(s.grad).norm();
    const double scale =
        std::max(s.D.cwiseProduct(s.p).norm(), s.D.cwiseProduct(s.jc).norm());
    rec.momentum_residual = scale > 0 ? rec.gradient_norm / scale
                            : (rec.gradient_norm == 0 ? 0.0
                                                      : std::numeric_limits<double>::infinity());
    rec.alpha = last_alpha;
    rec.line_search_evaluations = last_evals;
    for (Regime r : s.regime) {
      if (r == Regime::kStiction) ++rec.num_stiction;
      else if (r == Regime::kSliding) ++rec.num_sliding;
      else ++rec.num_no_contact;
    }
    // Optimality (eq. 26), checked before any factorization.
    const bool optimal = rec.gradient_norm < prm.abs_tolerance + prm.rel_tolerance * scale;
    // Round-off stagnation of the cost after a long step.
    const bool stagnated =
        m > 0 && last_alpha > 0.5 &&
        std::abs(cost - prev_cost) <
            prm.cost_abs_tolerance + prm.cost_rel_tolerance * 0.5 * (cost + prev_cost);
    const bool stop = optimal || stagnated || m == prm.max_iterations;
    if (prm.compute_condition_number) {
      if (!assemble_hessian()) {
        stats.history.push_back(rec);
        fail_budget();
        break;
      }
      rec.condition_number = condition_number();
    }
    stats.history.push_back(rec);
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
    if (dense) {
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
  }

  // Result at the last (best) iterate.
  stats.iterations = m;
  stats.cost = cost;
  stats.momentum_error = stats.history.back().momentum_residual;
  const double slack = laws.ComplementaritySlack(s.vc, s.gamma);
  stats.complementarity_error = (nc > 0 && cost > 0) ? slack / nc / cost : 0.0;
  result->v = s.v;
  result->vc = s.vc;
  result->gamma = s.gamma;
  result->regime = s.regime;
  stats.solve_ms = MsSince(t_start);
  return stats.status;
}

// Islands: connected components of the graph whose nodes are trees and whose edges are
// constraints on two trees. Trees without constraints form one extra island (H = A there, one
// Newton step). Each island is copied into a sub-problem (storage reused between calls) and solved
// by a child solver with its own Newton loop, stopping criterion (eq. 26 on the island's
// momentum) and line search, so a settled island converges at its guess with 0 iterations.
// Merged statistics: iterations = max over islands; history[m] merges the islands' records at
// iteration min(m, iterations_island): cost and regime counts summed, ‖D∇ℓ‖ and the eq. 26 scale
// combined as root-sum-squares (e_m = their ratio, within √2 of the monolithic definition), α the
// smallest step among the islands still iterating at m, line-search evaluations summed over them.
// If any island does not converge, Solve discards this result and solves the whole problem.
bool SapSolver::SolveIslands(const ContactProblem& problem, const VecX& v_guess,
                             SolverResult* result) {
  Scratch& s = *scratch_;
  const int nt = problem.num_trees();
  const int nc = static_cast<int>(problem.constraints.size());
  problem.TreeComponentRoots(&s.tree_root);
  const std::vector<int>& root = s.tree_root;
  // Island ids in order of first tree; constraint-free trees share the last id.
  s.island_of_root.assign(nt, -1);
  s.tree_island.assign(nt, -1);
  std::vector<int>& has_constraint = s.constraint_island;  // reused as a per-tree flag first
  has_constraint.assign(nt, 0);
  for (const ConstraintData& c : problem.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) has_constraint[root[c.blocks[k].tree]] = 1;
  }
  int num = 0;
  bool any_free = false;
  for (int t = 0; t < nt; ++t) {
    const int r = root[t];
    if (!has_constraint[r]) {
      any_free = true;
      continue;
    }
    if (s.island_of_root[r] < 0) s.island_of_root[r] = num++;
    s.tree_island[t] = s.island_of_root[r];
  }
  const int free_island = any_free ? num++ : -1;
  if (num < 2) return false;
  for (int t = 0; t < nt; ++t) {
    if (s.tree_island[t] < 0) s.tree_island[t] = free_island;
  }
  s.constraint_island.resize(nc);
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    s.constraint_island[i] = c.num_blocks > 0 ? s.tree_island[c.blocks[0].tree] : -1;
  }
  s.num_islands = num;
  // Constraints with no blocks act on no tree: they go with island 0 (γ from the bias only).
  for (int i = 0; i < nc; ++i) {
    if (s.constraint_island[i] < 0) s.constraint_island[i] = 0;
  }
  // Key per island (sizes, first tree), then a slot per island: the slot of the same key, else
  // one of the same sizes (in slot-key order), else a free slot, else a new one.
  s.island_sizes.assign(num, Scratch::IslandSizes{0, 0, 0, 0, -1});
  for (int t = 0; t < nt; ++t) {
    Scratch::IslandSizes& z = s.island_sizes[s.tree_island[t]];
    if (z[0]++ == 0) z[4] = t;
    z[1] += problem.tree_nv[t];
  }
  for (int i = 0; i < nc; ++i) {
    Scratch::IslandSizes& z = s.island_sizes[s.constraint_island[i]];
    ++z[2];
    z[3] += problem.constraints[i].num_rows;
  }
  const int num_slots = static_cast<int>(s.islands.size());
  s.slot_keys.clear();
  for (int j = 0; j < num_slots; ++j) s.slot_keys.emplace_back(s.islands[j].sizes, j);
  std::sort(s.slot_keys.begin(), s.slot_keys.end());
  s.slot_cursor.resize(num_slots);
  for (int j = 0; j < num_slots; ++j) s.slot_cursor[j] = j;
  s.slot_taken.assign(num_slots, 0);
  s.slot_of.assign(num, -1);
  auto take = [&](int k, int j) {
    s.slot_of[k] = j;
    s.slot_taken[j] = 1;
  };
  for (int k = 0; k < num; ++k) {  // same key
    const auto e = std::lower_bound(s.slot_keys.begin(), s.slot_keys.end(),
                                    std::make_pair(s.island_sizes[k], -1));
    if (e != s.slot_keys.end() && e->first == s.island_sizes[k] && !s.slot_taken[e->second]) {
      take(k, e->second);
    }
  }
  auto same_sizes = [](const Scratch::IslandSizes& a, const Scratch::IslandSizes& b) {
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
  };
  for (int k = 0; k < num; ++k) {  // same sizes
    if (s.slot_of[k] >= 0) continue;
    Scratch::IslandSizes lo = s.island_sizes[k];
    lo[4] = -2;
    const auto g = std::lower_bound(s.slot_keys.begin(), s.slot_keys.end(), std::make_pair(lo, -1));
    if (g == s.slot_keys.end()) continue;
    int& next = s.slot_cursor[g - s.slot_keys.begin()];
    while (next < num_slots && same_sizes(s.slot_keys[next].first, lo) &&
           s.slot_taken[s.slot_keys[next].second]) {
      ++next;
    }
    if (next < num_slots && same_sizes(s.slot_keys[next].first, lo)) {
      take(k, s.slot_keys[next].second);
    }
  }
  int free_slot = 0;
  for (int k = 0; k < num; ++k) {
    if (s.slot_of[k] >= 0) continue;
    while (free_slot < num_slots && s.slot_taken[free_slot]) ++free_slot;
    if (free_slot < num_slots) {
      s.slot_of[k] = free_slot++;
    } else {
      s.slot_of[k] = static_cast<int>(s.islands.size());
      s.islands.emplace_back();
    }
  }
  SapParameters child_params = params_;
  child_params.islands = false;
  for (int k = 0; k < num; ++k) {
    Scratch::Island& isl = s.islands[s.slot_of[k]];
    isl.sizes = s.island_sizes[k];
    isl.trees.clear();
    isl.constraints.clear();
    if (!isl.solver) {
      isl.solver = std::make_unique<SapSolver>(child_params, contact_);
    } else {
      isl.solver->params_ = child_params;
      isl.solver->contact_ = contact_;
    }
    isl.solver->scratch_->island_child = true;
  }
  for (int t = 0; t < nt; ++t) s.islands[s.slot_of[s.tree_island[t]]].trees.push_back(t);
  for (int i = 0; i < nc; ++i) s.islands[s.slot_of[s.constraint_island[i]]].constraints.push_back(i);

  // Sub-problems. Local tree index = rank in isl.trees (tree_local reuses tree_root).
  std::vector<int>& tree_local = s.tree_root;
  for (int k = 0; k < num; ++k) {
    Scratch::Island& isl = s.islands[s.slot_of[k]];
    ContactProblem& sub = isl.problem;
    const int snt = static_cast<int>(isl.trees.size());
    sub.time_step = problem.time_step;
    sub.tree_v_start.resize(snt);
    sub.tree_nv.resize(snt);
    sub.A.resize(snt);
    const bool have_M = static_cast<int>(problem.M.size()) == nt;
    sub.M.resize(have_M ? snt : 0);
    const bool have_motion = static_cast<int>(problem.tree_motion.size()) == nt;
    sub.tree_motion.resize(have_motion ? snt : 0);
    int nv = 0;
    for (int j = 0; j < snt; ++j) {
      const int t = isl.trees[j];
      tree_local[t] = j;
      sub.tree_v_start[j] = nv;
      sub.tree_nv[j] = problem.tree_nv[t];
      sub.A[j] = problem.A[t];
      if (have_M) sub.M[j] = problem.M[t];
      if (have_motion) sub.tree_motion[j] = problem.tree_motion[t];
      nv += problem.tree_nv[t];
    }
    sub.nv = nv;
    sub.v_star.resize(nv);
    sub.v0.resize(nv);
    isl.guess.resize(nv);
    const bool have_v0 = problem.v0.size() == problem.nv;
    for (int j = 0; j < snt; ++j) {
      const int t = isl.trees[j];
      const int n = problem.tree_nv[t], st = problem.tree_v_start[t], ss = sub.tree_v_start[j];
      sub.v_star.segment(ss, n) = problem.v_star.segment(st, n);
      sub.v0.segment(ss, n) = have_v0 ? problem.v0.segment(st, n) : problem.v_star.segment(st, n);
      isl.guess.segment(ss, n) = v_guess.segment(st, n);
    }
    const int snc = static_cast<int>(isl.constraints.size());
    sub.constraints.resize(snc);
    int rows = 0;
    for (int j = 0; j < snc; ++j) {
      const ConstraintData& c = problem.constraints[isl.constraints[j]];
      ConstraintData& d = sub.constraints[j];
      // Field by field, so that a Jacobian block past num_blocks keeps its storage for the
      // next constraint that fills this slot (it is never read: every use is under num_blocks).
      // The binding names every field: one added to ConstraintData stops the build here.
      const auto& [kind, first_row, num_rows, num_blocks, blocks, bias, stiffness,
                   dissipation_time, friction, hunt_crossley_dissipation, phi0, w, beta,
                   source] = c;
      static_cast<void>(first_row);  // renumbered
      d.kind = kind;
      d.first_row = rows;
      d.num_rows = num_rows;
      d.num_blocks = num_blocks;
      for (int b = 0; b < num_blocks; ++b) {
        d.blocks[b].tree = tree_local[blocks[b].tree];
        d.blocks[b].J = blocks[b].J;
        d.blocks[b].leaf = blocks[b].leaf;
        d.blocks[b].W = blocks[b].W;
      }
      for (int b = num_blocks; b < 2; ++b) d.blocks[b].tree = -1;
      d.bias = bias;
      d.stiffness = stiffness;
      d.dissipation_time = dissipation_time;
      d.friction = friction;
      d.hunt_crossley_dissipation = hunt_crossley_dissipation;
      d.phi0 = phi0;
      d.w = w;
      d.beta = beta;
      d.source = source;
      rows += c.num_rows;
    }
    sub.num_rows = rows;
  }

  // Solve and merge.
  SolverStats& stats = result->stats;
  result->v.resize(problem.nv);
  result->vc.resize(problem.num_rows);
  result->gamma.resize(problem.num_rows);
  result->regime.resize(nc);
  stats.status = SolverStatus::kConverged;
  stats.iterations = 0;
  stats.cost = 0;
  stats.message.clear();
  stats.islands.resize(num);
  for (int k = 0; k < num; ++k) {
    Scratch::Island& isl = s.islands[s.slot_of[k]];
    isl.solver->Solve(isl.problem, isl.guess, &isl.result);
    const SolverStats& st = isl.result.stats;
    IslandSummary& summary = stats.islands[k];
    summary.first_tree = isl.trees.empty() ? -1 : isl.trees.front();
    summary.trees = static_cast<int>(isl.trees.size());
    summary.constraints = static_cast<int>(isl.constraints.size());
    summary.iterations = st.iterations;
    summary.solve_ms = st.solve_ms;
    summary.status = st.status;
    if (st.status != SolverStatus::kConverged && stats.status == SolverStatus::kConverged) {
      stats.status = st.status;
      std::ostringstream os;
      os << "island " << k << ": " << st.message;
      stats.message = os.str();
    }
    stats.iterations = std::max(stats.iterations, st.iterations);
    stats.cost += st.cost;
    for (size_t j = 0; j < isl.trees.size(); ++j) {
      const int t = isl.trees[j];
      result->v.segment(problem.tree_v_start[t], problem.tree_nv[t]) =
          isl.result.v.segment(isl.problem.tree_v_start[j], problem.tree_nv[t]);
    }
    for (size_t j = 0; j < isl.constraints.size(); ++j) {
      const ConstraintData& c = problem.constraints[isl.constraints[j]];
      const int r0 = isl.problem.constraints[j].first_row;
      result->vc.segment(c.first_row, c.num_rows) = isl.result.vc.segment(r0, c.num_rows);
      result->gamma.segment(c.first_row, c.num_rows) = isl.result.gamma.segment(r0, c.num_rows);
      result->regime[isl.constraints[j]] = isl.result.regime[j];
    }
  }
  // Merged per-iteration history.
  stats.history.resize(stats.iterations + 1);
  for (int m = 0; m <= stats.iterations; ++m) {
    IterationRecord& rec = stats.history[m];
    rec = IterationRecord{};
    rec.iteration = m;
    double g2 = 0, scale2 = 0;
    double alpha = std::numeric_limits<double>::infinity();
    for (int k = 0; k < num; ++k) {
      const SolverStats& st = s.islands[s.slot_of[k]].result.stats;
      const IterationRecord& r = st.history[std::min<int>(m, st.history.size() - 1)];
      rec.cost += r.cost;
      g2 += r.gradient_norm * r.gradient_norm;
      if (r.momentum_residual > 0 && std::isfinite(r.momentum_residual)) {
        const double sc = r.gradient_norm / r.momentum_residual;
        scale2 += sc * sc;
      }
      rec.num_stiction += r.num_stiction;
      rec.num_sliding += r.num_sliding;
      rec.num_no_contact += r.num_no_contact;
      if (m > 0 && m <= st.iterations) {
        alpha = std::min(alpha, r.alpha);
        rec.line_search_evaluations += r.line_search_evaluations;
      }
    }
    rec.gradient_norm = std::sqrt(g2);
    rec.momentum_residual = rec.gradient_norm == 0 ? 0.0
                            : scale2 > 0 ? rec.gradient_norm / std::sqrt(scale2)
                                         : std::numeric_limits<double>::infinity();
    rec.alpha = std::isfinite(alpha) ? alpha : 0.0;
  }
  stats.momentum_error = stats.history.back().momentum_residual;
  const double slack = s.laws.ComplementaritySlack(result->vc, result->gamma);
  stats.complementarity_error = (nc > 0 && stats.cost > 0) ? slack / nc / stats.cost : 0.0;
  return true;
}

}  // namespace contactlab
