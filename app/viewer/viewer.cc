#include "app/viewer/viewer.h"

// epoxy must come before any other GL header; GLFW is told not to include one.
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "app/scene.h"
#include "app/viewer/input_script.h"
#include "app/viewer/physics_worker.h"
#include "engine/breakpoints.h"
#include "engine/debug_draw.h"
#include "engine/conditioning.h"
#include "engine/history.h"
#include "engine/raycast.h"
#include "engine/simulator.h"
#include "render/camera.h"
#include "app/export.h"
#include "app/runner.h"
#include "render/gl_debug_draw.h"
#include "render/image_texture.h"
#include "render/renderer.h"
#include "render/screenshot.h"
#include "ui/analysis_panels.h"
#include "ui/export_panel.h"
#include "ui/panels.h"
#include "ui/param_widgets.h"
#include "ui/plot_data.h"
#include "ui/scene_browser.h"
#include "ui/ui_data.h"
#include "ui/viewer_settings.h"

namespace contactlab {

namespace {

// The failure and the divergence warnings of a step, one line each (empty for a clean step).
std::vector<std::string> StepAlerts(const StepRecord& r) {
  std::vector<std::string> alerts;
  const SolverStats& st = r.result.stats;
  const std::string step = "step " + std::to_string(r.step);
  if (st.status != SolverStatus::kConverged) {
    alerts.push_back(step + " FAILED: " + SolverStatusName(st.status) +
                     (st.message.empty() ? "" : ": " + st.message));
  }
  if (!r.free_motion.converged) alerts.push_back(step + " FAILED: free motion did not converge");
  if (r.diagnostics.warnings != 0) alerts.push_back(step + " WARNING: " + r.diagnostics.message);
  return alerts;
}


using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

constexpr double kScriptedFrameSeconds = 1.0 / 60.0;  // simulated time per scripted frame
constexpr double kPhysicsBudgetSeconds = 0.040;       // max stepping time per interactive frame
constexpr float kMinViewportSize = 160.0f;            // [logical px] kept for the 3D view
constexpr const char* kFontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

// Files dropped on the window: the last one is opened on the next frame.
std::string* g_dropped_path = nullptr;
void GlfwDropCallback(GLFWwindow*, int count, const char** paths) {
  if (g_dropped_path && count > 0) *g_dropped_path = paths[count - 1];
}

void GlfwErrorCallback(int code, const char* description) {
  std::fprintf(stderr, "GLFW error %d: %s\n", code, description);
}

void SetupStyle() {
  ImGui::StyleColorsDark();
  ImGuiStyle& s = ImGui::GetStyle();
  s.WindowRounding = 0.0f;
  s.FrameRounding = 3.0f;
  s.GrabRounding = 3.0f;
  s.WindowBorderSize = 0.0f;
  s.FramePadding = ImVec2(6, 3);
  s.ItemSpacing = ImVec2(7, 5);
  s.WindowPadding = ImVec2(10, 8);
  ImVec4* c = s.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.085f, 0.09f, 0.10f, 0.96f);
  c[ImGuiCol_Header] = ImVec4(0.20f, 0.28f, 0.38f, 1.0f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.36f, 0.50f, 1.0f);
  c[ImGuiCol_TitleBgActive] = ImVec4(0.14f, 0.20f, 0.28f, 1.0f);
}

// Everything the viewer keeps between frames.
class Viewer {
 public:
  Viewer(const ViewerOptions& options, Scene scene) : options_(options), scene_(std::move(scene)) {}
  ~Viewer();

  // Returns the process exit code.
  int Run();

 private:
  bool CreateWindow();
  void ResetCamera();
  void HandleInput();
  // Selects the contact within a few pixels of (x, y); returns false when there is none.
  bool PickContact(float x, float y);
  // The body under (x, y) (window px) and the hit point, via a ray through the shown poses.
  std::optional<RayHit> PickBody(float x, float y) const;
  // Mouse spring: starts on a body under the cursor, follows the cursor in the plane through the
  // grabbed point facing the camera, ends when the button is released.
  void BeginBodyDrag(float x, float y);
  void UpdateBodyDrag(float x, float y);
  void FocusSelectedBody();
  // Body poses of the shown step (or the live state before the first step).
  const std::vector<Pose>& ShownPoses();
  void LoadSettings();
  void SaveSettings();
  void RefreshSceneList();
  void PollSceneFiles();
  void HandleExport(const ExportRequest& request);
  void PollConditioning();
  void StartConditioning(const StepRecord& record);
  void DrawAnalysisColumn(float x, float width, float height);
  void DrawSelectionPanel();
  // Scripted input (--input): sets ImGui's mouse and key state for `frame`.
  void InjectInput(int frame);
  int BodyIndex(const std::string& name_or_index) const;  // -1 if none
  // The scene file and the mesh files its geometry came from (watched for changes).
  std::vector<std::filesystem::path> SceneFiles() const;
  void StepPhysics(double wall_dt);
  void BuildUi();
  void RenderScene();
  void DrawLabels();
  void OnNewRecord();
  void UpdateImpulseScale();
  // The record on display: the timeline's choice while paused, else the newest one; nullptr
  // before the first step.
  const StepRecord* DisplayedRecord() const;
  void HandleTimelineRequests();
  // The what-if re-solve of the displayed step, or nullptr.
  const ResolveComparison* DisplayedComparison() const;

  // Physics: the worker thread owns sim_ while a job runs (see physics_worker.h). The UI draws
  // from its own copies: model_ (materials as edited), multibody_ over it, edit_settings_ and
  // the History of records it has taken from the worker.
  void StartSimulation();          // new sim_ and worker_ from scene_
  // Loads `path` (a scene error keeps the current scene and lands in scene_error_) and
  // restarts the simulation on it; keep_view keeps the camera and the play state (reload).
  bool OpenScene(const std::string& path, bool keep_view);
  void FitGlyphsToScene();
  void SubmitStepJob(int steps);   // queues the pending edits with the steps
  void ConsumeBatch(PhysicsBatch batch);
  void WaitIdle();                 // waits for the running job and consumes its batch
  // WaitIdle, but a paused timeline that shows a recorded step keeps showing it (a batch that
  // was still running when the run paused would otherwise move the view to the newest step).
  void WaitIdleKeepingShownStep();
  void DoReset();

