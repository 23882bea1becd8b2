// Breakpoints of the debugger: conditions on a recorded step that pause a running simulation.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "engine/sim/simulator.h"

namespace contactlab {

struct BreakpointSettings {
  // Pause when the solver reports a failure: line-search failure, non-finite input or a failed
  // factorization; when the state after the step is not finite (kNonFiniteState); also when the
  // implicit free-motion solve (stage 1) did not converge.
  bool on_failure = true;
  // Pause when the solver stopped at its iteration cap (status kMaxIterations, or as many
  // iterations as the cap passed to CheckBreakpoints).
  bool on_iteration_cap = true;
  // Pause on the step's divergence warnings (StepDiagnostics): bit (1 << StepWarning) enables a
  // warning; all on by default.
  std::uint32_t on_warnings = (1u << kNumStepWarnings) - 1;
  // Pause when the step's deepest penetration max(0, −min φ) exceeds this [m].
  double max_penetration = std::numeric_limits<double>::infinity();
  // Pause when the momentum residual e_m of the returned velocities exceeds this [-].
  double max_residual = std::numeric_limits<double>::infinity();
};

// The reason to pause after `record`, or nullopt: "step N: " and then, when several conditions
// hold, their reasons joined with "; " in the order of the fields above (the step named once). `max_iterations` is the solver's cap
// (SapParameters::max_iterations); a value <= 0 disables the iteration-count test (the status
// test remains).
std::optional<std::string> CheckBreakpoints(const StepRecord& record,
                                            const BreakpointSettings& settings,
                                            int max_iterations);

}  // namespace contactlab
