#include "ui/compare_panels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <tuple>

#include "engine/sim/param_tables.h"
#include "engine/sim/solver_registry.h"
#include "ui/param_widgets.h"
#include "ui/plot_widgets.h"

namespace contactlab {

using namespace plot_widgets;

namespace {

const ImU32 kThreshold = IM_COL32(255, 80, 70, 230);  // divergence threshold: red, dashed
constexpr double kDivergenceFloor = 1e-9;  // distances below 1 nm sit at the plot's bottom [m]

ImVec4 ToVec4(const Color& c) { return ImVec4(c.r, c.g, c.b, c.a); }

// A filled square in `c` on the current line.
void Swatch(const Color& c) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  ImGui::GetWindowDrawList()->AddRectFilled(
      ImVec2(p.x, p.y + 0.15f * h), ImVec2(p.x + 0.7f * h, p.y + 0.85f * h), ToU32(c), 2.0f);
  ImGui::Dummy(ImVec2(0.8f * h, h));
  ImGui::SameLine(0, 4);
}

std::string Format(const char* fmt, double v) {
  char buf[64];
  if (std::isnan(v)) return "-";
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

// Step labels under a plot.
void StepAxis(ImDrawList* dl, const PlotArea& a, int lo, int hi) {
  if (hi <= lo) return;
  for (const AxisTick& t : NiceTicks(lo, hi, 6)) {
    if (std::abs(t.value - std::round(t.value)) > 1e-9) continue;
    const double x =
        StepToPixel(static_cast<int>(std::lround(t.value)), lo, hi, a.rect.x0, a.rect.x1);
    dl->AddLine(P(x, a.p0.y), P(x, a.p1.y), kGridMinor);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText(P(x - 0.5 * ts.x, a.p1.y + 1.0), kLabel, t.label.c_str());
  }
}

// Decade labels under a log x axis.
void LogXAxis(ImDrawList* dl, const PlotArea& a, const LogRange& range,
              const std::vector<AxisTick>& ticks) {
  for (const AxisTick& t : ticks) {
    const double x = LogToPixel(t.value, range, a.rect.x1, a.rect.x0);
    dl->AddLine(P(x, a.p0.y), P(x, a.p1.y), t.major ? kGridMajor : kGridMinor);
    if (!t.major) continue;
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    const double lx = std::clamp(x - 0.5 * ts.x, static_cast<double>(a.p0.x) - 4.0,
                                 static_cast<double>(a.p1.x) - ts.x);
    dl->AddText(P(lx, a.p1.y + 1.0), kLabel, t.label.c_str());
  }
}

}  // namespace

bool DrawSolverChoice(StepSettings* s) {
  bool changed = false;
  // Solver combo over the registry.
  int current = static_cast<int>(s->solver_type);
  ImGui::SetNextItemWidth(-170.0f);
  if (ImGui::BeginCombo("solver.type", SolverDisplayName(s->solver_type))) {
    for (int i = 0; i < kNumSolverTypes; ++i) {
      const auto type = static_cast<SolverType>(i);
      if (ImGui::Selectable(SolverDisplayName(type), i == current)) {
        if (i != current) changed = true;
        s->solver_type = type;
      }
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%s (accepts: %s)", SolverTypeName(type),
                          AcceptedModelsText(type).c_str());
      }
    }
    ImGui::EndCombo();
  }
  auto table = [&](const auto& t, auto* values) {
    changed |= DrawParamTable(t, values, false);
    ImGui::PushID(t.group);
    if (ImGui::TreeNode("advanced")) {
      changed |= DrawParamTable(t, values, true);
      ImGui::TreePop();
    }
    ImGui::PopID();
  };
  table(ContactModelTable(), &s->contact);
  switch (s->solver_type) {
    case SolverType::kSap:
      table(SapParameterTable(), &s->sap);
      break;
    case SolverType::kCanal:
      table(CanalParameterTable(), &s->canal);
      break;
    case SolverType::kSubAdmm:
      table(SubAdmmParameterTable(), &s->subadmm);
      break;
    case SolverType::kPgs:
      table(PgsParameterTable(), &s->pgs);
      break;
    case SolverType::kFirstOrder:
      table(FirstOrderParameterTable(), &s->first_order);
      break;
  }
  if (const std::string why = SolverModelMismatch(*s); !why.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kBadText, "%s", why.c_str());
    ImGui::PopTextWrapPos();
  }
  return changed;
}

