// Internal to the viewer (app/viewer/): the Viewer class that `contactlab view` runs, shared by
// its source files:
//   viewer.cc          the window and the frame loop (Run), drawing the 3D view and its labels,
//                      and the public functions of viewer.h;
//   viewer_session.cc  the simulation behind the window: the physics worker and its batches, the
//                      history and timeline requests, scene (re)loading, settings files;
//   viewer_panels.cc   the panels: the layout of the columns (BuildUi), the analysis column, the
//                      selection panel, the conditioning job and exports;
//   viewer_input.cc    input: keys, mouse (orbit, pan, picking, the mouse spring) and the
//                      scripted events of --input;
//   viewer_compare.cc  compare mode (the other configurations' ghosts, their lockstep rounds,
//                      the compare tab) and the race on a frozen step (its job and tab).
// Included only by those files (checked by tests/test_layering.cc).
#pragma once

#include <imgui.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/export.h"
#include "app/runner.h"
#include "app/scene.h"
#include "app/viewer/compare_session.h"
#include "app/viewer/input_script.h"
#include "app/viewer/physics_worker.h"
#include "app/viewer/video_recorder.h"
#include "app/viewer/viewer.h"
#include "engine/geometry/raycast.h"
#include "engine/inspect/breakpoints.h"
#include "engine/inspect/conditioning.h"
#include "engine/inspect/debug_draw.h"
#include "engine/inspect/history.h"
#include "engine/inspect/pressure_draw.h"
#include "engine/sim/simulator.h"
#include "render/camera.h"
#include "render/gl_debug_draw.h"
#include "render/image_texture.h"
#include "render/renderer.h"
#include "ui/analysis_panels.h"
#include "ui/compare_data.h"
#include "ui/compare_panels.h"
#include "ui/contact_tooltip.h"
#include "ui/export_panel.h"
#include "ui/panels.h"
#include "ui/plot_data.h"
#include "ui/pressure_panels.h"
#include "ui/scene_browser.h"
#include "ui/ui_data.h"
#include "ui/viewer_settings.h"

struct GLFWwindow;

namespace contactlab {
namespace viewer_internal {

constexpr double kScriptedFrameSeconds = 1.0 / 60.0;  // simulated time per scripted frame

// The failure and the divergence warnings of a step, one line each (empty for a clean step).
std::vector<std::string> StepAlerts(const StepRecord& r);

// Everything the viewer keeps between frames.
class Viewer {
 public:
  Viewer(const ViewerOptions& options, Scene scene) : options_(options), scene_(std::move(scene)) {}
  ~Viewer();

  // Returns the process exit code.
  int Run();
  // A scene load error to show in the scene browser (the scene given could not be loaded and
  // this one opened instead).
  void ShowSceneError(const std::string& error) { scene_error_ = error; }

 private:
  bool CreateWindow();
  void ResetCamera();
  // The model's meshes on the GPU, half-spaces that bound each other drawn as the finite faces
  // of the box they form (render/scene_geometry.h).
  void UploadModel();
  // Camera presets (front, side, top, fit to the bodies with finite geometry) and the tracking
  // camera, moved towards its goal each frame by `dt` [s] (viewer_input.cc).
  void ApplyPreset(CameraPreset preset);
  void CycleTracking();
  void UpdateTracking(double dt);
  // The tracked point: the selected body's centre of mass, or the centroid of the shown step's
  // contacts with an impulse (of every contact when none has one); false when there is none.
  bool TrackingGoal(Vec3* goal);
  void DrawAxesGizmo();
  void DrawCameraPanel();
  // A left-column section header: records its rectangle (layout_, for --print-layout and the
  // scrolling below).
  void NoteSection(const char* name);
  // While a --panel asks for a left-column section (scroll_section_), scrolls the column just
  // enough that the whole section shows (its header at the top when it is taller than the
  // window). Called before the column's End().
  void ScrollToRequestedSection(float window_height);
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
  // After ImGui::NewFrame: the script's keys of this frame count as pressed this frame.
  void PressScriptedKeys();
  int BodyIndex(const std::string& name_or_index) const;  // -1 if none
  // The scene file and the mesh files its geometry came from (watched for changes).
  std::vector<std::filesystem::path> SceneFiles() const;
  void StepPhysics(double wall_dt);
  void BuildUi();
  void RenderScene();
  void DrawLabels();
  // Pressure-field contact: the patches of the shown step, the tet meshes, the legend, the
  // pressure under the mouse (viewer.cc).
  void DrawPressureOverlay(const StepRecord* shown);
  void DrawPressureLegendAndHover();
  // Copies the edges of every compliant geometry's tet mesh out of sim_ when they are not current
  // (a mesh rebuilt after a material edit, or the boundary / all toggle changed). Reads sim_, so
  // only while the worker is idle.
  void RefreshTetMeshes();
  int CompliantGeometryCount() const;
  // kPressureNoiseFraction times the largest modulus of the compliant geometries [Pa].
  double PressureNoiseFloor() const;
  void OnNewRecord();
  void UpdateImpulseScale();
  // The record on display: the timeline's choice while paused, else the newest one; nullptr
  // before the first step.
  const StepRecord* DisplayedRecord() const;
  void HandleTimelineRequests();
  // The what-if re-solve of the displayed step, or nullptr.
  const ResolveComparison* DisplayedComparison() const;
  // Scripted runs, at exit: the shown step's solve and, if shown, its re-solve (model,
  // iterations, residual per iteration) and whether the re-solve equals the recorded solve.
  void PrintShownSolves() const;

