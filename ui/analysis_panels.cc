#include "ui/analysis_panels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>

#include "engine/inspect/colormap.h"
#include "ui/plot_widgets.h"

namespace contactlab {

using namespace plot_widgets;

namespace {

const ImU32 kResolved = IM_COL32(255, 150, 60, 255);    // what-if re-solve: orange
const ImU32 kEarlier = IM_COL32(150, 160, 175, 70);     // earlier steps: faint grey
const ImU32 kIsland = IM_COL32(120, 220, 210, 90);      // islands' own solves: faint teal
const ImU32 kTolerance = IM_COL32(230, 200, 80, 220);   // tolerance: yellow, dashed
const ImU32 kLinearRef = IM_COL32(120, 220, 140, 170);  // linear reference: green
const ImU32 kQuadRef = IM_COL32(200, 140, 255, 170);    // quadratic reference: violet

// Points of a series on a log axis with a shared x scale of `count` iterations.
std::vector<std::pair<double, double>> LogPoints(const std::vector<double>& values, int count,
                                                 const LogRange& range, const PlotRect& r) {
  std::vector<std::pair<double, double>> pts;
  for (int i = 0; i < static_cast<int>(values.size()); ++i) {
    if (!std::isfinite(values[i])) continue;
    pts.emplace_back(IndexToPixel(i, count, r.x0, r.x1),
                     LogToPixel(std::max(values[i], kLogFloor), range, r.y0, r.y1));
  }
  return pts;
}

std::vector<std::pair<double, double>> LinearPoints(const std::vector<double>& values, int count,
                                                    double lo, double hi, const PlotRect& r) {
  std::vector<std::pair<double, double>> pts;
  for (int i = 0; i < static_cast<int>(values.size()); ++i) {
    if (!std::isfinite(values[i])) continue;
    pts.emplace_back(IndexToPixel(i, count, r.x0, r.x1),
                     LinearToPixel(values[i], lo, hi, r.y0, r.y1));
  }
  return pts;
}

// Vertical grid lines at integer iterations (NiceTicks over [0, count − 1]); labels below the
// plot when `labels`.
void IterationGrid(ImDrawList* dl, const PlotArea& a, int count, bool labels) {
  if (count < 2) return;
  for (const AxisTick& t : NiceTicks(0, count - 1, 8)) {
    if (std::abs(t.value - std::round(t.value)) > 1e-9) continue;
    const int i = static_cast<int>(std::round(t.value));
    const double x = IndexToPixel(i, count, a.rect.x0, a.rect.x1);
    dl->AddLine(P(x, a.p0.y), P(x, a.p1.y), kGridMinor);
    if (labels) {
      const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
      dl->AddText(P(x - 0.5 * ts.x, a.p1.y + 1.0), kLabel, t.label.c_str());
    }
  }
}

double ValueAt(const std::vector<double>& v, int i) {
  return i >= 0 && i < static_cast<int>(v.size()) ? v[i]
                                                  : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

// ---------------------------------------------------------------------------------------------

namespace {

// The shown step's series (solid, markers) over the what-if re-solve's (orange, dashed) on a
// log plot, the re-solve first so the current curve stays on top.
void DrawSeriesAndResolve(ImDrawList* dl, const std::vector<double>& series,
                          const std::vector<double>* resolved, int count, const LogRange& range,
                          const PlotRect& rect) {
  if (resolved) {
    const auto pts = LogPoints(*resolved, count, range, rect);
    Polyline(dl, pts, kResolved, 2.0f, true);
    Markers(dl, pts, kResolved, true);
  }
  const auto pts = LogPoints(series, count, range, rect);
  Polyline(dl, pts, kSeries, 2.0f);
  Markers(dl, pts, kSeries, false);
}

// One plotted series of the convergence panel.
struct PanelSeries {
  const SeriesSpec* spec = nullptr;
  std::vector<double> cur, res;  // as plotted (PlottedSeries); res empty without a re-solve
  std::vector<std::vector<double>> islands;  // each island's own solve (selection->islands)
  std::vector<double> raw;  // the logged values of the shown solve, for the tooltip
  bool log_axis = true;
};

std::string FormatSeriesValue(const SeriesSpec& spec, double x) {
  char buf[64];
  if (!std::isfinite(x)) {
    std::snprintf(buf, sizeof(buf), "%s", std::isnan(x) ? "-" : (x > 0 ? "inf" : "-inf"));
  } else if (spec.type == SeriesType::kInteger) {
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(x));
  } else {
    return FormatNumber("%.4g", x) + (spec.unit && spec.unit[0] ? std::string(" ") + spec.unit : "");
  }
  std::string out = buf;
  if (spec.unit && spec.unit[0] && std::isfinite(x)) {
    out += ' ';
    out += spec.unit;
  }
  return out;
}

}  // namespace

bool DrawConvergencePanel(const ConvergenceView& view, ConvergenceSelection* selection) {
  if (!view.current || view.current->stats.iteration_log.empty()) {
    ImGui::TextDisabled("no solve to show");
    return false;
  }
  ImGui::PushID("convergence");
  const SolverResult& cur = *view.current;
  const IterationLog& log = cur.stats.iteration_log;
  const SeriesTable& table = log.table();
  bool changed = false;
  if (selection->table != table) {
    selection->keys = DefaultSeriesKeys(table);
    selection->table = table;
  }

  const int residual = table.FindRole(SeriesRole::kResidual);
  std::vector<PanelSeries> plots;
  for (const std::string& key : selection->keys) {
    const int k = table.Find(key);
    if (k < 0) continue;
    PanelSeries ps;
    ps.spec = &table[k];
    ps.cur = PlottedSeries(cur, key);
    ps.raw = log.Column(k);
    if (view.resolved) ps.res = PlottedSeries(*view.resolved, key);
    if (selection->islands) {
      for (const IslandSummary& isl : cur.stats.islands) {
        ps.islands.push_back(
            PlottedSeries(cur.stats.island_log, key, isl.log_first_row, isl.log_rows));
      }
    }
    ps.log_axis = ps.spec->axis == SeriesAxis::kLog || ps.spec->role == SeriesRole::kObjective;
    plots.push_back(std::move(ps));
  }
  std::vector<std::vector<double>> res_earlier;
  const bool residual_shown =
      residual >= 0 && std::find(selection->keys.begin(), selection->keys.end(),
                                 table[residual].key) != selection->keys.end();
  if (residual_shown) {
    for (const SolverResult* r : view.earlier) {
      if (r) res_earlier.push_back(PlottedSeries(*r, table[residual].key));
    }
  }
  // Shared iteration axis: the longest solve shown.
  int count = log.num_rows();
  for (const PanelSeries& ps : plots) count = std::max(count, static_cast<int>(ps.res.size()));
  for (const auto& e : res_earlier) count = std::max(count, static_cast<int>(e.size()));

  // Title and legend.
  if (view.step >= 0) {
    ImGui::Text("step %d", view.step);
    ImGui::SameLine();
  }
  ImGui::TextColored(cur.stats.status == SolverStatus::kConverged ? kGoodText : kBadText, "%s",
                     SolverStatusName(cur.stats.status));
  ImGui::SameLine();
  ImGui::TextColored(kDimText, "%s",
                     CountNoun(cur.stats.iterations, "iteration", "iterations").c_str());
  // Series picker: a popup with one checkbox per declared series, in declaration order.
  ImGui::SameLine(0, 12);
  if (ImGui::SmallButton("series...")) ImGui::OpenPopup("series_picker");
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("choose the plotted series among those the solver declares");
  }
  if (ImGui::BeginPopup("series_picker")) {
    for (int k = 0; k < table.size; ++k) {
      const SeriesSpec& spec = table[k];
      auto it = std::find(selection->keys.begin(), selection->keys.end(), spec.key);
      bool on = it != selection->keys.end();
      if (ImGui::Checkbox(spec.label, &on)) {
        changed = true;
        if (on) {
          selection->keys.emplace_back(spec.key);
        } else {
          selection->keys.erase(it);
        }
      }
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%s%s%s%s\n%s", spec.key, spec.unit[0] ? " [" : "", spec.unit,
                          spec.unit[0] ? "]" : "", spec.help);
      }
    }
    if (!cur.stats.islands.empty()) {
      char label[64];
      std::snprintf(label, sizeof(label), "each island's solve (%d islands)",
                    static_cast<int>(cur.stats.islands.size()));
      if (ImGui::Checkbox(label, &selection->islands)) changed = true;
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("faint curves of the islands' own solves under the merged one");
      }
    }
    if (ImGui::SmallButton("defaults")) {
      selection->keys = DefaultSeriesKeys(table);
      changed = true;
    }
    ImGui::EndPopup();
  }
  LegendSwatch(kSeries, "this step");
  if (view.resolved) {
    std::string label = "re-solve";
    const SolverResult& rs = *view.resolved;
    if (!rs.laws.empty() && !cur.laws.empty() && rs.laws.model() != cur.laws.model()) {
      label += std::string(" (") + ContactModelName(rs.laws.model()) +
               ", step: " + ContactModelName(cur.laws.model()) + ")";
    }
    LegendSameLine(label.c_str());
    LegendSwatch(kResolved, label.c_str(), true);
  }
  if (selection->islands && !cur.stats.islands.empty()) {
    const std::string label =
        "each of " + CountNoun(static_cast<long long>(cur.stats.islands.size()), "island",
                               "islands");
    LegendSameLine(label.c_str());
    LegendSwatch(kIsland, label.c_str());
  }
  if (!res_earlier.empty()) {
    const std::string label = std::to_string(res_earlier.size()) + " earlier";
    LegendSameLine(label.c_str());
    LegendSwatch(IM_COL32(150, 160, 175, 200), label.c_str());
  }
  if (residual_shown) {
    LegendSwatch(kTolerance, "tolerance", true);
    LegendSameLine("linear");
    LegendSwatch(kLinearRef, "linear", true);
    LegendSameLine("quadratic");
    LegendSwatch(kQuadRef, "quadratic", true);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "Reference slopes from the start of the residual's tail (its last points, up to 4, "
          "while it decreases), both through the tail's first two points: linear keeps that "
          "ratio, quadratic squares it every iteration.");
    }
    // Observed order of convergence over the same tail, on its own line.
    const std::vector<double> e = PlottedSeries(cur, table[residual].key);
    const ConvergenceTail tail = ObservedOrder(e);
    if (std::isfinite(tail.order)) {
      ImGui::TextColored(kDimText, "observed order q = %s over iterations %d-%d",
                         FormatNumber("%.2f", tail.order).c_str(), tail.start,
                         tail.start + tail.points - 1);
    } else {
      ImGui::TextColored(kDimText, "observed order q: n/a (fewer than 3 decreasing points)");
    }
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "Least-squares slope of log e_{k+1} against log e_k over the tail's last points: "
          "e_{k+1} ~ C e_k^q, q = 1 linear, q = 2 quadratic.");
    }
  }
  if (plots.empty()) {
    ImGui::TextDisabled("no series selected");
    ImGui::PopID();
    return changed;
  }

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h_main = std::max(40.0f, view.plot_height);
  const float h_small = std::max(30.0f, 0.75f * view.plot_height);
  std::vector<PlotArea> areas;
  areas.reserve(plots.size());
  for (size_t p = 0; p < plots.size(); ++p) {
    const PanelSeries& ps = plots[p];
    const SeriesSpec& spec = *ps.spec;
    const bool is_residual = residual >= 0 && &spec == &table[residual];
    const bool last = p + 1 == plots.size();
    ImGui::TextColored(kDimText, "%s", SeriesAxisTitle(spec).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", spec.help);
    const std::string id = std::string("##") + spec.key;
    const PlotArea a = BeginPlotArea(id.c_str(), is_residual ? h_main : h_small);
    areas.push_back(a);
    if (ps.log_axis) {
      // The range covers the solves (and, for the residual, the earlier steps and the
      // tolerance); the reference slopes are cut at its bottom.
      std::vector<double> all = ps.cur;
      all.insert(all.end(), ps.res.begin(), ps.res.end());
      for (const auto& e : ps.islands) all.insert(all.end(), e.begin(), e.end());
      if (is_residual) {
        for (const auto& e : res_earlier) all.insert(all.end(), e.begin(), e.end());
        if (view.tolerance > 0) all.push_back(view.tolerance);
      }
      const LogRange range =
          ComputeLogRange(all, spec.role == SeriesRole::kObjective ? 1e-300 : kLogFloor);
      LogGrid(dl, a, range, LogTicks(range, is_residual ? 5 : 4));
      IterationGrid(dl, a, count, last);
      dl->PushClipRect(a.p0, a.p1, true);
      if (is_residual) {
        for (const auto& e : res_earlier) {
          Polyline(dl, LogPoints(e, count, range, a.rect), kEarlier, 1.5f);
        }
        if (view.tolerance > 0) {
          const double y = LogToPixel(view.tolerance, range, a.rect.y0, a.rect.y1);
          DashedLine(dl, P(a.p0.x, y), P(a.p1.x, y), kTolerance, 1.5f, 4.0f, 4.0f);
        }
        // Reference slopes from the start of the tail whose order is estimated, through its
        // first two points; only when the tail has a third point for them to explain.
        const ConvergenceTail tail = ObservedOrder(ps.cur);
        const ReferenceSeries refs =
            tail.points >= 3 ? AnchoredReferenceSlopes(ps.cur, tail.start, count, range.lo())
                             : ReferenceSeries{};
        const auto lin_pts = LogPoints(refs.linear, count, range, a.rect);
        const auto quad_pts = LogPoints(refs.quadratic, count, range, a.rect);
        Polyline(dl, lin_pts, kLinearRef, 1.2f, true);
        Polyline(dl, quad_pts, kQuadRef, 1.2f, true);
        // Each line's name above its end, kept inside the plot; the second name moves below
        // the first where the two would overlap (both lines often end at the right edge).
        ImVec2 placed_min(0, 0), placed_max(0, 0);
        bool have_placed = false;
        auto name_line = [&](const std::vector<std::pair<double, double>>& pts, ImU32 colour,
                             const char* name) {
          if (pts.size() < 2) return;
          const ImVec2 size = ImGui::CalcTextSize(name);
          float x = static_cast<float>(pts.back().first) - 0.5f * size.x;
          float y = static_cast<float>(pts.back().second) - size.y - 2.0f;
          x = std::clamp(x, a.p0.x + 2.0f, std::max(a.p0.x + 2.0f, a.p1.x - size.x - 2.0f));
          y = std::clamp(y, a.p0.y + 1.0f, std::max(a.p0.y + 1.0f, a.p1.y - size.y - 1.0f));
          if (have_placed && x < placed_max.x && x + size.x > placed_min.x &&
              y < placed_max.y && y + size.y > placed_min.y) {
            y = placed_max.y + 1.0f;
          }
          dl->AddText(ImVec2(x, y), colour, name);
          placed_min = ImVec2(x, y);
          placed_max = ImVec2(x + size.x, y + size.y);
          have_placed = true;
        };
        name_line(lin_pts, kLinearRef, "linear");
        name_line(quad_pts, kQuadRef, "quadratic");
      }
      for (const auto& e : ps.islands) {
        Polyline(dl, LogPoints(e, count, range, a.rect), kIsland, 1.2f);
      }
      DrawSeriesAndResolve(dl, ps.cur, view.resolved ? &ps.res : nullptr, count, range, a.rect);
      dl->PopClipRect();
    } else {
      // Linear axis from 0 (or the smallest value, if negative) to max(1, largest value).
      double lo = 0.0, hi = 1.0;
      auto widen = [&](const std::vector<double>& v) {
        for (double x : v) {
          if (!std::isfinite(x)) continue;
          hi = std::max(hi, x);
          lo = std::min(lo, x);
        }
      };
      widen(ps.cur);
      widen(ps.res);
      for (const auto& e : ps.islands) widen(e);
      LinearGrid(dl, a, lo, hi, NiceTicks(lo, hi, 3));
      IterationGrid(dl, a, count, last);
      dl->PushClipRect(a.p0, a.p1, true);
      for (const auto& e : ps.islands) {
        Polyline(dl, LinearPoints(e, count, lo, hi, a.rect), kIsland, 1.2f);
      }
      if (view.resolved) {
        const auto pts = LinearPoints(ps.res, count, lo, hi, a.rect);
        Polyline(dl, pts, kResolved, 1.5f, true);
        Markers(dl, pts, kResolved, true);
      }
      const auto pts = LinearPoints(ps.cur, count, lo, hi, a.rect);
      Polyline(dl, pts, kSeries, 1.5f);
      Markers(dl, pts, kSeries, false);
      dl->PopClipRect();
    }
  }
  ImGui::Dummy(ImVec2(1.0f, ImGui::GetTextLineHeight()));  // room for the iteration labels

  // Hover: one iteration across the plots.
  const PlotArea* hovered = nullptr;
  for (const PlotArea& a : areas) {
    if (a.hovered) hovered = &a;
  }
  // The last iteration of the solves shown (this step's, the re-solve's, the islands'): no
  // tooltip past it (the axis can be longer for the earlier steps).
  int last_row = log.num_rows() - 1;
  for (const PanelSeries& ps : plots) {
    last_row = std::max(last_row, static_cast<int>(ps.res.size()) - 1);
    for (const auto& e : ps.islands) last_row = std::max(last_row, static_cast<int>(e.size()) - 1);
  }
  const int hovered_i =
      hovered ? HoveredIteration(ImGui::GetIO().MousePos.x, count, last_row, hovered->rect.x0,
                                 hovered->rect.x1)
              : -1;
  if (hovered && hovered_i >= 0) {
    const int i = hovered_i;
    const double x = IndexToPixel(i, count, areas[0].rect.x0, areas[0].rect.x1);
    for (const PlotArea& a : areas) dl->AddLine(P(x, a.p0.y), P(x, a.p1.y), kMarker);
    ImGui::BeginTooltip();
    ImGui::Text("iteration %d%s", i, i == 0 ? " (initial guess)" : "");
    for (const PanelSeries& ps : plots) {
      const SeriesSpec& spec = *ps.spec;
      std::string line = std::string(spec.key) + "  " + FormatSeriesValue(spec, ValueAt(ps.raw, i));
      if (view.resolved) {
        line += "   re-solve " +
                FormatSeriesValue(spec,
                                  ValueAt(view.resolved->stats.iteration_log.Column(spec.key), i));
      }
      ImGui::TextUnformatted(line.c_str());
    }
    ImGui::EndTooltip();
  }
  ImGui::PopID();
  return changed;
}

