#include "ui/panels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "engine/inspect/colormap.h"
#include "engine/sim/param_tables.h"
#include "engine/sim/simulator.h"
#include "engine/solvers/sap/sap_solver.h"
#include "ui/layout_data.h"
#include "ui/param_widgets.h"
#include "ui/plot_data.h"

namespace contactlab {

namespace {

const ImVec4 kGoodText(0.45f, 0.90f, 0.45f, 1.0f);
const ImVec4 kBadText(1.00f, 0.40f, 0.35f, 1.0f);
const ImVec4 kDimText(0.62f, 0.64f, 0.68f, 1.0f);

ImVec4 ToImVec4(const Color& c) { return ImVec4(c.r, c.g, c.b, c.a); }

bool SliderLogDouble(const char* label, double* v, double lo, double hi, const char* format) {
  return ImGui::SliderScalar(label, ImGuiDataType_Double, v, &lo, &hi, format,
                             ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_NoRoundToFormat);
}

bool SliderDouble(const char* label, double* v, double lo, double hi, const char* format) {
  return ImGui::SliderScalar(label, ImGuiDataType_Double, v, &lo, &hi, format,
                             ImGuiSliderFlags_NoRoundToFormat);
}

void HelpMarker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void SectionTitle(const char* text) {
  ImGui::Spacing();
  ImGui::TextColored(kDimText, "%s", text);
  ImGui::Separator();
}

// Filled dot followed by a label, on one line.
void LegendDot(const Color& c, const char* label) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  dl->AddCircleFilled(ImVec2(p.x + 0.5f * h, p.y + 0.5f * h), 0.36f * h, ToImU32(c));
  dl->AddCircle(ImVec2(p.x + 0.5f * h, p.y + 0.5f * h), 0.36f * h,
                ToImU32(Color{c.r * 0.25f, c.g * 0.25f, c.b * 0.25f, 1.0f}), 0, 1.5f);
  ImGui::Dummy(ImVec2(h, h));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

void LegendArrow(const Color& c, const char* label) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  const float y = p.y + 0.5f * h;
  const float w = 1.6f * h;
  dl->AddLine(ImVec2(p.x, y), ImVec2(p.x + w - 0.4f * h, y), ToImU32(c), 2.5f);
  dl->AddTriangleFilled(ImVec2(p.x + w, y), ImVec2(p.x + w - 0.5f * h, y - 0.3f * h),
                        ImVec2(p.x + w - 0.5f * h, y + 0.3f * h), ToImU32(c));
  ImGui::Dummy(ImVec2(w, h));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

// A line wrapped only between its WrapSegments (after ", " and "; "), never inside a number.
void TextWrappedAtSeparators(const ImVec4& col, const std::string& text) {
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  bool first = true;
  for (const std::string& seg : WrapSegments(text)) {
    if (!first) {
      ImGui::SameLine(0, 0);
      if (ImGui::GetCursorScreenPos().x + ImGui::CalcTextSize(seg.c_str()).x > right) {
        ImGui::NewLine();
      }
    }
    ImGui::TextColored(col, "%s", seg.c_str());
    first = false;
  }
}

// "12 stiction  3 sliding  5 no_contact" in the regime colours, the names from RegimeName (one
// spelling everywhere): the solver panel and the contact inspector both draw their counts here.
void RegimeCountsLine(const int counts[3]) {
  const Color colors[3] = {kStictionColor, kSlidingColor, kInactiveColor};
  for (int r = 0; r < 3; ++r) {
    if (r > 0) ImGui::SameLine();
    ImGui::TextColored(ToImVec4(colors[r]), "%d %s", counts[r],
                       RegimeName(static_cast<Regime>(r)));
  }
}

}  // namespace

ImU32 ToImU32(const Color& c) { return ImGui::ColorConvertFloat4ToU32(ToImVec4(c)); }

bool DrawPlaybackPanel(PlaybackState* s) {
  bool changed = false;
  const ImVec2 button(80, 0);
  if (ImGui::Button(s->playing ? "Pause" : "Play", button)) {
    s->playing = !s->playing;
    changed = true;
  }
  ImGui::SameLine();
  if (ImGui::Button("Step", button)) {
    s->step_requested = true;
    s->playing = false;
    changed = true;
  }
  ImGui::SameLine();
  if (ImGui::Button("Reset", button)) {
    s->reset_requested = true;
    changed = true;
  }
  ImGui::SetNextItemWidth(-90);
  if (ImGui::SliderFloat("speed", &s->rate, 0.001f, 4.0f, "%.3gx", ImGuiSliderFlags_Logarithmic)) {
    changed = true;
  }
  HelpMarker("Simulated seconds per wall-clock second. Below 1 is slow motion.");
  ImGui::Text("t = %.4f s   step %d   dt = %.2e s", s->sim_time, s->step, s->time_step);
  const bool behind = s->playing && s->real_time_factor < 0.95 * s->rate;
  ImGui::Text("real-time factor ");
  ImGui::SameLine(0, 0);
  ImGui::TextColored(behind ? kBadText : kGoodText, "%.3f", s->real_time_factor);
  ImGui::SameLine();
  ImGui::TextColored(kDimText, "(target %.3g)", s->rate);
  ImGui::TextColored(kDimText, "frame %.1f ms   physics %.1f ms   %s", s->frame_ms,
                     s->physics_ms, CountNoun(s->steps_last_frame, "step", "steps").c_str());
  return changed;
}

void DrawContactLegend() {
  LegendDot(kStictionColor, RegimeName(Regime::kStiction));
  ImGui::SameLine(0, 14);
  LegendDot(kSlidingColor, RegimeName(Regime::kSliding));
  ImGui::SameLine(0, 14);
  LegendDot(kInactiveColor, RegimeName(Regime::kNoContact));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("in the contact margin, no impulse");
  ImGui::SameLine(0, 14);
  LegendDot(kGapLoadColor, "pushing at phi > 0 (ring)");
  LegendArrow(kNormalImpulseColor, "normal impulse");
  ImGui::SameLine(0, 14);
  LegendArrow(kFrictionImpulseColor, "friction impulse");
  ImGui::SameLine(0, 14);
  LegendArrow(kNormalColor, "normal");
  // Saturation colour bar.
  ImGui::TextUnformatted("cone: |gamma_t| / (mu gamma_n)");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = std::max(100.0f, ImGui::GetContentRegionAvail().x - 10.0f);
  const float h = ImGui::GetTextLineHeight();
  const int n = 32;
  for (int i = 0; i < n; ++i) {
    const float x0 = p.x + w * i / n, x1 = p.x + w * (i + 1) / n;
    dl->AddRectFilledMultiColor(
        ImVec2(x0, p.y), ImVec2(x1 + 0.5f, p.y + h), ToImU32(SaturationColor(double(i) / n)),
        ToImU32(SaturationColor(double(i + 1) / n)), ToImU32(SaturationColor(double(i + 1) / n)),
        ToImU32(SaturationColor(double(i) / n)));
  }
  ImGui::Dummy(ImVec2(w, h));
  ImGui::TextColored(kDimText, "0 (axis)");
  ImGui::SameLine(std::max(0.0f, w - ImGui::CalcTextSize("1 (on cone)").x));
  ImGui::TextColored(kDimText, "1 (on cone)");
}

GlyphFocus ParseGlyphFocus(const std::string& name) {
  if (name == "body") return GlyphFocus::kBody;
  if (name == "island") return GlyphFocus::kIsland;
  return GlyphFocus::kOff;
}

GlyphFocus NextGlyphFocus(GlyphFocus focus) {
  return static_cast<GlyphFocus>((static_cast<int>(focus) + 1) % kNumGlyphFocusModes);
}

namespace {

// Legend rows of the overlay: a swatch (dot, ring, arrow or line) and a name.
using Swatch = LegendSwatch;
void OverlaySwatch(ImDrawList* dl, ImVec2 p, float h, Swatch kind, const Color& color) {
  const ImU32 c = ToImU32(color);
  const ImVec2 mid(p.x + 0.5f * h, p.y + 0.5f * h);
  switch (kind) {
    case Swatch::kDot:
      dl->AddCircleFilled(mid, 0.28f * h, c);
      break;
    case Swatch::kRing:
      dl->AddCircle(mid, 0.34f * h, c, 0, 2.0f);
      break;
    case Swatch::kArrow: {
      const float y = mid.y;
      dl->AddLine(ImVec2(p.x, y), ImVec2(p.x + h - 4, y), c, 2.0f);
      dl->AddTriangleFilled(ImVec2(p.x + h, y), ImVec2(p.x + h - 6, y - 4),
                            ImVec2(p.x + h - 6, y + 4), c);
      break;
    }
    case Swatch::kLine:
      dl->AddLine(ImVec2(p.x, mid.y), ImVec2(p.x + h, mid.y), c, 1.5f);
      break;
  }
}

}  // namespace

LegendContent ContactLegendContent(const LegendInfo& info) {
  const ContactDrawOptions o = info.contacts ? *info.contacts : ContactDrawOptions{};
  const ContactDrawResult* d = info.drawn;
  LegendContent content;
  std::vector<LegendRow>& rows = content.rows;
  // A type is listed when it is on and (with the frame's counts) was drawn.
  auto shown = [&](bool on, int count) { return on && (!d || count > 0); };
  if (shown(o.points, d ? d->dots[0] : 0)) {
    rows.push_back({Swatch::kDot, kStictionColor, RegimeName(Regime::kStiction)});
  }
  if (shown(o.points, d ? d->dots[1] : 0)) {
    rows.push_back({Swatch::kDot, kSlidingColor, RegimeName(Regime::kSliding)});
  }
  if (o.points) {
    const std::string name = RegimeName(Regime::kNoContact);
    if (o.inactive && (!d || d->dots[2] > 0)) {
      rows.push_back({Swatch::kDot, kInactiveColor, name});
    } else if (!o.inactive && (!d || info.hidden_inactive > 0)) {
      rows.push_back({Swatch::kDot, kInactiveColor,
                      name + " (hidden" +
                          (info.hidden_inactive > 0 ? ": " + std::to_string(info.hidden_inactive)
                                                    : std::string()) +
                          ")"});
    }
  }
  if (d && d->summary_markers > 0) {
    rows.push_back({Swatch::kRing, kSummaryHaloColor, "n contacts merged (zoom in)"});
  }
  if (shown(o.gap_loads, d ? d->gap_rings : 0)) {
    rows.push_back({Swatch::kRing, kGapLoadColor, "pushing at phi > 0"});
  }
  if (shown(o.normal_impulses, d ? d->normal_arrows : 0)) {
    rows.push_back({Swatch::kArrow, kNormalImpulseColor, "gamma_n (normal)"});
  }
  if (shown(o.friction_impulses, d ? d->friction_arrows : 0)) {
    rows.push_back({Swatch::kArrow, kFrictionImpulseColor, "gamma_t (friction)"});
  }
  if (shown(o.normals, d ? d->normals : 0)) {
    rows.push_back({Swatch::kLine, kNormalColor, "unit normal"});
  }
  if (!d || info.contact_selected || info.body_selected) {
    rows.push_back({Swatch::kDot, kSelectionColor, "selection"});
  }
  if (info.body_selected) {
    rows.push_back({Swatch::kArrow, kAxisXColor, "body x"});
    rows.push_back({Swatch::kArrow, kAxisYColor, "body y"});
    rows.push_back({Swatch::kArrow, kAxisZColor, "body z"});
  }
  content.cone_bar = shown(o.cones, d ? d->cones : 0);
  content.scale_bar = (o.normal_impulses || o.friction_impulses) &&
                      (!d || d->normal_arrows + d->friction_arrows > 0) &&
                      ImpulseScaleBar(o.impulse_scale, info.px_per_m, 110.0).length_px > 0;
  return content;
}

ImVec2 DrawContactLegendOverlay(ImDrawList* dl, ImVec2 top_right, const LegendInfo& info) {
  const ContactDrawOptions o = info.contacts ? *info.contacts : ContactDrawOptions{};
  const LegendContent content = ContactLegendContent(info);
  using Row = LegendRow;
  const std::vector<Row>& rows = content.rows;
  if (rows.empty() && !content.cone_bar && !content.scale_bar && info.focus == GlyphFocus::kOff) {
    return ImVec2(0, 0);  // nothing drawn: no legend
  }
  const float lh = ImGui::GetTextLineHeight();
  const float step = lh + 2.0f;
  const float pad = 6.0f;
  float text_w = ImGui::CalcTextSize("cone |gamma_t|/(mu gamma_n)").x;
  for (const Row& r : rows) text_w = std::max(text_w, ImGui::CalcTextSize(r.text.c_str()).x);
  // The scale bar: a round impulse whose arrow fits in 110 px.
  const ScaleBar bar =
      content.scale_bar ? ImpulseScaleBar(o.impulse_scale, info.px_per_m, 110.0) : ScaleBar{};
  std::string focus_line;
  if (info.focus != GlyphFocus::kOff) {
    focus_line = std::string("focus: ") + GlyphFocusName(info.focus) +
                 (info.body_selected ? "" : " (select a body)");
    text_w = std::max(text_w, ImGui::CalcTextSize(focus_line.c_str()).x - lh - 6.0f);
  }
  const float w = pad + lh + 6.0f + text_w + pad;
  float h = pad + step * rows.size();
  if (content.cone_bar) h += step + 8.0f + lh;
  if (bar.length_px > 0) h += step + 6.0f;
  if (!focus_line.empty()) h += step;
  h += pad;
  if (!dl) return ImVec2(w, h);  // measured only
  const ImVec2 p0(top_right.x - w, top_right.y);
  dl->AddRectFilled(p0, ImVec2(top_right.x, top_right.y + h), IM_COL32(10, 12, 16, 200), 4.0f);
  float y = p0.y + pad;
  const float x = p0.x + pad;
  const ImU32 text = IM_COL32(225, 228, 232, 255), dim = IM_COL32(160, 164, 172, 255);
  for (const Row& r : rows) {
    OverlaySwatch(dl, ImVec2(x, y + 1), lh - 2, r.kind, r.color);
    dl->AddText(ImVec2(x + lh + 6.0f, y), text, r.text.c_str());
    y += step;
  }
  if (content.cone_bar) {
    dl->AddText(ImVec2(x, y), text, "cone |gamma_t|/(mu gamma_n)");
    y += step;
    const float bw = w - 2 * pad;
    const int n = 24;
    for (int i = 0; i < n; ++i) {
      const float x0 = x + bw * i / n, x1 = x + bw * (i + 1) / n;
      dl->AddRectFilledMultiColor(ImVec2(x0, y), ImVec2(x1 + 0.5f, y + 6.0f),
                                  ToImU32(SaturationColor(double(i) / n)),
                                  ToImU32(SaturationColor(double(i + 1) / n)),
                                  ToImU32(SaturationColor(double(i + 1) / n)),
                                  ToImU32(SaturationColor(double(i) / n)));
    }
    y += 8.0f;
    dl->AddText(ImVec2(x, y), dim, "0 axis");
    const char* one = "1 on cone";
    dl->AddText(ImVec2(x + bw - ImGui::CalcTextSize(one).x, y), dim, one);
    y += lh;
  }
  if (bar.length_px > 0) {
    y += 6.0f;
    const float bx1 = x + static_cast<float>(bar.length_px);
    const float by = y + 0.5f * lh;
    dl->AddLine(ImVec2(x, by), ImVec2(bx1, by), text, 2.0f);
    dl->AddLine(ImVec2(x, by - 4), ImVec2(x, by + 4), text, 1.5f);
    dl->AddLine(ImVec2(bx1, by - 4), ImVec2(bx1, by + 4), text, 1.5f);
    const std::string label = FormatImpulse(bar.impulse);
    dl->AddText(ImVec2(bx1 + 6.0f, y), text, label.c_str());
    y += step;
  }
  if (!focus_line.empty()) {
    dl->AddText(ImVec2(x, y), IM_COL32(255, 220, 120, 255), focus_line.c_str());
    y += step;
  }
  return ImVec2(w, h);
}

bool DrawOverlayPanel(OverlaySettings* s) {
  bool changed = false;
  ContactDrawOptions& o = s->contacts;
  if (ImGui::BeginTable("overlay_toggles", 3)) {
    auto cell = [&](const char* label, bool* v) {
      ImGui::TableNextColumn();
      changed |= ImGui::Checkbox(label, v);
    };
    cell("points", &o.points);
    cell("cones", &o.cones);
    cell("normals", &o.normals);
    cell("gamma_n", &o.normal_impulses);
    cell("gamma_t", &o.friction_impulses);
    cell("inactive", &o.inactive);
    cell("labels", &o.labels);
    cell("phi>0 load", &o.gap_loads);
    cell("on top", &s->glyphs_on_top);
    cell("grid", &s->show_grid);
    cell("legend", &s->show_legend);
    ImGui::EndTable();
  }
  changed |= ImGui::Checkbox("size glyphs per contact", &o.adaptive_size);
  HelpMarker(
      "Cones, arrow shafts and dots follow the spacing of neighbouring contacts and the size of "
      "the smaller body, so close contacts and small bodies get smaller glyphs; when a contact's "
      "glyphs span only a few pixels (zoomed out) its cone and then its arrows are left out.");
  {
    int focus = static_cast<int>(s->focus);
    ImGui::SetNextItemWidth(120);
    if (ImGui::Combo("focus (G)", &focus, "off\0selected body\0its island\0")) {
      s->focus = static_cast<GlyphFocus>(focus);
      changed = true;
    }
    HelpMarker(
        "Draw the contact glyphs of the selected body only, or of every body of its island "
        "(bodies chained to it by this step's contacts and joints). Off without a selection.");
  }
  changed |= ImGui::Checkbox("transparent bodies", &s->transparent_bodies);
  if (s->transparent_bodies) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1);
    changed |= ImGui::SliderFloat("##alpha", &s->body_alpha, 0.05f, 1.0f, "alpha %.2f");
  }
  ImGui::SetNextItemWidth(-130);
  if (SliderLogDouble("impulse scale", &o.impulse_scale, 1e-3, 1e5, "%.3g m/(N s)")) {
    s->auto_scale = false;  // a hand-set scale stays put
    changed = true;
  }
  if (ImGui::Button("fit arrows")) {
    s->fit_requested = true;
    changed = true;
  }
  ImGui::SameLine();
  changed |= ImGui::Checkbox("auto refit", &s->auto_scale);
  HelpMarker(
      "Arrow length = impulse x scale. Auto refit rescales only when the longest arrow "
      "leaves [1/4, 3/2] of half a body size, so lengths stay comparable between steps. The "
      "legend's scale bar gives the impulse of a bar's length.");
  ImGui::SetNextItemWidth(-130);
  changed |= SliderLogDouble("cone height", &o.cone_height, 1e-4, 10.0, "%.3g m");
  ImGui::SetNextItemWidth(-130);
  changed |= SliderLogDouble("normal length", &o.normal_length, 1e-4, 10.0, "%.3g m");
  ImGui::SetNextItemWidth(-130);
  double point_size = o.point_size;
  if (SliderDouble("point size", &point_size, 2.0, 30.0, "%.0f px")) {
    o.point_size = point_size;
    changed = true;
  }
  ImGui::Spacing();
  DrawContactLegend();
  return changed;
}

