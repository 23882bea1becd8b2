// The viewer's compare mode without a window (app/viewer/compare_session.h): the lockstep plan,
// ghosts stepping their own copies of the scene on their own threads in lockstep with a primary
// (bit-identical to stepping each configuration alone), their summaries and distances, reset,
// resume and sync, refused configurations, and the race over every configuration.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "app/scene.h"
#include "app/viewer/compare_session.h"
#include "app/viewer/physics_worker.h"
#include "engine/inspect/history.h"
#include "engine/sim/solver_registry.h"

namespace contactlab {
namespace {

Scene Load(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name, overrides);
}

TEST(PlanLockstepRound, EveryConfigurationToOneTarget) {
  // Playing: the target is the slowest running configuration's count plus the frame's steps.
  EXPECT_EQ(PlanLockstepRound({10, 10, 10}, {true, true, true}, 3, false),
            (std::vector<int>{3, 3, 3}));
  EXPECT_EQ(PlanLockstepRound({10, 8, 10}, {true, true, true}, 3, false),
            (std::vector<int>{1, 3, 1}))
      << "the configurations ahead wait for the one behind";
  EXPECT_EQ(PlanLockstepRound({10, 8, 12}, {true, true, true}, 1, false),
            (std::vector<int>{0, 1, 0}));
  // A stopped configuration neither steps nor holds the others back.
  EXPECT_EQ(PlanLockstepRound({10, 2, 10}, {true, false, true}, 4, false),
            (std::vector<int>{4, 0, 4}));
  // Paused: the primary leads (a single step), the others catch up with it.
  EXPECT_EQ(PlanLockstepRound({10, 7, 12}, {true, true, true}, 1, true),
            (std::vector<int>{1, 4, 0}));
  EXPECT_EQ(PlanLockstepRound({10, 7}, {true, true}, 0, true), (std::vector<int>{0, 3}));
  EXPECT_EQ(PlanLockstepRound({5}, {true}, 2, false), (std::vector<int>{2}));
  EXPECT_TRUE(PlanLockstepRound({}, {}, 2, false).empty());
  EXPECT_EQ(PlanLockstepRound({4, 4}, {true, true}, -3, false), (std::vector<int>{0, 0}));
}

TEST(WithSolverChoice, TakesSolverParametersAndModelOnly) {
  StepSettings base, choice;
  base.time_step = 0.002;
  choice.time_step = 0.5;
  choice.solver_type = SolverType::kPgs;
  choice.sap.sigma = 0.25;
  choice.contact.model = ContactModelType::kLagged;
  const StepSettings s = WithSolverChoice(base, choice);
  EXPECT_EQ(s.time_step, 0.002);
  EXPECT_EQ(s.solver_type, SolverType::kPgs);
  EXPECT_EQ(s.sap.sigma, 0.25);
  EXPECT_EQ(s.contact.model, ContactModelType::kLagged);
}

// A primary Simulator stepped by a PhysicsWorker as the viewer does, and a session of ghosts
// stepped in the same rounds.
struct Lockstep {
  Scene scene;
  Simulator primary;
  PhysicsWorker worker{&primary};
  History history;
  CompareSession session;
  CompareStore store;
  int primary_count = 0;

  explicit Lockstep(const std::string& name)
      : scene(Load(name)), primary(scene.model, scene.settings) {}

  void Start(const std::vector<StepSettings>& ghosts) {
    std::vector<CompareConfig> configs(1);
    configs[0].settings = scene.settings;
    for (const StepSettings& s : ghosts) {
      CompareConfig c;
      c.settings = s;
      configs.push_back(c);
    }
    session.Start(scene.model, configs, primary.state(), primary.step_count());
    store.Reset(session.size());
  }