// ---------------------------------------------------------------------------------------------

namespace {

// One small multiple of the time-series panel. Returns the clicked (or dragged-on) index, -1.
int DrawSeriesPlot(const char* id, const char* title, const char* unit_format,
                   const std::vector<double>& y, const TimeSeries& series, int shown_index,
                   float height, bool log_axis, bool include_zero) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int n = static_cast<int>(y.size());
  char head[128];
  if (shown_index >= 0 && shown_index < n) {
    char value[48];
    std::snprintf(value, sizeof(value), unit_format, y[shown_index]);
    std::snprintf(head, sizeof(head), "%s: %s", title, value);
  } else {
    std::snprintf(head, sizeof(head), "%s", title);
  }
  ImGui::TextColored(kDimText, "%s", head);
  const PlotArea a = BeginPlotArea(id, height);
  const PlotRect& r = a.rect;
  LogRange lr;
  double lo = 0, hi = 1;
  if (log_axis) {
    lr = ComputeLogRange(y, kLogFloor);
    LogGrid(dl, a, lr, LogTicks(lr, 3));
  } else {
    std::tie(lo, hi) = NiceRange(y, 3, include_zero);
    LinearGrid(dl, a, lo, hi, NiceTicks(lo, hi, 3));
  }
  auto to_y = [&](double v) {
    return log_axis ? LogToPixel(std::max(v, kLogFloor), lr, r.y0, r.y1)
                    : LinearToPixel(v, lo, hi, r.y0, r.y1);
  };
  dl->PushClipRect(a.p0, a.p1, true);
  // Failures: a faint red band over the plot and a solid tick at its top.
  for (int f : series.failures) {
    const double x = IndexToPixel(f, n, r.x0, r.x1);
    dl->AddLine(P(x, a.p0.y), P(x, a.p1.y), IM_COL32(255, 70, 60, 70));
    dl->AddLine(P(x, a.p0.y), P(x, a.p0.y + 6.0), kFailure, 2.0f);
  }
  const int columns = std::max(1, static_cast<int>(r.x1 - r.x0));
  if (n <= columns) {
    std::vector<std::pair<double, double>> pts;
    for (int i = 0; i < n; ++i) {
      if (std::isfinite(y[i])) pts.emplace_back(IndexToPixel(i, n, r.x0, r.x1), to_y(y[i]));
    }
    Polyline(dl, pts, kSeries, 1.5f);
    if (n == 1 && !pts.empty()) Markers(dl, pts, kSeries, false);
  } else {
    // One vertical stroke per pixel column from its min to its max, joined to the previous
    // column's last sample: at most `columns` segments, and no spike is lost.
    double prev_last = std::numeric_limits<double>::quiet_NaN();
    for (const MinMax& m : Envelope(y, columns)) {
      if (std::isnan(m.min)) continue;
      const double x = IndexToPixel((m.begin + m.end - 1) / 2, n, r.x0, r.x1);
      double top = m.max, bottom = m.min;
      if (!std::isnan(prev_last)) {
        top = std::max(top, prev_last);
        bottom = std::min(bottom, prev_last);
      }
      const double y0 = to_y(top), y1 = to_y(bottom);
      dl->AddLine(P(x, y0), P(x, std::max(y1, y0 + 1.0)), kSeries, 1.5f);
      prev_last = m.last;
    }
  }
  if (shown_index >= 0 && shown_index < n) {
    const double x = IndexToPixel(shown_index, n, r.x0, r.x1);
    dl->AddLine(P(x, a.p0.y), P(x, a.p1.y), kMarker, 1.5f);
    if (std::isfinite(y[shown_index])) {
      dl->AddCircle(P(x, to_y(y[shown_index])), 4.0f, kMarker, 0, 1.5f);
    }
  }
  dl->PopClipRect();
  int clicked = -1;
  if ((a.hovered || a.active) && n > 0) {
    const int i = PixelToIndex(ImGui::GetIO().MousePos.x, n, r.x0, r.x1);
    if (a.hovered) {
      const double x = IndexToPixel(i, n, r.x0, r.x1);
      dl->AddLine(P(x, a.p0.y), P(x, a.p1.y), IM_COL32(255, 255, 255, 90));
      char value[48];
      std::snprintf(value, sizeof(value), unit_format, y[i]);
      const bool failed =
          std::binary_search(series.failures.begin(), series.failures.end(), i);
      ImGui::SetTooltip("step %d  (t = %.4f s)%s\n%s: %s", series.steps[i], series.time[i],
                        failed ? "  FAILED" : "", title, value);
    }
    if (a.active && ImGui::IsMouseDown(ImGuiMouseButton_Left)) clicked = i;
  }
  return clicked;
}

}  // namespace

