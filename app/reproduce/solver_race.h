// Internal to `contactlab reproduce`: running the papers' own solvers (engine/sim/
// solver_registry.h) on the paper scenes, measured the same way for every solver.
//
//   RaceAtCaps: the work–precision race on a frozen step (seed 001, Figs. 7 and 9): the
//     recorded step's problem solved again with the solver's iteration cap set to each of
//     `caps` (a fresh solver per solve: solvers keep a warm start), timed, and the NCP residual
//     of engine/inspect/metrics.h at the solve's impulses. engine/inspect/race.h's RaceFrozenStep
//     (`contactlab compare --step`, the viewer's race panel) races the same way up to the
//     configuration's own cap with the caps 1, 2, 3, 4, 6, 8, 12, ...; this one takes the caps
//     explicitly (ConsecutiveRaceCaps: every cap up to 12), so that the cases of a mean share them.
//   SolverRun: a scene stepped under one solver with the per-step measures the AL paper
//     reports (solve time, iterations, NCP residual, statuses).
#pragma once

#include <string>
#include <vector>

#include "app/reproduce/experiment.h"
#include "engine/sim/solver_registry.h"

namespace contactlab {
namespace reproduce {

// 1, 2, ..., 12, then 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, ... up to `max_cap`,
// and `max_cap` last.
std::vector<int> ConsecutiveRaceCaps(int max_cap);

// One point of a race: the solve capped at `cap` iterations.
struct RaceSample {
  int cap = 0;
  int iterations = 0;    // iterations the solve took (the solver's own: Newton, AL, ADMM, sweeps)
  double ms = 0;         // wall time of the solve, fastest of the repeats [ms]
  double ncp = 0;        // NCP residual (compliant model) at the solve's impulses
  double e_m = 0;        // the solver's reported momentum error at its result
  double newton = kNaN;  // CANAL: Newton steps of all its surrogates (NaN for other solvers)
  SolverStatus status = SolverStatus::kConverged;
};

// Races `settings` (solver_type, its parameters, the contact model) on `record`'s problem from its
// start velocities, one point per cap. `repeats` timed solves per point while a solve takes under
// 1 ms (one above). Once the solver converges below a cap, the remaining caps repeat that point.
std::vector<RaceSample> RaceAtCaps(const StepRecord& record, StepSettings settings,
                                   const std::vector<int>& caps, int repeats);

// Newton steps of a CANAL result (the sum of its newton_iterations series, over its islands when
// the solve was split); NaN for a result without that series.
double CanalNewtonSteps(const SolverResult& result);

// Per-step measures of a scene stepped under one solver.
struct SolverRun {
  std::vector<double> solve_ms;  // per step
  std::vector<double> ncp;       // per step with constraints: NCP residual (compliant)
  // Per step with constraints: the solver's own stopping residual (the series of role
  // kResidual: SAP and PGS e_m, CANAL the AL residual, SubADMM θ_p + θ_d, first-order the gap)
  // at the returned iterate (CANAL and SubADMM return their smallest; the others the last).
  std::vector<double> own_residual;
  std::vector<double> solve_ms_contact;  // per step with constraints: solve time [ms]
  std::vector<double> newton;            // per step with constraints: CANAL's Newton steps
  double iterations = 0;                 // mean per step
  int max_iterations = 0;
  int at_cap = 0;             // steps that ended at the iteration cap (status max_iterations)
  int failures = 0;           // steps with any other status than converged or max_iterations
  std::string first_failure;  // "t = T s: status: message"
  bool finite = true;
  double max_penetration = 0;
  double wall_s = 0;
};

// Steps `scene` for `steps` steps; `each` (may be empty) sees every record as well.
SolverRun RunSolver(const Scene& scene, int steps,
                    const std::function<void(const Simulator&, const StepRecord&)>& each = nullptr);

// `p`-quantile (0..1, nearest rank) of `v`; NaN when empty.
double Quantile(std::vector<double> v, double p);

}  // namespace reproduce
}  // namespace contactlab
