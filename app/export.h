// Exports of the debugger: per-step statistics of a History, per-iteration statistics of one step
// (CSV and JSON), and the frozen contact problem of one step as plain files that other tools
// (NumPy/SciPy, MATLAB, Julia) load directly. The file layout is described in docs/debugging.md
// and in the README.txt written next to the files.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engine/inspect/history.h"
#include "engine/solvers/sap/sap_solver.h"
#include "engine/sim/simulator.h"

namespace contactlab {

// One row/object per held step, oldest first. Columns/keys:
//   step, time (after the step) [s], contacts, iterations, status, momentum_error,
//   complementarity_error, cost [J], solve_ms, step_ms, max_penetration [m], kinetic_energy [J],
//   potential_energy [J], total_energy [J], mean_stiction_slip [m/s], patches, faces,
//   max_pressure [Pa] (pressure-field contact, StepMetrics; 0 without compliant geometry)
// CSV: a header line, then one line per step; numbers with 17 significant digits.
// JSON: an array of objects (NaN/inf written as the strings "nan", "inf", "-inf").
void WriteHistoryCsv(const History& history, std::ostream& out);
void WriteHistoryJson(const History& history, std::ostream& out);

// One row/object per iteration of the step (iteration 0 = the guess): "iteration", then the
// series the solver declares (SolverStats::iteration_log), in its order, under their keys;
// integer series as integers, a value not recorded as "nan". SAP's columns:
//   iteration, cost, momentum_residual, gradient_norm, alpha, line_search_evaluations,
//   num_stiction, num_sliding, num_no_contact, condition_number ("nan" unless requested),
//   line_search_iterations, linear_iterations, linear_residual, forcing_term (the iterative
//   Newton direction computed at this iterate: CG iterations, relative residual, forcing term
//   η; 0, "nan", "nan" for a direct solve and for the last iteration), scaled_condition_number
//   (cond₂(D H D), D = diag(H)^(-1/2); "nan" unless requested)
// JSON: {"step": ..., "status": ..., "iterations": [ {...}, ... ]}.
void WriteIterationsCsv(const StepRecord& record, std::ostream& out);
void WriteIterationsJson(const StepRecord& record, std::ostream& out);

// Writes the step's contact problem, the solver's regularization and its solution to `dir`
// (created if needed; existing files of the same names are overwritten):
//   A.mtx, M.mtx (nv x nv), J.mtx (num_rows x nv): Matrix Market coordinate real general,
//     1-based, entries != 0, values printed with %.17g (exact round trip);
//   one number per line (%.17g): v_star.txt, v0.txt, guess.txt, solution_v.txt (nv);
//     bias.txt, R.txt, v_hat.txt, gamma.txt, vc.txt (num_rows);
//     mu.txt, phi0.txt, stiffness.txt, dissipation_time.txt, w.txt, beta.txt (per constraint);
//   problem.json: sizes, trees, per-constraint kind/rows/trees (a pressure-field face's
//     constraint also has "patch" and "face"), num_patches, num_faces, the solver parameters
//     and the recorded solver status; README.txt: conventions and units;
//   patches.csv (one row per contact surface: geometries, bodies, faces, area, Σ A_e p0, force,
//     centre of pressure, max and mean pressure, Σ γ_n of its faces' constraints) and faces.csv
//     (one row per face: patch, constraint, centroid, normal, area, p0, g_a, g_b, k, φ0, f0, γ);
//     header lines only when the step has no pressure-field contact. Columns in README.txt.
// `settings` are those the step was solved with: problem.json's "solver" holds SAP's table
// (StepSettings::sap, the keys a re-solve with SAP reads), "solved_by" and "solver_type" name the
// solver that produced the recorded result, and "parameters" holds every table that applies
// (the step's, SAP's, the chosen solver's, the contact model's: as `run --stats` writes them).
// Throws std::runtime_error when a file cannot be written.
void ExportStepProblem(const StepRecord& record, const StepSettings& settings,
                       const std::string& dir);

// The names of the files ExportStepProblem writes into its directory.
const std::vector<std::string>& ExportStepFileNames();

// `contactlab export-step SCENE --step N --out DIR [--set KEY=VALUE ...]`: loads SCENE (with the
// `--set` overrides, as `contactlab run` applies them), runs it from its default state
// through step N (StepRecord::step, 0 = the first step, i.e. N + 1 steps; the line with
// "step": N + 1 in `contactlab run --stats`) and exports that step with ExportStepProblem.
// Prints one line naming the directory to stdout and errors to stderr. Returns 0 on success,
// 2 for a bad scene or a negative step, 1 when the files cannot be written.
int ExportStepFromRun(const std::string& scene, int step, const std::string& dir,
                      const std::vector<std::string>& overrides = {});

}  // namespace contactlab
