#include "ui/layout_data.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace contactlab {

namespace {

// The numeric key of a row for a numeric column; NaN when it has none.
double NumericKey(const ContactRow& r, int column) {
  switch (column) {
    case kInspectorIndex: return r.contact;
    case kInspectorPhi: return r.phi;
    case kInspectorVn: return r.v_n;
    case kInspectorVt: return r.v_t;
    case kInspectorGammaN: return r.gamma_n;
    case kInspectorGammaT: return r.gamma_t;
    case kInspectorRegime: return r.constraint < 0 ? 3.0 : static_cast<double>(r.regime);
    case kInspectorStiffness: return r.stiffness;
    case kInspectorDissipation: return r.dissipation_time;
    default: {
      const int k = column - kInspectorConstants;
      if (k >= 0 && k < r.constants.size) return r.constants.items[k].value;
      return std::nan("");
    }
  }
}

}  // namespace

std::vector<int> SortContactRows(const std::vector<ContactRow>& rows, int column, bool ascending) {
  std::vector<int> order(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) order[i] = static_cast<int>(i);
  auto by_contact = [&](int a, int b) {
    return rows[a].contact != rows[b].contact ? rows[a].contact < rows[b].contact : a < b;
  };
  if (column < 0) {
    std::sort(order.begin(), order.end(), by_contact);
    return order;
  }
  if (column == kInspectorBodyA || column == kInspectorBodyB) {
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      const std::string& x = column == kInspectorBodyA ? rows[a].body_a : rows[a].body_b;
      const std::string& y = column == kInspectorBodyA ? rows[b].body_a : rows[b].body_b;
      if (x != y) return ascending ? x < y : x > y;
      return by_contact(a, b);
    });
    return order;
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const double x = NumericKey(rows[a], column), y = NumericKey(rows[b], column);
    const bool nx = std::isnan(x), ny = std::isnan(y);
    if (nx != ny) return ny;  // NaN last
    if (!nx && x != y) return ascending ? x < y : x > y;
    return by_contact(a, b);
  });
  return order;
}

std::vector<int> SceneMaterialsFirst(const Model& model) {
  const int n = static_cast<int>(model.materials.size());
  std::vector<bool> used(n, false);
  for (const Geom& g : model.geoms) {
    if (g.material >= 0 && g.material < n) used[g.material] = true;
  }
  std::vector<int> order;
  for (int i = 0; i < n; ++i) {
    if (used[i]) order.push_back(i);
  }
  for (int i = 0; i < n; ++i) {
    if (!used[i]) order.push_back(i);
  }
  return order;
}

}  // namespace contactlab
