// The simulation behind the viewer's window: the physics worker (jobs and the batches they
// return), the history and the timeline's requests (re-solve, resume), reset, scene loading and
// reloading, and the settings files. See viewer_internal.h.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/viewer/viewer_internal.h"

namespace contactlab {
namespace viewer_internal {

namespace {

constexpr double kPhysicsBudgetSeconds = 0.040;       // max stepping time per interactive frame

}  // namespace

const StepRecord* Viewer::DisplayedRecord() const {
  if (!has_record_ || history_.empty()) return nullptr;
  if (playback_.playing || timeline_.follow_live) return &history_.At(history_.size() - 1);
  return &history_.At(TimelineIndex(timeline_.slider, history_.size()));
}

const ResolveComparison* Viewer::DisplayedComparison() const {
  const StepRecord* shown = DisplayedRecord();
  if (!comparison_ || !shown || shown->step != comparison_step_) return nullptr;
  return &*comparison_;
}

void Viewer::OnNewRecord() {
  has_record_ = true;
  if (playback_.playing || timeline_.follow_live) timeline_.slider = history_.size() - 1;
  const StepRecord* shown = DisplayedRecord();
  if (!shown) return;
  rows_ = BuildContactRows(model_, *shown);
  patch_rows_ = BuildPatchRows(model_, *shown);
  if (open_patch_ >= static_cast<int>(patch_rows_.size())) open_patch_ = -1;
  if (selected_contact_ >= static_cast<int>(rows_.size())) selected_contact_ = -1;
}

void Viewer::HandleTimelineRequests() {
  const StepRecord* shown = DisplayedRecord();
  if (timeline_.clear_comparison || (comparison_ && (!shown || shown->step != comparison_step_))) {
    comparison_.reset();
    comparison_step_ = -1;
    timeline_.clear_comparison = false;
  }
  if (timeline_.resolve_requested && shown && !playback_.playing) {
    // On the worker (a large step takes a while); the overlay appears when the batch returns.
    WaitIdleKeepingShownStep();
    shown = DisplayedRecord();
    // Edits not yet sent go with the re-solve, so that it uses the parameters and the contact
    // model shown in the panel even when they changed in this very frame.
    QueuedEdits edits;
    if (materials_dirty_) edits.materials = model_.materials;
    if (settings_dirty_) edits.settings = edit_settings_;
    materials_dirty_ = settings_dirty_ = false;
    if (shown) worker_->Submit(MakeResolveJob(*shown, edit_settings_, edits), generation_);
  }
  timeline_.resolve_requested = false;
  if (timeline_.resume_requested && shown && !playback_.playing) {
    WaitIdleKeepingShownStep();
    const StepRecord record = *DisplayedRecord();  // ResumeFrom drops the newer records
    history_.ResumeFrom(record, sim_.get());
    if (compare_.active()) {
      compare_.ResumeFrom(record);  // each ghost from its own record of that step
      compare_store_.TruncateAfter(record.step);
    }
    CancelRace();
    ++generation_;
    live_state_ = sim_->state();
    live_step_count_ = sim_->step_count();
    timeline_.follow_live = true;
    timeline_.break_reason.clear();
    step_error_.clear();
    last_alert_.clear();
    accumulator_ = 0;
    comparison_.reset();
    comparison_step_ = -1;
    series_count_ = -1;  // the series' steps after `record` are gone
  }
  timeline_.resume_requested = false;
  if (has_record_) OnNewRecord();
}

void Viewer::UpdateImpulseScale() {
  if (!has_record_) return;
  // The longest impulse arrow is about half a body size (a pile's arrows, one per contact,
  // must not bury its bodies; the legend's scale bar gives the magnitude).
  const double target = 0.5 * typical_size_;
  const double largest = LargestImpulse(*DisplayedRecord());
  double& scale = overlay_.contacts.impulse_scale;
  if (overlay_.fit_requested) {
    if (largest > 0) scale = target / largest;
    overlay_.fit_requested = false;
  } else if (overlay_.auto_scale) {
    scale = AutoImpulseScale(scale, largest, target);
  }
}

void Viewer::StartSimulation() {
  // Constructed first: a model the simulator refuses leaves the running one untouched.
  auto sim = std::make_unique<Simulator>(scene_.model, scene_.settings);
  if (worker_) WaitIdle();
  CancelRace();
  worker_.reset();
  sim_ = std::move(sim);
  model_ = sim_->model();
  multibody_ = std::make_unique<Multibody>(&model_);
  edit_settings_ = sim_->settings();
  live_state_ = sim_->state();
  live_step_count_ = sim_->step_count();
  settings_dirty_ = materials_dirty_ = false;
  ++generation_;
  // A new simulation: new meshes, and a held legend range belongs to the old one.
  tet_meshes_.clear();
  tet_meshes_stale_ = true;
  pressure_.range.held = false;
  pressure_.range.held_step = -1;
  open_patch_ = -1;
  patch_rows_.clear();
  if (pressure_.tets) RefreshTetMeshes();
  worker_ = std::make_unique<PhysicsWorker>(sim_.get());
}

void Viewer::SubmitStepJob(int steps) {
  StepJobOptions job;
  job.steps = steps;
  job.budget_seconds = scripted_ ? 0.0 : kPhysicsBudgetSeconds;
  // Scripted runs keep their fixed frame schedule; breakpoints are noted, not obeyed.
  job.pause_at_breakpoint = !scripted_;
  job.breakpoints = timeline_.breakpoints;
  if (settings_dirty_) job.edits.settings = edit_settings_;
  if (materials_dirty_) job.edits.materials = model_.materials;
  settings_dirty_ = materials_dirty_ = false;
  if (spring_dirty_) {
    std::optional<Perturbation> spring;
    if (body_drag_) spring = drag_spring_;
    compare_.SetSpring(spring);  // ghosts made later start with it
    job.prepare = [spring](Simulator& sim) {
      if (spring) {
        sim.SetPerturbation(*spring);
      } else {
        sim.ClearPerturbation();
      }
    };
    spring_dirty_ = false;
  }
  if (compare_.active()) {
    // Lockstep: the primary's steps and every ghost's come from one plan; the mouse spring
    // pulls the same body in every configuration.
    const std::vector<int> plan = PlanLockstepRound(compare_.Counts(live_step_count_),
                                                    compare_.Running(), steps, !playback_.playing);
    job.steps = plan[0];
    job.summaries = true;
    for (int c = 1; c < compare_.size(); ++c) {
      compare_.Submit(c, plan[c], job.budget_seconds, generation_, job.prepare);
    }
  }
  worker_->Submit(MakeStepJob(std::move(job)), generation_);
}

void Viewer::ConsumeBatch(PhysicsBatch batch) {
  last_job_ms_ = batch.wall_ms;
  physics_ms_total_ += batch.wall_ms;
  if (batch.generation != generation_) return;  // started before a reset, resume or reload
  if (!batch.settings_error.empty()) settings_error_ = batch.settings_error;
  if (batch.comparison) {
    comparison_ = std::move(batch.comparison);
    comparison_step_ = batch.comparison_step;
  }
  const double t0 = live_state_.time;
  live_state_ = std::move(batch.state);
  live_step_count_ = batch.step_count;
  sim_time_this_frame_ += live_state_.time - t0;
  if (compare_.active()) {
    for (StepSummary& s : batch.summaries) compare_store_.Add(0, std::move(s));
  }
  // The worker is idle until the next job: a mesh rebuilt by this batch's steps (a material
  // edit) can be copied now if the tet meshes are shown.
  tet_meshes_stale_ = true;
  if (pressure_.tets) RefreshTetMeshes();
  for (StepRecord& r : batch.records) {
    AddStepTimings(r.timings, &profile_accum_);
    // The legend's held range comes from the first step with pressure, shown or not, and grows
    // when a step exceeds it.
    if (!r.surfaces.empty()) {
      pressure_.range = UpdatePressureRange(pressure_.range, MaxSurfacePressure(r.surfaces),
                                            r.step, PressureNoiseFloor());
    }
    // A step whose state was not finite kept its start state: no new trajectory row.
    if (trajectory_.is_open() && r.result.stats.status != SolverStatus::kNonFiniteState &&
        r.result.stats.status != SolverStatus::kNonFiniteInput) {
      WriteTrajectoryRows(trajectory_, *multibody_, trajectory_bodies_, r.step + 1, r.after);
    }
    if (const std::vector<std::string> alerts = StepAlerts(r); !alerts.empty()) {
      last_alert_ = alerts.front();
    }
    history_.Push(r);
  }
  if (!batch.records.empty()) {
    timeline_.follow_live = true;
    playback_.steps_last_frame = static_cast<int>(batch.records.size());
    playback_.physics_ms = batch.wall_ms;
  }
  // Scripted runs keep the first breakpoint of the run; interactive ones pause at each.
  if (batch.break_index >= 0 && (!scripted_ || timeline_.break_reason.empty())) {
    const int step = history_.newest_step() -
                     (static_cast<int>(batch.records.size()) - 1 - batch.break_index);
    // CheckBreakpoints' reasons name their step already ("step N: ...").
    timeline_.break_reason = batch.break_reason.rfind("step ", 0) == 0
                                 ? batch.break_reason
                                 : "step " + std::to_string(step) + ": " + batch.break_reason;
  }
  if (!batch.error.empty()) step_error_ = batch.error;
  if (batch.stop) {
    playback_.playing = false;
    accumulator_ = 0;
    pending_wall_ = 0;
  }
  if (!history_.empty()) OnNewRecord();
}

void Viewer::WaitIdle() {
  worker_->Wait();
  if (std::optional<PhysicsBatch> batch = worker_->Take()) ConsumeBatch(std::move(*batch));
  if (compare_.active()) compare_.WaitIdle(generation_, &compare_store_);
}

void Viewer::WaitIdleKeepingShownStep() {
  const StepRecord* shown = DisplayedRecord();
  const int step = shown ? shown->step : -1;
  const bool browsing = !playback_.playing && !timeline_.follow_live;
  WaitIdle();
  if (browsing && step >= 0 && history_.Get(step)) {
    timeline_.follow_live = false;
    timeline_.slider = step - history_.oldest_step();
  }
}

void Viewer::DoReset() {
  WaitIdle();
  sim_->Reset();
  compare_.Reset();
  compare_store_.Reset(compare_.size());
  CancelRace();
  race_.reset();
  ++generation_;
  live_state_ = sim_->state();
  live_step_count_ = sim_->step_count();
  history_.Clear();
  comparison_.reset();
  comparison_step_ = -1;
  timeline_.follow_live = true;
  timeline_.slider = 0;
  timeline_.break_reason.clear();
  step_error_.clear();
  last_alert_.clear();
  has_record_ = false;
  rows_.clear();
  selected_contact_ = -1;
  accumulator_ = 0;
  pending_wall_ = 0;
  series_count_ = -1;
}

std::vector<std::filesystem::path> Viewer::SceneFiles() const {
  std::vector<std::filesystem::path> files{options_.scene_path};
  for (const Geom& g : model_.geoms) {
    if (g.shape.hull && !g.shape.hull->source.empty()) files.emplace_back(g.shape.hull->source);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

const std::vector<Pose>& Viewer::ShownPoses() {
  const StepRecord* shown = DisplayedRecord();
  const State& state = shown ? shown->after : live_state_;
  KinematicsCache kin;
  multibody_->UpdateKinematics(state.q, state.time, &kin);
  shown_poses_ = std::move(kin.X_WB);
  return shown_poses_;
}

void Viewer::LoadSettings() {
  // Interactive runs use the user's settings file; scripted runs only an explicit one, so that
  // their pictures do not depend on the machine's history.
  if (!options_.settings_path.empty()) {
    settings_file_ = options_.settings_path;
  } else if (!scripted_ && !options_.no_settings) {
    settings_file_ = DefaultSettingsFile();
  }
  if (options_.no_settings) settings_file_.clear();
  if (settings_file_.empty()) return;
  std::vector<std::string> warnings;
  vsettings_ = LoadViewerSettingsFile(settings_file_, &warnings);
  for (const std::string& w : warnings) std::fprintf(stderr, "viewer settings: %s\n", w.c_str());
  scene_panel_.auto_reload = vsettings_.auto_reload;
  export_panel_.dir = vsettings_.export_dir;
  imgui_ini_ = (settings_file_.parent_path() / "imgui.ini").string();
}

void Viewer::SaveSettings() {
  if (settings_file_.empty()) return;
  CollectViewerSettings(overlay_, &playback_, typical_size_, &vsettings_);
  CollectPressureSettings(pressure_, &vsettings_);
  vsettings_.auto_reload = scene_panel_.auto_reload;
  vsettings_.export_dir = export_panel_.dir;
  vsettings_.show_help = show_help_;
  std::string error;
  if (!SaveViewerSettingsFile(settings_file_, vsettings_, &error)) {
    std::fprintf(stderr, "viewer settings: %s\n", error.c_str());
  }
  if (imgui_ready_ && !imgui_ini_.empty()) ImGui::SaveIniSettingsToDisk(imgui_ini_.c_str());
}

void Viewer::RefreshSceneList() {
  scene_list_scanned_ = true;
  const std::filesystem::path root =
      FindScenesRoot(options_.scene_path, std::filesystem::current_path());
  scene_entries_ = ListSceneFiles(root);
}

void Viewer::PollSceneFiles() {
  if (!scene_panel_.auto_reload || scripted_) return;
  if (watcher_.Changed()) reload_requested_ = true;
}

bool Viewer::OpenScene(const std::string& path, bool keep_view) {
  Scene scene;
  try {
    // Command-line overrides belong to the scene they were given for.
    scene = LoadScene(path, ViewerSceneOptions(options_, path == options_.scene_path
                                                             ? options_.overrides
                                                             : std::vector<std::string>{}));
  } catch (const std::exception& e) {
    scene_error_ = e.what();
    return false;
  }
  Scene previous = std::move(scene_);
  scene_ = std::move(scene);
  try {
    StartSimulation();
  } catch (const std::exception& e) {
    scene_error_ = path + ": " + e.what();
    scene_ = std::move(previous);
    return false;
  }
  if (path != options_.scene_path) options_.overrides.clear();
  options_.scene_path = path;
  scene_error_.clear();
  try {
    RestartCompare();  // the configurations step the new scene
  } catch (const std::exception& e) {
    compare_error_ = e.what();
    compare_.Stop();
  }
  const bool was_playing = playback_.playing;
  DoReset();
  playback_.playing = keep_view && was_playing;
  settings_error_.clear();
  UploadModel();
  FitGlyphsToScene();
  overlay_.fit_requested = true;
  if (!keep_view) ResetCamera();
  const std::string title =
      "ContactLab - " + std::filesystem::path(options_.scene_path).filename().string();
  glfwSetWindowTitle(window_, title.c_str());
  watcher_.SetFiles(SceneFiles());
  selected_body_ = -1;
  body_drag_ = false;
  conditioning_.reset();
  conditioning_step_ = -1;
  series_count_ = -1;
  export_panel_.scene_stem = std::filesystem::path(path).stem().string();
  return true;
}

void Viewer::FitGlyphsToScene() {
  typical_size_ = TypicalGeometrySize(model_);
  geom_radius_ = GeometryBoundingRadii(model_);
  overlay_.contacts.cone_height = 0.35 * typical_size_;
  overlay_.contacts.normal_length = 0.6 * typical_size_;
}

void Viewer::StepPhysics(double wall_dt) {
  sim_time_this_frame_ = 0;
  // A finished job first: its records join the history (and the ghosts' theirs).
  if (std::optional<PhysicsBatch> batch = worker_->Take()) ConsumeBatch(std::move(*batch));
  if (compare_.active()) compare_.Poll(generation_, &compare_store_);
  // Recording while playing: every frame advances exactly VideoStepsThisFrame() steps and waits
  // for them (as scripted frames do), so that the video plays at the simulation's real time
  // whatever the wall clock does.
  const bool video_lock = video_.active() && playback_.playing;
  if (video_lock && !scripted_) WaitIdle();
  // In compare mode a round starts when every configuration is idle (lockstep).
  const bool busy = worker_->busy() || compare_.Busy();
  const double dt = edit_settings_.time_step;
  int steps = 0;
  if (video_lock) {
    steps = VideoStepsThisFrame();
  } else if (scripted_ && playback_.playing) {
    // Deterministic: 1/60 s of simulated time per frame, whatever the wall clock says.
    steps = StepsForFrame(kScriptedFrameSeconds, 1.0, dt, 1 << 20, &accumulator_);
  } else if (playback_.playing) {
    pending_wall_ += wall_dt;
    if (!busy) {
      const int max_steps = std::max(1, static_cast<int>(std::ceil(0.1 / dt)));
      steps = StepsForFrame(pending_wall_, playback_.rate, dt, max_steps, &accumulator_);
      pending_wall_ = 0;
    }
  } else {
    pending_wall_ = 0;  // paused while a job ran: its wall time is not owed after Play
  }
  if (playback_.step_requested && !busy) {
    steps = std::max(steps, 1);
    playback_.step_requested = false;
  }
  if (steps_requested_ > 0 && !busy) {  // a scripted `step N`
    steps = std::max(steps, steps_requested_);
    steps_requested_ = 0;
  }
  if (steps > 0 && !busy) {
    // A reason describes the newest pause only; scripted runs never pause and keep the first.
    if (!scripted_) timeline_.break_reason.clear();
    if (playback_.playing) CancelRace();  // a race times solves: not while the physics runs
    SubmitStepJob(steps);
  } else if ((settings_dirty_ || materials_dirty_ || CompareNeedsRound()) && !busy &&
             !playback_.playing) {
    SubmitStepJob(0);  // paused: the edits reach the simulators (and ghosts catch up)
  }
  // Scripted frames wait for their steps so that every frame shows a fixed simulated time.
  if (scripted_ || video_lock) WaitIdle();
  if (playback_.playing || scripted_) rate_meter_.Add(sim_time_this_frame_, wall_dt);
}

}  // namespace viewer_internal
}  // namespace contactlab
