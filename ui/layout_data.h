// Pure data behind the viewer's layout (no ImGui): the contact inspector's sort order and the
// parameter panel's order of materials. Unit-tested in tests/test_layout_data.cc.
#pragma once

#include <vector>

#include "engine/multibody/model.h"
#include "ui/ui_data.h"

namespace contactlab {

// The inspector's columns, in table order; the contact model's constants follow as columns
// kInspectorConstants + k (the row's constants.items[k]).
enum InspectorColumn {
  kInspectorIndex = 0,
  kInspectorBodyA,
  kInspectorBodyB,
  kInspectorPhi,
  kInspectorVn,
  kInspectorVt,
  kInspectorGammaN,
  kInspectorGammaT,
  kInspectorRegime,
  kInspectorStiffness,
  kInspectorDissipation,
  kInspectorConstants
};

// Row indices of `rows` sorted by `column` (InspectorColumn, or kInspectorConstants + k),
// ascending or descending. Text columns compare by name, the regime column in the order
// stiction, sliding, no contact, then rows without a constraint; NaN values (and a constant a row
// lacks) come last in either direction; ties keep the contact order (by ContactRow::contact).
// An unknown column gives the contact order.
std::vector<int> SortContactRows(const std::vector<ContactRow>& rows, int column, bool ascending);

// Indices into model.materials: first the materials some geometry uses (the scene's own), in
// material order, then the others (defaults no geometry refers to).
std::vector<int> SceneMaterialsFirst(const Model& model);

}  // namespace contactlab
