// Dear ImGui panels. Each panel is a function of the data it shows and edits, draws into the
// current ImGui window (the caller owns Begin/End and the layout) and returns true when it
// changed something. No GL calls here.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "engine/inspect/breakpoints.h"
#include "engine/inspect/debug_draw.h"
#include "engine/multibody/model.h"
#include "engine/sim/simulator.h"
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
  // Glyphs only on the selected body's contacts or its island's (key G cycles).
  GlyphFocus focus = GlyphFocus::kOff;
  bool show_legend = true;  // the corner legend of the 3D view
};
// "off", "body", "island" -> the mode; anything else is kOff.
GlyphFocus ParseGlyphFocus(const std::string& name);
// The next focus mode (off -> body -> island -> off).
GlyphFocus NextGlyphFocus(GlyphFocus focus);
bool DrawOverlayPanel(OverlaySettings* settings);
// Colour legend of the contact glyphs (regimes, cone saturation bar, arrows).
void DrawContactLegend();

// The compact legend always shown in a corner of the 3D view: a swatch per glyph type that is on
// (regimes, φ > 0 ring, normal and friction impulse arrows, unit normals, selection, body axes),
// the cone saturation bar, and the arrows' scale bar (ImpulseScaleBar) for the view's pixels per
// metre at the camera target. Drawn with `dl` with its top-right corner at `top_right`; returns
// its size [px] (with dl == nullptr, only measured).
struct LegendInfo {
  const ContactDrawOptions* contacts = nullptr;
  // The glyphs drawn this frame (DrawContacts' counts, the compare ghosts' added): when given,
  // the legend lists only the glyph types drawn (a pressure view without contact glyphs lists
  // no arrows), the cone bar only with cones and the scale bar only with arrows; without it,
  // every type that is switched on.
  const ContactDrawResult* drawn = nullptr;
  double px_per_m = 0;   // at the camera target; 0: no scale bar
  GlyphFocus focus = GlyphFocus::kOff;
  bool body_selected = false;
  bool contact_selected = false;
  int hidden_inactive = 0;  // candidates without impulse not drawn
};
// The legend's swatch rows, top to bottom, and whether the cone bar and the scale bar follow.
enum class LegendSwatch { kDot, kRing, kArrow, kLine };
struct LegendRow {
  LegendSwatch kind = LegendSwatch::kDot;
  Color color;
  std::string text;
};
struct LegendContent {
  std::vector<LegendRow> rows;
  bool cone_bar = false;
  bool scale_bar = false;  // when the arrows' scale bar has a length (ImpulseScaleBar)
};
LegendContent ContactLegendContent(const LegendInfo& info);
ImVec2 DrawContactLegendOverlay(ImDrawList* dl, ImVec2 top_right, const LegendInfo& info);

// Status and convergence of a solve; `tolerance` (ε_r) is drawn as a reference line. With
// `resolved` (a what-if re-solve of the same step), its e_m curve is overlaid in orange, dashed,
// with a legend line.
void DrawSolverPanel(const StepRecord& record, double tolerance,
                     const SolverResult* resolved = nullptr);

// e_m-style positive series on a log axis, drawn with the window's draw list; `overlay`, if
// given, is a second series drawn dashed in orange on the same axes.
void DrawLogPlot(const char* id, const std::vector<double>& values, double reference,
                 const ImVec2& size, const std::vector<double>* overlay = nullptr);

// What the timeline panel shows, filled by the caller each frame.
struct TimelineView {
  int count = 0;         // held records
  int oldest_step = -1;  // timeline step of the oldest held record
  int newest_step = -1;
  int shown_step = -1;    // timeline step on display
  std::size_t bytes = 0;  // approximate memory of the held records
  bool paused = true;     // browsing, resume and re-solve need a paused simulation
  bool has_comparison = false;
  std::string comparison_legend;
};

// Timeline and breakpoint state, edited by the panel.
struct TimelineState {
  int slider = 0;                  // index of the shown record in the history (0 = oldest)
  bool follow_live = true;         // show the newest record; cleared when the slider moves
  bool resume_requested = false;   // set by the panel: resume from the shown record
  bool resolve_requested = false;  // set by the panel: re-solve the shown record
  bool clear_comparison = false;   // set by the panel: drop the re-solve overlay
  BreakpointSettings breakpoints;
  bool max_penetration_on = false;  // the two thresholds apply only when enabled
  bool max_residual_on = false;
  double max_penetration = 1e-3;  // [m]
  double max_residual = 1e-3;     // [-]
  std::string break_reason;       // why the last breakpoint paused, shown by the panel
};
// Slider over the recorded steps, resume and re-solve buttons, breakpoint settings. Returns true
// when the shown step or a setting changed, or a button was pressed.
bool DrawTimelinePanel(const TimelineView& view, TimelineState* state);

// Every parameter of the step, contact-model, SAP and material tables (engine/sim/param_tables.h):
// sliders with the tables' ranges, scales and help tooltips; "advanced" entries folded.
// `material_order` (optional) lists the materials in the order to show them (SceneMaterialsFirst
// in ui/layout_data.h: the scene's own first, the first of them open); empty: material order.
bool DrawParameterPanel(StepSettings* settings, std::vector<Material>* materials,
                        const std::vector<int>& material_order = {});

// Table of contacts; `selected` is the highlighted contact index (-1 for none). Returns true
// when the selection changed. A click on a column header sorts the rows by it (again: the other
// way; SortContactRows in ui/layout_data.h); the rows fill the space left in the window.
bool DrawContactInspector(const std::vector<ContactRow>& rows, int* selected);
// The equality constraints of a step (BuildEqualityRows): name, type, |g|, |v_c|, |γ|, regime
// ("bilateral") and the law's R and near-rigid flag.
void DrawEqualityInspector(const std::vector<EqualityRow>& rows);

// Keyboard and mouse reference.
void DrawHelpPanel();

}  // namespace contactlab