CompareRequests DrawCompareConfigs(std::vector<CompareConfigRow>& rows, bool can_add, bool can_sync,
                                   double* threshold) {
  CompareRequests req;
  ImGui::PushID("compare_configs");
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInnerV;
  if (ImGui::BeginTable("configs", 6, flags)) {
    const float em = ImGui::GetFontSize();
    ImGui::TableSetupColumn("configuration", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("iters", ImGuiTableColumnFlags_WidthFixed, 2.4f * em);
    ImGui::TableSetupColumn("NCP res.", ImGuiTableColumnFlags_WidthFixed, 4.4f * em);
    ImGui::TableSetupColumn("distance", ImGuiTableColumnFlags_WidthFixed, 4.6f * em);
    ImGui::TableSetupColumn("ghost", ImGuiTableColumnFlags_WidthFixed, 2.6f * em);
    ImGui::TableSetupColumn("glyphs", ImGuiTableColumnFlags_WidthFixed, 2.8f * em);
    ImGui::TableHeadersRow();
    for (size_t c = 0; c < rows.size(); ++c) {
      CompareConfigRow& r = rows[c];
      ImGui::PushID(static_cast<int>(c));
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      Swatch(r.color);
      ImGui::TextColored(ToVec4(r.color), "%s%s", r.name.c_str(), c == 0 ? " (primary)" : "");
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%s%s\nstep %d%s%s", r.spec.empty() ? "made in the panel" : "--compare ",
                          r.spec.c_str(), r.step_count, r.stopped ? "\nstopped: " : "",
                          r.stop_reason.c_str());
      }
      const StepSummary* s = r.shown ? &r.shown->summary : nullptr;
      ImGui::TableNextColumn();
      if (s) {
        ImGui::TextColored(s->failed ? kBadText : ImVec4(1, 1, 1, 1), "%d", s->iterations);
        if (s->failed && ImGui::IsItemHovered()) {
          ImGui::SetTooltip("step %d: %s", s->step, SolverStatusName(s->status));
        }
      } else {
        ImGui::TextDisabled("-");
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s ? Format("%.1e", s->ncp_residual).c_str() : "-");
      ImGui::TableNextColumn();
      if (c == 0) {
        ImGui::TextDisabled("-");
      } else if (r.shown && !std::isnan(r.shown->divergence)) {
        const bool over = r.shown->divergence > *threshold;
        ImGui::TextColored(over ? kBadText : ImVec4(1, 1, 1, 1), "%s",
                           FormatLength(r.shown->divergence).c_str());
      } else {
        ImGui::TextDisabled("-");
      }
      ImGui::TableNextColumn();
      if (r.show_ghost) ImGui::Checkbox("##ghost", r.show_ghost);
      ImGui::TableNextColumn();
      if (r.show_contacts) ImGui::Checkbox("##contacts", r.show_contacts);
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  for (size_t c = 0; c < rows.size(); ++c) {
    CompareConfigRow& r = rows[c];
    if (r.stopped) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(kBadText, "%s stopped: %s", r.name.c_str(), r.stop_reason.c_str());
      ImGui::PopTextWrapPos();
    }
  }
  // Editors.
  for (size_t c = 0; c < rows.size(); ++c) {
    CompareConfigRow& r = rows[c];
    ImGui::PushID(static_cast<int>(c) + 100);
    ImGui::PushStyleColor(ImGuiCol_Text, ToVec4(r.color));
    const std::string title = "edit " + r.name + (c == 0 ? " (the Parameters panel's)" : "");
    const bool open = ImGui::TreeNode("editor", "%s", title.c_str());
    ImGui::PopStyleColor();
    if (c > 0) {
      ImGui::SameLine();
      if (ImGui::SmallButton("remove")) req.remove = static_cast<int>(c);
    }
    if (open) {
      if (r.settings && DrawSolverChoice(r.settings)) req.edited = static_cast<int>(c);
      if (!r.error.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(kBadText, "%s", r.error.c_str());
        ImGui::PopTextWrapPos();
      }
      ImGui::TreePop();
    }
    ImGui::PopID();
  }
  if (!can_add) ImGui::BeginDisabled();
  if (ImGui::Button(rows.size() < 2 ? "Start compare (add a configuration)"
                                    : "Add a configuration")) {
    req.add = true;
  }
  if (!can_add) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::SetTooltip(
        "a copy of the primary with the next solver, from the primary's state; "
        "up to %d configurations",
        kMaxCompareConfigs);
  }
  if (rows.size() >= 2) {
    ImGui::SameLine();
    if (!can_sync) ImGui::BeginDisabled();
    if (ImGui::Button("Sync to primary")) req.sync = true;
    if (!can_sync) ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
      ImGui::SetTooltip("restart every configuration from the primary's shown state (paused)");
    }
  }
  float mm = static_cast<float>(*threshold * 1e3);
  ImGui::SetNextItemWidth(120.0f);
  if (ImGui::SliderFloat("divergence threshold [mm]", &mm, 0.01f, 1000.0f, "%.3g",
                         ImGuiSliderFlags_Logarithmic)) {
    *threshold = std::max(1e-6, static_cast<double>(mm) * 1e-3);
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "a configuration whose bodies are farther than this from the primary's at "
        "the same step is flagged (red line on the distance plot, status line)");
  }
  ImGui::PopID();
  return req;
}