  ViewerOptions options_;
  ViewerSettings vsettings_;       // persisted settings (layout, overlay, panels)
  std::filesystem::path settings_file_;  // empty: settings are neither read nor written
  std::string imgui_ini_;          // ImGui's own layout file (table columns, help window)
  std::vector<SceneEntry> scene_entries_;
  bool scene_list_scanned_ = false;  // the scenes folder was listed (Rescan lists it again)
  ScenePanelState scene_panel_;
  FileWatcher watcher_;
  ExportPanelState export_panel_;
  std::string pending_screenshot_;  // written after the current frame is drawn
  // Analysis column.
  TimeSeries series_;
  int series_count_ = -1, series_newest_ = -2;  // history shape the series was built from
  int earlier_overlay_ = 5;         // faint e_m curves of this many earlier steps
  std::optional<ConditioningReport> conditioning_;
  int conditioning_step_ = -1;      // timeline step of conditioning_
  std::future<ConditioningReport> conditioning_job_;
  int conditioning_job_step_ = -1;
  // generation_ of conditioning_ and of the job: a reset, resume or reload makes them stale.
  int conditioning_generation_ = -1, conditioning_job_generation_ = -1;
  bool conditioning_auto_ = true;   // analyze the shown step whenever it changes
  std::unique_ptr<ImageTexture> h_texture_, j_texture_;
  int analysis_tab_request_ = -1;   // select this tab next frame (0 conv, 1 series, 2 cond)
  FrameProfile profile_;
  FrameProfile profile_accum_;      // physics parts of the records taken this frame
  double ui_ms_ = 0, render_ms_ = 0;
  // Selection and the mouse spring.
  int selected_body_ = -1;
  bool body_drag_ = false;          // Ctrl + left drag on a body is pulling it
  Perturbation drag_spring_;        // its spring (target follows the cursor)
  double drag_depth_ = 0;           // distance of the drag plane from the eye along forward [m]
  bool spring_dirty_ = false;       // the spring changed since the last job
  std::vector<Pose> shown_poses_;
  std::vector<InputEvent> input_events_;  // --input script, empty without
  ImVec2 input_mouse_{0, 0};
  bool input_down_[3] = {false, false, false};
  bool input_ctrl_ = false, input_shift_ = false;  // held with a mouse button
  std::vector<int> input_keys_down_;     // keys pressed last frame, released now
  std::ofstream trajectory_;             // --trajectory
  std::vector<int> trajectory_bodies_;   // its bodies (TrajectoryBodies)
  bool inspector_body_only_ = false;  // the table lists the selected body's contacts only
  bool open_overlay_ = false, open_parameters_ = false;  // open these sections at start
  Scene scene_;
  std::string scene_error_;        // the last scene load error (file, line, field)
  std::string pending_open_;       // a file dropped on the window, opened next frame
  bool reload_requested_ = false;  // Ctrl+R or the scene panel: reload the scene file
  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<PhysicsWorker> worker_;
  int generation_ = 0;             // bumped by reset/resume/load: older batches are dropped
  Model model_;                    // UI copy of the model; materials follow the panel
  std::unique_ptr<Multibody> multibody_;  // kinematics for drawing, over model_
  State live_state_;               // newest simulator state the UI knows
  int live_step_count_ = 0;        // Simulator::step_count() with live_state_
  bool settings_dirty_ = false;    // edit_settings_ not yet sent to the worker
  bool materials_dirty_ = false;   // model_.materials not yet sent to the worker
  double pending_wall_ = 0;        // wall time since the last stepping job was submitted [s]
  double sim_time_this_frame_ = 0; // simulated time taken from the worker this frame [s]
  double last_job_ms_ = 0;         // wall time of the last physics job [ms]
  double physics_ms_total_ = 0;    // wall time of every physics job so far [ms]
  double ui_ms_total_ = 0, render_ms_total_ = 0;  // [ms] over all frames
  GLFWwindow* window_ = nullptr;
  bool imgui_ready_ = false;
  // GL objects: released in ~Viewer while the context still exists.
  std::unique_ptr<SceneRenderer> renderer_;
  std::unique_ptr<GlDebugDraw> glyphs_;
  OrbitCamera camera_;
  PlaybackState playback_;
  OverlaySettings overlay_;
  StepSettings edit_settings_;
  std::string settings_error_;
  std::string step_error_;
  // The newest failed or diverged step of the run ("step N FAILED: ..." / "step N WARNING:
  // ..."), shown under the status line while other steps are on screen; cleared on reset and
  // resume.
  std::string last_alert_;
  std::vector<ContactRow> rows_;
  int selected_contact_ = -1;
  bool has_record_ = false;
  History history_;
  TimelineState timeline_;
  std::optional<ResolveComparison> comparison_;  // what-if re-solve of comparison_step_
  int comparison_step_ = -1;
  int msaa_samples_ = 0;       // samples per pixel of the window
  std::string gl_renderer_;    // GL_RENDERER string
  double typical_size_ = 0.1;  // median body size [m], sets glyph sizes
  bool show_help_ = false;
  bool scripted_ = false;
  double accumulator_ = 0;
  RateMeter rate_meter_{0.05};
  // Drag state: which button started a drag in the viewport (-1 = none).
  int drag_button_ = -1;
  float drag_distance_ = 0;  // mouse travel since the button went down [px]
  // Viewport rectangle in window coordinates (logical px, y down).
  float vp_x_ = 0, vp_y_ = 0, vp_w_ = 1, vp_h_ = 1;
};

Viewer::~Viewer() {
  g_dropped_path = nullptr;
  worker_.reset();  // joins the physics thread before the simulator goes
  renderer_.reset();
  glyphs_.reset();
  h_texture_.reset();
  j_texture_.reset();
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Viewer::CreateWindow() {
  glfwSetErrorCallback(GlfwErrorCallback);
  if (!glfwInit()) {
    std::fprintf(stderr, "viewer: cannot initialize GLFW (is a display available?)\n");
    return false;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  const std::string title =
      "ContactLab - " + std::filesystem::path(options_.scene_path).filename().string();
  auto open_window = [&](int samples) {
    glfwWindowHint(GLFW_SAMPLES, samples);
    window_ = glfwCreateWindow(options_.width, options_.height, title.c_str(), nullptr, nullptr);
    if (window_) glfwMakeContextCurrent(window_);
    return window_ != nullptr;
  };
  const bool auto_msaa = options_.msaa_samples < 0;
  if (!open_window(auto_msaa ? 4 : options_.msaa_samples)) {
    std::fprintf(stderr, "viewer: cannot create a %dx%d OpenGL 3.3 core window\n", options_.width,
                 options_.height);
    return false;
  }
  // Software rasterizers pay for every sample; without a GPU, auto means no multisampling.
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string renderer_name = renderer ? renderer : "";
  if (auto_msaa && (renderer_name.find("llvmpipe") != std::string::npos ||
                    renderer_name.find("softpipe") != std::string::npos)) {
    glfwDestroyWindow(window_);
    window_ = nullptr;
    if (!open_window(0)) {
      std::fprintf(stderr, "viewer: cannot create an OpenGL 3.3 core window\n");
      return false;
    }
  }
  glfwSwapInterval(scripted_ ? 0 : 1);
  glGetIntegerv(GL_SAMPLES, &msaa_samples_);
  gl_renderer_ = reinterpret_cast<const char*>(glGetString(GL_RENDERER));

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  // ImGui's own layout (table columns, floating windows) lives beside the settings file; never
  // in the working directory.
  io.IniFilename = nullptr;
  if (!imgui_ini_.empty()) ImGui::LoadIniSettingsFromDisk(imgui_ini_.c_str());
  if (std::filesystem::exists(kFontPath)) {
    // Latin plus the characters of the parameter tables' tooltips (σ, δt, ‖v_t‖, ...); the
    // ranges must outlive the font atlas's build.
    static ImVector<ImWchar> glyph_ranges;
    ImFontGlyphRangesBuilder glyphs;
    glyphs.AddRanges(io.Fonts->GetGlyphRangesDefault());
    AddParamGlyphs(&glyphs);
    glyph_ranges.clear();
    glyphs.BuildRanges(&glyph_ranges);
    io.Fonts->AddFontFromFileTTF(kFontPath, 15.0f, nullptr, glyph_ranges.Data);
  }
  SetupStyle();
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  g_dropped_path = &pending_open_;
  glfwSetDropCallback(window_, GlfwDropCallback);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  imgui_ready_ = true;

  std::string error;
  renderer_ = std::make_unique<SceneRenderer>();
  glyphs_ = std::make_unique<GlDebugDraw>();
  if (!renderer_->Init(&error) || !glyphs_->Init(&error)) {
    std::fprintf(stderr, "viewer: %s\n", error.c_str());
    return false;
  }
  glEnable(GL_MULTISAMPLE);
  renderer_->SetModel(model_);
  return true;
}

void Viewer::ResetCamera() {
  const CameraDef& c = scene_.camera;
  camera_.Set(c.target, c.distance, c.azimuth, c.elevation);
}

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
    QueuedEdits edits;
    if (materials_dirty_) edits.materials = model_.materials;
    materials_dirty_ = false;
    if (shown) worker_->Submit(MakeResolveJob(*shown, edit_settings_.sap, edits), generation_);
  }
  timeline_.resolve_requested = false;
  if (timeline_.resume_requested && shown && !playback_.playing) {
    WaitIdleKeepingShownStep();
    const StepRecord record = *DisplayedRecord();  // ResumeFrom drops the newer records
    history_.ResumeFrom(record, sim_.get());
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
  // The longest impulse arrow is about one body size.
  const double target = typical_size_;
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
  worker_.reset();
  sim_ = std::move(sim);
  model_ = sim_->model();
  multibody_ = std::make_unique<Multibody>(&model_);
  edit_settings_ = sim_->settings();
  live_state_ = sim_->state();
  live_step_count_ = sim_->step_count();
  settings_dirty_ = materials_dirty_ = false;
  ++generation_;
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
    job.prepare = [spring](Simulator& sim) {
      if (spring) {
        sim.SetPerturbation(*spring);
      } else {
        sim.ClearPerturbation();
      }
    };
    spring_dirty_ = false;
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
  for (StepRecord& r : batch.records) {
    AddStepTimings(r.timings, &profile_accum_);
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

std::optional<RayHit> Viewer::PickBody(float x, float y) const {
  const Ray ray = camera_.PickRay(x - vp_x_, y - vp_y_, vp_w_, vp_h_);
  if (shown_poses_.size() != model_.bodies.size() || !ray.direction.allFinite() ||
      ray.direction.squaredNorm() == 0) {
    return std::nullopt;
  }
  try {
    return CastRay(model_, shown_poses_, ray.origin, ray.direction, /*include_static=*/false);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void Viewer::BeginBodyDrag(float x, float y) {
  const std::optional<RayHit> hit = PickBody(x, y);
  if (!hit || hit->body < 0) return;
  const Pose& X_WB = shown_poses_[hit->body];
  const Vec3 point_B = X_WB.Inverse().q * hit->point + X_WB.Inverse().p;
  drag_spring_ = MakeMouseSpring(model_, hit->body, point_B, hit->point);
  drag_depth_ = (hit->point - camera_.Eye()).dot(camera_.Forward());
  selected_body_ = hit->body;
  body_drag_ = true;
  spring_dirty_ = true;
}

void Viewer::UpdateBodyDrag(float x, float y) {
  // The target is where the cursor's ray meets the plane through the grab point facing the eye.
  const Ray ray = camera_.PickRay(x - vp_x_, y - vp_y_, vp_w_, vp_h_);
  const double along = ray.direction.dot(camera_.Forward());
  if (!(along > 1e-6)) return;
  const Vec3 target = ray.origin + (drag_depth_ / along) * ray.direction;
  if (!target.allFinite()) return;
  drag_spring_.target_W = target;
  spring_dirty_ = true;
}

void Viewer::FocusSelectedBody() {
  if (selected_body_ < 0 || selected_body_ >= static_cast<int>(shown_poses_.size())) return;
  const Pose& X_WB = shown_poses_[selected_body_];
  camera_.target = X_WB.q * model_.bodies[selected_body_].com + X_WB.p;
  camera_.distance = std::max(camera_.min_distance, 6.0 * typical_size_);
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
  vsettings_.auto_reload = scene_panel_.auto_reload;
  vsettings_.export_dir = export_panel_.dir;
  vsettings_.show_help = show_help_;
  std::string error;
  if (!SaveViewerSettingsFile(settings_file_, vsettings_, &error)) {
    std::fprintf(stderr, "viewer settings: %s\n", error.c_str());
  }
  if (imgui_ready_ && !imgui_ini_.empty()) ImGui::SaveIniSettingsToDisk(imgui_ini_.c_str());
}

int Viewer::BodyIndex(const std::string& s) const {
  if (const int b = model_.FindBody(s); b >= 0) return b;
  try {
    size_t used = 0;
    const int b = std::stoi(s, &used);
    if (used == s.size() && b >= 0 && b < static_cast<int>(model_.bodies.size())) return b;
  } catch (const std::exception&) {
  }
  return -1;
}

void Viewer::InjectInput(int frame) {
  ImGuiIO& io = ImGui::GetIO();
  for (int k : input_keys_down_) io.KeysDown[k] = false;
  input_keys_down_.clear();
  bool key_ctrl = false, key_shift = false;
  for (const InputEvent* e : EventsAtFrame(input_events_, frame)) {
    switch (e->kind) {
      case InputEvent::Kind::kKey: {
        int code = 0;
        if (e->key == "space") code = GLFW_KEY_SPACE;
        else if (e->key == "right") code = GLFW_KEY_RIGHT;
        else if (e->key == "backspace") code = GLFW_KEY_BACKSPACE;
        else if (e->key == "escape") code = GLFW_KEY_ESCAPE;
        else code = GLFW_KEY_A + (e->key[0] - 'a');
        io.KeysDown[code] = true;
        input_keys_down_.push_back(code);
        key_ctrl = key_ctrl || e->ctrl;
        key_shift = key_shift || e->shift;
        break;
      }
      case InputEvent::Kind::kMove:
        input_mouse_ = ImVec2(static_cast<float>(e->x), static_cast<float>(e->y));
        break;
      case InputEvent::Kind::kMoveBy:
        input_mouse_.x += static_cast<float>(e->x);
        input_mouse_.y += static_cast<float>(e->y);
        break;
      case InputEvent::Kind::kMoveToBody: {
        const int b = BodyIndex(e->body);
        if (b < 0) break;
        const std::vector<Pose>& poses = ShownPoses();
        const Vec3 com = poses[b].q * model_.bodies[b].com + poses[b].p;
        double px = 0, py = 0;
        if (camera_.Project(com, vp_w_, vp_h_, &px, &py)) {
          input_mouse_ = ImVec2(static_cast<float>(vp_x_ + px + e->x),
                                static_cast<float>(vp_y_ + py + e->y));
        }
        break;
      }
      case InputEvent::Kind::kDown:
        input_down_[e->button] = true;
        input_ctrl_ = e->ctrl;
        input_shift_ = e->shift;
        break;
      case InputEvent::Kind::kUp:
        input_down_[e->button] = false;
        if (!input_down_[0] && !input_down_[1] && !input_down_[2]) {
          input_ctrl_ = input_shift_ = false;
        }
        break;
      case InputEvent::Kind::kWheel:
        io.MouseWheel += static_cast<float>(e->x);
        break;
    }
  }
  io.MousePos = input_mouse_;
  for (int b = 0; b < 3; ++b) io.MouseDown[b] = input_down_[b];
  io.KeyCtrl = input_ctrl_ || key_ctrl;
  io.KeyShift = input_shift_ || key_shift;
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
    scene = LoadScene(path, path == options_.scene_path ? options_.overrides
                                                        : std::vector<std::string>{});
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
  const bool was_playing = playback_.playing;
  DoReset();
  playback_.playing = keep_view && was_playing;
  settings_error_.clear();
  renderer_->SetModel(model_);
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
  overlay_.contacts.cone_height = 0.35 * typical_size_;
  overlay_.contacts.normal_length = 0.6 * typical_size_;
}

void Viewer::StepPhysics(double wall_dt) {
  sim_time_this_frame_ = 0;
  // A finished job first: its records join the history.
  if (std::optional<PhysicsBatch> batch = worker_->Take()) ConsumeBatch(std::move(*batch));
  const double dt = edit_settings_.time_step;
  int steps = 0;
  if (scripted_ && playback_.playing) {
    // Deterministic: 1/60 s of simulated time per frame, whatever the wall clock says.
    steps = StepsForFrame(kScriptedFrameSeconds, 1.0, dt, 1 << 20, &accumulator_);
  } else if (playback_.playing) {
    pending_wall_ += wall_dt;
    if (!worker_->busy()) {
      const int max_steps = std::max(1, static_cast<int>(std::ceil(0.1 / dt)));
      steps = StepsForFrame(pending_wall_, playback_.rate, dt, max_steps, &accumulator_);
      pending_wall_ = 0;
    }
  } else {
    pending_wall_ = 0;  // paused while a job ran: its wall time is not owed after Play
  }
  if (playback_.step_requested && !worker_->busy()) {
    steps = std::max(steps, 1);
    playback_.step_requested = false;
  }
  if (steps > 0 && !worker_->busy()) {
    // A reason describes the newest pause only; scripted runs never pause and keep the first.
    if (!scripted_) timeline_.break_reason.clear();
    SubmitStepJob(steps);
  } else if ((settings_dirty_ || materials_dirty_) && !worker_->busy() && !playback_.playing) {
    SubmitStepJob(0);  // paused: the edits reach the simulator without stepping
  }
  // Scripted frames wait for their steps so that every frame shows a fixed simulated time.
  if (scripted_) WaitIdle();
  if (playback_.playing || scripted_) rate_meter_.Add(sim_time_this_frame_, wall_dt);
}

bool Viewer::PickContact(float x, float y) {
  const StepRecord* shown = DisplayedRecord();
  if (!shown) return false;
  std::vector<std::pair<double, double>> screen;
  for (const Contact& c : shown->contacts) {
    double px = 0, py = 0;
    if (!camera_.Project(c.point, vp_w_, vp_h_, &px, &py)) px = py = -1e9;  // behind the eye
    screen.emplace_back(vp_x_ + px, vp_y_ + py);
  }
  selected_contact_ = PickNearest(screen, x, y, 12.0);
  return selected_contact_ >= 0;
}

void Viewer::HandleInput() {
  ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) playback_.playing = !playback_.playing;
    if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT, true)) {
      playback_.playing = false;
      playback_.step_requested = true;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_BACKSPACE, false)) playback_.reset_requested = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_H, false)) show_help_ = !show_help_;
    if (ImGui::IsKeyPressed(GLFW_KEY_T, false)) {
      overlay_.transparent_bodies = !overlay_.transparent_bodies;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_F, false)) overlay_.fit_requested = true;
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_R, false)) reload_requested_ = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_C, false)) FocusSelectedBody();
    if (ImGui::IsKeyPressed(GLFW_KEY_A, false)) {
      vsettings_.show_analysis = !vsettings_.show_analysis;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) {
      selected_body_ = -1;
      selected_contact_ = -1;
    }
  }
  // Mouse: a drag belongs to the viewport only if it started there.
  const ImVec2 m = io.MousePos;
  const bool in_viewport =
      m.x >= vp_x_ && m.y >= vp_y_ && m.x < vp_x_ + vp_w_ && m.y < vp_y_ + vp_h_;
  if (drag_button_ < 0 && !io.WantCaptureMouse && in_viewport) {
    for (int b = 0; b < 3; ++b) {
      if (ImGui::IsMouseClicked(b)) {
        drag_button_ = b;
        drag_distance_ = 0;
        // Ctrl + left drag on a body pulls it with a spring.
        if (b == 0 && io.KeyCtrl) BeginBodyDrag(m.x, m.y);
      }
    }
    if (ImGui::IsMouseDoubleClicked(0) && !io.KeyCtrl) {
      if (const std::optional<RayHit> hit = PickBody(m.x, m.y)) {
        selected_body_ = hit->body;
        FocusSelectedBody();
      }
    }
    if (io.MouseWheel != 0) camera_.Zoom(std::pow(0.88, io.MouseWheel));
  }
  if (drag_button_ >= 0) {
    drag_distance_ += std::abs(io.MouseDelta.x) + std::abs(io.MouseDelta.y);
    if (!ImGui::IsMouseDown(drag_button_)) {
      if (body_drag_) {
        body_drag_ = false;  // released: the next job clears the spring
        spring_dirty_ = true;
      } else if (drag_button_ == 0 && drag_distance_ < 4.0f) {
        // A left click that did not orbit selects the contact under the cursor, else the body
        // under it (or nothing).
        if (!PickContact(m.x, m.y)) {
          const std::optional<RayHit> hit = PickBody(m.x, m.y);
          selected_body_ = hit ? hit->body : -1;
        }
      }
      drag_button_ = -1;
    } else if (body_drag_) {
      if (io.MouseDelta.x != 0 || io.MouseDelta.y != 0) UpdateBodyDrag(m.x, m.y);
    } else if (io.MouseDelta.x != 0 || io.MouseDelta.y != 0) {
      const bool pan = drag_button_ != 0 || io.KeyShift;
      if (pan) {
        camera_.Pan(io.MouseDelta.x, io.MouseDelta.y, vp_h_);
      } else {
        camera_.Orbit(-0.008 * io.MouseDelta.x, 0.008 * io.MouseDelta.y);
      }
    }
  }
}

