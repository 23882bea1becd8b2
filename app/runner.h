// Headless runs: step a scene's Simulator, write per-step statistics (JSON Lines) and body
// trajectories (CSV), and summarize the run.
#pragma once

#include <array>
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
  int requested_steps = 0;     // steps the run was asked for (RunStepCount)
  int steps = 0;               // steps run (fewer than requested when the run stopped)
  double simulated_time = 0;   // [s]
  double mean_iterations = 0;  // solver iterations per step
  int max_iterations = 0;
  double mean_solve_ms = 0;
  double mean_step_ms = 0;
  // Steps whose status was not converged: solver failures, the iteration cap and
  // non_finite_state (SolverStatus::kNonFiniteState).
  int failures = 0;
  int free_motion_failures = 0;       // steps whose implicit free-motion solve did not converge
  double final_kinetic_energy = 0;    // [J]
  double final_potential_energy = 0;  // [J]
  double final_energy = 0;            // [J]
  double max_penetration = 0;         // over all steps [m]
  double max_pressure = 0;            // largest pressure-field face pressure p0 over all steps [Pa]
  int max_faces = 0;                  // most pressure-field faces in one step
  // Steps with a divergence warning, and the count of each warning (StepWarning order).
  int steps_with_warnings = 0;
  std::array<int, kNumStepWarnings> warning_counts{};
  // The run stopped early: at the step (its `step` in the stats, 1-based) whose state was not
  // finite, or at step 0 when the initial state is not finite. -1: ran to the end.
  int stopped_at_step = -1;
  std::string stop_reason;  // why it stopped (empty when it did not)
  // e_q = ((1/T) ∫ mean_b ‖p_b − p_b,ref‖² dt)^{1/2} over the run [m] (NaN without a reference;
  // not written to the JSON then).
  double position_error_rms = std::numeric_limits<double>::quiet_NaN();
  // One-line JSON object with the fields above (warning_counts as "warnings": {name: count};
  // stopped_at_step and stop_reason only when the run stopped). Non-finite numbers are written
  // as the strings "nan", "inf", "-inf", never as null.
  std::string ToJson() const;
  // Exit status of `contactlab run` for this run: 0 clean; 3 a step failed (any failure above,
  // or the run stopped on a non-finite state); 4 no step failed but divergence warnings fired.
  int ExitStatus() const;
};

constexpr int kExitRunFailedSteps = 3;
constexpr int kExitRunWarnings = 4;

// The trajectory CSV of `contactlab run --trajectory` (and `contactlab view --trajectory`):
// header `step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz` (17 significant digits), one row
// per non-static body (with a joint or prescribed, TrajectoryBodies) per written state; `step`
// counts the steps completed (0 = the initial state). (x, y, z) and (qw, qx, qy, qz) are the
// body frame's pose in the world, (vx, vy, vz) the world velocity of the body frame's origin
// [m/s] and (wx, wy, wz) the world angular velocity [rad/s]; the velocity columns come last so
// that readers of the older 10-column files keep working. Body names are quoted as RFC 4180
// fields when they contain a comma, a double quote, CR or LF.
std::vector<int> TrajectoryBodies(const Model& model);
void WriteTrajectoryHeader(std::ostream& out);
void WriteTrajectoryRows(std::ostream& out, const Multibody& multibody,
                         const std::vector<int>& bodies, int step, const State& state);

// Splits one CSV record (RFC 4180: quoted fields may hold commas, doubled quotes and line
// breaks) read from `in` into fields; false at end of input. Throws std::runtime_error for an
// unterminated quote.
bool ReadCsvRecord(std::istream& in, std::vector<std::string>* fields);
// The field `s` as written in a CSV record (quoted when it needs to be).
std::string CsvField(const std::string& s);

// Number of steps a run with `options` takes for `scene` (at least 1).
int RunStepCount(const Scene& scene, const RunOptions& options);

// Runs the scene from its default state. Files are written as the run proceeds:
//   stats: one JSON object per state. The first line (step 0) is the initial state: step, time,
//     status ("initial_state", or "non_finite_state" with a message), contacts (candidates at
//     t = 0), max_penetration, kinetic_energy, potential_energy, total_energy, and with a
//     reference position_error. Then one line per step with step (number of steps completed,
//     1-based), time (after the step), contacts (candidate cone constraints in the step's
//     problem, within the speculative margin),
//     loaded_contacts (those with a normal impulse > 0), iterations, islands, status (solver
//     status, or non_finite_state), message (detail of a failure status, when there is one),
//     warnings (names of the divergence warnings, [] when none), warning_message (when any),
//     energy_change, energy_allowance, penetration_ratio, speed_ratio (the figures behind the
//     warnings, StepDiagnostics), momentum_error, complementarity_error, cost, solve_ms,
//     step_ms, max_penetration, patches, faces, max_pressure (pressure-field contact),
//     kinetic_energy, potential_energy, total_energy,
//     mean_stiction_slip, stiction_slip_bound (σ μ_max δt ‖g‖), ncp_residual (engine/inspect/metrics.h,
//     compliant model; when it cannot be computed, e.g. an A block is not SPD after a failed
//     step, it is omitted and ncp_residual_error says why), free_motion_iterations,
//     free_motion_converged, and with a reference: position_error (RMS over the matched bodies
//     of ‖p − p_ref(t)‖ after the step [m]) and position_error_rms (e_q from t = 0 to this
//     step). A number that is not finite is written as the string "nan", "inf" or "-inf".
//   trajectory: the CSV above for the initial state (step 0) and after every step.
// A step whose state is not finite (status non_finite_state) keeps the state of its start and
// stops the run there (RunSummary::stopped_at_step); so does an initial state that is not finite,
// before any step. The summary is also printed to `log` as one JSON line. Throws
// std::runtime_error when an output file cannot be written.
RunSummary RunHeadless(Scene& scene, const RunOptions& options, std::ostream& log);

}  // namespace contactlab
