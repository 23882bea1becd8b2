#include "ui/plot_widgets.h"

#include <algorithm>
#include <cmath>

namespace contactlab {
namespace plot_widgets {

ImVec2 P(double x, double y) { return ImVec2(static_cast<float>(x), static_cast<float>(y)); }

ImU32 ToU32(const Color& c) { return ImGui::ColorConvertFloat4ToU32(ImVec4(c.r, c.g, c.b, c.a)); }

ImU32 ToU32(const Rgba8& c) { return IM_COL32(c.r, c.g, c.b, c.a); }

PlotArea BeginPlotArea(const char* id, float height) {
  PlotArea a;
  const float avail = ImGui::GetContentRegionAvail().x;
  const ImVec2 cursor = ImGui::GetCursorScreenPos();
  const float width = std::max(60.0f, avail - kLeftMargin);
  a.p0 = ImVec2(cursor.x + kLeftMargin, cursor.y);
  a.p1 = ImVec2(a.p0.x + width, a.p0.y + height);
  ImGui::SetCursorScreenPos(a.p0);
  ImGui::InvisibleButton(id, ImVec2(width, height));
  a.hovered = ImGui::IsItemHovered();
  a.active = ImGui::IsItemActive();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(a.p0, a.p1, kPlotBackground);
  dl->AddRect(a.p0, a.p1, kPlotBorder);
  a.rect = PlotRect{a.p0.x + 3.0, a.p0.y + 3.0, a.p1.x - 3.0, a.p1.y - 3.0};
  return a;
}

void YLabel(ImDrawList* dl, const PlotArea& a, double y, const std::string& text) {
  const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
  const float yy =
      std::clamp(static_cast<float>(y) - 0.5f * ts.y, a.p0.y - 2.0f, a.p1.y - ts.y + 2.0f);
  dl->AddText(ImVec2(a.p0.x - ts.x - 4.0f, yy), kLabel, text.c_str());
}

void LogGrid(ImDrawList* dl, const PlotArea& a, const LogRange& range,
             const std::vector<AxisTick>& ticks) {
  for (const AxisTick& t : ticks) {
    const double y = LogToPixel(t.value, range, a.rect.y0, a.rect.y1);
    dl->AddLine(P(a.p0.x, y), P(a.p1.x, y), t.major ? kGridMajor : kGridMinor);
    if (t.major) YLabel(dl, a, y, t.label);
  }
}

void LinearGrid(ImDrawList* dl, const PlotArea& a, double lo, double hi,
                const std::vector<AxisTick>& ticks) {
  for (const AxisTick& t : ticks) {
    const double y = LinearToPixel(t.value, lo, hi, a.rect.y0, a.rect.y1);
    dl->AddLine(P(a.p0.x, y), P(a.p1.x, y), kGridMajor);
    YLabel(dl, a, y, t.label);
  }
}

void DashedLine(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float thickness, float dash,
                float gap) {
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  if (len <= 0) return;
  const ImVec2 d((b.x - a.x) / len, (b.y - a.y) / len);
  for (float s = 0; s < len; s += dash + gap) {
    const float e = std::min(s + dash, len);
    dl->AddLine(ImVec2(a.x + d.x * s, a.y + d.y * s), ImVec2(a.x + d.x * e, a.y + d.y * e), col,
                thickness);
  }
}

void Polyline(ImDrawList* dl, const std::vector<std::pair<double, double>>& pts, ImU32 col,
              float thickness, bool dashed) {
  if (pts.size() < 2) return;
  if (dashed) {
    for (size_t i = 0; i + 1 < pts.size(); ++i) {
      DashedLine(dl, P(pts[i].first, pts[i].second), P(pts[i + 1].first, pts[i + 1].second), col,
                 thickness, 6.0f, 4.0f);
    }
    return;
  }
  std::vector<ImVec2> v;
  v.reserve(pts.size());
  for (const auto& p : pts) v.push_back(P(p.first, p.second));
  dl->AddPolyline(v.data(), static_cast<int>(v.size()), col, 0, thickness);
}

void Markers(ImDrawList* dl, const std::vector<std::pair<double, double>>& pts, ImU32 col,
             bool square) {
  for (const auto& p : pts) {
    if (square) {
      dl->AddRectFilled(P(p.first - 2.5, p.second - 2.5), P(p.first + 2.5, p.second + 2.5), col);
    } else {
      dl->AddCircleFilled(P(p.first, p.second), 2.8f, col);
    }
  }
}

void LegendSwatch(ImU32 col, const char* label, bool dashed) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  const float w = 1.6f * h;
  if (dashed) {
    DashedLine(dl, ImVec2(p.x, p.y + 0.5f * h), ImVec2(p.x + w, p.y + 0.5f * h), col, 2.0f, 4.0f,
               3.0f);
  } else {
    dl->AddLine(ImVec2(p.x, p.y + 0.5f * h), ImVec2(p.x + w, p.y + 0.5f * h), col, 2.0f);
  }
  ImGui::Dummy(ImVec2(w, h));
  ImGui::SameLine(0, 6);
  ImGui::TextColored(kDimText, "%s", label);
}

void LegendSameLine(const char* next_label) {
  const float h = ImGui::GetTextLineHeight();
  const float gap = 16.0f;
  const float need = gap + 1.6f * h + 6.0f + ImGui::CalcTextSize(next_label).x;
  ImGui::SameLine(0, gap);
  if (ImGui::GetContentRegionAvail().x < need - gap) ImGui::NewLine();
}

}  // namespace plot_widgets
}  // namespace contactlab
