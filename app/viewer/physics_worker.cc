#include "app/viewer/physics_worker.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <utility>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace contactlab {

namespace {
using Clock = std::chrono::steady_clock;
double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
}  // namespace

PhysicsWorker::PhysicsWorker(Simulator* sim, int nice)
    : sim_(sim), nice_(nice), thread_([this] { Loop(); }) {}

PhysicsWorker::~PhysicsWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool PhysicsWorker::Submit(PhysicsJob job, int generation) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (has_job_ || running_ || has_batch_) return false;
    job_ = std::move(job);
    job_generation_ = generation;
    has_job_ = true;
  }
  cv_.notify_all();
  return true;
}

bool PhysicsWorker::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return has_job_ || running_ || has_batch_;
}

std::optional<PhysicsBatch> PhysicsWorker::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!has_batch_) return std::nullopt;
  has_batch_ = false;
  return std::move(batch_);
}

void PhysicsWorker::Wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !has_job_ && !running_; });
}

void PhysicsWorker::Loop() {
#ifdef __linux__
  // On Linux a thread has its own nice value, set through its thread id.
  if (nice_ > 0) setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice_);
#endif
  for (;;) {
    PhysicsJob job;
    PhysicsBatch batch;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return quit_ || has_job_; });
      if (quit_) return;
      job = std::move(job_);
      batch.generation = job_generation_;
      has_job_ = false;
      running_ = true;
    }
    const auto t0 = Clock::now();
    try {
      job(*sim_, &batch);
    } catch (const std::exception& e) {
      batch.error = e.what();
      batch.stop = true;
    } catch (...) {
      batch.error = "the physics job failed with an unknown exception";
      batch.stop = true;
    }
    batch.state = sim_->state();
    batch.step_count = sim_->step_count();
    batch.wall_ms = 1e3 * Seconds(Clock::now() - t0);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      batch_ = std::move(batch);
      running_ = false;
      has_batch_ = true;
    }
    cv_.notify_all();
  }
}

void ApplyQueuedEdits(const QueuedEdits& edits, Simulator* sim, PhysicsBatch* batch) {
  if (edits.materials && edits.materials->size() == sim->model().materials.size()) {
    sim->mutable_model().materials = *edits.materials;
  }
  if (edits.settings) {
    try {
      sim->set_settings(*edits.settings);
    } catch (const std::exception& e) {
      batch->settings_error = e.what();
    }
  }
}

PhysicsJob MakeStepJob(StepJobOptions options) {
  return [options = std::move(options)](Simulator& sim, PhysicsBatch* batch) {
    ApplyQueuedEdits(options.edits, &sim, batch);
    if (options.prepare) options.prepare(sim);
    const auto t0 = Clock::now();
    const int cap = SolverIterationCap(sim.settings());
    KinematicsCache kin;  // SummarizeStep's scratch
    batch->records.reserve(static_cast<size_t>(std::max(0, options.steps)));
    for (int i = 0; i < options.steps; ++i) {
      try {
        batch->records.push_back(sim.Step());
      } catch (const std::exception& e) {
        batch->error = e.what();
        batch->stop = true;
        return;
      }
      const StepRecord& r = batch->records.back();
      if (options.summaries) batch->summaries.push_back(SummarizeStep(sim.multibody(), r, &kin));
      if (r.result.stats.status == SolverStatus::kNonFiniteInput ||
          r.result.stats.status == SolverStatus::kNonFiniteState) {
        batch->stop = true;  // nothing more to see: the state no longer advances
        return;
      }
      if (options.check_breakpoints && batch->break_index < 0) {
        if (std::optional<std::string> reason = CheckBreakpoints(r, options.breakpoints, cap)) {
          batch->break_index = static_cast<int>(batch->records.size()) - 1;
          batch->break_reason = *reason;
          if (options.pause_at_breakpoint) {
            batch->stop = true;
            return;
          }
        }
      }
      if (options.budget_seconds > 0 && Seconds(Clock::now() - t0) > options.budget_seconds) {
        return;
      }
    }
  };
}

PhysicsJob MakeResolveJob(StepRecord record, SapParameters params, QueuedEdits edits) {
  return [record = std::move(record), params, edits = std::move(edits)](Simulator& sim,
                                                                         PhysicsBatch* batch) {
    ApplyQueuedEdits(edits, &sim, batch);
    batch->comparison = CompareResolve(sim, record, params);
    batch->comparison_step = record.step;
  };
}

PhysicsJob MakeResolveJob(StepRecord record, StepSettings settings, QueuedEdits edits) {
  return [record = std::move(record), settings = std::move(settings),
          edits = std::move(edits)](Simulator& sim, PhysicsBatch* batch) {
    ApplyQueuedEdits(edits, &sim, batch);
    try {
      batch->comparison = CompareResolve(sim, record, settings);
      batch->comparison_step = record.step;
    } catch (const std::exception& e) {
      batch->settings_error = e.what();
    }
  };
}

}  // namespace contactlab
