// The interactive viewer: a GLFW window with the scene, its contacts and the ImGui panels.
#pragma once

#include <string>
#include <vector>

namespace contactlab {

struct ViewerOptions {
  std::string scene_path;
  std::vector<std::string> overrides;  // `key=value` scene overrides (as `--set`)
  // Scripted mode when > 0: run exactly this many frames (each advancing 1/60 s of simulated
  // time) with the contact overlays on, write `screenshot_path` if set, and return.
  int frames = -1;
  std::string screenshot_path;
  int width = 1600, height = 900;  // window size [px]
  int msaa_samples = 4;  // multisampling of the window (0 = off; software GL is ~2x faster off)
};

// Opens the window and runs until it is closed (or the scripted frames are done). Returns 0 on
// success, 2 when the scene cannot be loaded or simulated (the message is printed to stderr),
// 1 when the window or GL context cannot be created or the screenshot cannot be written.
int RunViewer(const ViewerOptions& options);

// Parses `SCENE [--frames N] [--screenshot FILE] [--width W] [--height H] [--msaa N]
// [--set KEY=VALUE]...`
// (argv[0] is the program). Returns false with a message in `error` on bad arguments.
bool ParseViewerArgs(int argc, const char* const* argv, ViewerOptions* options,
                     std::string* error);

}  // namespace contactlab
