#include "ui/pressure_panels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/inspect/colormap.h"
#include "ui/panels.h"

namespace contactlab {

namespace {

const ImVec4 kDimText(0.62f, 0.64f, 0.68f, 1.0f);

ImVec4 ToVec4(const Color& c) { return ImVec4(c.r, c.g, c.b, c.a); }

void Help(const char* text) {
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

}  // namespace

bool DrawPressurePanel(const PressurePanelView& view, PressureOverlay* o) {
  bool changed = false;
  if (view.compliant_geometries == 0) {
    ImGui::TextColored(kDimText, "no compliant geometry in this scene (hydroelastic: {...})");
  } else {
    ImGui::TextColored(kDimText, "%d compliant geometr%s", view.compliant_geometries,
                       view.compliant_geometries == 1 ? "y" : "ies");
    if (view.patches > 0) {
      ImGui::TextColored(kDimText, "shown step: %d patch%s, %d face%s, max %s", view.patches,
                         view.patches == 1 ? "" : "es", view.faces, view.faces == 1 ? "" : "s",
                         FormatPressure(view.max_pressure).c_str());
    } else {
      ImGui::TextColored(kDimText, "shown step: no patch");
    }
  }
  PressureDrawOptions& d = o->draw;
  if (ImGui::BeginTable("pressure_toggles", 2)) {
    auto cell = [&](const char* label, bool* v, const char* help) {
      ImGui::TableNextColumn();
      changed |= ImGui::Checkbox(label, v);
      if (help && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
    };
    cell("show surfaces", &o->show,
         "contact patches as polygons coloured by pressure, with the legend");
    cell("outlines", &d.outlines, "the edges of every face of the patches");
    cell("force arrows", &d.force_arrows,
         "per patch: its resultant pressure force (sum of A_e p0 n) at the centre of pressure");
    cell("centre of pressure", &d.centre_of_pressure, "per patch: a dot at its centre of pressure");
    cell("moment arrows", &d.moment_arrows,
         "per patch: the moment of the solved contact forces (pressure and friction) about the "
         "centre of pressure, along its axis (violet; 1 m per N m)");
    cell("face glyphs", &o->face_glyphs,
         "also the glyphs of each face's contact (point, cone, impulse arrows): one per face");
    cell("hover pressure", &o->hover, "the pressure under the mouse in a tooltip");
    cell("tet meshes", &o->tets,
         "the compliant geometries' tetrahedral meshes (boundary edges unless 'all tets')");
    cell("all tets", &o->tets_all, "every tet edge, not only the boundary's");
    ImGui::EndTable();
  }
  int map = static_cast<int>(d.color_map);
  const char* maps[kNumPressureColorMaps] = {PressureColorMapName(PressureColorMap::kLime),
                                             PressureColorMapName(PressureColorMap::kViridis)};
  ImGui::SetNextItemWidth(120);
  if (ImGui::Combo("colour map", &map, maps, kNumPressureColorMaps)) {
    d.color_map = static_cast<PressureColorMap>(map);
    changed = true;
  }
  Help("lime: one hue, clear of the regime, cone and arrow colours.\n"
       "viridis: perceptually uniform, but its greens and yellows are those of stiction and the "
       "friction arrows.");

  PressureRangeState& r = o->range;
  int mode = static_cast<int>(r.mode);
  ImGui::TextUnformatted("legend range:");
  ImGui::SameLine();
  changed |= ImGui::RadioButton("hold", &mode, static_cast<int>(PressureRangeMode::kHold));
  ImGui::SameLine();
  changed |= ImGui::RadioButton("fixed", &mode, static_cast<int>(PressureRangeMode::kFixed));
  Help("hold: the range is set once, from the first step with pressure (or when you press "
       "refit), and then kept, so colours mean the same pressure all along the run.\n"
       "fixed: type the minimum and maximum [Pa].");
  r.mode = static_cast<PressureRangeMode>(mode);
  if (r.mode == PressureRangeMode::kHold) {
    if (ImGui::SmallButton("refit")) {
      r.refit_requested = true;
      changed = true;
    }
    ImGui::SameLine();
    if (r.refit_requested) {
      ImGui::TextColored(kDimText, "refit at the next step with pressure");
    } else if (r.held) {
      ImGui::TextColored(kDimText, "0 .. %s, set at step %d", FormatPressure(r.held_max).c_str(),
                         r.held_step);
    } else {
      ImGui::TextColored(kDimText, "waiting for a step with pressure");
    }
  } else {
    ImGui::SetNextItemWidth(110);
    changed |= ImGui::InputDouble("min [Pa]", &r.fixed_min, 0, 0, "%.4g");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(110);
    changed |= ImGui::InputDouble("max [Pa]", &r.fixed_max, 0, 0, "%.4g");
    if (!(r.fixed_max > r.fixed_min)) {
      ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.3f, 1.0f), "max <= min: drawing %s .. %s",
                         FormatPressure(PressureRangeOf(r)[0]).c_str(),
                         FormatPressure(PressureRangeOf(r)[1]).c_str());
    }
    if (ImGui::SmallButton("from the held range") && r.held) {
      r.fixed_min = r.held_min;
      r.fixed_max = r.held_max;
      changed = true;
    }
  }
  return changed;
}

PressureLegendText PressureLegendLabels(const PressureOverlay& o) {
  const auto range = PressureRangeOf(o.range);
  PressureLegendText t;
  t.top = FormatPressure(range[1]);
  t.middle = FormatPressure(0.5 * (range[0] + range[1]));
  t.bottom = FormatPressure(range[0]);
  if (o.range.mode == PressureRangeMode::kFixed) {
    t.mode = "fixed";
  } else if (o.range.held) {
    t.mode = "held since step " + std::to_string(o.range.held_step);
  } else {
    t.mode = "hold: waiting for pressure";
  }
  if (o.draw.force_arrows && o.draw.force_scale > 0 && o.arrow_reference > 0) {
    char buf[64];
    const double L = o.arrow_reference;
    const double newtons = L / o.draw.force_scale;
    if (L >= 1) {
      std::snprintf(buf, sizeof(buf), "arrow %.3g m = %.3g N", L, newtons);
    } else if (L >= 0.01) {
      std::snprintf(buf, sizeof(buf), "arrow %.3g cm = %.3g N", 100 * L, newtons);
    } else {
      std::snprintf(buf, sizeof(buf), "arrow %.3g mm = %.3g N", 1000 * L, newtons);
    }
    t.force = buf;
  }
  return t;
}

ImVec2 DrawPressureLegend(ImDrawList* dl, ImVec2 corner, const PressureOverlay& o) {
  const PressureLegendText labels = PressureLegendLabels(o);
  const float line = ImGui::GetTextLineHeight();
  const float bar_w = 16.0f, bar_h = 120.0f, pad = 8.0f;
  float label_w = 0;
  for (const std::string* s : {&labels.top, &labels.middle, &labels.bottom}) {
    label_w = std::max(label_w, ImGui::CalcTextSize(s->c_str()).x);
  }
  const char* title = "pressure";
  const float text_w = std::max({ImGui::CalcTextSize(title).x, bar_w + 6.0f + label_w,
                                 ImGui::CalcTextSize(labels.mode.c_str()).x,
                                 ImGui::CalcTextSize(labels.force.c_str()).x});
  const float extra = labels.force.empty() ? 0.0f : line;
  const ImVec2 size(text_w + 2 * pad, bar_h + 2 * line + extra + 2 * pad + 8.0f);
  const ImVec2 p0(corner.x, corner.y - size.y);
  dl->AddRectFilled(p0, ImVec2(p0.x + size.x, corner.y), IM_COL32(12, 13, 16, 200), 4.0f);
  dl->AddText(ImVec2(p0.x + pad, p0.y + pad), IM_COL32(235, 238, 242, 255), title);
  // Colour bar: bottom = p_min, top = p_max.
  const float bx = p0.x + pad, by = p0.y + pad + line + 4.0f;
  const int n = 48;
  for (int i = 0; i < n; ++i) {
    const float y1 = by + bar_h * (1.0f - float(i) / n), y0 = by + bar_h * (1.0f - float(i + 1) / n);
    const ImU32 c0 = ToImU32(PressureMapColor(o.draw.color_map, double(i) / n));
    const ImU32 c1 = ToImU32(PressureMapColor(o.draw.color_map, double(i + 1) / n));
    dl->AddRectFilledMultiColor(ImVec2(bx, y0), ImVec2(bx + bar_w, y1 + 0.5f), c1, c1, c0, c0);
  }
  dl->AddRect(ImVec2(bx - 1, by - 1), ImVec2(bx + bar_w + 1, by + bar_h + 1),
              IM_COL32(200, 200, 200, 120));
  const ImU32 text = IM_COL32(225, 228, 232, 255);
  const float lx = bx + bar_w + 6.0f;
  dl->AddText(ImVec2(lx, by - 0.5f * line), text, labels.top.c_str());
  dl->AddText(ImVec2(lx, by + 0.5f * bar_h - 0.5f * line), text, labels.middle.c_str());
  dl->AddText(ImVec2(lx, by + bar_h - 0.5f * line), text, labels.bottom.c_str());
  dl->AddText(ImVec2(p0.x + pad, by + bar_h + 4.0f), IM_COL32(160, 165, 172, 255),
              labels.mode.c_str());
  if (!labels.force.empty()) {
    dl->AddText(ImVec2(p0.x + pad, by + bar_h + 4.0f + line), ToImU32(kPatchForceColor),
                labels.force.c_str());
  }
  return size;
}

bool DrawPatchInspector(const std::vector<PatchRow>& rows, const StepRecord& record,
                        int* open_patch, int* selected_contact) {
  bool changed = false;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
  static const char* kHeaders[] = {"patch",        "body A",       "body B",
                                   "faces",        "area [m^2]",   "sum A p0 [N]",
                                   "max p0",       "mean p0",      "|F| solved [N]",
                                   "|M| [N m]",    RegimeName(Regime::kStiction),
                                   RegimeName(Regime::kSliding),
                                   RegimeName(Regime::kNoContact), ""};
  constexpr int kColumns = sizeof(kHeaders) / sizeof(kHeaders[0]);
  const float row_h = ImGui::GetTextLineHeightWithSpacing();
  const float height = row_h * (std::min<int>(static_cast<int>(rows.size()), 3) + 1.5f);
  if (ImGui::BeginTable("patches", kColumns, flags | ImGuiTableFlags_ScrollY, ImVec2(0, height))) {
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const char* h : kHeaders) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const PatchRow& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.surface);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.body_a.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.body_b.c_str());
      ImGui::TableNextColumn();
      if (r.skipped > 0) {
        ImGui::Text("%d (%d without contact)", r.faces, r.skipped);
      } else {
        ImGui::Text("%d", r.faces);
      }
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", r.area);
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", r.normal_force);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatPressure(r.max_pressure).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatPressure(r.mean_pressure).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", r.solved_force);
      ImGui::TableNextColumn();
      ImGui::Text("%.3g", r.moment);
      ImGui::TableNextColumn();
      ImGui::TextColored(ToVec4(kStictionColor), "%d", r.regimes[0]);
      ImGui::TableNextColumn();
      ImGui::TextColored(ToVec4(kSlidingColor), "%d", r.regimes[1]);
      ImGui::TableNextColumn();
      ImGui::TextColored(ToVec4(kInactiveColor), "%d", r.regimes[2]);
      ImGui::TableNextColumn();
      ImGui::PushID(r.surface);
      const bool open = open_patch && *open_patch == r.surface;
      if (ImGui::SmallButton(open ? "hide faces" : "faces") && open_patch) {
        *open_patch = open ? -1 : r.surface;
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  if (!open_patch || *open_patch < 0 || *open_patch >= static_cast<int>(rows.size())) {
    return changed;
  }
  const std::vector<PatchFaceRow> faces = BuildPatchFaceRows(record, *open_patch);
  ImGui::Text("faces of patch %d (click a face to select its contact):", *open_patch);
  static const char* kFaceHeaders[] = {"face",   "contact", "area [m^2]", "p0",
                                       "max p",  "centroid [m]", "regime", "gamma_n [N s]"};
  constexpr int kFaceColumns = sizeof(kFaceHeaders) / sizeof(kFaceHeaders[0]);
  const float face_h = row_h * (std::min<int>(static_cast<int>(faces.size()), 8) + 1.5f);
  if (ImGui::BeginTable("patch_faces", kFaceColumns, flags | ImGuiTableFlags_ScrollY,
                        ImVec2(0, face_h))) {
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const char* h : kFaceHeaders) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(faces.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const PatchFaceRow& f = faces[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        char label[32];
        std::snprintf(label, sizeof(label), "%d##face", f.face);
        const bool selected = selected_contact && f.contact >= 0 && *selected_contact == f.contact;
        if (ImGui::Selectable(label, selected, ImGuiSelectableFlags_SpanAllColumns) &&
            selected_contact && f.contact >= 0) {
          *selected_contact = selected ? -1 : f.contact;
          changed = true;
        }
        ImGui::TableNextColumn();
        if (f.contact >= 0) {
          ImGui::Text("%d", f.contact);
        } else {
          ImGui::TextDisabled("none");
        }
        ImGui::TableNextColumn();
        ImGui::Text("%.3e", f.area);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatPressure(f.p0).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatPressure(f.max_vertex_pressure).c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.4f %.4f %.4f", f.centroid.x(), f.centroid.y(), f.centroid.z());
        ImGui::TableNextColumn();
        ImGui::TextColored(ToVec4(RegimeColor(static_cast<int>(f.regime))), "%s",
                           f.contact < 0 ? "(none)" : RegimeName(f.regime));
        ImGui::TableNextColumn();
        ImGui::Text("%.3e", f.gamma_n);
      }
    }
    ImGui::EndTable();
  }
  return changed;
}

}  // namespace contactlab