void DrawLogPlot(const char* id, const std::vector<double>& values, double reference,
                 const ImVec2& size, const std::vector<double>* overlay) {
  ImGui::PushID(id);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float label_w = ImGui::CalcTextSize("1e-10").x + 6.0f;
  const float bottom_h = ImGui::GetTextLineHeight() + 4.0f;
  ImGui::InvisibleButton("plot", size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0(origin.x + label_w, origin.y + 4.0f);
  const ImVec2 p1(origin.x + size.x - 6.0f, origin.y + size.y - bottom_h);
  dl->AddRectFilled(p0, p1, IM_COL32(22, 24, 28, 255));
  dl->AddRect(p0, p1, IM_COL32(90, 94, 102, 255));

  // Series 0: values, 1: the reference (range only), 2: the overlay.
  std::vector<std::vector<double>> series{values, {}};
  if (reference > 0) series[1].push_back(reference);
  if (overlay) series.push_back(*overlay);
  const PlotRect rect{p0.x + 4.0, p0.y + 4.0, p1.x - 4.0, p1.y - 4.0};
  const std::vector<LogPlotLayout> layouts = LayoutLogPlots(series, rect, 1e-16, 6);
  const LogPlotLayout& layout = layouts[0];
  // Grid and labels.
  for (const AxisTick& t : layout.ticks) {
    const float y = static_cast<float>(LogToPixel(t.value, layout.range, rect.y0, rect.y1));
    dl->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y),
                t.major ? IM_COL32(70, 74, 82, 255) : IM_COL32(42, 45, 50, 255));
    if (t.major) {
      const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
      dl->AddText(ImVec2(p0.x - ts.x - 4.0f, y - 0.5f * ts.y), IM_COL32(170, 174, 182, 255),
                  t.label.c_str());
    }
  }
  int n = static_cast<int>(values.size());
  if (overlay) n = std::max(n, static_cast<int>(overlay->size()));
  char buf[64];
  std::snprintf(buf, sizeof(buf), "iteration 0 .. %d", std::max(0, n - 1));
  dl->AddText(ImVec2(p0.x, p1.y + 2.0f), IM_COL32(170, 174, 182, 255), buf);
  if (reference > 0) {
    const float y = static_cast<float>(LogToPixel(reference, layout.range, rect.y0, rect.y1));
    for (float x = p0.x; x < p1.x; x += 8.0f) {
      dl->AddLine(ImVec2(x, y), ImVec2(std::min(x + 4.0f, p1.x), y), IM_COL32(230, 200, 80, 220),
                  1.5f);
    }
  }
  // Overlay: dashed orange polyline with square markers.
  if (overlay) {
    const ImU32 col = IM_COL32(255, 150, 60, 255);
    const auto& op = layouts[2].points;
    for (size_t i = 0; i + 1 < op.size(); ++i) {
      const ImVec2 a(float(op[i].first), float(op[i].second));
      const ImVec2 b(float(op[i + 1].first), float(op[i + 1].second));
      const float len = std::hypot(b.x - a.x, b.y - a.y);
      const int dashes = std::max(1, static_cast<int>(len / 8.0f));
      for (int k = 0; k < dashes; ++k) {
        const float t0 = float(k) / dashes, t1 = (k + 0.55f) / dashes;
        dl->AddLine(ImVec2(a.x + (b.x - a.x) * t0, a.y + (b.y - a.y) * t0),
                    ImVec2(a.x + (b.x - a.x) * t1, a.y + (b.y - a.y) * t1), col, 2.0f);
      }
    }
    for (const auto& p : op) {
      dl->AddRectFilled(ImVec2(float(p.first) - 2.5f, float(p.second) - 2.5f),
                        ImVec2(float(p.first) + 2.5f, float(p.second) + 2.5f), col);
    }
  }
  // Series.
  std::vector<ImVec2> pts;
  pts.reserve(layout.points.size());
  for (const auto& p : layout.points) pts.emplace_back(float(p.first), float(p.second));
  if (pts.size() >= 2) {
    dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), IM_COL32(110, 190, 255, 255), 0,
                    2.0f);
  }
  for (const ImVec2& p : pts) dl->AddCircleFilled(p, 2.8f, IM_COL32(110, 190, 255, 255));
  // Hover: nearest iteration.
  if (hovered && !pts.empty()) {
    const float mx = ImGui::GetIO().MousePos.x;
    size_t best = 0;
    for (size_t i = 1; i < pts.size(); ++i) {
      if (std::abs(pts[i].x - mx) < std::abs(pts[best].x - mx)) best = i;
    }
    dl->AddCircle(pts[best], 5.0f, IM_COL32(255, 255, 255, 255), 0, 1.5f);
    ImGui::SetTooltip("iteration %d\n%.3e", layout.indices[best], values[layout.indices[best]]);
  }
  ImGui::PopID();
}