int DrawCompareSeries(const CompareSeriesView& view) {
  if (!view.store || view.store->num_configs() == 0) {
    ImGui::TextDisabled("no configurations");
    return -1;
  }
  const CompareStore& store = *view.store;
  const int n = store.num_configs();
  ImGui::PushID("compare_series");
  // Legend.
  for (int c = 0; c < n; ++c) {
    if (c > 0) ImGui::SameLine(0, 12);
    const std::string& name = c < static_cast<int>(view.names.size()) ? view.names[c] : "";
    LegendSwatch(ToU32(view.colors[c]), name.c_str());
  }
  int clicked = -1;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = std::max(24.0f, view.plot_height);
  std::vector<StepSeries> all_steps;
  for (int c = 0; c < n; ++c) {
    all_steps.push_back(ExtractCompareSeries(store, c, CompareQuantity::kIterations));
  }
  const auto [steps_lo, steps_hi] = StepRange(all_steps);
  for (int qi = 0; qi < kNumCompareQuantities; ++qi) {
    const auto q = static_cast<CompareQuantity>(qi);
    std::vector<StepSeries> series;
    for (int c = 0; c < n; ++c) series.push_back(ExtractCompareSeries(store, c, q));
    // One step axis for every plot: the steps any configuration holds.
    const int lo = steps_lo, hi = steps_hi;
    // Title with the shown step's values.
    std::string head = CompareQuantityTitle(q);
    if (q == CompareQuantity::kIterations) head += " (top: failed steps)";
    ImGui::TextColored(kDimText, "%s", head.c_str());
    if (view.shown_step >= 0) {
      for (int c = (q == CompareQuantity::kDivergence ? 1 : 0); c < n; ++c) {
        const CompareEntry* e = store.Find(c, view.shown_step);
        if (!e) continue;
        double v = 0;
        switch (q) {
          case CompareQuantity::kIterations:
            v = e->summary.iterations;
            break;
          case CompareQuantity::kSolveMs:
            v = e->summary.solve_ms;
            break;
          case CompareQuantity::kMaxPenetration:
            v = e->summary.max_penetration;
            break;
          case CompareQuantity::kTotalEnergy:
            v = e->summary.total_energy;
            break;
          case CompareQuantity::kNcpResidual:
            v = e->summary.ncp_residual;
            break;
          case CompareQuantity::kDivergence:
            v = e->divergence;
            break;
        }
        ImGui::SameLine(0, 10);
        ImGui::TextColored(ToVec4(view.colors[c]), "%s",
                           Format(CompareQuantityFormat(q), v).c_str());
      }
    }
    const std::string id = std::string("##cmp") + std::to_string(qi);
    const PlotArea a = BeginPlotArea(id.c_str(), h);
    const PlotRect& r = a.rect;
    if (lo < 0) {
      dl->AddText(
          P(r.x0 + 4, r.y0 + 2), kLabel,
          q == CompareQuantity::kDivergence ? "no second configuration yet" : "no step yet");
      continue;
    }
    const bool log_axis = CompareQuantityLogAxis(q);
    std::vector<double> all;
    for (const StepSeries& s : series) all.insert(all.end(), s.values.begin(), s.values.end());
    if (q == CompareQuantity::kDivergence && view.threshold > 0) all.push_back(view.threshold);
    LogRange lr;
    double ylo = 0, yhi = 1;
    if (log_axis) {
      lr = ComputeLogRange(all, q == CompareQuantity::kDivergence ? kDivergenceFloor : kLogFloor);
      LogGrid(dl, a, lr, LogTicks(lr, 3));
    } else {
      std::tie(ylo, yhi) = NiceRange(all, 3, q != CompareQuantity::kTotalEnergy);
      LinearGrid(dl, a, ylo, yhi, NiceTicks(ylo, yhi, 3));
    }
    std::function<double(double)> to_y = [&](double v) {
      return log_axis ? LogToPixel(std::max(v, 1e-300), lr, r.y0, r.y1)
                      : LinearToPixel(v, ylo, yhi, r.y0, r.y1);
    };
    if (qi == kNumCompareQuantities - 1) StepAxis(dl, a, lo, hi);
    dl->PushClipRect(a.p0, a.p1, true);
    const int columns = std::max(1, static_cast<int>(r.x1 - r.x0));
    // Failed steps (any status but converged) on the iterations plot: a thin row per
    // configuration along the top, a mark in its colour at each failed step.
    if (q == CompareQuantity::kIterations) {
      for (int c = 0; c < n; ++c) {
        const ImU32 col = ToU32(view.colors[c]);
        const double y = a.p0.y + 1.0 + 3.0 * c;
        long last_column = -1;
        for (const CompareEntry& e : store.track(c)) {
          if (!e.summary.failed) continue;
          const double x = StepToPixel(e.summary.step, lo, hi, r.x0, r.x1);
          const long column = std::lround(x);
          if (column == last_column) continue;
          last_column = column;
          dl->AddRectFilled(P(x - 0.5, y), P(x + 1.0, y + 2.0), col);
        }
      }
    }
    if (q == CompareQuantity::kDivergence && view.threshold > 0) {
      const double y = to_y(view.threshold);
      DashedLine(dl, P(a.p0.x, y), P(a.p1.x, y), kThreshold, 1.5f, 5.0f, 4.0f);
    }
    // The primary last, on top.
    for (int c = n - 1; c >= 0; --c) {
      const auto pts = OverlayPolyline(series[c], lo, hi, r, columns, to_y);
      Polyline(dl, pts, ToU32(view.colors[c]), 1.5f);
      if (pts.size() == 1) Markers(dl, pts, ToU32(view.colors[c]), false);
    }
    if (view.shown_step >= lo && view.shown_step <= hi) {
      const double x = StepToPixel(view.shown_step, lo, hi, r.x0, r.x1);
      dl->AddLine(P(x, a.p0.y), P(x, a.p1.y), kMarker, 1.0f);
    }
    dl->PopClipRect();
    if (a.hovered || a.active) {
      const int step = PixelToStep(ImGui::GetIO().MousePos.x, lo, hi, r.x0, r.x1);
      if (a.hovered) {
        const double x = StepToPixel(step, lo, hi, r.x0, r.x1);
        dl->AddLine(P(x, a.p0.y), P(x, a.p1.y), IM_COL32(255, 255, 255, 90));
        ImGui::BeginTooltip();
        ImGui::Text("step %d: %s", step, CompareQuantityTitle(q));
        for (int c = 0; c < n; ++c) {
          const auto& s = series[c];
          auto it = std::lower_bound(s.steps.begin(), s.steps.end(), step);
          if (it == s.steps.end() || *it != step) continue;
          const double v = s.values[it - s.steps.begin()];
          ImGui::TextColored(ToVec4(view.colors[c]), "%s  %s",
                             c < static_cast<int>(view.names.size()) ? view.names[c].c_str() : "",
                             Format(CompareQuantityFormat(q), v).c_str());
        }
        ImGui::EndTooltip();
      }
      if (a.active && ImGui::IsMouseDown(ImGuiMouseButton_Left)) clicked = step;
    }
  }
  ImGui::Dummy(ImVec2(1.0f, ImGui::GetTextLineHeight()));  // room for the step labels
  ImGui::PopID();
  return clicked;
}