int DrawTimeSeriesPanel(const TimeSeries& series, int shown_step, float plot_height) {
  if (series.size() == 0) {
    ImGui::TextDisabled("no recorded step yet");
    return -1;
  }
  ImGui::PushID("time_series");
  const int shown = IndexOfStep(series, shown_step);
  ImGui::TextColored(kDimText, "steps %d .. %d, %d failed (red)", series.steps.front(),
                     series.steps.back(), static_cast<int>(series.failures.size()));
  const float h = std::max(24.0f, plot_height);
  int index = -1;
  auto plot = [&](const char* id, const char* title, const char* fmt,
                  const std::vector<double>& y, bool log_axis, bool include_zero) {
    const int i = DrawSeriesPlot(id, title, fmt, y, series, shown, h, log_axis, include_zero);
    if (i >= 0) index = i;
  };
  plot("##iterations", "iterations", "%.0f", series.iterations, false, true);
  plot("##solve_ms", "solve [ms]", "%.3f", series.solve_ms, false, true);
  plot("##contacts", "contacts", "%.0f", series.contacts, false, true);
  plot("##energy", "total energy [J]", "%.6g", series.total_energy, false, false);
  plot("##penetration", "max penetration [m]", "%.3e", series.max_penetration, false, true);
  plot("##em", "e_m", "%.3e", series.momentum_error, true, false);
  ImGui::PopID();
  return index >= 0 ? series.steps[index] : -1;
}