void DrawSolverPanel(const StepRecord& record, double tolerance, const SolverResult* resolved) {
  const SolverStats& st = record.result.stats;
  const bool ok = st.status == SolverStatus::kConverged;
  ImGui::Text("step %d   ", record.step);
  ImGui::SameLine(0, 0);
  ImGui::TextColored(ok ? kGoodText : kBadText, "%s", SolverStatusName(st.status));
  if (!st.message.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kBadText, "%s", st.message.c_str());
    ImGui::PopTextWrapPos();
  }
  if (!record.free_motion.converged) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kBadText,
                       "free motion (stage 1) did not converge: %d Newton iterations, relative "
                       "residual %.2e; v* is inexact",
                       record.free_motion.iterations, record.free_motion.residual);
    ImGui::PopTextWrapPos();
  }
  // Divergence warnings of the step (StepDiagnostics): the solve may have converged, the
  // physics has not.
  const StepDiagnostics& diag = record.diagnostics;
  if (diag.warnings != 0) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kBadText, "warning: %s", diag.message.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::BeginGroup();
  TextWrappedAtSeparators(
      ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled),
      "energy " + FormatNumber("%+.3g", diag.energy_after - diag.energy_before) + " J (allowed " +
          FormatNumber("%.3g",
                       diag.elastic_energy + diag.injected_energy + diag.energy_tolerance) +
          " J), penetration " + FormatNumber("%.2g", diag.penetration_ratio) + ", speed " +
          FormatNumber("%.2g", diag.speed_ratio));
  ImGui::EndGroup();
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "Divergence checks of the step (docs/debugging.md):\n"
        "energy: change of KE + PE, allowed = contact springs + work in + tolerance\n"
        "penetration: deepest contact / half the half-thickness of its thinner geometry\n"
        "speed: distance a body's surface moves in a step / its diameter\n"
        "a warning fires above the allowance or a ratio of 1");
  }
  if (ImGui::BeginTable("solver_stats", 4, ImGuiTableFlags_SizingStretchSame)) {
    auto item = [](const char* name, const char* fmt, double v) {
      ImGui::TableNextColumn();
      ImGui::TextColored(kDimText, "%s", name);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatNumber(fmt, v).c_str());
    };
    item("iterations", "%.0f", st.iterations);
    item("contacts", "%.0f", record.metrics.num_contacts);
    item("e_m", "%.2e", st.momentum_error);
    item("e_mu", "%.2e", st.complementarity_error);
    item("solve", "%.3f ms", st.solve_ms);
    item("step", "%.3f ms", record.timings.total_ms);
    item("cost", "%.3e", st.cost);
    item("penetr.", "%.2e m", record.metrics.max_penetration);
    ImGui::EndTable();
  }
  // Islands solved separately: their number and the slowest one; the tooltip lists the five
  // slowest (the step's iteration count is the largest island's).
  ImGui::BeginGroup();
  TextWrappedAtSeparators(kDimText, IslandsLine(st));
  ImGui::EndGroup();
  if (!st.islands.empty() && ImGui::IsItemHovered()) {
    std::string tip = "slowest islands (first tree: trees, constraints, iterations, ms)";
    for (int k : SlowestIslands(st, 5)) {
      const IslandSummary& s = st.islands[k];
      char line[128];
      std::snprintf(line, sizeof line, "\n#%d (tree %d): %d, %d, %d, %.3f%s", k, s.first_tree,
                    s.trees, s.constraints, s.iterations, s.solve_ms,
                    s.status == SolverStatus::kConverged ? "" : " (failed)");
      tip += line;
    }
    ImGui::SetTooltip("%s", tip.c_str());
  }
  const IterationLog& log = st.iteration_log;
  if (!log.empty()) {
    // Contacts apart from joint limits, as the contact inspector counts them.
    const RegimeCounts rc = CountRegimes(record);
    ImGui::TextColored(kDimText, "%s:",
                       CountNoun(rc.contacts[0] + rc.contacts[1] + rc.contacts[2], "contact",
                                 "contacts").c_str());
    ImGui::SameLine();
    RegimeCountsLine(rc.contacts);
    if (rc.limits_active + rc.limits_inactive + record.deferred_limits > 0) {
      ImGui::TextColored(kDimText, "joint limits: %d active, %d inactive, %d out of reach",
                         rc.limits_active, rc.limits_inactive, record.deferred_limits);
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Out of reach: limit sides left out of the problem (step.defer_limits),\n"
                          "checked after the solve; %s",
                          record.limit_resolves > 0
                              ? "some would have acted, so the step was solved again with them as rows"
                              : "none would have acted");
      }
    }
    if (rc.bilateral > 0) {
      ImGui::TextColored(kDimText, "equality constraints: %d bilateral", rc.bilateral);
    }
    const int at_gap = CountLoadedAtPositiveGap(record);
    ImGui::TextColored(at_gap > 0 ? ToImVec4(kGapLoadColor) : kDimText, "%d pushing at phi > 0",
                       at_gap);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "Contacts with a normal impulse while their gap phi is still positive: SAP loads a "
          "candidate when phi < (dt + tau_d)(mu |v_t| - v_n) (damping of an approaching pair, "
          "gliding band of a sliding one).");
    }
    // The solver's other log-scale series at its final iterate, as it declares them (SAP:
    // ||D grad l||, and cond2(H) when requested).
    const SeriesTable& t = log.table();
    for (int k = 0; k < t.size; ++k) {
      const double x = log.Last(k);
      if (t[k].role != SeriesRole::kPlain || t[k].axis != SeriesAxis::kLog || !std::isfinite(x))
        continue;
      ImGui::TextColored(kDimText, "%s %.3e %s", t[k].label, x, t[k].unit);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s (final iterate)", t[k].help);
    }
  }
  const int residual = log.table().FindRole(SeriesRole::kResidual);
  ImGui::TextColored(kDimText, "%s per iteration (dashed: tolerance)",
                     residual >= 0 ? log.table()[residual].label : "residual");
  std::vector<double> resolved_em;
  if (resolved) {
    resolved_em = ResidualSeries(*resolved);
    ImGui::TextColored(ImVec4(0.43f, 0.75f, 1.0f, 1.0f), "recorded");
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.59f, 0.24f, 1.0f), "re-solve (dashed)");
    ImGui::TextColored(kDimText, "old / new: %s", ResolveLegend(record.result, *resolved).c_str());
  }
  DrawLogPlot("em_plot", ResidualSeries(record.result), tolerance,
              ImVec2(ImGui::GetContentRegionAvail().x, 130.0f), resolved ? &resolved_em : nullptr);
  const StepTimings& tm = record.timings;
  ImGui::TextColored(kDimText, "kin %.2f  coll %.2f  asm %.2f  solve %.2f  int %.2f ms",
                     tm.kinematics_ms, tm.collision_ms, tm.assembly_ms, tm.solve_ms,
                     tm.integrate_ms);
}