void Viewer::BuildUi() {
  ImGuiIO& io = ImGui::GetIO();
  const float W = io.DisplaySize.x, H = io.DisplaySize.y;
  // Column sizes follow the user's resizing (persisted), but always leave a 3D view.
  const float max_side = std::max(150.0f, 0.5f * (W - kMinViewportSize));
  const float L = std::clamp(vsettings_.left_panel_width, 150.0f, max_side);
  const float R = vsettings_.show_analysis
                      ? std::clamp(vsettings_.right_panel_width, 150.0f, max_side)
                      : 0.0f;
  const float B = std::clamp(vsettings_.bottom_panel_height, 50.0f,
                             std::max(50.0f, H - kMinViewportSize));

  // Left column: scene, playback, timeline, overlay, solver, parameters, exports.
  ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(L, H), ImGuiCond_Always);
  ImGui::SetNextWindowSizeConstraints(ImVec2(150.0f, H), ImVec2(max_side, H));
  ImGui::Begin("ContactLab", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings);
  const float new_l = ImGui::GetWindowWidth();
  ImGui::TextColored(ImVec4(0.55f, 0.78f, 1.0f, 1.0f), "ContactLab");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", std::filesystem::path(options_.scene_path).filename().c_str());
  if (!scene_.description.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", scene_.description.c_str());
    ImGui::PopTextWrapPos();
  }
  if (!scene_error_.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.35f, 1.0f), "scene not loaded: %s",
                       scene_error_.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();

  ImGui::SetNextItemOpen(vsettings_.show_scene_browser, ImGuiCond_Once);
  vsettings_.show_scene_browser = ImGui::CollapsingHeader("Scenes");
  if (vsettings_.show_scene_browser) {
    if (!scene_list_scanned_) RefreshSceneList();
    scene_panel_.error = scene_error_;
    const ScenePanelAction action =
        DrawScenePanel(scene_entries_, options_.scene_path, &scene_panel_);
    if (action.kind == SceneAction::kOpen) pending_open_ = action.path;
    if (action.kind == SceneAction::kReload) reload_requested_ = true;
    if (ImGui::SmallButton("Rescan scenes folder")) RefreshSceneList();
  }

  ImGui::SetNextItemOpen(vsettings_.show_exports, ImGuiCond_Once);
  vsettings_.show_exports = ImGui::CollapsingHeader("Export");
  if (vsettings_.show_exports) {
    const StepRecord* shown = DisplayedRecord();
    const ExportRequest request =
        DrawExportPanel(&export_panel_, shown ? shown->step : -1, shown != nullptr);
    if (request.kind != ExportKind::kNone) HandleExport(request);
  }

  playback_.sim_time = live_state_.time;
  playback_.step = history_.empty() ? live_step_count_ : history_.newest_step() + 1;
  playback_.time_step = edit_settings_.time_step;
  playback_.real_time_factor = rate_meter_.value();
  playback_.frame_ms = 1e3 * io.DeltaTime;
  if (ImGui::CollapsingHeader("Playback", ImGuiTreeNodeFlags_DefaultOpen)) {
    DrawPlaybackPanel(&playback_);
    ImGui::SetNextItemOpen(vsettings_.show_profiler, ImGuiCond_Once);
    vsettings_.show_profiler = ImGui::TreeNode("Frame profile");
    if (vsettings_.show_profiler) {
      DrawProfilerBar(profile_);
      ImGui::TextDisabled("physics runs on its own thread, beside render and UI");
      ImGui::TreePop();
    }
  }
  if (ImGui::CollapsingHeader("Timeline and breakpoints", ImGuiTreeNodeFlags_DefaultOpen)) {
    TimelineView view;
    view.count = history_.size();
    view.oldest_step = history_.oldest_step();
    view.newest_step = history_.newest_step();
    const StepRecord* shown = DisplayedRecord();
    view.shown_step = shown ? shown->step : -1;
    view.bytes = history_.bytes();
    view.paused = !playback_.playing && !scripted_;
    const ResolveComparison* comparison = DisplayedComparison();
    view.has_comparison = comparison != nullptr;
    if (comparison) view.comparison_legend = ResolveLegend(comparison->before, comparison->after);
    if (DrawTimelinePanel(view, &timeline_)) HandleTimelineRequests();
  }
  if (open_overlay_) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  if (ImGui::CollapsingHeader("Contact overlay")) {
    DrawOverlayPanel(&overlay_);
  }
  if (selected_body_ >= 0) {
    if (ImGui::CollapsingHeader("Selected body", ImGuiTreeNodeFlags_DefaultOpen)) {
      DrawSelectionPanel();
    }
  }
  if (ImGui::CollapsingHeader("Solver", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (!step_error_.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.35f, 1.0f), "step failed: %s", step_error_.c_str());
      ImGui::PopTextWrapPos();
    }
    if (const StepRecord* shown = DisplayedRecord()) {
      const ResolveComparison* comparison = DisplayedComparison();
      DrawSolverPanel(*shown, edit_settings_.sap.rel_tolerance,
                      comparison ? &comparison->after : nullptr);
    } else {
      ImGui::TextDisabled("no step yet: press Space to play or Right to step");
    }
  }
  if (open_parameters_) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  if (ImGui::CollapsingHeader("Parameters")) {
    const StepSettings settings_before = edit_settings_;
    if (DrawParameterPanel(&edit_settings_, &model_.materials)) {
      // Validated here so the panel shows a refusal at once; applied by the next job (the
      // materials with it: sending unchanged ones again is harmless).
      try {
        edit_settings_.Validate();
        settings_error_.clear();
        settings_dirty_ = true;
      } catch (const std::exception& e) {
        settings_error_ = e.what();
        edit_settings_ = settings_before;
      }
      materials_dirty_ = true;
    }
    if (!settings_error_.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.35f, 1.0f), "%s", settings_error_.c_str());
      ImGui::PopTextWrapPos();
    }
  }
  if (ImGui::CollapsingHeader("Help")) DrawHelpPanel();
  ImGui::End();
  if (!scripted_) vsettings_.left_panel_width = new_l;

  // Right column: convergence, time series, conditioning.
  if (vsettings_.show_analysis) DrawAnalysisColumn(W - R, R, H - B);

  // Bottom strip: contact inspector.
  ImGui::SetNextWindowPos(ImVec2(L, H - B), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(W - L, B), ImGuiCond_Always);
  ImGui::SetNextWindowSizeConstraints(ImVec2(W - L, 50.0f),
                                      ImVec2(W - L, std::max(50.0f, H - kMinViewportSize)));
  ImGui::Begin("Contacts", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoSavedSettings);
  const float new_b = ImGui::GetWindowHeight();
  if (selected_body_ >= 0 && inspector_body_only_) {
    const std::string& name = model_.bodies[selected_body_].name;
    std::vector<ContactRow> rows;
    for (const ContactRow& r : rows_) {
      if (r.body_a == name || r.body_b == name) rows.push_back(r);
    }
    DrawContactInspector(rows, &selected_contact_);
  } else {
    DrawContactInspector(rows_, &selected_contact_);
  }
  ImGui::End();
  if (!scripted_) vsettings_.bottom_panel_height = new_b;

  if (show_help_) {
    ImGui::SetNextWindowPos(ImVec2(L + 0.5f * (W - L - R), 0.4f * H), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    ImGui::Begin("Keyboard and mouse", &show_help_, ImGuiWindowFlags_AlwaysAutoResize);
    DrawHelpPanel();
    ImGui::End();
  }

  vp_x_ = L;
  vp_y_ = 0;
  vp_w_ = std::max(1.0f, W - L - R);
  vp_h_ = std::max(1.0f, H - B);
}

