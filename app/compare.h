// `contactlab compare`: runs one scene under several solver configurations and reports, side by
// side, what each costs and how accurate it is; with --step N, also races the configurations on
// that frozen step (a work–precision diagram, like seed 001's Figs. 7 and 9).
//
//   contactlab compare SCENE --configs CONFIG[,CONFIG...] [--set KEY=VALUE ...] [--json FILE]
//                            [--steps N | --duration T] [--step N [--plot FILE.png]]
//
// A CONFIG is a solver type (sap, canal, subadmm, pgs, first_order) optionally followed by
// overrides that apply to that configuration only, separated by colons:
//   pgs:solver.pgs.max_iterations=500     sap:contact.model=lagged     canal:solver.canal.beta0=1e5
// --set overrides apply to every configuration (before the configuration's own).
//
// Per configuration (one table row, and one JSON object in "configs"):
//   ms_per_step        median wall time of Simulator::Step() [ms]
//   solve_ms           median wall time of the solver's Solve() [ms]
//   cpu_ms_per_step    median (and mean_cpu_ms_per_step the mean) CPU time of the thread over
//                      Simulator::Step() [ms]: what the step costs on one core when other
//                      processes share the machine (wall time then also counts their turns)
//   iterations         mean solver iterations per step (each solver's own: Newton, AL, ADMM,
//                      sweeps, interior-point)
//   ncp_residual       mean and max over steps of the NCP residual of seed 001 (engine/inspect/
//                      metrics.h), measured the same way for every solver
//   ncp_rigid          mean and max over steps of the same residual against the rigid
//                      velocity-level law (g_n = v_n + φ0/δt, exact Coulomb; NcpModel::kRigid):
//                      every configuration measured against the same conditions, whatever
//                      contact model it solves (the conditions `bench --peer mujoco` measures
//                      MuJoCo's contacts against)
//   momentum_error     max over steps of e_m (SAP eq. 32) at the solver's returned v, γ
//   max_penetration    largest overlap over the run [m]
//   stiction_slip      mean over steps with stiction contacts of their mean ‖v_t‖ [m/s]
//   energy_drift       total energy at the end minus at the start [J]
//   failures           steps whose solver did not converge (any status but converged), and the
//                      first failure's status and message
// With --step N (0-based): the run of the first configuration is recorded up to step N, and
// that frozen step is re-solved by every configuration with its iteration cap set to 1, 2, 3, 4,
// 6, 8, 12, ... (until the solver converges below the cap or the cap reaches the
// configuration's own; RaceFrozenStep in engine/inspect/race.h, which the viewer's race panel
// runs too): per point the median wall time of the solve over repeats, the
// iterations, the NCP residual and the status ("race" in the JSON, a table, and with --plot a
// PNG of residual against time and against iterations, log axes).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "engine/inspect/race.h"

namespace CLI {
class App;
}

namespace contactlab {

struct CompareOptions {
  std::vector<std::string> configs;    // CONFIG specs as above
  std::vector<std::string> overrides;  // --set, for every configuration
  int steps = 0;                       // 0: from duration or the scene's own duration
  double duration = 0;                 // [s]
  int race_step = -1;                  // --step N; < 0: no race
  std::string plot_path;               // --plot (needs --step); default: none
};

struct CompareResult {
  std::string config;  // the spec as given
  std::string solver;  // solver type name
  std::string model;   // contact model name
  int steps = 0;
  double ms_per_step = 0, solve_ms = 0;
  double cpu_ms_per_step = 0, mean_cpu_ms_per_step = 0;  // thread CPU time of the step [ms]
  double iterations = 0;
  int max_iterations = 0;
  double ncp_residual_mean = 0, ncp_residual_max = 0;
  double ncp_rigid_mean = 0, ncp_rigid_max = 0;  // against the rigid law
  double momentum_error = 0;
  double max_penetration = 0;
  double stiction_slip = 0;
  double energy_start = 0, energy_drift = 0;
  int failures = 0;
  std::string first_failure;  // "step K: status: message"
  std::vector<RacePoint> race;  // with --step (RaceFrozenStep, engine/inspect/race.h)
};

// A configuration's --set overrides: "solver.type=NAME" and its own KEY=VALUE parts. Throws
// SceneError naming `option` and the spec when the solver type is unknown or a part is not
// KEY=VALUE.
std::vector<std::string> ConfigOverrides(const std::string& spec,
                                         const std::string& option = "--configs");

// Runs the comparison; prints the table (and the race table) to `out`; writes JSON to
// json_path unless empty. Throws SceneError for a bad scene or configuration.
std::vector<CompareResult> RunCompare(const std::string& scene_path, const CompareOptions& options,
                                      const std::string& json_path, std::ostream& out);

// Registers the `compare` subcommand (runs inside CLI11's parse, like `bench`).
void AddCompareCommand(CLI::App& app);

}  // namespace contactlab