  // Video recording (viewer.cc): the Record button and the key V start and stop it, --video
  // records the whole run. StartVideo opens ffmpeg on the window's framebuffer size (even-rounded)
  // at the real-time rate of the scene's time step (VideoFrameRate); CaptureVideoFrame reads
  // the drawn frame back (panels and overlays included) and pipes it to ffmpeg; StopVideo waits
  // for the file. Failures land in video_status_ (and, for --video, the exit status).
  bool StartVideo(const std::string& path);
  bool CaptureVideoFrame();
  bool StopVideo();
  void ToggleVideo();
  // The physics steps of one recorded frame: 1 / (fps x time_step) rounded, at least 1.
  int VideoStepsThisFrame() const;

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

  // Compare mode and the race (viewer_compare.cc).
  // The --set overrides every configuration of --compare starts from (the primary's CONFIG
  // taken out).
  std::vector<std::string> CompareBaseOverrides() const;
  // Starts the configurations of --compare (after StartSimulation; their scenes are loaded with
  // their CONFIG's overrides). Throws SceneError / std::invalid_argument (exit 2).
  void StartCompareFromOptions();
  // Restarts the ghosts on a new simulation (scene reload or another scene), keeping each
  // configuration's solver choice and re-applying its --compare CONFIG (material edits included)
  // to the new scene; a CONFIG the new scene cannot take is noted in the compare tab.
  void RestartCompare();
  // The primary's summary settings follow the viewer's edit settings.
  void SyncPrimaryConfig();
  // Ghosts behind the paused primary, or with edits not yet sent.
  bool CompareNeedsRound() const;
  void RenderGhosts(const StepRecord* shown);
  void DrawCompareLegend();
  void DrawCompareTab();
  void DrawRaceTab(float height);
  // The settings (per configuration) and names the race runs: every configuration in compare
  // mode, else the primary alone.
  std::vector<StepSettings> RaceSettings() const;
  std::vector<std::string> RaceNames() const;
  void StartRace(const StepRecord& record);
  void PollRace();
  void CancelRace();
  // Divergence alerts of compare mode, one line each, for the status line.
  std::vector<std::string> CompareAlerts() const;
  // Scripted runs, at exit: each configuration's run and the race.
  void PrintCompareSummary() const;

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
  VideoRecorder video_;
  std::vector<std::uint8_t> video_pixels_;  // one frame read back, rows bottom first
  bool video_toggle_requested_ = false;     // the key V or the Record button, done next frame
  std::string video_status_;                // the last recording's result or error
  bool video_status_is_error_ = false;
  double video_ms_total_ = 0;               // read-back and pipe time of the recording [ms]
  // Analysis column.
  TimeSeries series_;
  int series_count_ = -1, series_newest_ = -2;  // history shape the series was built from
  int earlier_overlay_ = 5;                     // faint residual curves of this many earlier steps
  ConvergenceSelection convergence_series_;     // series plotted by the convergence panel
  std::optional<ConditioningReport> conditioning_;
  int conditioning_step_ = -1;      // timeline step of conditioning_
  std::future<ConditioningReport> conditioning_job_;
  int conditioning_job_step_ = -1;
  // generation_ of conditioning_ and of the job: a reset, resume or reload makes them stale.
  int conditioning_generation_ = -1, conditioning_job_generation_ = -1;
  bool conditioning_auto_ = true;   // analyze the shown step whenever it changes
  std::unique_ptr<ImageTexture> h_texture_, j_texture_;
  // Select this tab next frame (0 convergence, 1 series, 2 conditioning, 3 compare, 4 race).
  int analysis_tab_request_ = -1;
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
  bool open_pressure_ = false;
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
  double swap_ms_total_ = 0;  // glfwSwapBuffers (present, vsync wait, pending GL work) [ms]
  GLFWwindow* window_ = nullptr;
  bool imgui_ready_ = false;
  // GL objects: released in ~Viewer while the context still exists.
  std::unique_ptr<SceneRenderer> renderer_;
  std::unique_ptr<GlDebugDraw> glyphs_;
  OrbitCamera camera_;
  CameraTracking tracking_ = CameraTracking::kOff;
  double tracking_time_constant_ = 0.15;  // [s] smoothing of the tracked point
  bool show_axes_ = true;                 // world axes gizmo in the 3D view's corner
  // --print-layout: each window's and left-column section's rectangle, printed at exit.
  struct LayoutRect {
    std::string kind, name;
    float x = 0, y = 0, w = 0, h = 0;
  };
  std::vector<LayoutRect> layout_;
  int scroll_to_section_frames_ = 0;  // frames left that scroll the left column to a --panel
  std::string scroll_section_;        // the section of that --panel
  int steps_requested_ = 0;           // scripted `step N`: steps to take while paused
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
  // Pressure-field contact: overlay settings and legend range, the shown step's patch rows, the
  // patch whose faces the inspector lists (-1: none).
  PressureOverlay pressure_;
  std::vector<PatchRow> patch_rows_;
  int open_patch_ = -1;
  // Per geometry: the edges of its tet mesh in its frame, copied from sim_ (empty when rigid or
  // not built yet), and what they were built from.
  struct TetMeshCache {
    const CompliantGeometry* source = nullptr;
    int num_tets = 0;
    bool all = false;
    std::vector<Vec3> vertices;
    std::vector<std::array<int, 2>> edges;
  };
  std::vector<TetMeshCache> tet_meshes_;
  bool tet_meshes_stale_ = true;  // the simulator may have rebuilt a mesh since the last copy
  int selected_contact_ = -1;
  // Contact glyphs of the frame (viewer.cc): the geometries' bounding radii (per-contact glyph
  // sizes), the view they were sized for, the contacts drawn (the ones a click or the hover
  // tooltip picks), the labels of the selection (placed before the contacts' own), and the
  // candidates without impulse left out.
  std::vector<double> geom_radius_;
  GlyphView glyph_view_;
  std::vector<int> drawn_contacts_;
  struct SelectionLabel {
    Vec3 p;
    std::string text;
    Color color;
  };
  std::vector<SelectionLabel> selection_labels_;
  int hidden_inactive_ = 0;
  ContactDrawResult glyph_counts_;
  HalfSpaceFaces wall_faces_;  // the half-spaces' faces drawn (remade as the bodies move)  // glyph types drawn this frame (the legend lists these)
  GlyphView CurrentGlyphView() const;
  // The glyph context of the shown step: sizes, view, focus (RenderScene, RenderGhosts).
  ContactGlyphContext GlyphContextFor(const StepRecord& record) const;
  // The drawn contact within a few pixels of (x, y) (window px), or -1.
  int ContactUnder(float x, float y) const;
  void DrawContactHover();
  LegendInfo LegendNow() const;  // what the corner legend shows this frame
  ImVec2 LegendSize() const;
  std::vector<std::string> hover_tooltip_;  // the contact tooltip of the frame (empty: none)
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

  // Compare mode: the other configurations (ghosts), every configuration's step summaries.
  CompareSession compare_;
  CompareStore compare_store_;
  double divergence_threshold_ = 0.01;       // [m] (set from the scene's body size)
  std::vector<std::string> compare_errors_;  // per configuration: its refused edit
  std::string compare_error_;                // a refused start or add
  // The race on a frozen step (std::async, like the conditioning job).
  std::future<RaceRun> race_job_;
  std::shared_ptr<std::atomic<bool>> race_cancel_;
  std::shared_ptr<std::atomic<int>> race_points_;  // points done by the running job
  int race_job_step_ = -1, race_job_generation_ = -1;
  std::optional<RaceRun> race_;
  int race_generation_ = -1;
  bool race_auto_ = true;     // race every shown step while paused and the tab is open
  bool race_at_end_ = false;  // scripted --panel race: race the shown step at the last frame
  std::string race_status_;   // "cancelled", errors
};

}  // namespace viewer_internal
}  // namespace contactlab