void Viewer::DrawAnalysisColumn(float x, float width, float height) {
  ImGui::SetNextWindowPos(ImVec2(x, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width, height), ImGuiCond_Always);
  ImGui::Begin("Analysis", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings);
  // Resizing from the left edge moves the window: its width is the new column width.
  if (!scripted_) vsettings_.right_panel_width = ImGui::GetWindowWidth();
  const StepRecord* shown = DisplayedRecord();
  if (ImGui::BeginTabBar("analysis_tabs")) {
    auto flags = [&](int tab) {
      return analysis_tab_request_ == tab ? ImGuiTabItemFlags_SetSelected : 0;
    };
    if (ImGui::BeginTabItem("Convergence", nullptr, flags(0))) {
      if (shown) {
        ConvergenceView view;
        view.current = &shown->result;
        const ResolveComparison* comparison = DisplayedComparison();
        if (comparison) view.resolved = &comparison->after;
        view.earlier = EarlierResults(history_, shown->step, earlier_overlay_);
        view.tolerance = edit_settings_.sap.rel_tolerance;
        view.step = shown->step;
        view.plot_height = std::max(90.0f, 0.25f * height);
        DrawConvergencePanel(view);
        ImGui::SetNextItemWidth(120.0f);
        ImGui::SliderInt("earlier steps overlaid", &earlier_overlay_, 0, 30);
      } else {
        ImGui::TextDisabled("no step yet");
      }
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Time series", nullptr, flags(1))) {
      vsettings_.show_time_series = true;
      if (series_count_ != history_.size() || series_newest_ != history_.newest_step()) {
        series_ = ExtractTimeSeries(history_);
        series_count_ = history_.size();
        series_newest_ = history_.newest_step();
      }
      if (series_.size() == 0) {
        ImGui::TextDisabled("no step yet");
      } else {
        const float plot_h = std::max(40.0f, (height - 120.0f) / 6.0f - 18.0f);
        const int clicked = DrawTimeSeriesPanel(series_, shown ? shown->step : -1, plot_h);
        if (clicked >= 0 && history_.Get(clicked)) {
          // Jump the timeline there (pausing the run).
          playback_.playing = false;
          timeline_.follow_live = false;
          timeline_.slider = clicked - history_.oldest_step();
          OnNewRecord();
        }
        ImGui::TextDisabled("click a plot to show that step");
      }
      ImGui::EndTabItem();
    } else {
      vsettings_.show_time_series = false;
    }
    if (ImGui::BeginTabItem("Conditioning", nullptr, flags(2))) {
      vsettings_.show_conditioning = true;
      ImGui::Checkbox("analyze every shown step", &conditioning_auto_);
      ImGui::SameLine();
      const bool busy = conditioning_job_.valid();
      if (busy) ImGui::BeginDisabled();
      if (ImGui::Button("Analyze") && shown) StartConditioning(*shown);
      if (busy) ImGui::EndDisabled();
      if (shown && conditioning_auto_ && !busy &&
          (conditioning_step_ != shown->step || conditioning_generation_ != generation_)) {
        StartConditioning(*shown);
      }
      if (scripted_) PollConditioning();  // scripted frames show the analysis of their step
      if (busy) {
        ImGui::SameLine();
        ImGui::TextDisabled("computing step %d...", conditioning_job_step_);
      }
      if (conditioning_ && conditioning_generation_ == generation_) {
        ImGui::TextDisabled("step %d", conditioning_step_);
        auto tex = [](const std::unique_ptr<ImageTexture>& t) {
          return t && t->id() != 0
                     ? reinterpret_cast<ImTextureID>(static_cast<intptr_t>(t->id()))
                     : nullptr;
        };
        DrawConditioningPanel(*conditioning_, tex(h_texture_), tex(j_texture_));
      } else if (!busy) {
        ImGui::TextDisabled("no analysis yet");
      }
      ImGui::EndTabItem();
    } else {
      vsettings_.show_conditioning = false;
    }
    ImGui::EndTabBar();
  }
  analysis_tab_request_ = -1;
  ImGui::End();
}

