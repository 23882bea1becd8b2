// The viewer's compare mode: two to four configurations (solver, contact model, parameters) of
// one scene stepped in lockstep, each on its own copy of the scene and its own physics thread.
//
// Configuration 0 is the primary: the viewer's own simulation (its Simulator, PhysicsWorker and
// History live in the Viewer, and every panel shows it). The session owns the others, the
// "ghosts": each a Simulator of the same model with its configuration's settings, a PhysicsWorker
// (so the configurations step in parallel) and a History of its recent records (its contact
// glyphs at the shown step). Every step of every configuration is also summarized
// (engine/inspect/step_summary.h) into a CompareStore (ui/compare_data.h): the overlaid series
// and the distance from the primary.
//
// Lockstep: a round of jobs starts only when every configuration's worker is idle, and
// PlanLockstepRound gives each the steps that bring it to the round's target step count, so a
// configuration that is ahead waits for the others; step k of every configuration starts from
// the same time t_k = k δt (the configurations share the scene's time step).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/viewer/physics_worker.h"
#include "engine/inspect/history.h"
#include "engine/inspect/race.h"
#include "engine/sim/simulator.h"
#include "ui/compare_data.h"

namespace contactlab {

// One configuration.
struct CompareConfig {
  std::string spec;            // the CONFIG it came from (`--compare`), "" when made in the panel
  StepSettings settings;       // its step settings (solver_type, the solvers' parameters, contact)
  bool show_ghost = true;      // draw its bodies (the primary's are always drawn)
  bool show_contacts = false;  // draw its contact glyphs in its colour
  // Its own model when its CONFIG changed materials (same bodies and geometry as the primary's);
  // none: the primary's.
  std::optional<Model> model;
};

// The settings of `base` with the solver, its parameters and the contact model of `choice`: what
// a configuration made in the panel, or kept across a scene change, steps with.
StepSettings WithSolverChoice(const StepSettings& base, const StepSettings& choice);

// Steps each configuration takes in the next lockstep round. counts[c]: configuration c's step
// count (0: the primary); running[c]: whether it still steps (a configuration whose state
// stopped advancing does not); `steps`: what the frame asks of the primary.
//   primary_leads (paused: a single step, or edits only): the target is counts[0] + steps, so
//     configurations behind the primary catch up to it;
//   otherwise (playing): the target is min(counts of running configurations) + steps, so one
//     that is ahead waits for the slowest.
// Each running configuration takes max(0, target − counts[c]) steps; the others 0.
std::vector<int> PlanLockstepRound(const std::vector<int>& counts, const std::vector<bool>& running,
                                   int steps, bool primary_leads);

class CompareSession {
 public:
  // A ghost: a configuration other than the primary.
  struct Ghost {
    CompareConfig config;
    std::unique_ptr<Simulator> sim;
    std::unique_ptr<PhysicsWorker> worker;  // joined before sim goes (declared after it)
    History history{2000, std::size_t{128} << 20};
    State live_state;
    int step_count = 0;
    bool stopped = false;         // its state no longer advances (a step kept its state, or threw)
    std::string stop_reason;      // "step N: status: message"
    bool settings_dirty = false;  // config.settings not yet sent to the simulator
  };

  CompareSession() = default;
  ~CompareSession();  // waits for the ghosts' jobs
  CompareSession(const CompareSession&) = delete;
  CompareSession& operator=(const CompareSession&) = delete;

  // Starts compare mode: configs[0] is the primary (its settings mirror the viewer's, for
  // labels and the race), configs[1..] become ghosts of `model`, each from `state` at step
  // `step_count` (the primary's). Throws std::invalid_argument for settings a simulator refuses,
  // a configuration count outside [2, kMaxCompareConfigs] or a time step unlike the primary's.
  void Start(const Model& model, std::vector<CompareConfig> configs, const State& state,
             int step_count);
  void Stop();  // back to a single configuration
  bool active() const { return !ghosts_.empty(); }
  int size() const { return active() ? 1 + static_cast<int>(ghosts_.size()) : 0; }