// ---------------------------------------------------------------------------------------------

void DrawProfilerBar(const FrameProfile& profile) {
  ImGui::PushID("profiler");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float width = std::max(60.0f, ImGui::GetContentRegionAvail().x);
  const float height = ImGui::GetTextLineHeight() * 1.2f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 p1(p0.x + width, p0.y + height);
  ImGui::InvisibleButton("##bar", ImVec2(width, height));
  const bool hovered = ImGui::IsItemHovered();
  dl->AddRectFilled(p0, p1, kPlotBackground);
  const std::vector<BarSegment> segs = LayoutProfileBar(profile, p0.x, p1.x);
  double sum = 0;
  for (const BarSegment& s : segs) {
    sum += s.ms;
    dl->AddRectFilled(P(s.x0, p0.y), P(s.x1, p1.y), ToU32(FramePartColor(s.part)));
  }
  dl->AddRect(p0, p1, kPlotBorder);
  if (hovered) {
    const double mx = ImGui::GetIO().MousePos.x;
    const double total = std::max(profile.frame_ms, sum);
    bool found = false;
    for (const BarSegment& s : segs) {
      if (mx >= s.x0 && mx < s.x1) {
        ImGui::SetTooltip("%s: %.3f ms (%.0f%% of the frame)", FramePartName(s.part), s.ms,
                          total > 0 ? 100.0 * s.ms / total : 0.0);
        found = true;
      }
    }
    if (!found && profile.frame_ms > sum) {
      ImGui::SetTooltip("not attributed: %.3f ms", profile.frame_ms - sum);
    }
  }
  const double fps = profile.frame_ms > 0 ? 1000.0 / profile.frame_ms : 0.0;
  ImGui::TextColored(kDimText, "frame %.2f ms (%.0f fps), attributed %.2f ms", profile.frame_ms,
                     fps, sum);
  // Legend, three parts per line.
  const float h = ImGui::GetTextLineHeight();
  for (int i = 0; i < kNumFrameParts; ++i) {
    const FramePart part = static_cast<FramePart>(i);
    if (i % 3 != 0) ImGui::SameLine(0, 0);
    const ImVec2 c = ImGui::GetCursorScreenPos();
    const float cell = std::max(90.0f, width / 3.0f);
    ImGui::BeginGroup();
    dl->AddRectFilled(ImVec2(c.x, c.y + 0.2f * h), ImVec2(c.x + 0.6f * h, c.y + 0.8f * h),
                      ToU32(FramePartColor(part)));
    ImGui::Dummy(ImVec2(0.8f * h, h));
    ImGui::SameLine(0, 0);
    ImGui::Text("%s %.2f ms", FramePartName(part), FramePartMs(profile, part));
    ImGui::EndGroup();
    // Pad the group to a fixed cell width so the columns line up.
    const float used = ImGui::GetItemRectSize().x;
    if (used < cell && i % 3 != 2) {
      ImGui::SameLine(0, 0);
      ImGui::Dummy(ImVec2(cell - used, h));
    }
  }
  ImGui::PopID();
}