bool DrawTimelinePanel(const TimelineView& view, TimelineState* state) {
  bool changed = false;
  if (view.count == 0) {
    ImGui::TextDisabled("no recorded step yet");
  } else {
    ImGui::TextColored(kDimText, "%d steps held (%d .. %d), %.1f MiB", view.count, view.oldest_step,
                       view.newest_step, view.bytes / (1024.0 * 1024.0));
    if (!view.paused) ImGui::BeginDisabled();
    ImGui::SetNextItemWidth(-60.0f);
    char fmt[48];
    std::snprintf(fmt, sizeof(fmt), "step %d", view.shown_step);
    if (ImGui::SliderInt("##timeline", &state->slider, 0, view.count - 1, fmt)) {
      state->slider = TimelineIndex(state->slider, view.count);
      state->follow_live = state->slider == view.count - 1;
      changed = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("live")) {
      state->follow_live = true;
      changed = true;
    }
    if (ImGui::Button("Resume from here")) {
      state->resume_requested = true;
      changed = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Re-solve with current parameters")) {
      state->resolve_requested = true;
      changed = true;
    }
    if (!view.paused) {
      ImGui::EndDisabled();
      ImGui::TextDisabled("pause to browse, resume or re-solve");
    }
    if (view.has_comparison) {
      ImGui::TextColored(kDimText, "re-solve: %s", view.comparison_legend.c_str());
      ImGui::SameLine();
      if (ImGui::SmallButton("clear")) {
        state->clear_comparison = true;
        changed = true;
      }
    }
  }
  SectionTitle("Breakpoints");
  BreakpointSettings& b = state->breakpoints;
  changed |= ImGui::Checkbox("on failure", &b.on_failure);
  ImGui::SameLine();
  changed |= ImGui::Checkbox("on iteration cap", &b.on_iteration_cap);
  for (int w = 0; w < kNumStepWarnings; ++w) {
    const std::uint32_t bit = 1u << w;
    bool on = (b.on_warnings & bit) != 0;
    if (w % 2 == 1) ImGui::SameLine();  // two per line: the names are long
    if (ImGui::Checkbox(StepWarningName(static_cast<StepWarning>(w)), &on)) {
      b.on_warnings = on ? (b.on_warnings | bit) : (b.on_warnings & ~bit);
      changed = true;
    }
  }
  auto threshold = [&](const char* label, const char* id, bool* on, double* value, double* target) {
    bool c = ImGui::Checkbox(label, on);
    ImGui::SameLine(150.0f);
    ImGui::SetNextItemWidth(-1.0f);
    if (!*on) ImGui::BeginDisabled();
    c |= ImGui::InputDouble(id, value, 0.0, 0.0, "%.2e");
    if (!*on) ImGui::EndDisabled();
    *value = std::max(*value, 0.0);
    *target = *on ? *value : std::numeric_limits<double>::infinity();
    return c;
  };
  changed |= threshold("max penetr. [m]", "##max_pen", &state->max_penetration_on,
                       &state->max_penetration, &b.max_penetration);
  changed |= threshold("max e_m", "##max_res", &state->max_residual_on, &state->max_residual,
                       &b.max_residual);
  if (!state->break_reason.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kBadText, "break: %s", state->break_reason.c_str());
    ImGui::PopTextWrapPos();
  }
  return changed;
}

