#include "app/viewer/compare_session.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <utility>

#include "engine/common/param_spec.h"
#include "engine/sim/solver_registry.h"

namespace contactlab {

namespace {
constexpr int kGhostNice = 10;  // scheduling priority of the ghosts' workers (nice value)
}  // namespace

StepSettings WithSolverChoice(const StepSettings& base, const StepSettings& choice) {
  StepSettings s = base;
  s.solver_type = choice.solver_type;
  s.sap = choice.sap;
  s.canal = choice.canal;
  s.subadmm = choice.subadmm;
  s.pgs = choice.pgs;
  s.first_order = choice.first_order;
  s.contact = choice.contact;
  return s;
}

std::vector<int> PlanLockstepRound(const std::vector<int>& counts, const std::vector<bool>& running,
                                   int steps, bool primary_leads) {
  std::vector<int> out(counts.size(), 0);
  if (counts.empty()) return out;
  steps = std::max(0, steps);
  auto runs = [&](size_t c) { return c == 0 || (c < running.size() && running[c]); };
  int target = counts[0] + steps;
  if (!primary_leads) {
    int slowest = counts[0];
    for (size_t c = 1; c < counts.size(); ++c) {
      if (runs(c)) slowest = std::min(slowest, counts[c]);
    }
    target = slowest + steps;
  }
  for (size_t c = 0; c < counts.size(); ++c) {
    if (runs(c)) out[c] = std::max(0, target - counts[c]);
  }
  return out;
}

CompareSession::~CompareSession() { Stop(); }

std::unique_ptr<CompareSession::Ghost> CompareSession::MakeGhost(const Model& model,
                                                                 const CompareConfig& config,
                                                                 const State& state,
                                                                 int step_count) const {
  if (config.settings.time_step != time_step_) {
    const std::string name = config.spec.empty() ? CompareConfigName(config.settings) : config.spec;
    throw std::invalid_argument("configuration '" + name + "' has time_step " +
                                FormatParamNumber(config.settings.time_step) + " s, the primary " +
                                FormatParamNumber(time_step_) +
                                " s: configurations step in lockstep and must share the time step");
  }
  auto g = std::make_unique<Ghost>();
  g->config = config;
  // Validates the settings.
  g->sim = std::make_unique<Simulator>(config.model ? *config.model : model, config.settings);
  g->sim->set_state(state);
  g->sim->set_step_count(step_count);
  if (spring_) g->sim->SetPerturbation(*spring_);
  g->live_state = g->sim->state();
  g->step_count = step_count;
  // The ghosts yield to the window's threads (the primary's worker and the renderer) when the
  // cores are busy: the frames stay fluid while the lockstep waits for them.
  g->worker = std::make_unique<PhysicsWorker>(g->sim.get(), kGhostNice);
  return g;
}

void CompareSession::Start(const Model& model, std::vector<CompareConfig> configs,
                           const State& state, int step_count) {
  if (configs.size() < 2 || configs.size() > static_cast<size_t>(kMaxCompareConfigs)) {
    throw std::invalid_argument("compare: give 2 to " + std::to_string(kMaxCompareConfigs) +
                                " configurations, got " + std::to_string(configs.size()));
  }
  Stop();
  time_step_ = configs[0].settings.time_step;
  std::vector<std::unique_ptr<Ghost>> ghosts;
  for (size_t c = 1; c < configs.size(); ++c) {
    ghosts.push_back(MakeGhost(model, configs[c], state, step_count));
  }
  primary_ = std::move(configs[0]);
  ghosts_ = std::move(ghosts);
}

void CompareSession::Stop() {
  for (auto& g : ghosts_) g->worker->Wait();
  ghosts_.clear();
}

std::vector<StepSettings> CompareSession::AllSettings() const {
  std::vector<StepSettings> out{primary_.settings};
  for (const auto& g : ghosts_) out.push_back(g->config.settings);
  return out;
}

std::vector<std::string> CompareSession::Names() const {
  std::vector<std::string> specs{primary_.spec};
  for (const auto& g : ghosts_) specs.push_back(g->config.spec);
  return CompareConfigNames(AllSettings(), specs);
}

bool CompareSession::AddConfig(const Model& model, const StepSettings& settings, const State& state,
                               int step_count) {
  if (size() >= kMaxCompareConfigs) return false;
  if (!active()) time_step_ = primary_.settings.time_step;
  CompareConfig config;
  config.settings = settings;
  ghosts_.push_back(MakeGhost(model, config, state, step_count));
  return true;
}

void CompareSession::RemoveConfig(int c) {
  if (c < 1 || c >= size()) return;
  ghosts_[c - 1]->worker->Wait();
  ghosts_.erase(ghosts_.begin() + (c - 1));
}

void CompareSession::SetSettings(int c, const StepSettings& settings) {
  if (c < 1 || c >= size()) return;
  ghosts_[c - 1]->config.settings = settings;
  ghosts_[c - 1]->settings_dirty = true;
}

bool CompareSession::Busy() const {
  for (const auto& g : ghosts_) {
    if (g->worker->busy()) return true;
  }
  return false;
}

std::vector<int> CompareSession::Counts(int primary_count) const {
  std::vector<int> out{primary_count};
  for (const auto& g : ghosts_) out.push_back(g->step_count);
  return out;
}

std::vector<bool> CompareSession::Running() const {
  std::vector<bool> out{true};
  for (const auto& g : ghosts_) out.push_back(!g->stopped);
  return out;
}

void CompareSession::Submit(int c, int steps, double budget_seconds, int generation,
                            const std::function<void(Simulator&)>& prepare) {
  if (c < 1 || c >= size()) return;
  Ghost& g = *ghosts_[c - 1];
  StepJobOptions job;
  job.steps = g.stopped ? 0 : steps;
  job.budget_seconds = budget_seconds;
  job.check_breakpoints = false;  // the primary's breakpoints pause the run
  job.summaries = true;
  if (g.settings_dirty) job.edits.settings = g.config.settings;
  g.settings_dirty = false;
  job.prepare = prepare;
  g.worker->Submit(MakeStepJob(std::move(job)), generation);
}

void CompareSession::ConsumeBatch(int c, PhysicsBatch batch, CompareStore* store) {
  Ghost& g = *ghosts_[c - 1];
  g.live_state = std::move(batch.state);
  g.step_count = batch.step_count;
  for (size_t i = 0; i < batch.records.size(); ++i) {
    g.history.Push(batch.records[i]);
    if (store && i < batch.summaries.size()) store->Add(c, std::move(batch.summaries[i]));
  }
  if (!batch.settings_error.empty()) {
    // Refused settings keep the old ones (the panel validates first, so this is rare).
    g.stop_reason = "settings refused: " + batch.settings_error;
  }
  // A step that kept its start state (a non-finite result, a solve refused by a memory or work
  // budget, a model the solver does not accept) would be taken again and again, holding the
  // lockstep back: the configuration stops there.
  const bool stuck = !batch.records.empty() && batch.step_count <= batch.records.back().step;
  if (batch.stop || stuck) {
    g.stopped = true;
    if (!batch.error.empty()) {
      g.stop_reason = batch.error;
    } else if (!batch.records.empty()) {
      const StepRecord& r = batch.records.back();
      g.stop_reason = "step " + std::to_string(r.step) + ": " +
                      SolverStatusName(r.result.stats.status) +
                      (r.result.stats.message.empty() ? "" : ": " + r.result.stats.message);
    }
  }
}

int CompareSession::Poll(int generation, CompareStore* store) {
  int taken = 0;
  for (int c = 1; c < size(); ++c) {
    std::optional<PhysicsBatch> batch = ghosts_[c - 1]->worker->Take();
    if (!batch) continue;
    if (batch->generation != generation) {
      // Started before a reset, resume or reload: its records are dropped, but the simulator
      // did advance.
      ghosts_[c - 1]->live_state = std::move(batch->state);
      ghosts_[c - 1]->step_count = batch->step_count;
      continue;
    }
    taken += static_cast<int>(batch->records.size());
    ConsumeBatch(c, std::move(*batch), store);
  }
  return taken;
}

int CompareSession::WaitIdle(int generation, CompareStore* store) {
  for (auto& g : ghosts_) g->worker->Wait();
  return Poll(generation, store);
}

void CompareSession::Reset() {
  for (auto& g : ghosts_) {
    g->worker->Wait();
    g->worker->Take();
    g->sim->Reset();
    g->history.Clear();
    g->live_state = g->sim->state();
    g->step_count = g->sim->step_count();
    g->stopped = false;
    g->stop_reason.clear();
  }
}

void CompareSession::ResumeFrom(const StepRecord& primary_record) {
  for (auto& g : ghosts_) {
    g->worker->Wait();
    g->worker->Take();
    if (const StepRecord* own = g->history.Get(primary_record.step)) {
      const StepRecord copy = *own;  // ResumeFrom drops the newer records
      g->history.ResumeFrom(copy, g->sim.get());
    } else {
      g->history.TruncateAfter(primary_record.step);
      g->sim->set_state(primary_record.after);
      g->sim->set_step_count(primary_record.step + 1);
    }
    g->live_state = g->sim->state();
    g->step_count = g->sim->step_count();
    g->stopped = false;
    g->stop_reason.clear();
  }
}

void CompareSession::SyncTo(const State& state, int step_count) {
  for (auto& g : ghosts_) {
    g->worker->Wait();
    g->worker->Take();
    g->history.TruncateAfter(step_count - 1);
    g->sim->set_state(state);
    g->sim->set_step_count(step_count);
    g->live_state = g->sim->state();
    g->step_count = step_count;
    g->stopped = false;
    g->stop_reason.clear();
  }
}

const StepRecord* CompareSession::GhostRecord(int c, int step) const {
  if (c < 1 || c >= size()) return nullptr;
  return ghosts_[c - 1]->history.Get(step);
}

RaceRun RunRace(const StepRecord& record, const std::vector<StepSettings>& settings,
                const std::vector<std::string>& names, const RaceOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  RaceRun run;
  run.step = record.step;
  run.constraints = static_cast<int>(record.problem.constraints.size());
  run.dofs = record.problem.nv;
  for (size_t c = 0; c < settings.size(); ++c) {
    RaceEntry e;
    e.name = c < names.size() ? names[c] : CompareConfigName(settings[c]);
    e.color = CompareColor(static_cast<int>(c));
    e.settings = settings[c];
    e.curve.solver = settings[c].solver_type;
    e.curve.model = settings[c].contact.model;
    try {
      e.curve = RaceFrozenStep(record, settings[c], options);
    } catch (const std::exception& ex) {
      e.error = ex.what();
    }
    const bool cancelled = e.curve.cancelled;
    run.entries.push_back(std::move(e));
    if (cancelled) break;
  }
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace contactlab
