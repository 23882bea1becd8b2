// The viewer's physics thread: jobs run off the calling thread, give the same records as stepping
// directly, apply queued edits, stop at breakpoints and budgets, and report failures as data.
#include <gtest/gtest.h>

#include <future>
#include <stdexcept>
#include <string>

#include "app/scene.h"
#include "app/viewer/physics_worker.h"

namespace contactlab {
namespace {

Scene LoadTestScene(const std::string& name) {
  return LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name);
}

std::optional<PhysicsBatch> RunJob(PhysicsWorker* worker, PhysicsJob job, int generation = 0) {
  EXPECT_TRUE(worker->Submit(std::move(job), generation));
  worker->Wait();
  return worker->Take();
}

TEST(PhysicsWorker, JobsRunOffTheCallingThreadAndWaitToBeTaken) {
  Scene scene = LoadTestScene("box_on_ramp.yaml");
  Simulator sim(scene.model, scene.settings);
  PhysicsWorker worker(&sim);
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  ASSERT_TRUE(worker.Submit([gate](Simulator& s, PhysicsBatch* b) {
    gate.wait();  // held until the test releases it: the caller must not be blocked meanwhile
    b->records.push_back(s.Step());
  }, 7));
  // Submit returned while the job is blocked: the job is not running on this thread.
  EXPECT_TRUE(worker.busy());
  EXPECT_FALSE(worker.Take().has_value());
  EXPECT_FALSE(worker.Submit([](Simulator&, PhysicsBatch*) {}, 8)) << "one job at a time";
  release.set_value();
  worker.Wait();
  EXPECT_TRUE(worker.busy()) << "busy until the batch is taken";
  std::optional<PhysicsBatch> batch = worker.Take();
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->generation, 7);
  EXPECT_EQ(batch->records.size(), 1u);
  EXPECT_EQ(batch->step_count, 1);
  EXPECT_FALSE(worker.busy());
  EXPECT_FALSE(worker.Take().has_value()) << "a batch is taken once";
}

