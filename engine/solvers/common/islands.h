// Islands: a contact problem split into the connected components of its tree/constraint graph,
// solved one component at a time by any ContactSolver, and the islands' results merged back.
//
// The graph's nodes are the problem's trees and its edges the constraints on two trees
// (ContactProblem::TreeComponentRoots). Two islands share no velocity and no constraint row, so
// the problem's cost ℓ_p(v) = ½‖v − v*‖²_A + Σ_i ℓ_i(v_c,i) (SAP eq. 24) is the sum of the
// islands' costs and its minimizer is the concatenation of theirs: a solve by islands and the
// monolithic solve have the same solution. What differs is the iteration: each island has its
// own Newton loop, stopping test (eq. 26 on the island's momentum) and line search, so a settled
// island converges at its guess with 0 iterations while another is still iterating.
//
// Island ids go in order of each island's first (smallest) tree; the trees without any
// constraint form one extra island, last (H = A there: one Newton step). A constraint without
// Jacobian blocks acts on no tree and goes with island 0 (its γ comes from the bias only).
//
// Storage: each island lives in a slot (sub-problem, guess, result and the solver that solves
// it) that is reused from call to call. An island takes the slot that held the island with the
// same first tree and sizes (trees, dofs, constraints, rows) the last time, else one whose island
// had the same sizes, else a free one, so that its storage survives although island ids change
// from step to step (a repeated split of a same-shaped problem allocates nothing).
//
// Usage (SolveByIslands below does all three):
//   const int n = splitter.Split(problem, v_guess);       // n < 2: solve monolithically
//   for (k < n) island(k).solver->Solve(island(k).problem, island(k).guess, &island(k).result);
//   splitter.Merge(problem, &result);
#pragma once

#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "engine/contact/contact_problem.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

class IslandSplitter {
 public:
  // One island: its trees and constraints (indices into the full problem, increasing), the
  // sub-problem holding copies of them (trees and rows renumbered from 0, constraint blocks'
  // `tree` local), the guess restricted to its velocities, its result, and the solver that solves
  // it (made by the caller the first time the slot is used, then kept with its own scratch).
  struct Island {
    std::vector<int> trees, constraints;
    ContactProblem problem;
    VecX guess;
    SolverResult result;
    std::unique_ptr<ContactSolver> solver;
  };

  // Finds the islands of `problem` (validated: see CheckStructure in the SAP solver) and, when
  // there are at least two, assigns each a slot and fills its trees, constraints, sub-problem
  // and guess (from `v_guess`, size nv). Returns the number of islands; with fewer than two
  // nothing is filled (the problem is one island: solve it as a whole).
  int Split(const ContactProblem& problem, const VecX& v_guess);

  int num_islands() const { return num_islands_; }
  // Island `k` (0 <= k < num_islands()) of the last Split.
  Island& island(int k) { return slots_[slot_of_[k]]; }
  const Island& island(int k) const { return slots_[slot_of_[k]]; }
  // Slots held (for the tests of storage reuse): >= num_islands().
  int num_slots() const { return static_cast<int>(slots_.size()); }

  // Reassembles the islands' results (their `result` after a solve) into `result` for `problem`
  // (the problem given to the last Split):
  //  - v, v_c, γ and the regimes scattered back to the problem's velocity and row indices;
  //  - status: converged if every island converged, else the first failing island's status with
  //    the message "island k: <its message>";
  //  - iterations = the largest island's; cost = the sum; stats.islands = one IslandSummary per
  //    island (first tree, trees, constraints, iterations, wall time, status);
  //  - stats.island_log = the islands' own logs one after the other (IslandSummary::
  //    log_first_row, log_rows locate each).
  // Leaves the merged per-iteration log (stats.iteration_log: how islands' series combine is
  // the solver's to say), momentum_error, result->laws, stats.complementarity_error and
  // stats.solve_ms to the caller (they depend on the solver's series, laws and clock).
  void Merge(const ContactProblem& problem, SolverResult* result) const;

 private:
  // Key of an island's slot: trees, dofs, constraints, rows, first tree.
  using IslandSizes = std::array<int, 5>;

  std::vector<Island> slots_;
  std::vector<IslandSizes> slot_sizes_;  // per slot: key of the island it held last
  // Per split (storage kept between calls):
  std::vector<int> tree_root_, tree_island_, island_of_root_, constraint_island_;
  std::vector<int> slot_of_;                            // island id -> slot
  std::vector<IslandSizes> island_sizes_;               // island id -> key
  std::vector<std::pair<IslandSizes, int>> slot_keys_;  // (key, slot), sorted
  std::vector<int> slot_cursor_;                        // per slot_keys_ group: next entry to try
  std::vector<char> slot_taken_;
  int num_islands_ = 0;
};

// Solves `problem` from `v_guess` island by island: Split, then for each island
// `prepare(island.solver)` (after `make_solver()` has made the solver of a slot that has none:
// a std::unique_ptr<ContactSolver>, or to a derived type) and its Solve, then Merge into
// `result`. Returns false, touching nothing but the splitter's scratch, when the problem has
// fewer than two islands. `prepare` passes the caller's current parameters to a reused solver.
// The callbacks are template parameters, so a repeated solve allocates nothing here.
template <class MakeSolver, class Prepare>
bool SolveByIslands(IslandSplitter* splitter, const ContactProblem& problem, const VecX& v_guess,
                    MakeSolver&& make_solver, Prepare&& prepare, SolverResult* result) {
  const int num = splitter->Split(problem, v_guess);
  if (num < 2) return false;
  for (int k = 0; k < num; ++k) {
    IslandSplitter::Island& isl = splitter->island(k);
    if (!isl.solver) isl.solver = make_solver();
    prepare(*isl.solver);
  }
  for (int k = 0; k < num; ++k) {
    IslandSplitter::Island& isl = splitter->island(k);
    isl.solver->Solve(isl.problem, isl.guess, &isl.result);
  }
  splitter->Merge(problem, result);
  return true;
}

// How a merged per-iteration log (stats.iteration_log of an island solve) combines one series
// over the islands at merged row m. Each island contributes its row min(m, last), last = its final
// row (an island that stopped earlier holds its last values); "stepping" islands are those with
// 0 < m <= last (they took a step to reach row m), "directing" ones those with m < last (they
// computed a direction at row m).
enum class IslandMerge {
  kSum,               // Σ over the islands
  kRootSumSquare,     // √(Σ x²): residual norms of the stacked problem
  kMax,               // the largest
  kSumStepping,       // Σ over the stepping islands (0 when none)
  kMinStepping,       // the smallest over the stepping islands (0 when none)
  kSumDirecting,      // Σ over the directing islands (0 when none)
  kMaxDirecting,      // the largest recorded (non-NaN) value of the directing islands (NaN: none)
  kMomentumResidual,  // ‖g‖ / √(Σ (g_k / e_k)²), g_k the island's `gradient` series and e_k this
                      // one (a relative residual whose scale is the root-sum-square of the
                      // islands' scales g_k / e_k); 0 when ‖g‖ = 0, ∞ when no island has a scale
};
struct IslandMergeRule {
  int series = 0;
  IslandMerge how = IslandMerge::kSum;
  int gradient = -1;  // kMomentumResidual: the gradient-norm series
};

// Fills `log` (reset to `table`) with rows 0..iterations merged from the islands' logs by `rules`
// (series without a rule stay kNotRecorded).
void MergeIslandLogs(const IslandSplitter& islands, int iterations, const SeriesTable& table,
                     const std::vector<IslandMergeRule>& rules, IterationLog* log);

}  // namespace contactlab