bool DrawParameterPanel(StepSettings* settings, std::vector<Material>* materials,
                        const std::vector<int>& material_order) {
  // Every widget from the parameter tables (engine/sim/param_tables.h): range, scale and tooltip are
  // the tables'; the advanced entries of each table under a closed tree node.
  bool changed = false;
  auto table = [&](const auto& t, auto* s, const char* title) {
    SectionTitle(title);
    changed |= DrawParamTable(t, s, false);
    ImGui::PushID(title);
    if (ImGui::TreeNode("advanced")) {
      changed |= DrawParamTable(t, s, true);
      ImGui::TreePop();
    }
    ImGui::PopID();
  };
  table(StepSettingsTable(), settings, "step");
  table(ContactModelTable(), &settings->contact, "contact model");
  // The chosen solver's table (solver.type in the step table switches it live).
  switch (settings->solver_type) {
    case SolverType::kSap: table(SapParameterTable(), &settings->sap, "solver: SAP"); break;
    case SolverType::kCanal: table(CanalParameterTable(), &settings->canal, "solver: CANAL"); break;
    case SolverType::kSubAdmm:
      table(SubAdmmParameterTable(), &settings->subadmm, "solver: SubADMM");
      break;
    case SolverType::kPgs: table(PgsParameterTable(), &settings->pgs, "solver: PGS"); break;
    case SolverType::kFirstOrder:
      table(FirstOrderParameterTable(), &settings->first_order, "solver: first-order");
      break;
  }
  if (const std::string why = SolverModelMismatch(*settings); !why.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kBadText, "%s", why.c_str());
    ImGui::PopTextWrapPos();
  }
  if (materials && !materials->empty()) {
    SectionTitle("materials");
    std::vector<int> order = material_order;
    if (order.size() != materials->size()) {
      order.resize(materials->size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    }
    for (size_t k = 0; k < order.size(); ++k) {
      const int i = order[k];
      if (i < 0 || i >= static_cast<int>(materials->size())) continue;
      Material& m = (*materials)[i];
      ImGui::PushID(i);
      if (ImGui::TreeNodeEx(m.name.c_str(), k == 0 ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
        changed |= DrawParamTable(MaterialTable(), &m, false);
        ImGui::TreePop();
      }
      ImGui::PopID();
    }
  }
  return changed;
}

void DrawEqualityInspector(const std::vector<EqualityRow>& rows) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("equalities", 8, flags)) return;
  for (const char* h : {"#", "name", "type", "|g| [m, rad]", "|v_c|", "|gamma| [N s]", "regime",
                        "R"}) {
    ImGui::TableSetupColumn(h);
  }
  ImGui::TableHeadersRow();
  for (const EqualityRow& r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%d", r.constraint);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.name.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.type.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.3g", r.g);
    ImGui::TableNextColumn();
    ImGui::Text("%.3g", r.v);
    ImGui::TableNextColumn();
    ImGui::Text("%.4g", r.gamma);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.regime);
    ImGui::TableNextColumn();
    double R = 0, near_rigid = 0;
    r.constants.Find("R", &R);
    r.constants.Find("near_rigid", &near_rigid);
    ImGui::Text("%.3g%s", R, near_rigid != 0 ? " (near-rigid)" : "");
  }
  ImGui::EndTable();
}

