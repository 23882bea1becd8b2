// Names of the solver status and per-constraint regime enums, for logs, JSON and the UI.
#include "engine/solvers/common/solver.h"

namespace contactlab {

const char* SolverStatusName(SolverStatus s) {
  switch (s) {
    case SolverStatus::kConverged: return "converged";
    case SolverStatus::kMaxIterations: return "max_iterations";
    case SolverStatus::kLineSearchFailure: return "line_search_failure";
    case SolverStatus::kNonFiniteInput: return "non_finite_input";
    case SolverStatus::kFactorizationFailure: return "factorization_failure";
    case SolverStatus::kNonFiniteState: return "non_finite_state";
    case SolverStatus::kMemoryBudgetExceeded: return "memory_budget_exceeded";
    case SolverStatus::kWorkBudgetExceeded: return "work_budget_exceeded";
    case SolverStatus::kLinearSolverFailure: return "linear_solver_failure";
    case SolverStatus::kUnsupportedContactModel: return "unsupported_contact_model";
    case SolverStatus::kNumericalFailure: return "numerical_failure";
    case SolverStatus::kUnsupportedConstraint: return "unsupported_constraint";
  }
  return "unknown";
}

const char* RegimeName(Regime r) {
  switch (r) {
    case Regime::kStiction: return "stiction";
    case Regime::kSliding: return "sliding";
    case Regime::kNoContact: return "no_contact";
  }
  return "unknown";
}

}  // namespace contactlab