  // One round of `steps` frames' worth (playing), no budget, waited for.
  void Round(int steps) {
    const std::vector<int> plan =
        PlanLockstepRound(session.Counts(primary_count), session.Running(), steps, false);
    StepJobOptions job;
    job.steps = plan[0];
    job.summaries = true;
    job.check_breakpoints = false;
    ASSERT_TRUE(worker.Submit(MakeStepJob(job), 0));
    for (int c = 1; c < session.size(); ++c) session.Submit(c, plan[c], 0, 0, nullptr);
    if (session.active()) {
      EXPECT_TRUE(session.Busy()) << "busy until the batches are taken";
    }
    worker.Wait();
    std::optional<PhysicsBatch> batch = worker.Take();
    ASSERT_TRUE(batch);
    for (const StepRecord& r : batch->records) history.Push(r);
    for (StepSummary& s : batch->summaries) store.Add(0, std::move(s));
    primary_count = batch->step_count;
    session.WaitIdle(0, &store);
    EXPECT_FALSE(session.Busy());
  }
};

TEST(CompareSession, GhostsStepInLockstepBitIdenticalToRunningAlone) {
  Lockstep ls("box_stack.yaml");
  StepSettings lagged = ls.scene.settings;
  lagged.contact.model = ContactModelType::kLagged;
  StepSettings loose = ls.scene.settings;
  loose.sap.rel_tolerance = 1e-2;
  ls.Start({lagged, loose});
  ASSERT_TRUE(ls.session.active());
  ASSERT_EQ(ls.session.size(), 3);
  EXPECT_EQ(ls.session.Names(), (std::vector<std::string>{"SAP", "SAP · lagged", "SAP #2"}));
  for (int steps : {1, 5, 7, 12}) ls.Round(steps);
  const int total = 25;
  EXPECT_EQ(ls.session.Counts(ls.primary_count), (std::vector<int>{total, total, total}));
  // Each ghost's run is the run of its configuration alone, bit for bit.
  for (int c = 1; c < 3; ++c) {
    Simulator alone(ls.scene.model, ls.session.config(c).settings);
    for (int k = 0; k < total; ++k) {
      const StepRecord& r = alone.Step();
      const StepRecord* g = ls.session.GhostRecord(c, k);
      ASSERT_NE(g, nullptr) << "config " << c << " step " << k;
      EXPECT_EQ(g->after.q, r.after.q) << "config " << c << " step " << k;
      EXPECT_EQ(g->after.v, r.after.v);
      const CompareEntry* e = ls.store.Find(c, k);
      ASSERT_NE(e, nullptr);
      EXPECT_EQ(e->summary.q, r.after.q);
      EXPECT_EQ(e->summary.iterations, r.result.stats.iterations);
    }
    EXPECT_EQ(ls.session.ghost(c).live_state.q, alone.state().q);
  }
  // Distances: the lagged model moves the stack differently; every step has one.
  for (int k = 0; k < total; ++k) {
    ASSERT_NE(ls.store.Find(1, k), nullptr);
    EXPECT_FALSE(std::isnan(ls.store.Find(1, k)->divergence)) << k;
  }
  EXPECT_EQ(ls.store.track(0).size(), static_cast<size_t>(total));
}

TEST(CompareSession, IdenticalConfigurationsDoNotDiverge) {
  Lockstep ls("clutter_40_walls.yaml");
  ls.Start({ls.scene.settings});
  for (int i = 0; i < 4; ++i) ls.Round(10);
  for (const CompareEntry& e : ls.store.track(1)) {
    EXPECT_EQ(e.divergence, 0.0) << "step " << e.summary.step;
  }
  EXPECT_TRUE(FindDivergence(ls.store, 1e-12).empty());
}

TEST(CompareSession, ResetResumeAndSync) {
  Lockstep ls("box_stack.yaml");
  StepSettings lagged = ls.scene.settings;
  lagged.contact.model = ContactModelType::kLagged;
  ls.Start({lagged});
  ls.Round(20);
  const State at10 = ls.session.GhostRecord(1, 10)->after;
  // Resume at step 10 of the primary: the ghost resumes from its own step 10.
  const StepRecord primary10 = *ls.history.Get(10);
  ls.history.ResumeFrom(primary10, &ls.primary);
  ls.primary_count = ls.primary.step_count();
  ls.session.ResumeFrom(primary10);
  ls.store.TruncateAfter(10);
  EXPECT_EQ(ls.session.ghost(1).step_count, 11);
  EXPECT_EQ(ls.session.ghost(1).live_state.q, at10.q);
  EXPECT_EQ(ls.session.GhostRecord(1, 11), nullptr) << "the newer records are gone";
  ls.Round(5);
  EXPECT_EQ(ls.session.Counts(ls.primary_count), (std::vector<int>{16, 16}));
  // Sync: the ghost continues from the primary's state.
  ls.session.SyncTo(ls.primary.state(), ls.primary_count);
  EXPECT_EQ(ls.session.ghost(1).live_state.q, ls.primary.state().q);
  ls.Round(1);
  EXPECT_EQ(ls.store.Find(1, 16)->summary.step, 16);
  // Reset: back to t = 0, nothing held.
  ls.primary.Reset();
  ls.primary_count = 0;
  ls.session.Reset();
  EXPECT_EQ(ls.session.ghost(1).step_count, 0);
  EXPECT_EQ(ls.session.GhostRecord(1, 3), nullptr);
  EXPECT_EQ(ls.session.ghost(1).live_state.time, 0.0);
}

// A configuration whose step keeps its start state (here a solve refused by a small memory budget)
// would take that step again forever and hold the lockstep back: it stops, with the reason, and
// the others go on.
TEST(CompareSession, AConfigurationThatCannotAdvanceStopsAndTheOthersGoOn) {
  Lockstep ls("box_stack.yaml");
  StepSettings starved = ls.scene.settings;
  // Room for the stack's dense tree matrices (17 KB, checked when the simulator is made), not
  // for the dense Newton system of the whole stack (29 KB).
  starved.sap.memory_budget_mb = 0.017;
  starved.sap.islands = false;
  starved.sap.linear_solver = SapParameters::LinearSolver::kDense;
  ls.Start({starved});
  ls.Round(3);
  const CompareSession::Ghost& g = ls.session.ghost(1);
  ASSERT_TRUE(g.stopped);
  EXPECT_NE(g.stop_reason.find(SolverStatusName(SolverStatus::kMemoryBudgetExceeded)),
            std::string::npos)
      << g.stop_reason;
  EXPECT_EQ(ls.session.Running(), (std::vector<bool>{true, false}));
  const int stuck_at = g.step_count;
  ls.Round(4);
  ls.Round(4);
  EXPECT_EQ(ls.primary_count, 11);
  EXPECT_EQ(ls.session.ghost(1).step_count, stuck_at) << "a stopped configuration takes no step";
}

TEST(CompareSession, AddRemoveAndRefusals) {
  Scene scene = Load("box_on_ramp.yaml");
  CompareSession session;
  EXPECT_FALSE(session.active());
  EXPECT_EQ(session.size(), 0);
  std::vector<CompareConfig> one(1);
  one[0].settings = scene.settings;
  EXPECT_THROW(session.Start(scene.model, one, State{}, 0), std::invalid_argument);
  std::vector<CompareConfig> two(2);
  two[0].settings = two[1].settings = scene.settings;
  two[1].settings.time_step *= 2;
  two[1].spec = "sap:time_step=2e-3";
  try {
    session.Start(scene.model, two, Simulator(scene.model, scene.settings).state(), 0);
    ADD_FAILURE() << "a configuration with another time step was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sap:time_step=2e-3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("share the time step"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(session.active());
  // From the panel: the primary alone, then ghosts up to kMaxCompareConfigs.
  Simulator sim(scene.model, scene.settings);
  session.primary().settings = scene.settings;
  for (int i = 1; i < kMaxCompareConfigs; ++i) {
    EXPECT_TRUE(session.AddConfig(scene.model, scene.settings, sim.state(), 0)) << i;
  }
  EXPECT_EQ(session.size(), kMaxCompareConfigs);
  EXPECT_FALSE(session.AddConfig(scene.model, scene.settings, sim.state(), 0));
  StepSettings bad = scene.settings;
  bad.sap.sigma = -1;
  session.RemoveConfig(3);
  EXPECT_THROW(session.AddConfig(scene.model, bad, sim.state(), 0), std::invalid_argument);
  EXPECT_EQ(session.size(), kMaxCompareConfigs - 1);
  session.RemoveConfig(1);
  session.RemoveConfig(1);
  EXPECT_FALSE(session.active()) << "the last ghost gone, compare mode ends";
}

TEST(CompareSession, SettingsEditsReachTheGhostWithItsNextRound) {
  Lockstep ls("box_on_ramp.yaml");
  ls.Start({ls.scene.settings});
  ls.Round(3);
  StepSettings lagged = ls.scene.settings;
  lagged.contact.model = ContactModelType::kLagged;
  ls.session.SetSettings(1, lagged);
  EXPECT_TRUE(ls.session.ghost(1).settings_dirty);
  ls.Round(2);
  EXPECT_FALSE(ls.session.ghost(1).settings_dirty);
  EXPECT_EQ(ls.session.ghost(1).sim->settings().contact.model, ContactModelType::kLagged);
  const StepRecord* r = ls.session.GhostRecord(1, 4);
  ASSERT_NE(r, nullptr);
  if (!r->result.laws.empty()) {
    EXPECT_EQ(r->result.laws.model(), ContactModelType::kLagged);
  }
}

TEST(CompareSession, AGhostAddedDuringADragIsPulledByTheSpring) {
  // The mouse spring reaches a configuration made while the user drags: the primary and a ghost
  // with the primary's settings, both pulled by the same spring from the same state, step bit for
  // bit alike; a ghost made after the spring is released is not pulled (it falls back onto the
  // ramp, so it ends elsewhere).
  Lockstep ls("box_on_ramp.yaml");
  int body = -1;
  for (size_t b = 0; b < ls.scene.model.bodies.size(); ++b) {
    if (ls.scene.model.bodies[b].tree >= 0) body = static_cast<int>(b);
  }
  ASSERT_GE(body, 0);
  ls.Round(2);
  const Perturbation spring =
      MakeMouseSpring(ls.scene.model, body, Vec3::Zero(), Vec3(0, 0, 2.0));  // 2 m up
  ls.primary.SetPerturbation(spring);
  ls.session.SetSpring(spring);
  ls.session.primary().settings = ls.scene.settings;
  ASSERT_TRUE(ls.session.AddConfig(ls.scene.model, ls.scene.settings, ls.primary.state(),
                                   ls.primary.step_count()));
  ls.store.Reset(ls.session.size());
  ASSERT_TRUE(ls.session.ghost(1).sim->perturbation().has_value());
  ls.Round(20);
  ASSERT_EQ(ls.primary_count, 22);
  const StepRecord* pulled = ls.session.GhostRecord(1, 21);
  ASSERT_NE(pulled, nullptr);
  EXPECT_EQ(pulled->after.q, ls.primary.state().q) << "the same spring, the same run";
  // Released: a ghost made now starts without it.
  ls.session.SetSpring(std::nullopt);
  ASSERT_TRUE(ls.session.AddConfig(ls.scene.model, ls.scene.settings, ls.primary.state(),
                                   ls.primary.step_count()));
  EXPECT_FALSE(ls.session.ghost(2).sim->perturbation().has_value());
}

TEST(RunRace, OneCurvePerConfigurationInItsColour) {
  Scene scene = Load("clutter_40_walls.yaml");
  Simulator sim(scene.model, scene.settings);
  StepRecord record;
  for (int k = 0; k < 40; ++k) record = sim.Step();
  StepSettings capped = scene.settings;
  capped.sap.max_iterations = 2;
  StepSettings bad = scene.settings;
  bad.sap.sigma = -1;
  RaceOptions options;
  options.min_repeats = options.max_repeats = 1;
  const RaceRun run =
      RunRace(record, {scene.settings, capped, bad}, {"SAP", "SAP #2", "bad"}, options);
  EXPECT_EQ(run.step, record.step);
  EXPECT_EQ(run.constraints, static_cast<int>(record.problem.constraints.size()));
  EXPECT_EQ(run.dofs, record.problem.nv);
  ASSERT_EQ(run.entries.size(), 3u);
  EXPECT_EQ(run.entries[1].name, "SAP #2");
  EXPECT_EQ(RgbDistance(run.entries[1].color, CompareColor(1)), 0.0);
  EXPECT_FALSE(run.entries[0].curve.points.empty());
  ASSERT_EQ(run.entries[1].curve.points.size(), 2u);
  EXPECT_EQ(run.entries[1].curve.points.back().cap, 2);
  EXPECT_TRUE(run.entries[1].error.empty());
  EXPECT_FALSE(run.entries[2].error.empty()) << "refused parameters are reported, not thrown";
  EXPECT_GE(run.wall_s, 0.0);
}

}  // namespace
}  // namespace contactlab
