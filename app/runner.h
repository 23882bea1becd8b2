// Headless runs: step a scene's Simulator, write per-step statistics (JSON Lines) and body
// trajectories (CSV), and summarize the run.
#pragma once

#include <limits>
#include <ostream>
#include <string>

#include "app/scene.h"

namespace contactlab {

struct RunOptions {
  int steps = 0;                // number of steps; 0: use `duration`
  double duration = 0;          // [s]; 0: the scene's duration. Steps = round(duration / δt).
  std::string stats_path;       // JSON Lines, one object per step; empty: none
  std::string trajectory_path;  // CSV of body poses; empty: none
  // Reference trajectory (CSV in the trajectory format above, e.g. a run at a smaller δt) for
  // the position error e_q; empty: none. Bodies are matched by name; reference positions are
  // interpolated linearly in time.
  std::string reference_path;
};

struct RunSummary {
  std::string scene;
  int steps = 0;
  double simulated_time = 0;   // [s]
  double mean_iterations = 0;  // solver iterations per step
  int max_iterations = 0;
  double mean_solve_ms = 0;
  double mean_step_ms = 0;
  int failures = 0;                   // steps whose solver status was not converged
  int free_motion_failures = 0;       // steps whose implicit free-motion solve did not converge
  double final_kinetic_energy = 0;    // [J]
  double final_potential_energy = 0;  // [J]
  double final_energy = 0;            // [J]
  double max_penetration = 0;         // over all steps [m]
  // e_q = ((1/T) ∫ mean_b ‖p_b − p_b,ref‖² dt)^{1/2} over the run [m] (NaN without a reference;
  // not written to the JSON then).
  double position_error_rms = std::numeric_limits<double>::quiet_NaN();
  // One-line JSON object with the fields above.
  std::string ToJson() const;
};

// The trajectory CSV of `contactlab run --trajectory` (and `contactlab view --trajectory`):
// header `step,time,body,x,y,z,qw,qx,qy,qz` (17 significant digits), one row per non-static body
// (with a joint or prescribed, TrajectoryBodies) per written state; `step` counts the steps
// completed (0 = the initial state).
std::vector<int> TrajectoryBodies(const Model& model);
void WriteTrajectoryHeader(std::ostream& out);
void WriteTrajectoryRows(std::ostream& out, const Multibody& multibody,
                         const std::vector<int>& bodies, int step, const State& state);

// Number of steps a run with `options` takes for `scene` (at least 1).
int RunStepCount(const Scene& scene, const RunOptions& options);

// Runs the scene from its default state. Files are written as the run proceeds:
//   stats: one JSON object per step with step (number of steps completed, 1-based), time (after
//     the step), contacts, iterations, status, momentum_error, complementarity_error, cost,
//     solve_ms, step_ms, max_penetration, kinetic_energy, potential_energy, total_energy,
//     mean_stiction_slip, stiction_slip_bound (σ μ_max δt ‖g‖), ncp_residual (engine/metrics.h,
//     compliant model), and with a reference: position_error (RMS over the matched bodies of
//     ‖p − p_ref(t)‖ after the step [m]) and position_error_rms (e_q from t = 0 to this step).
//   trajectory: header `step,time,body,x,y,z,qw,qx,qy,qz`, one row per non-static body (with a
//     joint or prescribed) for the initial state (step 0) and after every step.
// The summary is also printed to `log` as one JSON line. Throws std::runtime_error when an output
// file cannot be written.
RunSummary RunHeadless(Scene& scene, const RunOptions& options, std::ostream& log);

}  // namespace contactlab
