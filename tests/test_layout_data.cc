// The contact inspector's sort order and the parameter panel's material order (ui/layout_data.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "app/scene.h"
#include "ui/layout_data.h"

namespace contactlab {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Four rows with a tie, a NaN and a row without a constraint.
std::vector<ContactRow> Rows() {
  std::vector<ContactRow> rows(4);
  const char* a[] = {"box", "ball", "world", "ball"};
  const char* b[] = {"ball", "world", "box", "cap"};
  const double phi[] = {1e-3, kNaN, -2e-4, 1e-3};
  const double v[] = {0.5, -0.1, 0.5, kNaN};
  const Regime regime[] = {Regime::kSliding, Regime::kStiction, Regime::kNoContact,
                           Regime::kStiction};
  for (int i = 0; i < 4; ++i) {
    ContactRow& r = rows[i];
    r.contact = i;
    r.constraint = i == 2 ? -1 : i;
    r.body_a = a[i];
    r.body_b = b[i];
    r.phi = phi[i];
    r.v_n = v[i];
    r.v_t = v[(i + 1) % 4];
    r.gamma_n = 4.0 - i;
    r.gamma_t = i == 1 ? kNaN : 0.0;
    r.regime = regime[i];
    r.stiffness = i < 2 ? 1e6 : 1e9;
    r.dissipation_time = 0.01 * i;
    if (i != 3) r.constants.Add("R_n", "R_n", "s/kg", 10.0 - i);
  }
  // Rows in an order other than the contact order.
  return {rows[2], rows[0], rows[3], rows[1]};
}

std::vector<int> Contacts(const std::vector<ContactRow>& rows, const std::vector<int>& order) {
  std::vector<int> out;
  for (int i : order) out.push_back(rows[i].contact);
  return out;
}

TEST(SortContactRows, EveryColumnBothWays) {
  const std::vector<ContactRow> rows = Rows();
  auto sorted = [&](int column, bool ascending) {
    return Contacts(rows, SortContactRows(rows, column, ascending));
  };
  using V = std::vector<int>;
  EXPECT_EQ(sorted(kInspectorIndex, true), (V{0, 1, 2, 3}));
  EXPECT_EQ(sorted(kInspectorIndex, false), (V{3, 2, 1, 0}));
  EXPECT_EQ(sorted(-1, true), (V{0, 1, 2, 3})) << "no sort: contact order";
  // Names: ball (1, 3: tie by contact), box, world.
  EXPECT_EQ(sorted(kInspectorBodyA, true), (V{1, 3, 0, 2}));
  EXPECT_EQ(sorted(kInspectorBodyA, false), (V{2, 0, 1, 3})) << "ties stay in contact order";
  EXPECT_EQ(sorted(kInspectorBodyB, true), (V{0, 2, 3, 1}));
  // phi: -2e-4, 1e-3 (0 and 3 tie), NaN last both ways.
  EXPECT_EQ(sorted(kInspectorPhi, true), (V{2, 0, 3, 1}));
  EXPECT_EQ(sorted(kInspectorPhi, false), (V{0, 3, 2, 1}));
  // v_n: -0.1, 0.5, 0.5, NaN.
  EXPECT_EQ(sorted(kInspectorVn, true), (V{1, 0, 2, 3}));
  EXPECT_EQ(sorted(kInspectorVn, false), (V{0, 2, 1, 3}));
  // v_t of contact i is v[i + 1]: 0 -> -0.1, 1 -> 0.5, 2 -> NaN, 3 -> 0.5.
  EXPECT_EQ(sorted(kInspectorVt, true), (V{0, 1, 3, 2}));
  EXPECT_EQ(sorted(kInspectorGammaN, true), (V{3, 2, 1, 0}));
  EXPECT_EQ(sorted(kInspectorGammaN, false), (V{0, 1, 2, 3}));
  EXPECT_EQ(sorted(kInspectorGammaT, true), (V{0, 2, 3, 1})) << "NaN last";
  EXPECT_EQ(sorted(kInspectorGammaT, false), (V{0, 2, 3, 1})) << "NaN last, ties by contact";
  // Regime: stiction (1, 3), sliding (0), no constraint (2) last.
  EXPECT_EQ(sorted(kInspectorRegime, true), (V{1, 3, 0, 2}));
  EXPECT_EQ(sorted(kInspectorRegime, false), (V{2, 0, 1, 3}));
  EXPECT_EQ(sorted(kInspectorStiffness, true), (V{0, 1, 2, 3}));
  EXPECT_EQ(sorted(kInspectorStiffness, false), (V{2, 3, 0, 1}));
  EXPECT_EQ(sorted(kInspectorDissipation, false), (V{3, 2, 1, 0}));
  // The model's first constant: 10 - i, contact 3 has none (last both ways).
  EXPECT_EQ(sorted(kInspectorConstants, true), (V{2, 1, 0, 3}));
  EXPECT_EQ(sorted(kInspectorConstants, false), (V{0, 1, 2, 3}));
  EXPECT_EQ(sorted(kInspectorConstants + 3, true), (V{0, 1, 2, 3})) << "no such constant";
}

TEST(SortContactRows, IsAPermutation) {
  const std::vector<ContactRow> rows = Rows();
  for (int column = -1; column <= kInspectorConstants + 1; ++column) {
    for (bool ascending : {true, false}) {
      std::vector<int> order = SortContactRows(rows, column, ascending);
      std::sort(order.begin(), order.end());
      EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3})) << column;
    }
  }
  EXPECT_TRUE(SortContactRows({}, kInspectorPhi, true).empty());
}

TEST(SceneMaterialsFirst, UsedMaterialsComeFirst) {
  Model model;
  model.materials.resize(4);
  model.materials[0].name = "default";
  model.materials[1].name = "rubber";
  model.materials[2].name = "steel";
  model.materials[3].name = "wood";
  model.geoms.resize(3);
  model.geoms[0].material = 3;
  model.geoms[1].material = 1;
  model.geoms[2].material = 3;
  EXPECT_EQ(SceneMaterialsFirst(model), (std::vector<int>{1, 3, 0, 2}));
  model.geoms.clear();
  EXPECT_EQ(SceneMaterialsFirst(model), (std::vector<int>{0, 1, 2, 3})) << "none used: as is";
}

TEST(SceneMaterialsFirst, TheClutterMaterialLeadsInItsScene) {
  const Scene scene =
      LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/clutter_40_walls.yaml");
  const std::vector<int> order = SceneMaterialsFirst(scene.model);
  ASSERT_EQ(order.size(), scene.model.materials.size());
  EXPECT_EQ(scene.model.materials[order[0]].name, "clutter");
}

}  // namespace
}  // namespace contactlab