void Viewer::DrawSelectionPanel() {
  const Body& body = model_.bodies[selected_body_];
  ImGui::Text("%s   (body %d)", body.name.c_str(), selected_body_);
  ImGui::TextDisabled("mass %.4g kg", body.mass);
  const StepRecord* shown = DisplayedRecord();
  const State& state = shown ? shown->after : live_state_;
  if (selected_body_ < static_cast<int>(shown_poses_.size())) {
    KinematicsCache kin;
    multibody_->UpdateKinematics(state.q, state.time, &kin);
    const Vec3 com = kin.com_W[selected_body_];
    const Vec3 v = multibody_->PointVelocity(kin, state.v, selected_body_, com);
    ImGui::Text("com  %+.4f %+.4f %+.4f m", com.x(), com.y(), com.z());
    ImGui::Text("v    %+.4f %+.4f %+.4f m/s", v.x(), v.y(), v.z());
  }
  int contacts = 0;
  for (const ContactRow& r : rows_) {
    if (r.body_a == body.name || r.body_b == body.name) ++contacts;
  }
  ImGui::Text("%d contacts", contacts);
  ImGui::SameLine();
  ImGui::Checkbox("only these in the table", &inspector_body_only_);
  if (ImGui::SmallButton("Centre camera (C)")) FocusSelectedBody();
  ImGui::SameLine();
  if (ImGui::SmallButton("Clear (Esc)")) selected_body_ = -1;
  if (body_drag_) {
    const Vec3& t = drag_spring_.target_W;
    ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.3f, 1.0f), "pulling: k = %.3g N/m to %.3f %.3f %.3f",
                       drag_spring_.stiffness, t.x(), t.y(), t.z());
  }
}

