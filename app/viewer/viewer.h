// The interactive viewer: a GLFW window with the scene, its contacts and the ImGui panels.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace contactlab {

struct ViewerOptions {
  std::string scene_path;
  std::vector<std::string> overrides;  // `key=value` scene overrides (as `--set`)
  // Model files (URDF): --package-path, --fixed-base, --ground (SceneOptions in app/scene.h).
  std::vector<std::string> package_paths;
  bool fixed_base = false;
  bool ground_plane = false;
  // Scripted mode when > 0: run exactly this many frames (each advancing 1/60 s of simulated
  // time; with video_path, VideoStepsPerFrame whole steps) with the contact overlays on, write
  // `screenshot_path` if set, and return.
  int frames = -1;
  std::string screenshot_path;
  // Record an H.264 MP4 video (app/viewer/video_recorder.h) of every frame from the start to
  // the end of the run (--frames, --seconds or the window closed); empty: none.
  std::string video_path;
  int width = 1600, height = 900;  // window size [px]
  bool transparent = false;        // start with transparent bodies (contacts inside piles show)
  bool labels = false;             // start with contact index labels
  // Pressure-field contact: start with the patches hidden (--no-pressure), with the compliant
  // geometries' tet meshes drawn (--tets: boundary edges; --all-tets: every tet edge), and with
  // a fixed legend range [pressure_min, pressure_max] in Pa (--pressure-range MIN,MAX; NaN: the
  // range is held from the first step with pressure).
  bool no_pressure = false;
  bool tets = false;
  bool all_tets = false;
  double pressure_min = std::numeric_limits<double>::quiet_NaN();
  double pressure_max = std::numeric_limits<double>::quiet_NaN();
  // Multisampling of the window: samples per pixel, 0 = off, < 0 = auto (4 on a GPU, off on a
  // software rasterizer such as llvmpipe, where it costs about 3x the frame time).
  int msaa_samples = -1;
  // Panels to open at start (names in ViewerPanelNames(): analysis tabs, scenes, exports,
  // profiler, overlay, parameters, help), e.g. for scripted screenshots of a panel.
  std::vector<std::string> panels;
  // Print, at exit, each window's and left-column section's rectangle of the last frame and the
  // camera (`viewer: layout window "NAME" X Y W H on-screen|off-screen`, ...).
  bool print_layout = false;
  // Settings file (layout, overlay, open panels). Empty: the user's file
  // (DefaultSettingsFile()) in interactive runs, none in scripted runs.
  std::string settings_path;
  bool no_settings = false;  // neither read nor write any settings file
  int select_body = -1;      // body selected at start (its frame, contacts and info panel)
  // Scripted keyboard and mouse events (app/viewer/input_script.h), with --frames.
  std::string input_path;
  // CSV of body poses per step (WriteTrajectoryRows in app/runner.h, as `contactlab run`).
  std::string trajectory_path;
  // Timed interactive run when > 0: play in real time from the start, exit after this many
  // wall seconds and print frame-time statistics (median, p95, max) [s].
  double seconds = 0;
  // Compare mode (app/viewer/compare_session.h): 2 to 4 CONFIGs with the syntax of `contactlab
  // compare --configs` (app/compare.h), e.g. {"sap", "canal", "pgs:solver.pgs.max_iterations=500"}.
  // The first is the primary (the viewer's own simulation: its overrides apply to the scene),
  // the others step in lockstep and are drawn as tinted ghosts. Empty: no compare mode.
  std::vector<std::string> compare;
};

struct SceneOptions;  // app/scene.h
// The scene options of a viewer run: `overrides` and the model-file options of `options`.
SceneOptions ViewerSceneOptions(const ViewerOptions& options,
                                const std::vector<std::string>& overrides);

// Splits `--compare` CONFIG[,CONFIG...] into *configs; false with a message when a CONFIG is empty
// or the count is not 2 to 4. The CONFIGs themselves are checked when the scene loads.
bool ParseCompareConfigs(const std::string& text, std::vector<std::string>* configs,
                         std::string* error);

// Parses --pressure-range MIN,MAX [Pa] (finite, MIN < MAX); false with a message otherwise.
bool ParsePressureRange(const std::string& text, double* min, double* max, std::string* error);

// Panel names accepted by --panel, comma-separated, and the test for one.
std::string ViewerPanelNames();
bool IsViewerPanelName(const std::string& name);

// Opens the window and runs until it is closed (or the scripted frames are done). Returns 0 on
// success, 2 when the scene cannot be loaded or simulated (the message is printed to stderr),
// 1 when the window or GL context cannot be created, the screenshot cannot be written, or the
// video (video_path) cannot be recorded (ffmpeg missing or failing).
int RunViewer(const ViewerOptions& options);

// Parses `SCENE [--frames N] [--screenshot FILE] [--video FILE.mp4] [--width W] [--height H] [--msaa N]
// [--transparent] [--labels] [--no-pressure] [--tets] [--all-tets] [--pressure-range MIN,MAX]
// [--set KEY=VALUE]... [--panel NAME]... [--settings FILE]
// [--no-settings] [--select BODY] [--input FILE] [--trajectory FILE] [--compare CONFIGS]`
// (argv[0] is the program). Returns false with a message in `error` on bad arguments.
bool ParseViewerArgs(int argc, const char* const* argv, ViewerOptions* options, std::string* error);

}  // namespace contactlab
