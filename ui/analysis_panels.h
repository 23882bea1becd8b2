// Analysis panels of the debugger: convergence of the shown step's solve, time series over the
// recorded steps, the frame profiler bar and the conditioning of H. Like ui/panels.h, each is a
// function of its data drawing into the current ImGui window (the caller owns Begin/End) with the
// window's draw list; the numbers come from ui/plot_data.h. No GL calls here: images arrive as
// ImTextureIDs the caller uploaded (from SparsityImageToRgba).
#pragma once

#include <imgui.h>

#include <vector>

#include "engine/inspect/conditioning.h"
#include "engine/solvers/common/solver.h"
#include "ui/plot_data.h"

namespace contactlab {

// What the convergence panel shows. Pointers are borrowed for the frame.
struct ConvergenceView {
  const SolverResult* current = nullptr;   // the shown step's solve (required for the plots)
  const SolverResult* resolved = nullptr;  // optional what-if re-solve, orange dashed
  std::vector<const SolverResult*> earlier;  // optional, e.g. EarlierResults(...): faint e_m
  double tolerance = 0;                    // ε_r, dashed line on the e_m plot (<= 0: none)
  int step = -1;                           // timeline step of `current`, for the title (-1: none)
  float plot_height = 110.0f;              // height of the e_m plot [px]; the other two are 3/4
};

// Three stacked plots sharing the iteration axis: (a) e_m on a log axis with the tolerance
// (dashed) and the "linear" (r = 0.5) and "quadratic" reference slopes from iteration 0
// (ReferenceSlopes); (b) cost gap ℓ_k − ℓ_final on a log axis (CostGapSeries); (c) line-search α
// on a linear axis from 0 to max(1, max α) with markers. Hover shows iteration and value (and the
// line-search evaluations on (c)).
void DrawConvergencePanel(const ConvergenceView& view);

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