void Viewer::StartConditioning(const StepRecord& record) {
  ConditioningOptions options;
  options.image_width = options.image_height = 192;
  conditioning_job_step_ = record.step;
  conditioning_job_generation_ = generation_;
  conditioning_job_ = std::async(std::launch::async,
                                 [problem = record.problem, result = record.result, options] {
                                   return AnalyzeConditioning(problem, result, options);
                                 });
  if (scripted_) conditioning_job_.wait();
}

void Viewer::PollConditioning() {
  if (!conditioning_job_.valid()) return;
  if (conditioning_job_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  ConditioningReport report;
  try {
    report = conditioning_job_.get();
  } catch (const std::exception& e) {
    report.ok = false;
    report.message = e.what();
  }
  // A step of a run that was reset, resumed from an earlier step or reloaded since.
  if (conditioning_job_generation_ != generation_) return;
  conditioning_ = std::move(report);
  conditioning_step_ = conditioning_job_step_;
  conditioning_generation_ = conditioning_job_generation_;
  if (!h_texture_) h_texture_ = std::make_unique<ImageTexture>();
  if (!j_texture_) j_texture_ = std::make_unique<ImageTexture>();
  const SparsityImage& h = conditioning_->H_pattern;
  const SparsityImage& j = conditioning_->J_pattern;
  if (h.width > 0 && h.height > 0) h_texture_->Upload(h.width, h.height, SparsityImageToRgba(h));
  if (j.width > 0 && j.height > 0) j_texture_->Upload(j.width, j.height, SparsityImageToRgba(j));
}

void Viewer::HandleExport(const ExportRequest& request) {
  export_panel_.message_is_error = false;
  std::string error;
  if (!CreateExportDir(export_panel_.dir, &error)) {
    export_panel_.message = error;
    export_panel_.message_is_error = true;
    return;
  }
  const StepRecord* shown = DisplayedRecord();
  try {
    // Writes with `write` into request.path; a stream error anywhere is a failed export.
    auto write_file = [&](const auto& write) {
      std::ofstream out(request.path);
      if (!out) throw std::runtime_error("cannot write " + request.path);
      write(out);
      out.close();
      if (!out) throw std::runtime_error("writing " + request.path + " failed");
    };
    switch (request.kind) {
      case ExportKind::kScreenshot:
        pending_screenshot_ = request.path;  // written once this frame is drawn
        return;
      case ExportKind::kStatsCsv:
        write_file([&](std::ostream& o) { WriteHistoryCsv(history_, o); });
        break;
      case ExportKind::kStatsJson:
        write_file([&](std::ostream& o) { WriteHistoryJson(history_, o); });
        break;
      case ExportKind::kIterationsCsv:
        if (!shown) return;
        write_file([&](std::ostream& o) { WriteIterationsCsv(*shown, o); });
        break;
      case ExportKind::kIterationsJson:
        if (!shown) return;
        write_file([&](std::ostream& o) { WriteIterationsJson(*shown, o); });
        break;
      case ExportKind::kProblem:
        if (!shown) return;
        ExportStepProblem(*shown, edit_settings_.sap, request.path);
        break;
      case ExportKind::kNone:
        return;
    }
    export_panel_.message = "wrote " + request.path;
  } catch (const std::exception& e) {
    export_panel_.message = e.what();
    export_panel_.message_is_error = true;
  }
}

void Viewer::RenderScene() {
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window_, &fb_w, &fb_h);
  const ImGuiIO& io = ImGui::GetIO();
  const float sx = io.DisplaySize.x > 0 ? fb_w / io.DisplaySize.x : 1.0f;
  const float sy = io.DisplaySize.y > 0 ? fb_h / io.DisplaySize.y : 1.0f;
  // GL viewport origin is the bottom-left corner.
  const int x = static_cast<int>(std::lround(vp_x_ * sx));
  const int w = static_cast<int>(std::lround(vp_w_ * sx));
  const int h = static_cast<int>(std::lround(vp_h_ * sy));
  const int y = fb_h - static_cast<int>(std::lround(vp_y_ * sy)) - h;

  RenderOptions ro;
  ro.transparent_bodies = overlay_.transparent_bodies;
  ro.body_alpha = overlay_.body_alpha;
  ro.show_grid = overlay_.show_grid;
  ro.glyphs_on_top = overlay_.glyphs_on_top;
  ro.grid_spacing = static_cast<float>(GridSpacingForDistance(scene_.camera.distance));

  glViewport(0, 0, fb_w, fb_h);
  glClearColor(0.05f, 0.05f, 0.06f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  renderer_->BeginFrame(x, y, w, h, camera_, ro);
  // Bodies at the end of the displayed step (the live state when following the simulation).
  const StepRecord* shown = DisplayedRecord();
  renderer_->DrawModel(model_, ShownPoses(), ro);

  glyphs_->Clear();
  glyphs_->set_arrow_radius(0.0022 * camera_.distance);
  glyphs_->set_pixel_scale(sx);
  if (shown) {
    DrawContacts(*shown, overlay_.contacts, glyphs_.get());
    if (selected_contact_ >= 0 && selected_contact_ < static_cast<int>(shown->contacts.size())) {
      const Contact& c = shown->contacts[selected_contact_];
      glyphs_->Point(c.point, 2.2 * overlay_.contacts.point_size, Color{1, 1, 1, 1});
      glyphs_->Line(c.point, c.point + 0.08 * camera_.distance * c.normal, Color{1, 1, 1, 1});
      glyphs_->Text(c.point, "#" + std::to_string(selected_contact_), Color{1, 1, 1, 1});
    }
  }
  // Selected body: a frame at its centre of mass and its name.
  if (selected_body_ >= 0 && selected_body_ < static_cast<int>(shown_poses_.size())) {
    const Pose& X = shown_poses_[selected_body_];
    const Vec3 com = X.q * model_.bodies[selected_body_].com + X.p;
    const double len = 1.2 * typical_size_;
    const Mat3 Rm = X.q.toRotationMatrix();
    glyphs_->Arrow(com, com + len * Rm.col(0), Color{1.0f, 0.3f, 0.3f, 1});
    glyphs_->Arrow(com, com + len * Rm.col(1), Color{0.3f, 1.0f, 0.3f, 1});
    glyphs_->Arrow(com, com + len * Rm.col(2), Color{0.3f, 0.5f, 1.0f, 1});
    glyphs_->Text(com, model_.bodies[selected_body_].name, Color{1, 1, 1, 1});
  }
  // Mouse spring: from the grabbed point to the cursor target.
  if (body_drag_ && drag_spring_.body >= 0 &&
      drag_spring_.body < static_cast<int>(shown_poses_.size())) {
    const Pose& X = shown_poses_[drag_spring_.body];
    const Vec3 grabbed = X.q * drag_spring_.point_B + X.p;
    const Color spring{1.0f, 0.85f, 0.3f, 1.0f};
    glyphs_->Line(grabbed, drag_spring_.target_W, spring);
    glyphs_->Point(grabbed, 0.8 * overlay_.contacts.point_size, spring);
    glyphs_->Point(drag_spring_.target_W, 1.2 * overlay_.contacts.point_size, spring);
  }
  glyphs_->Flush(renderer_->view(), renderer_->projection(), renderer_->eye(), ro.glyphs_on_top);
  glViewport(0, 0, fb_w, fb_h);
}

void Viewer::DrawLabels() {
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  // Status line in the viewport's top-left corner.
  {
    char line[512];
    const StepRecord* shown = DisplayedRecord();
    const bool browsing = shown && shown->step != history_.newest_step();
    const double time = shown ? shown->after.time : live_state_.time;
    const int contacts = shown ? static_cast<int>(shown->contacts.size()) : 0;
    const int iterations = shown ? shown->result.stats.iterations : 0;
    std::string mode = playback_.playing ? "playing" : "paused (Space to play)";
    if (browsing) mode = "viewing recorded step " + std::to_string(shown->step);
    if (!playback_.playing && !timeline_.break_reason.empty()) {
      mode += "   break at " + timeline_.break_reason;
    }
    std::snprintf(line, sizeof(line), "t = %.3f s   %d contacts   %d iterations   %s", time,
                  contacts, iterations, mode.c_str());
    const ImVec2 pos(vp_x_ + 12.0f, vp_y_ + 10.0f);
    dl->AddText(ImVec2(pos.x + 1, pos.y + 1), IM_COL32(0, 0, 0, 180), line);
    dl->AddText(pos, IM_COL32(235, 238, 242, 255), line);
    // A failed step and the step's divergence warnings, in red under the status line, with a
    // dark backing so that they read over any scene.
    std::vector<std::string> alerts;
    if (shown) alerts = StepAlerts(*shown);
    if (alerts.empty() && !last_alert_.empty()) alerts.push_back("latest: " + last_alert_);
    {
      float y = pos.y + ImGui::GetTextLineHeightWithSpacing();
      const float wrap = std::max(200.0f, vp_w_ - 24.0f);
      for (const std::string& a : alerts) {
        const ImVec2 size = ImGui::CalcTextSize(a.c_str(), nullptr, false, wrap);
        dl->AddRectFilled(ImVec2(pos.x - 4, y - 2), ImVec2(pos.x + size.x + 4, y + size.y + 2),
                          IM_COL32(20, 0, 0, 200), 3.0f);
        dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(pos.x, y),
                    IM_COL32(255, 110, 100, 255), a.c_str(), nullptr, wrap);
        y += size.y + 6;
      }
    }
  }
  for (const GlDebugDraw::TextItem& t : glyphs_->texts()) {
    double px = 0, py = 0;
    if (!camera_.Project(t.p, vp_w_, vp_h_, &px, &py)) continue;
    const ImVec2 pos(vp_x_ + static_cast<float>(px) + 7.0f, vp_y_ + static_cast<float>(py) - 7.0f);
    dl->AddText(ImVec2(pos.x + 1, pos.y + 1), IM_COL32(0, 0, 0, 200), t.text.c_str());
    dl->AddText(pos, ToImU32(t.color), t.text.c_str());
  }
}

