#include "ui/param_widgets.h"

#include <cmath>
#include <cstdio>

#include "engine/sim/param_tables.h"

namespace contactlab {

ParamWidget ParamWidgetFor(const ParamSpec& spec) {
  ParamWidget w;
  w.label = spec.key;
  const std::string unit = spec.unit;
  if (!unit.empty() && unit != "-") w.label += " [" + unit + "]";
  switch (spec.type) {
    case ParamType::kEnum:
      w.kind = ParamWidget::Kind::kCombo;
      break;
    case ParamType::kBool:
      w.kind = ParamWidget::Kind::kCheckbox;
      break;
    case ParamType::kInteger:
      w.kind = ParamWidget::Kind::kIntSlider;
      break;
    case ParamType::kReal:
      w.kind = ParamWidget::Kind::kSlider;
      break;
  }
  w.lo = spec.Clamp(spec.SliderMin());
  w.hi = spec.Clamp(spec.SliderMax());
  w.log = spec.scale == ParamScale::kLog;
  w.format = w.log ? "%.3e" : "%.4g";
  w.tooltip = spec.help;
  w.tooltip += "\n\n";
  if (spec.symbol[0] != '\0') w.tooltip += std::string(spec.symbol) + ", ";
  w.tooltip += "valid range " + spec.RangeText();
  if (!unit.empty() && unit != "-") w.tooltip += " " + unit;
  w.tooltip += ", default " + spec.FormatValue(spec.default_value);
  return w;
}

void AddParamGlyphs(ImFontGlyphRangesBuilder* builder) {
  // The symbols of the contact laws' constants and of solver messages (f₀, n₀, v̂, ε_s, JᵀGJ,
  // ‖v_t‖, ≤, ⪰): Greek, combining marks, phonetic superscripts, super/subscripts, punctuation,
  // arrows and mathematical operators. Glyphs the font lacks still show as '?'.
  static const ImWchar kSymbolRanges[] = {0x0300, 0x036F, 0x0370, 0x03FF, 0x1D00, 0x1DBF,
                                          0x2000, 0x209F, 0x2190, 0x22FF, 0x2A00, 0x2AFF, 0};
  builder->AddRanges(kSymbolRanges);
  for (const ParamGroupInfo& g : AllParamGroups()) {
    builder->AddText(g.title);
    builder->AddText(g.help);
    for (const ParamSpec* s : g.specs) {
      builder->AddText(ParamWidgetFor(*s).tooltip.c_str());
      builder->AddText(ParamWidgetFor(*s).label.c_str());
    }
  }
}

double AcceptParamEdit(const ParamSpec& spec, double typed) { return spec.Clamp(typed); }

bool DrawParam(const ParamSpec& spec, double* value) {
  const ParamWidget w = ParamWidgetFor(spec);
  bool changed = false;
  ImGui::SetNextItemWidth(-170.0f);
  switch (w.kind) {
    case ParamWidget::Kind::kCheckbox: {
      bool b = *value != 0;
      if (ImGui::Checkbox(w.label.c_str(), &b)) {
        *value = b ? 1 : 0;
        changed = true;
      }
      break;
    }
    case ParamWidget::Kind::kCombo: {
      const int current = static_cast<int>(std::lround(*value));
      const char* preview =
          current >= 0 && current < static_cast<int>(spec.names.size()) ? spec.names[current] : "?";
      if (ImGui::BeginCombo(w.label.c_str(), preview)) {
        for (size_t i = 0; i < spec.names.size(); ++i) {
          if (ImGui::Selectable(spec.names[i], static_cast<int>(i) == current)) {
            *value = static_cast<double>(i);
            changed = static_cast<int>(i) != current;
          }
        }
        ImGui::EndCombo();
      }
      break;
    }
    case ParamWidget::Kind::kIntSlider: {
      int v = static_cast<int>(std::lround(*value));
      const int lo = static_cast<int>(w.lo), hi = static_cast<int>(w.hi);
      if (ImGui::SliderInt(w.label.c_str(), &v, lo, hi, "%d",
                           w.log ? ImGuiSliderFlags_Logarithmic : 0)) {
        *value = AcceptParamEdit(spec, v);
        changed = true;
      }
      break;
    }
    case ParamWidget::Kind::kSlider: {
      if (w.log) {
        // ImGui's own logarithmic slider treats every value below 10^-precision of the format
        // as zero, and an exponent format ("%.3e") as precision -1 (everything below 10): the
        // slider moves the exponent u = log10(v) linearly instead and shows v.
        double u = *value > 0 ? std::log10(*value) : std::log10(w.lo);
        const double u_lo = std::log10(w.lo), u_hi = std::log10(w.hi);
        char shown[64];
        std::snprintf(shown, sizeof(shown), "%.3e", *value);
        if (ImGui::SliderScalar(w.label.c_str(), ImGuiDataType_Double, &u, &u_lo, &u_hi, shown,
                                ImGuiSliderFlags_NoInput | ImGuiSliderFlags_AlwaysClamp)) {
          *value = AcceptParamEdit(spec, std::pow(10.0, u));
          changed = true;
        }
      } else {
        double v = *value;
        if (ImGui::SliderScalar(w.label.c_str(), ImGuiDataType_Double, &v, &w.lo, &w.hi, w.format,
                                ImGuiSliderFlags_NoRoundToFormat)) {
          *value = AcceptParamEdit(spec, v);
          changed = true;
        }
      }
      break;
    }
  }
  const bool hovered = ImGui::IsItemHovered();
  // Right-click: type an exact value (also one outside the slider range but inside the valid
  // range, e.g. k = 1e12 N/m).
  if (w.kind == ParamWidget::Kind::kSlider || w.kind == ParamWidget::Kind::kIntSlider) {
    if (ImGui::BeginPopupContextItem("type")) {
      double typed = *value;
      ImGui::TextUnformatted(w.label.c_str());
      ImGui::SetNextItemWidth(160.0f);
      if (ImGui::InputDouble("##value", &typed, 0.0, 0.0, "%.6g",
                             ImGuiInputTextFlags_EnterReturnsTrue)) {
        const double accepted = AcceptParamEdit(spec, typed);
        changed |= accepted != *value;
        *value = accepted;
        ImGui::CloseCurrentPopup();
      }
      ImGui::TextDisabled("valid range %s", spec.RangeText().c_str());
      ImGui::EndPopup();
    }
  }
  if (hovered && !ImGui::IsPopupOpen("type")) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(w.tooltip.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  return changed;
}

}  // namespace contactlab
