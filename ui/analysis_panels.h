// Analysis panels of the debugger: convergence of the shown step's solve, time series over the
// recorded steps, the frame profiler bar and the conditioning of H. Like ui/panels.h, each is a
// function of its data drawing into the current ImGui window (the caller owns Begin/End) with the
// window's draw list; the numbers come from ui/plot_data.h. No GL calls here: images arrive as
// ImTextureIDs the caller uploaded (from SparsityImageToRgba).
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "engine/inspect/conditioning.h"
#include "engine/solvers/common/solver.h"
#include "ui/plot_data.h"

namespace contactlab {

// What the convergence panel shows. Pointers are borrowed for the frame.
struct ConvergenceView {
  const SolverResult* current = nullptr;   // the shown step's solve (required for the plots)
  const SolverResult* resolved = nullptr;  // optional what-if re-solve, orange dashed
  std::vector<const SolverResult*> earlier;  // optional, e.g. EarlierResults(...): faint residual
  double tolerance = 0;                      // ε_r, dashed line on the residual plot (<= 0: none)
  int step = -1;                           // timeline step of `current`, for the title (-1: none)
  float plot_height = 110.0f;              // height of the residual plot [px]; the others are 3/4
};

// Which declared series the panel plots (SolverStats::iteration_log keys, in plot order). Kept by
// the caller between frames; empty or declared by another solver's table: the solver's defaults
// (DefaultSeriesKeys).
struct ConvergenceSelection {
  std::vector<std::string> keys;
  SeriesTable table;     // the table the keys were chosen from
  bool islands = true;  // also draw each island's own solve (when the solve was split)
};

// Stacked plots sharing the iteration axis, one per selected series of the shown solve's log,
// each titled with the series' label and unit on its declared axis (log or linear; an objective
// as its gap to the final value, GapToFinal): the residual with the tolerance (dashed) and the
// "linear" (r = 0.5) and "quadratic" reference slopes from iteration 0 (ReferenceSlopes) and the
// earlier steps; a re-solve's series of the same key overlaid (orange, dashed) on every plot.
// A "series..." popup on the title line picks the series (tooltips: the declared help); the
// legend names the re-solve's contact model when it differs from the step's; with
// selection->islands and a split solve, each island's own solve is drawn faint (teal) under the
// merged curve. Hover shows one
// iteration's values across the plots. Returns true when the selection changed.
bool DrawConvergencePanel(const ConvergenceView& view, ConvergenceSelection* selection);

// Small multiples over the steps of `series` (iterations, solve time, contacts, total energy,
// max penetration, e_m on a log axis), each `plot_height` pixels high, with failed steps as red
// ticks on every plot and a marker at `shown_step`. Long series are drawn as per-pixel min/max
// envelopes. Returns the timeline step under the mouse when a plot was clicked, else -1.
int DrawTimeSeriesPanel(const TimeSeries& series, int shown_step, float plot_height = 48.0f);

// One stacked horizontal bar of the frame's time by part, with a legend giving each part's ms.
void DrawProfilerBar(const FrameProfile& profile);

// Sizes, λ_min, λ_max and cond₂(H) of `report`, the eigenvalue spectrum (when exact) and the
// sparsity patterns of H and J with their block outlines. `h_image` / `j_image` are textures of
// SparsityImageToRgba(report.H_pattern / J_pattern), sampled with nearest filtering; null ids
// fall back to draw-list rectangles.
void DrawConditioningPanel(const ConditioningReport& report, ImTextureID h_image = nullptr,
                           ImTextureID j_image = nullptr);

}  // namespace contactlab
