// Pressure-field contact in the UI: the "Pressure" section of the left column (toggles, colour
// map, range mode), the pressure legend drawn in a corner of the 3D view, and the inspector's
// patch rows with their faces on demand. No GL calls.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "engine/inspect/pressure_draw.h"
#include "engine/sim/simulator.h"
#include "ui/ui_data.h"

namespace contactlab {

// What the viewport shows of pressure-field contact, and how the colour range is chosen.
struct PressureOverlay {
  bool show = true;          // patches: filled faces, force arrows, centre-of-pressure markers
  bool face_glyphs = false;  // also the per-face contact glyphs (points, cones, impulse arrows)
  bool tets = false;         // the compliant geometries' tet meshes
  bool tets_all = false;     // every tet edge (default: the boundary's only)
  bool hover = true;         // the pressure under the mouse in a tooltip
  // Toggles, colour map and offset; p_min / p_max are set from `range` every frame, force_scale
  // [m/N] by the viewer (refitted with hysteresis, like the impulse arrows).
  PressureDrawOptions draw;
  double arrow_reference = 0.1;  // length the legend's force line names [m]
  PressureRangeState range;
};

// Facts the section shows beside the toggles.
struct PressurePanelView {
  int compliant_geometries = 0;  // geometries with a pressure field in the scene
  int patches = 0, faces = 0;    // of the shown step
  double max_pressure = 0;       // of the shown step [Pa]
};

// The "Pressure" section: show / outlines / force arrows / centre of pressure / face glyphs /
// tets (boundary or all) / hover toggles, the colour map, and the legend's range mode (hold with
// a refit button, or fixed with min and max typed in Pa). Returns true when something changed.
bool DrawPressurePanel(const PressurePanelView& view, PressureOverlay* overlay);

// The pressure legend: a vertical colour bar of the map with its range's ends and middle in
// Pa / kPa / MPa, the range mode ("held since step N", "fixed", "waiting for pressure") and the
// force arrows' scale.
// Drawn with `dl` (e.g. the background draw list) inside the rectangle whose bottom-left corner
// is `corner` (window coordinates); returns the size it took.
ImVec2 DrawPressureLegend(ImDrawList* dl, ImVec2 corner, const PressureOverlay& overlay);

// The legend's text lines (for tests and the tooltip): the top, middle and bottom labels and the
// mode line.
struct PressureLegendText {
  std::string top, middle, bottom, mode;
  std::string force;  // "arrow 10 cm = 19.6 N" (empty without force arrows)
};
PressureLegendText PressureLegendLabels(const PressureOverlay& overlay);

// Per-patch rows (bodies, faces, area, Σ A_e p0, max and mean pressure, faces per regime) and,
// for the patch `*open_patch` (-1: none; set by each row's "faces" button), its faces. Clicking a
// face selects its contact (*selected_contact). Returns true when the selection changed.
bool DrawPatchInspector(const std::vector<PatchRow>& rows, const StepRecord& record,
                        int* open_patch, int* selected_contact);

}  // namespace contactlab
