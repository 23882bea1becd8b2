// `contactlab bench`: runs scenes for a fixed simulated time and reports speed beside accuracy,
// optionally side by side with MuJoCo 2.2.2 in the same process (app/mujoco_peer.h).
//
//   contactlab bench [--peer mujoco] [--json FILE] [--duration T] [--probe BODY[@REF][:FROM] ...]
//                    [--set KEY=VALUE ...] [--mjcf-dir DIR] [--repeat N] SCENES...
//
// Per scene (ContactLab; with a peer the same quantities from MuJoCo beside them):
//   ms_per_step      median wall time of one Simulator::Step() (mj_step for the peer) [ms]
//   iterations       mean solver iterations per step
//   momentum_error   e_m: largest over the run of the final relative momentum residual (eq. 32)
//   contacts         mean number of contact constraints per step
//   realtime_factor  δt / ms_per_step: simulated seconds per wall-clock second
//   max_penetration  largest overlap over the run, from each step's contacts at t^n [m]
//   islands          mean number of islands solved separately per step (0 when every step was
//                    solved as one problem), and largest_island the most trees coupled by
//                    constraints in one island over the run (for a step solved as one problem,
//                    its largest connected component) (JSON only)
//   probes           per probe, the displacement of BODY's frame origin from time FROM (default
//                    0) to the end of the run T, relative to REF when given (BODY@REF):
//                    (p_BODY − p_REF)(T) − (p_BODY − p_REF)(FROM) [m]; `drift` is the largest
//                    probe displacement. A probe naming a body a scene does not have is skipped
//                    for that scene (and is an error if no scene has it). FROM skips a setup
//                    phase, e.g. cube@carriage:1 measures the slip of a grasped cube during a
//                    lift that starts at 1 s.
//   ncp_residual_rigid  mean over steps of the NCP residual of seed 001 against the rigid
//                    velocity-level law (g_n = v_n + φ0/δt, exact Coulomb friction;
//                    engine/inspect/metrics.h, NcpModel::kRigid), and ncp_residual_rigid_max its
//                    largest step; a step without contacts counts 0. For the peer the same
//                    residual on MuJoCo's own contact rows (MujocoPeer::RigidNcpResidual):
//                    peer_ncp_residual_rigid, peer_ncp_residual_rigid_max. Both engines are
//                    measured against the same conditions, whatever contact law each solves.
//                    A step whose residual cannot be computed makes the field NaN ("nan").
//   ratio            ContactLab ms_per_step / MuJoCo ms_per_step (> 1: ContactLab is slower)
//   energy_change    total mechanical energy (kinetic + gravity and joint-spring potential, with
//                    joint armature) at the end of the run minus at its start [J]; for the peer
//                    peer_energy_change from MuJoCo's mj_energyPos / mj_energyVel. Columns ΔE[J]
//                    and MJ ΔE[J] of the table.
//   cone, peer_cone  the friction cone each engine used (ContactLab: "elliptic", every contact
//                    law; MuJoCo: the model's, or --cone), peer_model "file" (MuJoCo loaded the
//                    scene's own MJCF file: .xml / .mjcf scenes) or "export" (YAML scenes, through
//                    ExportMjcf), peer_tolerance and peer_iteration_cap MuJoCo's opt.tolerance
//                    and opt.iterations (JSON; the table's notes below it). SAP's stopping
//                    criterion is in "parameters" (solver.rel_tolerance): see docs/benchmarks.md
//                    for how the two criteria relate.
//   parameters       (JSON only) the step, solver and contact-model parameters the scene ran with
//
// With --repeat N each scene runs N times per engine, alternating ContactLab and the peer (C, P,
// C, P, ...) so that both see the same machine load; ms_per_step is then the median of the N
// runs' medians (each run's median is in run_ms_per_step), ratio the ratio of those medians,
// and ratio_min / ratio_max the extremes of the N per-run ratios, a measure of the noise. The
// accuracy fields come from the first run (a run is deterministic, so every run gives them).
#pragma once

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "app/scene.h"

namespace CLI {
class App;
}

