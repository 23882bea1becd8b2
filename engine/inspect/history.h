// The debugger's timeline: a bounded buffer of recorded steps, resuming the simulation from any
// of them, and "what-if" re-solves of a recorded step with other solver parameters.
//
// Resume semantics: History::ResumeFrom(record, sim) puts the simulator in the state at the END
// of the recorded step (record.after) with the same warm start the original run used for the
// next step (Simulator::set_state warm-starts from state.v, which is what Step does after every
// step). Stepping from there reproduces the original trajectory bit for bit, provided the model
// and settings are unchanged, and so is the simulator's mouse perturbation (it is an input like
// the settings and is left as it is; each record holds the one its step used). The records
// newer than `record` are dropped: the timeline branches.
//
// Step numbering: Simulator has no public setter for its step counter, so after a resume its
// StepRecord::step and step_count() keep counting from where they were. History therefore stores
// every pushed record with its timeline index (see Push), which is what Get() and the UI should
// use. If Simulator gains `void set_step_count(int)`, ResumeFrom calls it (detected at compile
// time) and the renumbering offset stays 0.
#pragma once

#include <cstddef>
#include <deque>
#include <limits>
#include <string>

#include "engine/solvers/sap/sap_solver.h"
#include "engine/sim/simulator.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

// Approximate heap + inline size of a record in bytes: states, contacts, problem matrices and
// vectors, the result and its per-iteration history. Used for the History memory budget.
std::size_t ApproximateRecordBytes(const StepRecord& record);

class History {
 public:
  // Keeps at most `max_steps` records (>= 1) and, approximately, at most `max_bytes` bytes of
  // them. The newest record is always kept, even if it alone exceeds the byte budget.
  explicit History(int max_steps = 2000, std::size_t max_bytes = std::size_t{512} << 20);

  // Appends a copy of `record` and evicts the oldest records until within both bounds.
  // Numbering: the stored copy's `step` is record.step + offset, where the offset is 0 until a
  // ResumeFrom and afterwards makes the first pushed record follow the resumed one. If the
  // (renumbered) step is not newer than newest_step(), the records at that step and later are
  // dropped first (a re-run of the same step replaces it), so steps stay strictly increasing.
  void Push(const StepRecord& record);

  int size() const { return static_cast<int>(records_.size()); }
  bool empty() const { return records_.empty(); }
  // The record of timeline step `step`, or nullptr when it is not held (evicted or not yet run).
  const StepRecord* Get(int step) const;
  // The i-th held record, 0 = oldest.
  const StepRecord& At(int i) const { return records_[i].record; }
  int oldest_step() const;  // -1 when empty
  int newest_step() const;  // -1 when empty
  std::size_t bytes() const { return bytes_; }  // approximate size of the held records
  int max_steps() const { return max_steps_; }
  std::size_t max_bytes() const { return max_bytes_; }
  void set_limits(int max_steps, std::size_t max_bytes);  // evicts as needed

  // Drops every record and the renumbering offset (call together with Simulator::Reset()).
  void Clear();
  // Drops the records newer than `step`.
  void TruncateAfter(int step);

  // Sets `sim`'s state to record.after (see the file comment), drops the records newer than
  // record.step, and renumbers the simulator's following records to record.step + 1, + 2, ...
  // `record` may be a held record or any other record of the same model.
  void ResumeFrom(const StepRecord& record, Simulator* sim);

 private:
  struct Entry {
    StepRecord record;
    std::size_t bytes = 0;
  };
  void Evict();

  int max_steps_;
  std::size_t max_bytes_;
  std::deque<Entry> records_;  // oldest first, consecutive or increasing steps
  std::size_t bytes_ = 0;
  int step_offset_ = 0;
};

// What-if re-solve of a recorded step: the recorded result (`before`, solved with the parameters
// of the run) and the result of Simulator::Resolve with `params` (`after`), both with their
// per-iteration logs (stats.iteration_log) for an overlay plot.
struct ResolveComparison {
  SolverResult before, after;
};
ResolveComparison CompareResolve(const Simulator& sim, const StepRecord& record,
                                 const SapParameters& params);
// The same with any solver, model and parameters (Simulator::Resolve(record, settings)); `after`
// may then log other series than `before`.
ResolveComparison CompareResolve(const Simulator& sim, const StepRecord& record,
                                 const StepSettings& settings);

// Mean tangential slip ‖v_t‖ [m/s] over the friction cones of `problem` in the stiction regime of
// `result` (0 when there are none): the quantity σ controls (slip ∝ R_t = σ w).
double MeanStictionSlip(const ContactProblem& problem, const SolverResult& result);

}  // namespace contactlab
