#include "engine/inspect/breakpoints.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace contactlab {

std::optional<std::string> CheckBreakpoints(const StepRecord& record,
                                            const BreakpointSettings& settings,
                                            int max_iterations) {
  const SolverStats& stats = record.result.stats;
  std::ostringstream os;
  os.precision(6);
  bool any = false;
  // "step N: " once, then the reasons joined by "; " (never "step N: ...; step N: ...").
  auto sep = [&]() -> std::ostream& {
    if (any) {
      os << "; ";
    } else {
      os << "step " << record.step << ": ";
    }
    any = true;
    return os;
  };
  const SolverStatus st = stats.status;
  if (settings.on_failure &&
      (st == SolverStatus::kLineSearchFailure || st == SolverStatus::kNonFiniteInput ||
       st == SolverStatus::kFactorizationFailure || st == SolverStatus::kNonFiniteState ||
       st == SolverStatus::kMemoryBudgetExceeded || st == SolverStatus::kWorkBudgetExceeded ||
       st == SolverStatus::kLinearSolverFailure || st == SolverStatus::kUnsupportedContactModel ||
       st == SolverStatus::kNumericalFailure || st == SolverStatus::kUnsupportedConstraint)) {
    sep() << "solver failure (" << SolverStatusName(st) << ")";
    if (!stats.message.empty()) os << ": " << stats.message;
  }
  if (settings.on_failure && !record.free_motion.converged) {
    char buf[160];
    std::snprintf(buf, sizeof(buf),
                  "free motion did not converge (%d Newton iterations, relative residual %.3g)",
                  record.free_motion.iterations, record.free_motion.residual);
    sep() << buf;
  }
  if (settings.on_iteration_cap &&
      (st == SolverStatus::kMaxIterations ||
       (max_iterations > 0 && stats.iterations >= max_iterations))) {
    sep() << "iteration cap reached (" << stats.iterations
          << (stats.iterations == 1 ? " iteration)" : " iterations)");
  }
  if ((record.diagnostics.warnings & settings.on_warnings) != 0) {
    sep() << record.diagnostics.message;
  }
  if (record.metrics.max_penetration > settings.max_penetration) {
    sep() << "penetration " << record.metrics.max_penetration
          << " m > " << settings.max_penetration << " m";
  }
  // A NaN residual (failed solve) counts as exceeding any finite threshold.
  const double e = stats.momentum_error;
  if (std::isfinite(settings.max_residual) && !(e <= settings.max_residual)) {
    sep() << "momentum residual " << e << " > "
          << settings.max_residual;
  }
  if (!any) return std::nullopt;
  return os.str();
}

}  // namespace contactlab