bool DrawContactInspector(const std::vector<ContactRow>& rows, int* selected) {
  bool changed = false;
  const std::vector<int> counts = CountRegimes(rows);
  ImGui::Text("%s:", CountNoun(static_cast<long long>(rows.size()), "contact", "contacts").c_str());
  ImGui::SameLine();
  const int regime_counts[3] = {counts[0], counts[1], counts[2]};
  RegimeCountsLine(regime_counts);
  ImGui::SameLine();
  ImGui::TextColored(ToImVec4(kGapLoadColor), "%d pushing at phi > 0", CountLoadedAtGap(rows));
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_SortTristate;
  static const char* kHeaders[] = {"#",         "body A",      "body B",        "phi [m]",
                                   "v_n [m/s]", "|v_t| [m/s]", "gamma_n [N s]", "|gamma_t| [N s]",
                                   "regime",    "k [N/m]",     "tau_d [s]"};
  constexpr int kFixedColumns = sizeof(kHeaders) / sizeof(kHeaders[0]);
  // Then the constants of the contact model's law (every contact of a step has the same law),
  // named from the first row that has a constraint: linear R_n, R_t, v̂_n, near-rigid;
  // Hunt–Crossley f₀, n₀, ε_s, v̂.
  const ContactRow* named = nullptr;
  for (const ContactRow& r : rows) {
    if (r.constraint >= 0 && r.constants.size > 0) {
      named = &r;
      break;
    }
  }
  const int num_constants = named ? named->constants.size : 0;
  std::vector<std::string> constant_headers;
  for (int k = 0; k < num_constants; ++k) {
    const ModelConstant& mc = named->constants.items[k];
    constant_headers.push_back(mc.unit[0] ? std::string(mc.symbol) + " [" + mc.unit + "]"
                                          : std::string(mc.symbol));
  }
  const int kColumns = kFixedColumns + num_constants;
  // One table id per law, so that a model switch starts a table with its own columns.
  char table_id[48];
  std::snprintf(table_id, sizeof(table_id), "contacts_%s", named ? LawName(named->law) : "none");
  // Compact rows: more of them in the strip's height.
  ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(4.0f, 0.0f));
  const bool open = ImGui::BeginTable(table_id, kColumns, flags, ImGui::GetContentRegionAvail());
  ImGui::PopStyleVar();
  if (!open) return false;
  ImGui::TableSetupScrollFreeze(1, 1);
  // Fixed-fit columns without user resizing are auto-fitted to the visible rows every frame.
  for (int c = 0; c < kFixedColumns; ++c) {
    ImGui::TableSetupColumn(kHeaders[c], c == 0 ? ImGuiTableColumnFlags_DefaultSort : 0, 0.0f,
                            static_cast<ImGuiID>(c));
  }
  for (int k = 0; k < num_constants; ++k) {
    ImGui::TableSetupColumn(constant_headers[k].c_str(), 0, 0.0f,
                            static_cast<ImGuiID>(kInspectorConstants + k));
  }
  ImGui::TableHeadersRow();
  // The sort order (column, direction) from the headers; recomputed every frame, since the rows
  // change with every shown step.
  int sort_column = -1;
  bool ascending = true;
  if (const ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
      specs && specs->SpecsCount > 0) {
    sort_column = static_cast<int>(specs->Specs[0].ColumnUserID);
    ascending = specs->Specs[0].SortDirection != ImGuiSortDirection_Descending;
  }
  const std::vector<int> order = SortContactRows(rows, sort_column, ascending);
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const ContactRow& r = rows[order[i]];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      char label[32];
      std::snprintf(label, sizeof(label), "%d", r.contact);
      if (ImGui::Selectable(label, selected && *selected == r.contact,
                            ImGuiSelectableFlags_SpanAllColumns)) {
        if (selected) *selected = (*selected == r.contact) ? -1 : r.contact;
        changed = true;
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.body_a.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.body_b.c_str());
      // φ of a contact loaded at a positive gap in the flag's colour.
      ImGui::TableNextColumn();
      if (r.loaded_at_gap) {
        ImGui::TextColored(ToImVec4(kGapLoadColor), "%s", FormatNumber("% .3e", r.phi).c_str());
      } else {
        ImGui::TextUnformatted(FormatNumber("% .3e", r.phi).c_str());
      }
      for (double v : {r.v_n, r.v_t, r.gamma_n, r.gamma_t}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatNumber("% .3e", v).c_str());
      }
      ImGui::TableNextColumn();
      ImGui::TextColored(ToImVec4(RegimeColor(static_cast<int>(r.regime))), "%s",
                         r.constraint < 0 ? "(none)" : RegimeName(r.regime));
      for (double v : {r.stiffness, r.dissipation_time}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatNumber("%.3e", v).c_str());
      }
      for (int k = 0; k < num_constants; ++k) {
        ImGui::TableNextColumn();
        if (k >= r.constants.size) continue;
        const ModelConstant& mc = r.constants.items[k];
        if (mc.is_flag) {
          ImGui::TextUnformatted(mc.value != 0 ? "yes" : "no");
        } else {
          ImGui::TextUnformatted(FormatNumber("% .3e", mc.value).c_str());
        }
      }
    }
  }
  ImGui::EndTable();
  return changed;
}