bool DrawRacePanel(const RaceRun* run, const std::string& status, bool can_race,
                   float plot_height) {
  ImGui::PushID("race");
  bool pressed = false;
  if (!can_race) ImGui::BeginDisabled();
  if (ImGui::Button("Race the shown step")) pressed = true;
  if (!can_race) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::SetTooltip(
        "re-solve the shown step with every configuration, the iteration cap set "
        "to 1, 2, 3, 4, 6, 8, 12, ... (pause first)");
  }
  if (!status.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(kDimText, "%s", status.c_str());
  }
  if (!run || run->entries.empty()) {
    ImGui::TextDisabled("no race yet: pause on a step and press Race");
    ImGui::PopID();
    return pressed;
  }
  ImGui::Text("step %d: %d constraints, %d dofs; raced in %.2f s", run->step, run->constraints,
              run->dofs, run->wall_s);
  for (size_t e = 0; e < run->entries.size(); ++e) {
    if (e > 0) ImGui::SameLine(0, 12);
    LegendSwatch(ToU32(run->entries[e].color), run->entries[e].name.c_str());
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Both diagrams, the table of best points (a row per configuration) and the hint fit in the
  // room left, when plot_height allows.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float table_h = line * (static_cast<float>(run->entries.size()) + 3.0f);
  const float fit = 0.5f * (ImGui::GetContentRegionAvail().y - table_h) - 2.2f * line;
  const float h = std::max(60.0f, std::min(plot_height, fit));
  for (RaceAxis axis : {RaceAxis::kTime, RaceAxis::kIterations}) {
    ImGui::TextColored(kDimText, "NCP residual against %s",
                       axis == RaceAxis::kTime ? "solve time [ms]" : "iterations");
    const PlotArea a = BeginPlotArea(axis == RaceAxis::kTime ? "##race_time" : "##race_iter", h);
    const RacePlotLayout layout = LayoutRacePlot(*run, axis, a.rect);
    LogGrid(dl, a, layout.y_range, layout.y_ticks);
    LogXAxis(dl, a, layout.x_range, layout.x_ticks);
    dl->PushClipRect(a.p0, a.p1, true);
    for (size_t e = layout.curves.size(); e-- > 0;) {
      const ImU32 col = ToU32(run->entries[e].color);
      Polyline(dl, layout.curves[e], col, 2.0f);
      Markers(dl, layout.curves[e], col, false);
    }
    int hovered = -1;
    if (a.hovered) {
      const ImVec2 m = ImGui::GetIO().MousePos;
      hovered = PickRacePoint(layout, m.x, m.y, 10.0);
    }
    if (hovered >= 0) {
      const auto& p = layout.points[hovered];
      dl->AddCircle(P(p.x, p.y), 6.0f, kMarker, 0, 2.0f);
    }
    dl->PopClipRect();
    ImGui::Dummy(ImVec2(1.0f, ImGui::GetTextLineHeight()));  // the x labels
    if (hovered >= 0) {
      const auto& p = layout.points[hovered];
      const RaceEntry& entry = run->entries[p.entry];
      ImGui::BeginTooltip();
      ImGui::PushStyleColor(ImGuiCol_Text, ToVec4(entry.color));
      ImGui::TextUnformatted(RacePointText(entry, p.index).c_str());
      ImGui::PopStyleColor();
      ImGui::EndTooltip();
    }
  }
  // Best point per configuration.
  if (ImGui::BeginTable("race_best", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    const float em = ImGui::GetFontSize();
    ImGui::TableSetupColumn("configuration", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("best NCP", ImGuiTableColumnFlags_WidthFixed, 4.4f * em);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed, 3.6f * em);
    ImGui::TableSetupColumn("iters", ImGuiTableColumnFlags_WidthFixed, 2.4f * em);
    ImGui::TableSetupColumn("status", ImGuiTableColumnFlags_WidthFixed, 7.5f * em);
    ImGui::TableHeadersRow();
    for (const RaceEntry& e : run->entries) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextColored(ToVec4(e.color), "%s", e.name.c_str());
      if (!e.error.empty()) {
        ImGui::TableNextColumn();
        ImGui::TextColored(kBadText, "%s", e.error.c_str());
        continue;
      }
      const RaceBest b = BestRacePoint(e.curve);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(b.valid ? Format("%.2e", b.ncp_residual).c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(b.valid ? Format("%.3f", b.solve_ms).c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::Text("%d", b.iterations);
      ImGui::TableNextColumn();
      const bool ok = b.status == SolverStatus::kConverged;
      ImGui::TextColored(ok ? kGoodText : kBadText, "%s", SolverStatusName(b.status));
    }
    ImGui::EndTable();
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(
      "hover a point: its iteration, residual, time, status and the solver's own series");
  ImGui::PopTextWrapPos();
  ImGui::PopID();
  return pressed;
}

}  // namespace contactlab