// ---------------------------------------------------------------------------------------------

namespace {

// One sparsity pattern in a square-ish area of width `size`, aspect kept, with block outlines.
void DrawSparsity(const char* id, const char* title, const SparsityImage& img, ImTextureID tex,
                  float size) {
  ImGui::BeginGroup();
  ImGui::TextColored(kDimText, "%s %d x %d, %lld nonzeros", title, img.rows, img.cols,
                     img.nonzeros);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 c = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, ImVec2(size, size));
  const bool hovered = ImGui::IsItemHovered();
  const PlotRect area{c.x, c.y, c.x + size, c.y + size};
  const PlotRect r = FitAspect(img.rows, img.cols, area);
  if (img.width <= 0 || img.height <= 0 || !(r.x1 > r.x0)) {
    dl->AddText(c, kLabel, "(empty)");
    ImGui::EndGroup();
    return;
  }
  if (tex) {
    dl->AddImage(tex, P(r.x0, r.y0), P(r.x1, r.y1));
  } else {
    dl->AddRectFilled(P(r.x0, r.y0), P(r.x1, r.y1), ToU32(kSparsityBackground));
    const double cw = (r.x1 - r.x0) / img.width, ch = (r.y1 - r.y0) / img.height;
    for (const CellRun& run : SparsityRuns(img)) {
      dl->AddRectFilled(P(r.x0 + run.x0 * cw, r.y0 + run.y * ch),
                        P(r.x0 + run.x1 * cw, r.y0 + (run.y + 1) * ch),
                        ToU32(SparsityCellColor(run.value)));
    }
  }
  // Block outlines; a block smaller than a pixel adds nothing visible, so they are skipped.
  for (const MatrixBlock& b : img.blocks) {
    const PlotRect br = BlockToPixels(b, img.rows, img.cols, r);
    if (br.x1 - br.x0 < 2.0 && br.y1 - br.y0 < 2.0) continue;
    dl->AddRect(P(br.x0, br.y0), P(br.x1, br.y1), IM_COL32(255, 255, 255, 90));
  }
  dl->AddRect(P(r.x0, r.y0), P(r.x1, r.y1), kPlotBorder);
  if (hovered) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (m.x >= r.x0 && m.x < r.x1 && m.y >= r.y0 && m.y < r.y1) {
      const int row = static_cast<int>((m.y - r.y0) / (r.y1 - r.y0) * img.rows);
      const int col = static_cast<int>((m.x - r.x0) / (r.x1 - r.x0) * img.cols);
      const int cx = std::min(img.width - 1, static_cast<int>((m.x - r.x0) / (r.x1 - r.x0) *
                                                              img.width));
      const int cy = std::min(img.height - 1, static_cast<int>((m.y - r.y0) / (r.y1 - r.y0) *
                                                               img.height));
      ImGui::SetTooltip("row %d, column %d\ncell fill %.0f%%", row, col,
                        img.at(cx, cy) * 100.0 / 255.0);
    }
  }
  ImGui::EndGroup();
}

}  // namespace