void DrawHelpPanel() {
  static const char* kKeys[][2] = {
      {"Space", "play / pause"},
      {"Right arrow", "single step (pauses)"},
      {"Backspace", "reset to t = 0"},
      {"H", "show / hide this help"},
      {"T", "transparent bodies"},
      {"F", "fit impulse arrows to the current step"},
      {"P", "refit the pressure legend to the shown step (hold mode)"},
      {"A", "show / hide the analysis column"},
      {"C", "centre the camera on the selected body"},
      {"Shift + C", "tracking camera: selected body, active contacts, off"},
      {"1 / 2 / 3", "camera: front / side / top view of the scene"},
      {"0", "camera: fit the scene"},
      {"V", "start / stop recording a video (MP4, in the working directory)"},
      {"Ctrl + R", "reload the scene file"},
      {"R", "re-solve the shown step with the current parameters (paused)"},
      {"Esc", "clear the selection"},
      {"Left drag", "orbit"},
      {"Right / middle drag, Shift + left", "pan"},
      {"Wheel", "zoom"},
      {"Click a contact or a table row", "highlight that contact"},
      {"Click a body", "select it (its contacts, pose, velocity)"},
      {"Double-click a body", "select it and centre the camera on it"},
      {"Ctrl + left drag on a body", "pull it with a spring (while playing)"},
      {"Drop a scene file", "open it"},
  };
  if (ImGui::BeginTable("help", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    for (const auto& k : kKeys) {
      ImGui::TableNextColumn();
      ImGui::TextColored(kGoodText, "%s", k[0]);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k[1]);
    }
    ImGui::EndTable();
  }
}

}  // namespace contactlab