int Viewer::Run() {
  scripted_ = options_.frames > 0;
  if (!options_.input_path.empty()) {
    std::ifstream in(options_.input_path);
    std::string error;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) error = "cannot read the file";
    if (error.empty() && !ParseInputScript(text, &input_events_, &error)) {
      // error set by the parser
    }
    if (!error.empty()) {
      std::fprintf(stderr, "%s: %s\n", options_.input_path.c_str(), error.c_str());
      return 2;
    }
  }
  try {
    StartSimulation();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", options_.scene_path.c_str(), e.what());
    return 2;
  }
  // Refused before any window opens, so that a wrong index never needs a display.
  if (options_.select_body >= static_cast<int>(model_.bodies.size())) {
    std::fprintf(stderr, "viewer: --select %d is out of range [0, %d] (the scene's bodies)\n",
                 options_.select_body, static_cast<int>(model_.bodies.size()) - 1);
    return 2;
  }
  LoadSettings();
  if (!CreateWindow()) return 1;
  ResetCamera();
  FitGlyphsToScene();
  ApplyViewerSettings(vsettings_, typical_size_, &overlay_, &playback_);
  playback_.playing = scripted_ || options_.seconds > 0;
  show_help_ = vsettings_.show_help;
  if (options_.transparent) overlay_.transparent_bodies = true;
  if (options_.labels) overlay_.contacts.labels = true;
  for (const std::string& panel : options_.panels) {
    if (panel == "convergence") analysis_tab_request_ = 0;
    if (panel == "timeseries") analysis_tab_request_ = 1;
    if (panel == "conditioning") analysis_tab_request_ = 2;
    if (panel == "convergence" || panel == "timeseries" || panel == "conditioning") {
      vsettings_.show_analysis = true;
    }
    if (panel == "scenes") vsettings_.show_scene_browser = true;
    if (panel == "exports") vsettings_.show_exports = true;
    if (panel == "profiler") vsettings_.show_profiler = true;
    if (panel == "overlay") open_overlay_ = true;
    if (panel == "parameters") open_parameters_ = true;
    if (panel == "help") show_help_ = true;
  }
  if (options_.select_body >= 0) selected_body_ = options_.select_body;
  watcher_.SetFiles(SceneFiles());
  export_panel_.scene_stem = std::filesystem::path(options_.scene_path).stem().string();
  if (!options_.trajectory_path.empty()) {
    trajectory_.open(options_.trajectory_path);
    if (!trajectory_) {
      std::fprintf(stderr, "viewer: cannot write %s\n", options_.trajectory_path.c_str());
      return 1;
    }
    trajectory_bodies_ = TrajectoryBodies(model_);
    WriteTrajectoryHeader(trajectory_);
    WriteTrajectoryRows(trajectory_, *multibody_, trajectory_bodies_, 0, live_state_);
  }

  int frame = 0;
  auto last = Clock::now();
  const auto loop_start = last;
  int exit_code = 0;
  std::vector<double> frame_ms_list;  // wall time of every frame [ms]
  while (!glfwWindowShouldClose(window_)) {
    const auto frame_start = Clock::now();
    if (frame > 0) frame_ms_list.push_back(1e3 * Seconds(frame_start - last));
    // Timed interactive run (--seconds): real-time pacing, then exit like a closed window.
    if (options_.seconds > 0 && Seconds(frame_start - loop_start) >= options_.seconds) break;
    glfwPollEvents();
    const double wall_dt = Seconds(frame_start - last);
    last = frame_start;

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (!input_events_.empty()) InjectInput(frame);
    ImGui::NewFrame();
    if (!scripted_ || !input_events_.empty()) HandleInput();
    PollSceneFiles();
    PollConditioning();
    if (playback_.reset_requested) {
      DoReset();
      playback_.reset_requested = false;
    }
    if (!pending_open_.empty()) {
      const std::string path = std::move(pending_open_);
      pending_open_.clear();
      OpenScene(path, false);
    }
    if (reload_requested_) {
      reload_requested_ = false;
      OpenScene(options_.scene_path, true);
    }
    StepPhysics(scripted_ ? kScriptedFrameSeconds : wall_dt);
    UpdateImpulseScale();
    const auto ui_start = Clock::now();
    BuildUi();
    const auto render_start = Clock::now();
    RenderScene();
    DrawLabels();
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    // With the profiler on, wait for the GL work so that it counts as render time.
    if (scripted_ || vsettings_.show_profiler) glFinish();
    const auto render_end = Clock::now();
    // The frame's profile: physics phases of the steps taken this frame, UI and render.
    profile_ = profile_accum_;
    profile_accum_ = FrameProfile{};
    profile_.ui_ms = 1e3 * Seconds(render_start - ui_start);
    profile_.render_ms = 1e3 * Seconds(render_end - render_start);
    profile_.frame_ms = 1e3 * wall_dt;
    ui_ms_total_ += profile_.ui_ms;
    render_ms_total_ += profile_.render_ms;
    if (!pending_screenshot_.empty()) {
      int fb_w = 0, fb_h = 0;
      glfwGetFramebufferSize(window_, &fb_w, &fb_h);
      std::string error;
      if (SaveScreenshot(pending_screenshot_, fb_w, fb_h, &error)) {
        export_panel_.message = "wrote " + pending_screenshot_;
        export_panel_.message_is_error = false;
      } else {
        export_panel_.message = error;
        export_panel_.message_is_error = true;
      }
      pending_screenshot_.clear();
    }
    ++frame;
    if (scripted_ && frame >= options_.frames) {
      if (!options_.screenshot_path.empty()) {
        int fb_w = 0, fb_h = 0;
        glfwGetFramebufferSize(window_, &fb_w, &fb_h);
        std::string error;
        if (!SaveScreenshot(options_.screenshot_path, fb_w, fb_h, &error)) {
          std::fprintf(stderr, "viewer: %s\n", error.c_str());
          exit_code = 1;
        }
      }
      break;
    }
    glfwSwapBuffers(window_);
  }
  if (frame > 0) {
    // Wall time per frame including buffer swaps (the GL work finishes there or in the read).
    const double frame_ms = 1e3 * Seconds(Clock::now() - loop_start) / frame;
    std::printf(
        "viewer: %d frames, %.2f ms per frame (physics %.2f ms on its thread, ui %.2f ms, "
        "render %.2f ms), %d steps, t = %.4f s [%s, %d samples]\n",
        frame, frame_ms, physics_ms_total_ / frame, ui_ms_total_ / frame,
        render_ms_total_ / frame, live_step_count_, live_state_.time, gl_renderer_.c_str(),
        msaa_samples_);
    if (frame_ms_list.size() >= 2) {
      std::vector<double> sorted = frame_ms_list;
      std::sort(sorted.begin(), sorted.end());
      auto quantile = [&](double q) {
        return sorted[static_cast<size_t>(q * static_cast<double>(sorted.size() - 1))];
      };
      std::printf(
          "viewer: frame time median %.2f ms, p95 %.2f ms, max %.2f ms; physics %.1f%% of real "
          "time\n",
          quantile(0.5), quantile(0.95), sorted.back(),
          100.0 * live_state_.time / std::max(1e-9, Seconds(Clock::now() - loop_start)));
    }
    if (selected_body_ >= 0) {
      std::printf("viewer: selected body %d (%s)\n", selected_body_,
                  model_.bodies[selected_body_].name.c_str());
    }
  }
  SaveSettings();
  return exit_code;
}

}  // namespace