  CompareConfig& primary() { return primary_; }
  const CompareConfig& primary() const { return primary_; }
  // Configuration c (0 = primary).
  const CompareConfig& config(int c) const { return c == 0 ? primary_ : ghosts_[c - 1]->config; }
  Ghost& ghost(int c) { return *ghosts_[c - 1]; }  // c in [1, size())
  const Ghost& ghost(int c) const { return *ghosts_[c - 1]; }
  std::vector<StepSettings> AllSettings() const;  // per configuration
  std::vector<std::string> Names() const;         // CompareConfigNames

  // Adds a ghost with `settings` starting from `state` at `step_count`; false when there are
  // already kMaxCompareConfigs configurations. Throws like Start.
  bool AddConfig(const Model& model, const StepSettings& settings, const State& state,
                 int step_count);
  // Removes ghost c (>= 1); removing the last ghost ends compare mode.
  void RemoveConfig(int c);
  // New settings for ghost c (validated by the caller), sent with its next job.
  void SetSettings(int c, const StepSettings& settings);

  // The mouse spring the configurations step with (none: no spring). Ghosts that exist get it
  // through the `prepare` of their next Submit; a ghost made later (AddConfig, Start) starts with
  // it, so a configuration added during a drag is pulled like the others.
  void SetSpring(const std::optional<Perturbation>& spring) { spring_ = spring; }
  const std::optional<Perturbation>& spring() const { return spring_; }

  // Whether any ghost's worker runs a job or holds an untaken batch.
  bool Busy() const;
  // Step counts of every configuration, with the primary's given (index 0), and which run.
  std::vector<int> Counts(int primary_count) const;
  std::vector<bool> Running() const;
  // Submits ghost c's part of a round: `steps` steps (may be 0 to apply edits), with a wall-time
  // budget (0: none) and `prepare` run on its worker first (the mouse spring).
  void Submit(int c, int steps, double budget_seconds, int generation,
              const std::function<void(Simulator&)>& prepare);
  // Takes the ghosts' finished batches of this generation: records into their histories,
  // summaries into `store` (track c). Returns the records taken.
  int Poll(int generation, CompareStore* store);
  // Waits for every ghost's job, then Poll.
  int WaitIdle(int generation, CompareStore* store);

  // Back to t = 0 (with the primary's Simulator::Reset); histories cleared.
  void Reset();
  // The timeline resumes at the end of `primary_record` (History::ResumeFrom on the primary):
  // each ghost resumes from its own record of that step when it holds it, else starts from the
  // primary's state there (record.after). Histories keep their steps up to it.
  void ResumeFrom(const StepRecord& primary_record);
  // Every ghost continues from `state` at `step_count` (the primary's): the runs start again
  // side by side from one state ("sync"). Their histories drop the steps after step_count − 1.
  void SyncTo(const State& state, int step_count);

  // Ghost c's record at timeline step `step`, or nullptr when it does not hold it.
  const StepRecord* GhostRecord(int c, int step) const;

 private:
  std::unique_ptr<Ghost> MakeGhost(const Model& model, const CompareConfig& config,
                                   const State& state, int step_count) const;
  void ConsumeBatch(int c, PhysicsBatch batch, CompareStore* store);

  CompareConfig primary_;
  std::vector<std::unique_ptr<Ghost>> ghosts_;
  std::optional<Perturbation> spring_;
  double time_step_ = 0;  // the primary's δt [s]
};

// The race on a frozen step for several configurations (RaceFrozenStep each, one after the
// other so that their timings do not compete): `names` and CompareColor(c) label them.
RaceRun RunRace(const StepRecord& record, const std::vector<StepSettings>& settings,
                const std::vector<std::string>& names, const RaceOptions& options);

}  // namespace contactlab
