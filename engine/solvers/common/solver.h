// The interface every contact solver implements (SAP now; CANAL, SubADMM and the first-order
// solver later): same problem, same guess, and a status plus a per-iteration record that the UI
// plots directly. Stats are data, not log lines.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/contact/constraint_bundle.h"
#include "engine/contact/contact_model.h"
#include "engine/contact/contact_problem.h"

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
};
const char* SolverStatusName(SolverStatus s);


// One Newton iteration. Iteration 0 records the state at the guess (alpha = 0).
struct IterationRecord {
  int iteration = 0;
  double cost = 0;                 // ℓ_p(v_m) [J]
  double momentum_residual = 0;    // e_m = ‖D∇ℓ‖ / max(‖Dp‖, ‖DJᵀγ‖) (eq. 32), dimensionless
  double gradient_norm = 0;        // ‖D∇ℓ‖ [√J]
  double alpha = 0;                // line-search step that produced this iterate
  int line_search_evaluations = 0; // cost/derivative evaluations spent to find alpha
  int num_stiction = 0, num_sliding = 0, num_no_contact = 0;
  double condition_number = std::numeric_limits<double>::quiet_NaN();  // cond₂(H), on request
};

// One island of a solve split by connected components (SapParameters::islands).
struct IslandSummary {
  int first_tree = -1;   // smallest tree index of the island (the island's id order)
  int trees = 0;         // trees in the island (constraint-free trees share one island)
  int constraints = 0;
  int iterations = 0;    // Newton iterations of the island's own solve
  double solve_ms = 0;   // wall time of the island's solve
  SolverStatus status = SolverStatus::kConverged;
};

struct SolverStats {
  SolverStatus status = SolverStatus::kConverged;
  int iterations = 0;                    // Newton iterations taken (0 if the guess converged)
  // Islands solved separately, in order of first tree (the island of the constraint-free trees,
  // if any, last); empty when the problem was solved as one
  // (islands off, the dense path, a single island, or the monolithic re-solve after an island
  // failed). `iterations` is then the largest of the islands' iterations.
  std::vector<IslandSummary> islands;
  std::vector<IterationRecord> history;  // iterations + 1 entries
  double momentum_error = 0;             // e_m at the returned v
  // e_μ (eq. 33) at the returned v: the round-off of the linear law's cone projection; laws
  // without a projection (Hunt–Crossley) add no terms.
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
  // Solves `problem` from `v_guess` (size nv). Never throws on numerical trouble: returns a
  // failure status with the best iterate in `result`.
  virtual SolverStatus Solve(const ContactProblem& problem, const VecX& v_guess,
                             SolverResult* result) = 0;
};

}  // namespace contactlab