const std::vector<std::string>& ViewerPanels() {
  static const std::vector<std::string> kPanels{
      "convergence", "timeseries", "conditioning", "scenes", "exports",
      "profiler",    "overlay",    "parameters",   "help"};
  return kPanels;
}

bool IsViewerPanelName(const std::string& name) {
  const std::vector<std::string>& p = ViewerPanels();
  return std::find(p.begin(), p.end(), name) != p.end();
}

std::string ViewerPanelNames() {
  std::string out;
  for (const std::string& p : ViewerPanels()) out += (out.empty() ? "" : ", ") + p;
  return out;
}

int RunViewer(const ViewerOptions& options) {
  Scene scene;
  try {
    scene = LoadScene(options.scene_path, options.overrides);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  Viewer viewer(options, std::move(scene));
  return viewer.Run();
}

bool ParseViewerArgs(int argc, const char* const* argv, ViewerOptions* options,
                     std::string* error) {
  auto need_value = [&](int i) {
    if (i + 1 >= argc) {
      *error = std::string("missing value after ") + argv[i];
      return false;
    }
    return true;
  };
  auto parse_int = [&](const char* s, int* out) {
    try {
      size_t used = 0;
      const int v = std::stoi(s, &used);
      if (used != std::string(s).size()) throw std::invalid_argument(s);
      *out = v;
      return true;
    } catch (const std::exception&) {
      *error = std::string("not an integer: ") + s;
      return false;
    }
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--frames" || a == "--width" || a == "--height" || a == "--msaa") {
      if (!need_value(i)) return false;
      int v = 0;
      if (!parse_int(argv[++i], &v)) return false;
      if (a == "--frames") options->frames = v;
      if (a == "--width") options->width = v;
      if (a == "--height") options->height = v;
      if (a == "--msaa") options->msaa_samples = v;
      if ((a == "--width" || a == "--height") && v <= 0) {
        *error = a + " must be positive";
        return false;
      }
    } else if (a == "--transparent") {
      options->transparent = true;
    } else if (a == "--labels") {
      options->labels = true;
    } else if (a == "--panel") {
      if (!need_value(i)) return false;
      const std::string name = argv[++i];
      if (!IsViewerPanelName(name)) {
        *error = "unknown panel " + name + " (" + ViewerPanelNames() + ")";
        return false;
      }
      options->panels.push_back(name);
    } else if (a == "--seconds") {
      if (!need_value(i)) return false;
      try {
        size_t used = 0;
        options->seconds = std::stod(argv[++i], &used);
        if (used != std::string(argv[i]).size() || !(options->seconds > 0)) throw 0;
      } catch (...) {
        *error = std::string("--seconds needs a positive number, got ") + argv[i];
        return false;
      }
    } else if (a == "--input") {
      if (!need_value(i)) return false;
      options->input_path = argv[++i];
    } else if (a == "--trajectory") {
      if (!need_value(i)) return false;
      options->trajectory_path = argv[++i];
    } else if (a == "--settings") {
      if (!need_value(i)) return false;
      options->settings_path = argv[++i];
    } else if (a == "--no-settings") {
      options->no_settings = true;
    } else if (a == "--select") {
      if (!need_value(i)) return false;
      if (!parse_int(argv[++i], &options->select_body)) return false;
      if (options->select_body < 0) {
        *error = "--select needs a body index >= 0";
        return false;
      }
    } else if (a == "--screenshot") {
      if (!need_value(i)) return false;
      options->screenshot_path = argv[++i];
    } else if (a == "--set") {
      if (!need_value(i)) return false;
      options->overrides.push_back(argv[++i]);
    } else if (!a.empty() && a[0] == '-') {
      *error = "unknown option " + a;
      return false;
    } else if (options->scene_path.empty()) {
      options->scene_path = a;
    } else {
      *error = "more than one scene given: " + a;
      return false;
    }
  }
  if (options->scene_path.empty()) {
    *error = "no scene given";
    return false;
  }
  return true;
}

}  // namespace contactlab
