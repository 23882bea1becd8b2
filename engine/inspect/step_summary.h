// A step in a few numbers: what its solve cost, how accurate it was and where the bodies went.
// Small enough to keep for thousands of steps of several runs side by side (the viewer's compare
// mode overlays them per configuration and measures how far the runs drift apart).
#pragma once

#include <limits>
#include <vector>

#include "engine/common/math.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

struct StepSummary {
  int step = 0;                // StepRecord::step
  double time = 0;             // simulated time after the step [s]
  int iterations = 0;          // the solver's own iterations
  double solve_ms = 0;         // wall time of the solve phase (StepTimings::solve_ms) [ms]
  double max_penetration = 0;  // [m]
  double total_energy = 0;     // kinetic + potential after the step [J]
  // NCP residual of the solve (ComputeNcpResidual, engine/inspect/metrics.h), the same measure
  // for every solver; NaN when it cannot be computed.
  double ncp_residual = std::numeric_limits<double>::quiet_NaN();
  SolverStatus status = SolverStatus::kConverged;
  bool failed = false;         // StepRecord::Failed()
  VecX q;                      // generalized positions after the step (to draw the bodies)
  std::vector<Vec3> body_com;  // per body (model order): centre of mass after the step [m]
};

// The summary of `record`, a step of a simulation of `multibody`'s model. `kin` is scratch (may
// be reused between calls). A step whose state was not finite keeps its start state
// (record.after), so its bodies are where the step began.
StepSummary SummarizeStep(const Multibody& multibody, const StepRecord& record,
                          KinematicsCache* kin);

// Largest distance ‖a_b − b_b‖ over the bodies b present in both (the smaller size) [m]; with
// `body`, the index of that body (-1 when there is none). Non-finite positions count as an
// infinite distance.
double MaxBodyDistance(const std::vector<Vec3>& a, const std::vector<Vec3>& b, int* body = nullptr);

}  // namespace contactlab
