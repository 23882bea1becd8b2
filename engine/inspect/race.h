// The race on a frozen step: a work–precision diagram of one solver configuration (seed 001,
// Figs. 7 and 9: NCP residual against wall time and against iterations).
//
// The recorded step's contact problem is solved again with the configuration's iteration cap set
// to 1, 2, 3, 4, 6, 8, 12, 18, 26, ... (RaceCaps) until a solve ends below its cap (converged or
// failed) or the cap reaches the configuration's own (SolverIterationCap). Each point is one such
// capped solve from the step's start velocities (record.before.v):
//   solve_ms      median wall time of the solve over a few repeats, each with a fresh solver
//                 (MakeSolver: solvers keep impulses between solves as a warm start, which would
//                 make a repeat free)
//   iterations    the iterations the solve took (the solver's own: Newton, AL, ADMM, sweeps,
//                 interior-point)
//   ncp_residual  ComputeNcpResidual (engine/inspect/metrics.h) at the solve's impulses, the
//                 same measure for every solver (NaN when it cannot be computed)
//   status, momentum_error, and the last row of the solve's own iteration log (the series the
//                 solver declares, SolverSeries)
// A solver whose iterates do not depend on its cap gives at each point iteration `iterations`
// of the uncapped solve (SAP without islands; with islands, an island that reaches the cap makes
// SAP solve the whole problem again, so the capped iterates differ).
//
// Used by `contactlab compare --step N` (app/compare.cc) and the viewer's race panel.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "engine/inspect/metrics.h"
#include "engine/sim/simulator.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

// Iteration caps of a race: 1, 2, 3, 4, then k + k/2 rounded down to an even number (6, 8, 12,
// 18, 26, 38, ...), up to `cap`, and `cap` itself last; at most 66 caps. cap < 1 gives {1}.
std::vector<int> RaceCaps(int cap);

struct RaceOptions {
  int min_repeats = 3;     // timed solves per point, at least
  int max_repeats = 15;    // and at most
  double budget_ms = 300;  // no further repeat once a point's solves took this long [ms]
  // Checked between solves: when it becomes true the race returns the points it has (and sets
  // RaceCurve::cancelled). May be null.
  const std::atomic<bool>* cancel = nullptr;
  // Called after each point (e.g. to show progress); may be empty.
  std::function<void(const struct RacePoint&)> on_point;
};

struct RacePoint {
  int cap = 0;              // iteration cap given to the solver
  int iterations = 0;       // iterations it took
  double solve_ms = 0;      // median over the repeats [ms]
  double ncp_residual = 0;  // NaN when it cannot be computed
  double momentum_error = 0;
  SolverStatus status = SolverStatus::kConverged;
  // The last row of the solve's iteration log (RaceCurve::series order); empty for an empty log.
  std::vector<double> final_row;
};

// One configuration's curve.
struct RaceCurve {
  SolverType solver = SolverType::kSap;
  ContactModelType model = ContactModelType::kLinear;
  SeriesTable series;             // the solver's declared series (final_row's columns)
  std::vector<RacePoint> points;  // in cap order
  bool cancelled = false;
};

// NCP residual of a result (ComputeNcpResidual; kRigid: against the rigid law), NaN when it
// cannot be computed (e.g. an A block that is not SPD).
double NcpResidualOrNan(const ContactProblem& problem, const SolverResult& result,
                        NcpModel model = NcpModel::kCompliant);

// Races `settings` (solver_type, its parameters and the contact model; the other fields are not
// used) on the frozen step `record`. Throws std::invalid_argument for parameters MakeSolver
// refuses; a solver that does not accept the model gives points with that status.
RaceCurve RaceFrozenStep(const StepRecord& record, const StepSettings& settings,
                         const RaceOptions& options = {});

}  // namespace contactlab