namespace contactlab {

struct BenchOptions {
  std::string peer;                    // "" (none) or "mujoco"
  double duration = 0;                 // [s]; 0: each scene's `duration`
  std::vector<std::string> probes;     // BODY[@REF][:FROM]
  std::vector<std::string> overrides;  // --set, applied to every scene
  // Model files (URDF): --package-path, --fixed-base, --ground (SceneOptions, app/scene.h).
  std::vector<std::string> package_paths;
  bool fixed_base = false;
  bool ground_plane = false;
  std::string mjcf_dir;                // when set, each scene's MJCF export is written here
  int repeat = 1;                      // runs per engine and scene, alternating engines
  // MuJoCo's friction cone (--cone): "" keeps the model's (an MJCF file's own option, MuJoCo's
  // default pyramidal; the export of a YAML scene: elliptic); "elliptic" or "pyramidal" sets it.
  // ContactLab's contact laws all use the elliptic (Lorentz) cone.
  std::string cone;
};

struct BenchProbe {
  std::string name;                  // as given: BODY[@REF][:FROM]
  double from = 0;                   // [s], start of the measured interval
  Vec3 displacement = Vec3::Zero();  // ContactLab [m]
  bool has_peer = false;
  Vec3 peer_displacement = Vec3::Zero();  // MuJoCo [m]
};

struct BenchResult {
  std::string scene;
  int bodies = 0;  // bodies with degrees of freedom
  int steps = 0;
  double time_step = 0;       // [s]
  double simulated_time = 0;  // [s]
  // ContactLab.
  double ms_per_step = 0;       // median [ms]
  double mean_ms_per_step = 0;  // [ms]
  double iterations = 0;        // mean per step
  int max_iterations = 0;
  double momentum_error = 0;  // max over steps of e_m
  double contacts = 0;        // mean per step
  int max_contacts = 0;
  double realtime_factor = 0;
  double max_penetration = 0;  // [m]
  int failures = 0;            // steps whose solver did not converge
  double islands = 0;          // mean islands solved separately per step
  int largest_island = 0;      // most trees coupled in one island over the run
  double ncp_residual_rigid = 0;      // mean over steps, rigid law (NcpModel::kRigid)
  double ncp_residual_rigid_max = 0;  // largest over steps
  std::vector<BenchProbe> probes;
  double drift = 0;  // max |probe displacement| [m]; 0 without probes
  // Peer (peer empty: not requested).
  std::string peer;
  std::string peer_status;  // "ok", "unavailable" or "failed: <reason>"
  std::string peer_version;
  double peer_ms_per_step = 0;
  double peer_mean_ms_per_step = 0;
  double peer_iterations = 0;
  double peer_contacts = 0;
  int peer_max_contacts = 0;
  double peer_realtime_factor = 0;
  double peer_max_penetration = 0;
  double peer_drift = 0;
  double peer_ncp_residual_rigid = 0;  // the same, on MuJoCo's contact rows
  double peer_ncp_residual_rigid_max = 0;
  double ratio = 0;  // ms_per_step / peer_ms_per_step
  // Total mechanical energy change (KE + PE at the end minus at the start of the run) [J], and
  // the model and solver settings each engine ran with.
  double energy_change = 0, peer_energy_change = 0;
  std::string cone = "elliptic";  // ContactLab's friction cone (every contact law)
  std::string peer_cone;          // MuJoCo's: "pyramidal" or "elliptic"
  std::string peer_model;         // "file": MuJoCo loaded the scene's MJCF; "export": ExportMjcf
  double peer_tolerance = 0;      // MuJoCo's opt.tolerance
  int peer_iteration_cap = 0;     // MuJoCo's opt.iterations
  // Repeated runs (--repeat): per-run medians, and the extremes of the per-run ratios.
  int repeats = 1;
  std::vector<double> run_ms_per_step, peer_run_ms_per_step;  // [ms]
  double ratio_min = 0, ratio_max = 0;
  std::vector<std::string> peer_notes;  // what the MJCF export approximated
  // The scene's step settings after --set (JSON "parameters": {step, solver, contact}, every
  // field of each parameter table, app/params.h).
  StepSettings settings;

  bool peer_ok() const { return peer_status == "ok"; }
  // One object with the fields above (peer fields only when a peer was requested).
  nlohmann::json ToJson() const;
};

// Wall times of a run's steps in bounded memory: every sample while there are at most
// kMaxStored, then an evenly spaced subset (when the store is full every other sample is dropped
// and the stride doubles), so a run of 10^8 steps keeps 8 MiB, not 800 MB. The mean is exact;
// the median is that of the stored samples, exact up to kMaxStored steps.
class StepTimeSamples {
 public:
  static constexpr size_t kMaxStored = size_t{1} << 20;
  explicit StepTimeSamples(size_t max_stored = kMaxStored) : max_stored_(max_stored) {}
  void Add(double ms);
  double Median() const;                            // [ms], 0 without samples
  double Mean() const;                              // [ms], 0 without samples
  size_t count() const { return count_; }           // samples added
  size_t stored() const { return stored_.size(); }  // samples kept, <= max_stored
  size_t stride() const { return stride_; }         // one added sample in `stride` is kept

 private:
  size_t max_stored_;
  std::vector<double> stored_;
  size_t stride_ = 1, count_ = 0;
  double sum_ = 0;
};

// True when this build can run `peer` ("mujoco" needs CONTACTLAB_HAVE_MUJOCO).
bool BenchPeerAvailable(const std::string& peer);

// Runs one loaded scene with ContactLab and, if requested and available, the peer. Throws
// std::invalid_argument for a malformed probe.
BenchResult BenchScene(const Scene& scene, const BenchOptions& options);

// Loads every scene (SceneError on the first bad one, before anything runs), checks the probes,
// runs them in order, prints one table row per scene to `out` as it finishes, and writes JSON
// Lines (one object per scene) to `json_path` unless it is empty.
std::vector<BenchResult> RunBench(const std::vector<std::string>& scene_paths,
                                  const BenchOptions& options, const std::string& json_path,
                                  std::ostream& out);

// The table header and row printed by RunBench; with_range adds the column of the per-run ratio
// extremes (repeated runs with a peer). The last columns are the rigid-law NCP residuals (mean
// over steps): ContactLab's, and with a peer MuJoCo's. scene_width is the width of the scene column (RunBench
// passes BenchSceneColumnWidth of its scenes). Every cell keeps at least one space from the
// next, also when a value is wider than its column.
std::string BenchTableHeader(bool with_peer, bool with_range = false, size_t scene_width = 26);
std::string BenchTableRow(const BenchResult& r, bool with_peer, bool with_range = false,
                          size_t scene_width = 26);
// Width of the scene column for these scene paths: the longest file name plus one, at least 26.
size_t BenchSceneColumnWidth(const std::vector<std::string>& scene_paths);

// Registers the `bench` subcommand. It runs inside CLI11's parse and ends it by throwing
// CLI::RuntimeError with the exit status (0 success, 2 scene error, 1 other failure), which
// CLI11_PARSE returns from main without printing.
void AddBenchCommand(CLI::App& app);

}  // namespace contactlab