TEST(PhysicsWorker, SteppingOnTheWorkerIsBitIdenticalToSteppingDirectly) {
  Scene scene = LoadTestScene("box_stack.yaml");
  Simulator direct(scene.model, scene.settings);
  for (int i = 0; i < 40; ++i) direct.Step();
  Simulator threaded(scene.model, scene.settings);
  PhysicsWorker worker(&threaded);
  int taken = 0;
  // Uneven batches, as the viewer's pacing produces them.
  for (int steps : {1, 7, 12, 20}) {
    StepJobOptions job;
    job.steps = steps;
    std::optional<PhysicsBatch> b = RunJob(&worker, MakeStepJob(job));
    ASSERT_TRUE(b.has_value());
    ASSERT_EQ(static_cast<int>(b->records.size()), steps);
    for (const StepRecord& r : b->records) EXPECT_EQ(r.step, taken++);
  }
  EXPECT_EQ(threaded.state().time, direct.state().time);
  EXPECT_EQ((threaded.state().q - direct.state().q).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ((threaded.state().v - direct.state().v).cwiseAbs().maxCoeff(), 0.0);
}

TEST(PhysicsWorker, QueuedEditsApplyBeforeTheStepsAndBadOnesAreRefusedWithTheRange) {
  Scene scene = LoadTestScene("box_on_ramp.yaml");
  Simulator sim(scene.model, scene.settings);
  PhysicsWorker worker(&sim);
  StepJobOptions job;
  job.steps = 1;
  StepSettings s = scene.settings;
  s.time_step = 0.5 * scene.settings.time_step;
  job.edits.settings = s;
  std::vector<Material> materials = scene.model.materials;
  materials[0].friction = 0.123;
  job.edits.materials = materials;
  std::optional<PhysicsBatch> b = RunJob(&worker, MakeStepJob(job));
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE(b->settings_error.empty());
  // The step was taken with the new δt: time advanced by exactly that.
  EXPECT_DOUBLE_EQ(b->state.time, s.time_step);
  EXPECT_EQ(sim.model().materials[0].friction, 0.123);

  StepJobOptions bad;
  bad.steps = 0;
  StepSettings invalid = s;
  invalid.time_step = -1.0;
  bad.edits.settings = invalid;
  b = RunJob(&worker, MakeStepJob(bad));
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(b->settings_error.find("time_step"), std::string::npos) << b->settings_error;
  EXPECT_EQ(sim.settings().time_step, s.time_step) << "a refused edit keeps the old settings";
}

TEST(PhysicsWorker, BreakpointStopsTheBatchAtTheStepThatHitIt) {
  Scene scene = LoadTestScene("box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  PhysicsWorker worker(&sim);
  StepJobOptions job;
  job.steps = 500;
  job.breakpoints.on_iteration_cap = false;
  job.breakpoints.max_penetration = 1e-6;  // [m]: any resting contact penetrates more
  std::optional<PhysicsBatch> b = RunJob(&worker, MakeStepJob(job));
  ASSERT_TRUE(b.has_value());
  ASSERT_GE(b->break_index, 0);
  EXPECT_TRUE(b->stop);
  EXPECT_EQ(b->break_index + 1, static_cast<int>(b->records.size())) << "nothing after it";
  EXPECT_GT(b->records.back().metrics.max_penetration, 1e-6);
  for (int i = 0; i < b->break_index; ++i) {
    EXPECT_LE(b->records[i].metrics.max_penetration, 1e-6) << "an earlier step would have fired";
  }
  EXPECT_NE(b->break_reason.find("penetration"), std::string::npos) << b->break_reason;
}

TEST(PhysicsWorker, WithoutPausingTheFirstBreakpointIsNotedAndTheStepsGoOn) {
  Scene scene = LoadTestScene("box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  PhysicsWorker worker(&sim);
  StepJobOptions job;
  job.steps = 50;
  job.pause_at_breakpoint = false;
  job.breakpoints.on_iteration_cap = false;
  job.breakpoints.max_penetration = 1e-6;  // [m]: any resting contact penetrates more
  std::optional<PhysicsBatch> b = RunJob(&worker, MakeStepJob(job));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->records.size(), 50u) << "every step is taken";
  EXPECT_FALSE(b->stop);
  ASSERT_GE(b->break_index, 0);
  EXPECT_GT(b->records[b->break_index].metrics.max_penetration, 1e-6);
  for (int i = 0; i < b->break_index; ++i) {
    EXPECT_LE(b->records[i].metrics.max_penetration, 1e-6) << "the first one is noted";
  }
}

// The box stack at δt = 0.1 s diverges (boxes sink through each other): with the default
// breakpoints the batch pauses at the first warned step and keeps it as its last record.
TEST(PhysicsWorker, ADivergedStepPausesTheBatchAndIsKept) {
  Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/box_stack.yaml",
                          std::vector<std::string>{"time_step=0.1"});
  Simulator sim(scene.model, scene.settings);
  PhysicsWorker worker(&sim);
  StepJobOptions job;
  job.steps = 30;
  std::optional<PhysicsBatch> b = RunJob(&worker, MakeStepJob(job));
  ASSERT_TRUE(b.has_value());
  ASSERT_GE(b->break_index, 0);
  EXPECT_TRUE(b->stop);
  EXPECT_EQ(b->break_index + 1, static_cast<int>(b->records.size()));
  EXPECT_NE(b->records.back().diagnostics.warnings, 0u);
  EXPECT_NE(b->break_reason.find(b->records.back().diagnostics.message), std::string::npos)
      << b->break_reason;
}

// A state that is not finite ends the batch even when breakpoints are only noted (scripted
// runs): the state no longer advances. The failed step is the batch's last record.
TEST(PhysicsWorker, ANonFiniteStateEndsTheBatch) {
  Scene scene = LoadTestScene("box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  State st = sim.state();
  st.v(2) = 1e300;  // the first box's vertical velocity: its kinetic energy overflows
  sim.set_state(st);
  PhysicsWorker worker(&sim);
  StepJobOptions job;
  job.steps = 10;
  job.pause_at_breakpoint = false;
  std::optional<PhysicsBatch> b = RunJob(&worker, MakeStepJob(job));
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE(b->stop);
  ASSERT_EQ(b->records.size(), 1u);
  const SolverStatus status = b->records.back().result.stats.status;
  EXPECT_TRUE(status == SolverStatus::kNonFiniteState || status == SolverStatus::kNonFiniteInput)
      << SolverStatusName(status);
  EXPECT_EQ(sim.step_count(), 0) << "the state did not advance";
}

TEST(PhysicsWorker, BudgetEndsTheBatchEarlyButAlwaysTakesAStep) {
  Scene scene = LoadTestScene("box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  PhysicsWorker worker(&sim);
  StepJobOptions job;
  job.steps = 100000;
  job.budget_seconds = 1e-9;  // spent after the first step
  std::optional<PhysicsBatch> b = RunJob(&worker, MakeStepJob(job));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->records.size(), 1u);
  EXPECT_FALSE(b->stop) << "running out of budget does not pause the run";
}

TEST(PhysicsWorker, AThrowingJobIsReportedAndTheWorkerKeepsServing) {
  Scene scene = LoadTestScene("box_on_ramp.yaml");
  Simulator sim(scene.model, scene.settings);
  PhysicsWorker worker(&sim);
  std::optional<PhysicsBatch> b = RunJob(&worker, [](Simulator&, PhysicsBatch*) {
    throw std::runtime_error("boom");
  });
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->error, "boom");
  EXPECT_TRUE(b->stop);
  StepJobOptions job;
  job.steps = 3;
  b = RunJob(&worker, MakeStepJob(job));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->records.size(), 3u);
}

