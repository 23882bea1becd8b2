// The interface every contact solver implements (SAP now; CANAL, SubADMM and the first-order
// solver later): same problem, same guess, and a status plus a per-iteration log of the series
// the solver declares (iteration_log.h), which the UI plots and the exports write as declared.
// Stats are data, not log lines.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/contact/constraint_bundle.h"
#include "engine/contact/contact_model.h"
#include "engine/contact/contact_problem.h"
#include "engine/solvers/common/iteration_log.h"

namespace contactlab {

enum class SolverStatus {
  kConverged = 0,
  kMaxIterations,
  kLineSearchFailure,
  kNonFiniteInput,
  kFactorizationFailure,
  // Not the solver's own outcome: the simulator sets it on a step whose resulting state (q, v,
  // body poses) or energy is not finite. The state is then kept at the step's start
  // (Simulator::Step) and SolverStats::message names the quantity and the solver's own status.
  kNonFiniteState,
  // The linear algebra of the step would need more memory than the budget (SapParameters::
  // memory_budget_mb): refused before allocating, with the problem's sizes in the message.
  kMemoryBudgetExceeded,
  // The factorization of the Newton system would need more multiply-adds than the work budget
  // (SapParameters::work_budget_gflop): refused before the factor is allocated, with the
  // problem's sizes and the estimate in the message, instead of running for minutes or hours.
  kWorkBudgetExceeded,
  // The iterative solve of the Newton system (SapParameters::linear_solver pcg/auto) did not
  // reach its forcing tolerance within its iteration cap, or broke down (pᵀHp <= 0): the
  // direction is not used; the result is the last Newton iterate.
  kLinearSolverFailure,
  // The solver cannot solve the step's contact model (e.g. an augmented-Lagrangian solver asked
  // for a Hunt–Crossley law): refused before iterating; the message names the solver, the model
  // and the models it accepts.
  kUnsupportedContactModel,
  // The solver's own numerical method broke down (an interior-point step with no descent, a
  // singular subsystem matrix, a non-finite iterate): the message says which and where; the result
  // is the last finite iterate.
  kNumericalFailure,
  // The problem has a kind of constraint the solver cannot solve (equality constraints, i.e.
  // bilateral rows, under CANAL or the first-order solver): refused before iterating; the message
  // says "solver X does not support equality constraints".
  kUnsupportedConstraint,
};
const char* SolverStatusName(SolverStatus s);

// One island of a solve split by connected components (SapParameters::islands).
struct IslandSummary {
  int first_tree = -1;   // smallest tree index of the island (the island's id order)
  int trees = 0;         // trees in the island (constraint-free trees share one island)
  int constraints = 0;
  int iterations = 0;    // Newton iterations of the island's own solve
  double solve_ms = 0;   // wall time of the island's solve
  SolverStatus status = SolverStatus::kConverged;
  // The island's own per-iteration log: rows [log_first_row, log_first_row + log_rows) of
  // SolverStats::island_log.
  int log_first_row = 0, log_rows = 0;
};

struct SolverStats {
  SolverStatus status = SolverStatus::kConverged;
  int iterations = 0;                    // Newton iterations taken (0 if the guess converged)
  // Islands solved separately, in order of first tree (the island of the constraint-free trees,
  // if any, last); empty when the problem was solved as one
  // (islands off, the dense path, a single island, or the monolithic re-solve after an island
  // failed). `iterations` is then the largest of the islands' iterations.
  std::vector<IslandSummary> islands;
  // Per-iteration series the solver declares (iteration_log.h): iterations + 1 rows, row 0 at
  // the guess. Empty after a structural error. Islands: the merged rows (SapSolver).
  IterationLog iteration_log;
  // The islands' own logs one after the other (IslandSummary::log_first_row), same series as
  // iteration_log; empty when the solve was not split.
  IterationLog island_log;
  double momentum_error = 0;             // e_m at the returned v
  // e_μ = Σ_i |g_iᵀγ_i| / (n_c ℓ) at the returned v, g_i each law's own complementarity gap (Slack,
  // constraint_laws.h: linear eq. 33, Hunt–Crossley their normal law's): round-off when consistent.
  double complementarity_error = 0;
  double cost = 0;                       // final ℓ_p
  double solve_ms = 0;                   // wall time of Solve()
  // The Newton systems were solved by the articulated-body recursion (O(nv), a problem of one
  // large tree; see docs/debugging.md, "Large kinematic trees"), not by a Cholesky factorization.
  bool tree_recursion = false;
  std::string message;                   // detail for a failure status
};

struct SolverResult {
  VecX v;                        // nv, velocities at the end of the step
  VecX vc;                       // num_rows, constraint velocities J v + b
  VecX gamma;                    // num_rows, impulses [N s] (cone rows: t1, t2, n)
  std::vector<Regime> regime;    // per constraint, as the constraint's law reports it
  // The contact model and the per-constraint constants of the laws the solve used (linear law:
  // R, v̂, the near-rigid flag; Hunt–Crossley: f₀, n₀, ε_s, v̂). Empty after a structural error.
  ConstraintBundle laws;
  SolverStats stats;
};

class ContactSolver {
 public:
  virtual ~ContactSolver() = default;
  virtual const char* name() const = 0;
  // The per-iteration series this solver fills (SolverStats::iteration_log), declared once.
  virtual SeriesTable series() const = 0;
  // Solves `problem` from `v_guess` (size nv). Never throws on numerical trouble: returns a
  // failure status with the best iterate in `result`.
  virtual SolverStatus Solve(const ContactProblem& problem, const VecX& v_guess,
                             SolverResult* result) = 0;
};

}  // namespace contactlab
