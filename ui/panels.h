// Dear ImGui panels. Each panel is a function of the data it shows and edits, draws into the
// current ImGui window (the caller owns Begin/End and the layout) and returns true when it
// changed something. No GL calls here.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "engine/debug_draw.h"
#include "engine/model.h"
#include "engine/simulator.h"
#include "ui/ui_data.h"

namespace contactlab {

ImU32 ToImU32(const Color& c);

// Playback controls and the numbers they govern.
struct PlaybackState {
  bool playing = false;
  float rate = 1.0f;             // simulated seconds per wall second (< 1 is slow motion)
  bool step_requested = false;   // set by the panel: advance one step
  bool reset_requested = false;  // set by the panel: back to t = 0
  // Shown, filled by the caller each frame.
  double sim_time = 0;  // [s]
  int step = 0;
  double time_step = 0;         // [s]
  double real_time_factor = 0;  // simulated / wall time, smoothed
  double frame_ms = 0;          // wall time of the last frame
  double physics_ms = 0;        // time spent stepping in the last frame
  int steps_last_frame = 0;
};
bool DrawPlaybackPanel(PlaybackState* state);

// What the viewport shows.
struct OverlaySettings {
  ContactDrawOptions contacts;
  bool transparent_bodies = false;
  float body_alpha = 0.35f;
  bool show_grid = true;
  bool glyphs_on_top = true;
  bool auto_scale = true;      // refit the impulse scale when arrows get too long or short
  bool fit_requested = false;  // set by the panel: refit the impulse scale to the current step
};
bool DrawOverlayPanel(OverlaySettings* settings);
// Colour legend of the contact glyphs (regimes, cone saturation bar, arrows).
void DrawContactLegend();

// Status and convergence of the last solve; `tolerance` (ε_r) is drawn as a reference line.
void DrawSolverPanel(const StepRecord& record, double tolerance);

// e_m-style positive series on a log axis, drawn with the window's draw list.
void DrawLogPlot(const char* id, const std::vector<double>& values, double reference,
                 const ImVec2& size);

// Step settings (δt, integrator), SAP parameters and the materials' k, τ_d, μ.
bool DrawParameterPanel(StepSettings* settings, std::vector<Material>* materials);

// Table of contacts; `selected` is the highlighted contact index (-1 for none). Returns true
// when the selection changed.
bool DrawContactInspector(const std::vector<ContactRow>& rows, int* selected);

// Keyboard and mouse reference.
void DrawHelpPanel();

}  // namespace contactlab