TEST(PhysicsWorker, ResolveJobMatchesCompareResolve) {
  Scene scene = LoadTestScene("box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int i = 0; i < 20; ++i) sim.Step();
  const StepRecord record = sim.last_record();
  SapParameters params = scene.settings.sap;
  params.sigma = 1e-5;
  const ResolveComparison expected = CompareResolve(sim, record, params);
  PhysicsWorker worker(&sim);
  std::optional<PhysicsBatch> b = RunJob(&worker, MakeResolveJob(record, params));
  ASSERT_TRUE(b.has_value());
  ASSERT_TRUE(b->comparison.has_value());
  EXPECT_EQ(b->comparison_step, record.step);
  EXPECT_EQ(b->comparison->after.stats.iterations, expected.after.stats.iterations);
  EXPECT_EQ((b->comparison->after.v - expected.after.v).cwiseAbs().maxCoeff(), 0.0);
}

// The viewer's frame loop: it never blocks on a job, it polls Take() and busy() every frame and
// submits the next job once the batch is in. Run under ThreadSanitizer this covers the handover.
TEST(PhysicsWorker, PollingLikeTheFrameLoopLosesNoStepAndEndsWithAJobRunning) {
  Scene scene = LoadTestScene("box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  int taken = 0, jobs = 0;
  {
    PhysicsWorker worker(&sim);
    while (jobs < 12) {
      if (std::optional<PhysicsBatch> b = worker.Take()) {
        EXPECT_EQ(b->generation, jobs);
        for (const StepRecord& r : b->records) EXPECT_EQ(r.step, taken++);
        EXPECT_EQ(b->step_count, taken);
      }
      if (!worker.busy()) {
        StepJobOptions job;
        job.steps = 1 + jobs % 3;
        ASSERT_TRUE(worker.Submit(MakeStepJob(job), ++jobs));
      }
    }
    // The destructor waits for the job still running (the viewer closing mid-step).
  }
  EXPECT_GE(sim.step_count(), taken);
}

}  // namespace
}  // namespace contactlab
