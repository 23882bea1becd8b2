// Drawing helpers shared by the plot panels of ui/ (analysis_panels.cc, compare_panels.cc): the
// plot frame with its hover button, log and linear grids with tick labels, lines, markers and
// legend swatches, in the panels' colours. Internal to ui/: draws with the current window's
// draw list, no GL.
#pragma once

#include <imgui.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/inspect/colormap.h"
#include "ui/plot_data.h"
#include "ui/ui_data.h"

namespace contactlab {
namespace plot_widgets {

inline const ImVec4 kDimText(0.62f, 0.64f, 0.68f, 1.0f);
inline const ImVec4 kBadText(1.00f, 0.40f, 0.35f, 1.0f);
inline const ImVec4 kGoodText(0.45f, 0.90f, 0.45f, 1.0f);

inline const ImU32 kPlotBackground = IM_COL32(24, 26, 30, 255);
inline const ImU32 kPlotBorder = IM_COL32(80, 84, 92, 255);
inline const ImU32 kGridMajor = IM_COL32(62, 66, 74, 255);
inline const ImU32 kGridMinor = IM_COL32(40, 43, 48, 255);
inline const ImU32 kLabel = IM_COL32(170, 174, 182, 255);
inline const ImU32 kSeries = IM_COL32(110, 190, 255, 255);  // current solve / series: blue
inline const ImU32 kFailure = IM_COL32(255, 70, 60, 255);
inline const ImU32 kMarker = IM_COL32(255, 255, 255, 200);

constexpr float kLeftMargin = 46.0f;  // room for y tick labels [px]
constexpr double kLogFloor = 1e-16;

ImVec2 P(double x, double y);
ImU32 ToU32(const Color& c);
ImU32 ToU32(const Rgba8& c);

// A plot of the full available width and `height` pixels, reserved as an invisible button (so
// it can be hovered and clicked), with its background drawn.
struct PlotArea {
  ImVec2 p0, p1;  // frame
  PlotRect rect;  // data area, inside the frame
  bool hovered = false, active = false;
};
PlotArea BeginPlotArea(const char* id, float height);

// A y tick label left of the plot, clamped to its frame.
void YLabel(ImDrawList* dl, const PlotArea& a, double y, const std::string& text);
// Horizontal grid lines with labels at the major ticks.
void LogGrid(ImDrawList* dl, const PlotArea& a, const LogRange& range,
             const std::vector<AxisTick>& ticks);
void LinearGrid(ImDrawList* dl, const PlotArea& a, double lo, double hi,
                const std::vector<AxisTick>& ticks);
void DashedLine(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float thickness, float dash = 5.0f,
                float gap = 4.0f);
void Polyline(ImDrawList* dl, const std::vector<std::pair<double, double>>& pts, ImU32 col,
              float thickness, bool dashed = false);
// Dots (or squares) at the points.
void Markers(ImDrawList* dl, const std::vector<std::pair<double, double>>& pts, ImU32 col,
             bool square);
// A short line in `col` and the label, on the current line.
void LegendSwatch(ImU32 col, const char* label, bool dashed = false);
// Before the next legend entry: on the same line 16 px after the previous one when the entry
// (swatch and `next_label`) fits in the remaining width, else on a new line.
void LegendSameLine(const char* next_label);

}  // namespace plot_widgets
}  // namespace contactlab
