// Widgets of the parameter tables (engine/sim/param_tables.h): each table entry becomes a slider
// (log or linear as its spec says, over its slider range), a combo (enums) or a checkbox
// (booleans), with the spec's help, range and default in a tooltip. The viewer's parameter panel
// (DrawParameterPanel in ui/panels.h) draws the tables with these, so its ranges are the tables'.
#pragma once

#include <imgui.h>

#include <string>

#include "engine/common/param_spec.h"

namespace contactlab {

// What the widget of a spec is, without drawing it.
struct ParamWidget {
  enum class Kind { kSlider, kIntSlider, kCombo, kCheckbox };
  Kind kind = Kind::kSlider;
  double lo = 0, hi = 1;  // slider range (inside the valid range)
  bool log = false;
  std::string label;    // "key [unit]" (ASCII: the key as the scene file spells it)
  std::string tooltip;  // help, then "symbol, valid range, default"
  const char* format = "%.3g";
};
ParamWidget ParamWidgetFor(const ParamSpec& spec);

// A value typed into a widget (ctrl+click on a slider may leave the slider range): kept when
// in the valid range, else clamped into the slider range (spec.Clamp).
double AcceptParamEdit(const ParamSpec& spec, double typed);

// Draws the widget of `spec` for *value (the table's double form); true when it changed. The
// value after an edit always lies in the spec's valid range.
bool DrawParam(const ParamSpec& spec, double* value);

// Adds every character of the tables' symbols, units and help texts (σ, δt, ‖v_t‖, ...) to a
// font's glyph ranges, so that the tooltips render them (the viewer's font is loaded with them).
void AddParamGlyphs(ImFontGlyphRangesBuilder* builder);

// Every field of `table` in *s (only those with spec.advanced == advanced); true on a change.
template <typename S>
bool DrawParamTable(const ParamTable<S>& table, S* s, bool advanced) {
  bool changed = false;
  for (const ParamField<S>& f : table.fields) {
    if (f.spec.advanced != advanced) continue;
    double x = f.get(*s);
    ImGui::PushID(f.spec.key);
    if (DrawParam(f.spec, &x)) {
      f.set(s, x);
      changed = true;
    }
    ImGui::PopID();
  }
  return changed;
}

}  // namespace contactlab
