// Physics off the UI thread. The viewer hands the simulator to a PhysicsWorker, which runs one job
// at a time on its own thread; while a job runs the UI keeps drawing from its own copies (the
// History of records it already took), so a slow step never freezes the window.
//
// Ownership: the Simulator is touched only by the job running on the worker thread, or by the
// caller while busy() is false (after Wait() or a Take() that returned the last batch). Jobs see
// the simulator exclusively, apply the edits queued with them (settings, materials, the mouse
// spring) and then step, so parameter edits made while the physics runs take effect at the next
// job without blocking the UI.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/inspect/breakpoints.h"
#include "engine/inspect/history.h"
#include "engine/inspect/step_summary.h"
#include "engine/sim/simulator.h"

namespace contactlab {

// What one job produced.
struct PhysicsBatch {
  int generation = 0;               // the caller's generation when the job was submitted
  std::vector<StepRecord> records;  // steps taken, oldest first
  State state;                      // simulator state when the job ended
  int step_count = 0;               // Simulator::step_count() when the job ended
  std::string error;                // a step or an edit threw: its message (the job stopped)
  std::string settings_error;       // queued settings were refused: the message (valid range)
  int break_index = -1;             // index into records of the step that hit a breakpoint
  std::string break_reason;         // CheckBreakpoints' reason for it
  bool stop = false;                // the run should pause (error, breakpoint, non-finite step)
  double wall_ms = 0;               // wall time of the job [ms]
  std::optional<ResolveComparison> comparison;  // result of a re-solve job
  int comparison_step = -1;                     // timeline step the re-solve belongs to
  // One per record (same order) when the job was asked for them (StepJobOptions::summaries):
  // computed on the worker, since the NCP residual of a large step costs a good part of a solve.
  std::vector<StepSummary> summaries;
};

using PhysicsJob = std::function<void(Simulator&, PhysicsBatch*)>;

class PhysicsWorker {
 public:
  // sim must outlive the worker. `nice` > 0 lowers the thread's scheduling priority (Linux: the
  // thread's nice value; elsewhere ignored), for work that should yield to the window's
  // threads, such as compare mode's other configurations.
  explicit PhysicsWorker(Simulator* sim, int nice = 0);
  ~PhysicsWorker();                        // waits for the running job, then joins
  PhysicsWorker(const PhysicsWorker&) = delete;
  PhysicsWorker& operator=(const PhysicsWorker&) = delete;

  // Starts `job` on the worker thread. Returns false (and does nothing) while a job runs or a
  // finished batch has not been taken yet.
  bool Submit(PhysicsJob job, int generation);
  // True from Submit until the batch has been taken.
  bool busy() const;
  // The finished batch, or nullopt while the job still runs (or nothing was submitted).
  std::optional<PhysicsBatch> Take();
  // Blocks until the running job has finished; the batch then waits in Take().
  void Wait();

 private:
  void Loop();

  Simulator* sim_;
  int nice_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  PhysicsJob job_;
  int job_generation_ = 0;
  bool has_job_ = false;    // submitted, not yet started
  bool running_ = false;    // started, not finished
  bool has_batch_ = false;  // finished, not yet taken
  bool quit_ = false;
  PhysicsBatch batch_;
  std::thread thread_;
};

// Edits queued with a stepping job, applied on the worker thread before the first step.
struct QueuedEdits {
  std::optional<StepSettings> settings;          // Simulator::set_settings (validated)
  std::optional<std::vector<Material>> materials;  // replaces Model::materials (same count)
};

// The stepping job: applies `edits`, then takes up to `steps` steps. It stops early when a step
// throws, when a step's solver saw non-finite input (the state no longer advances), when
// `check_breakpoints` and a breakpoint fires (CheckBreakpoints with the solver's iteration cap),
// or when `budget_seconds` > 0 of wall time are spent (at least one step is always taken).
// Without `pause_at_breakpoint` the first breakpoint is only noted (break_index, break_reason)
// and the steps go on.
struct StepJobOptions {
  int steps = 1;
  double budget_seconds = 0;  // 0: no budget
  bool check_breakpoints = true;
  bool pause_at_breakpoint = true;
  BreakpointSettings breakpoints;
  QueuedEdits edits;
  // Called on the worker before stepping (e.g. to set or clear the mouse spring).
  std::function<void(Simulator&)> prepare;
  // Also summarize every step (SummarizeStep, engine/inspect/step_summary.h) into
  // PhysicsBatch::summaries.
  bool summaries = false;
};
PhysicsJob MakeStepJob(StepJobOptions options);

// Applies queued edits to `sim`; a refused settings change leaves the old settings and puts the
// message in batch->settings_error.
void ApplyQueuedEdits(const QueuedEdits& edits, Simulator* sim, PhysicsBatch* batch);

// Applies `edits`, then re-solves `record` with `params` (CompareResolve) on the worker; the
// result lands in PhysicsBatch::comparison with comparison_step = record.step.
PhysicsJob MakeResolveJob(StepRecord record, SapParameters params, QueuedEdits edits = {});
// The same with any solver (settings.solver_type and its parameters) and contact model.
PhysicsJob MakeResolveJob(StepRecord record, StepSettings settings, QueuedEdits edits);

}  // namespace contactlab