void DrawConditioningPanel(const ConditioningReport& report, ImTextureID h_image,
                           ImTextureID j_image) {
  ImGui::PushID("conditioning");
  if (!report.ok) {
    ImGui::TextColored(kBadText, "analysis failed: %s", report.message.c_str());
  }
  if (ImGui::BeginTable("cond_numbers", 4, ImGuiTableFlags_SizingStretchSame)) {
    auto cell = [](const char* name, const std::string& value) {
      ImGui::TableNextColumn();
      ImGui::TextColored(kDimText, "%s", name);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(value.c_str());
    };
    cell("n (nv)", std::to_string(report.n));
    cell("rows of J", std::to_string(report.num_rows));
    cell("lambda_min(H)", Scientific(report.lambda_min) + " kg");
    cell("lambda_max(H)", Scientific(report.lambda_max) + " kg");
    cell("method", report.exact ? std::string("exact (dense)")
                                : std::string(report.converged && report.scaled_converged
                                                  ? "iterative, converged"
                                                  : "iterative, NOT converged"));
    ImGui::EndTable();
  }
  // The two condition numbers, each on its own labelled row.
  if (ImGui::BeginTable("cond_values", 2, ImGuiTableFlags_SizingFixedFit)) {
    auto row = [](const char* name, const std::string& value, const char* help) {
      ImGui::TableNextColumn();
      ImGui::TextColored(kDimText, "%s", name);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(value.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
    };
    row("cond2(H) raw", Scientific(report.condition_number),
        "lambda_max / lambda_min of the unscaled H = A + J^T G J. It mixes units (masses in kg "
        "against moments of inertia in kg m^2), so much of it measures the bodies' sizes.");
    row("cond2(DHD) Jacobi-scaled",
        std::isfinite(report.scaled_condition_number) ? Scientific(report.scaled_condition_number)
                                                      : std::string("n/a (diag(H) not > 0)"),
        "cond2 of D H D with D = diag(H)^(-1/2): H with unit diagonal, dimensionless. The "
        "conditioning left once each dof is measured in its own units (what a "
        "Jacobi-preconditioned solver sees).");
    ImGui::EndTable();
  }
  if (!report.exact && !report.converged) {
    ImGui::TextColored(kBadText, "estimate did not converge: cond2 is a lower bound");
  }
  if (!report.message.empty() && report.ok) {
    ImGui::TextColored(kDimText, "%s", report.message.c_str());
  }

  // Spectrum.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (report.eigenvalues.empty()) {
    ImGui::TextDisabled(report.exact ? "spectrum: none (H is empty)"
                                     : "spectrum: only with the exact (dense) eigen-solve; the "
                                       "iterative estimate gives lambda_min and lambda_max");
  } else {
    const std::vector<double>& ev = report.eigenvalues;
    const int n = static_cast<int>(ev.size());
    ImGui::TextColored(kDimText, "eigenvalues of H, ascending [kg]");
    const PlotArea a = BeginPlotArea("##spectrum", 100.0f);
    const LogRange range = ComputeLogRange(ev, 1e-300);
    LogGrid(dl, a, range, LogTicks(range, 5));
    dl->PushClipRect(a.p0, a.p1, true);
    std::vector<std::pair<double, double>> pts;
    pts.reserve(ev.size());
    for (int i = 0; i < n; ++i) {
      if (!std::isfinite(ev[i]) || !(ev[i] > 0)) continue;
      pts.emplace_back(IndexToPixel(i, n, a.rect.x0, a.rect.x1),
                       LogToPixel(ev[i], range, a.rect.y0, a.rect.y1));
    }
    Polyline(dl, pts, kSeries, 1.5f);
    if (n <= 64) Markers(dl, pts, kSeries, false);
    dl->PopClipRect();
    if (a.hovered && n > 0) {
      const int i = PixelToIndex(ImGui::GetIO().MousePos.x, n, a.rect.x0, a.rect.x1);
      ImGui::SetTooltip("lambda_%d = %s kg", i, FormatNumber("%.4e", ev[i]).c_str());
    }
  }

  // Sparsity patterns side by side.
  const float avail = ImGui::GetContentRegionAvail().x;
  const float size = std::clamp(0.5f * avail - 8.0f, 60.0f, 320.0f);
  DrawSparsity("##H", "H", report.H_pattern, h_image, size);
  ImGui::SameLine(0, 12);
  DrawSparsity("##J", "J", report.J_pattern, j_image, size);
  ImGui::TextColored(kDimText, "colour: fraction of the cell's entries that are nonzero");
  ImGui::PopID();
}

}  // namespace contactlab
