// Legible contact glyphs (engine/inspect/glyph_layout.h): per-contact sizes from the contact
// spacing and body size, level of detail by projected size, focus on a body or island, label
// placement without overlaps, the arrows' scale bar, and the colour language's distances.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/inspect/colormap.h"
#include "engine/inspect/debug_draw.h"
#include "engine/inspect/glyph_layout.h"
#include "engine/inspect/pressure_draw.h"
#include "engine/multibody/model.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

Contact At(const Vec3& p, int geom_a = -1, int geom_b = -1, int body_a = -1, int body_b = -1) {
  Contact c;
  c.point = p;
  c.geom_a = geom_a;
  c.geom_b = geom_b;
  c.body_a = body_a;
  c.body_b = body_b;
  c.friction = 0.5;
  return c;
}

TEST(GlyphScale, CloseContactsGetSmallerGlyphsThanAnIsolatedOne) {
  GlyphSizing sizing;
  sizing.max_scale = 0.04;
  // Two contacts 1 cm apart, one 1 m away from both.
  const std::vector<Contact> contacts{At(Vec3(0, 0, 0)), At(Vec3(0.01, 0, 0)),
                                      At(Vec3(1, 0, 0))};
  const std::vector<double> s = ContactGlyphScales(contacts, {}, sizing);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s[2], 0.04) << "isolated: the largest scale";
  EXPECT_NEAR(s[0], sizing.spacing_fraction * 0.01, 1e-12) << "a fraction of the spacing";
  EXPECT_NEAR(s[1], s[0], 1e-12);
  EXPECT_LT(s[0], s[2]);
  // Two glyphs of the close pair (each spans its scale) do not reach each other.
  EXPECT_LT(s[0] + s[1], 0.01);
}

TEST(GlyphScale, ASmallBodysContactsGetSmallerGlyphsThanABigBodys) {
  Model model;
  Geom floor;
  floor.shape.type = ShapeType::kHalfSpace;
  Geom pebble;
  pebble.shape.type = ShapeType::kSphere;
  pebble.shape.radius = 0.01;
  Geom boulder;
  boulder.shape.type = ShapeType::kBox;
  boulder.shape.half_extents = Vec3(0.2, 0.2, 0.2);
  model.geoms = {floor, pebble, boulder};
  const std::vector<double> radii = GeometryBoundingRadii(model);
  ASSERT_EQ(radii.size(), 3u);
  EXPECT_TRUE(std::isinf(radii[0])) << "a half-space bounds nothing";
  EXPECT_DOUBLE_EQ(radii[1], 0.01);
  EXPECT_NEAR(radii[2], 0.2 * std::sqrt(3.0), 1e-12);
  GlyphSizing sizing;
  sizing.max_scale = 0.05;
  // Far apart, so that spacing does not limit: the pebble's contact with the floor, the
  // boulder's.
  const std::vector<Contact> contacts{At(Vec3(0, 0, 0), 0, 1), At(Vec3(5, 0, 0), 0, 2)};
  const std::vector<double> s = ContactGlyphScales(contacts, radii, sizing);
  EXPECT_NEAR(s[0], sizing.body_fraction * 0.01, 1e-12) << "limited by the pebble";
  EXPECT_DOUBLE_EQ(s[1], 0.05) << "the boulder is big enough for the largest glyph";
  EXPECT_LT(s[0], s[1]);
}

TEST(GlyphScale, ExcludedContactsDoNotCrowdOthersAndTheFloorHolds) {
  GlyphSizing sizing;
  sizing.max_scale = 0.04;
  sizing.min_scale = 0.002;
  const std::vector<Contact> contacts{At(Vec3(0, 0, 0)), At(Vec3(0.001, 0, 0)),
                                      At(Vec3(0.0011, 0, 0))};
  // Contact 1 hidden (e.g. a candidate without impulse): contact 0's neighbour is contact 2.
  const std::vector<double> s = ContactGlyphScales(contacts, {}, sizing, {1, 0, 1});
  EXPECT_DOUBLE_EQ(s[0], 0.002) << "0.45 × 1.1 mm is below the floor";
  EXPECT_DOUBLE_EQ(s[1], 0.04) << "an excluded contact is left at the largest scale";
  const std::vector<double> all = ContactGlyphScales(contacts, {}, sizing);
  EXPECT_DOUBLE_EQ(all[1], 0.002);
}

TEST(GlyphScale, HashGridAgreesWithBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 0.5);
  std::vector<Contact> contacts;
  for (int i = 0; i < 400; ++i) contacts.push_back(At(Vec3(u(rng), u(rng), 0.1 * u(rng))));
  GlyphSizing sizing;
  sizing.max_scale = 0.03;
  const std::vector<double> s = ContactGlyphScales(contacts, {}, sizing);
  for (int i = 0; i < static_cast<int>(contacts.size()); ++i) {
    double nearest = std::numeric_limits<double>::infinity();
    for (int j = 0; j < static_cast<int>(contacts.size()); ++j) {
      if (j != i) nearest = std::min(nearest, (contacts[j].point - contacts[i].point).norm());
    }
    EXPECT_NEAR(s[i], std::min(0.03, sizing.spacing_fraction * nearest), 1e-12) << i;
  }
}

TEST(GlyphLod, ConesGoFirstThenArrowsAndDotsStay) {
  // Cones from 16 px, arrows from 6 px, dots 0.4 x the scale within 3 to 9 px.
  const GlyphLodLimits limits;
  const GlyphLod near = ContactGlyphLod(40, limits);
  EXPECT_TRUE(near.cone && near.arrows);
  EXPECT_DOUBLE_EQ(near.point_px, 9) << "capped at the largest dot";
  const GlyphLod mid = ContactGlyphLod(12, limits);
  EXPECT_FALSE(mid.cone) << "a 12 px cone is a blob";
  EXPECT_TRUE(mid.arrows);
  EXPECT_DOUBLE_EQ(mid.point_px, 0.4 * 12);
  const GlyphLod far = ContactGlyphLod(1, limits);
  EXPECT_FALSE(far.cone || far.arrows);
  EXPECT_DOUBLE_EQ(far.point_px, 3) << "the dot never vanishes";
  EXPECT_FALSE(ContactGlyphLod(std::nan(""), limits).cone);
}

TEST(GlyphView, PixelsPerMetreFallWithDepth) {
  GlyphView v;
  EXPECT_DOUBLE_EQ(v.PixelsPerMetre(Vec3(0, 0, 1)), 0) << "no view";
  v.focal_px = 800;
  EXPECT_DOUBLE_EQ(v.PixelsPerMetre(Vec3(0, 0, 2)), 400);
  EXPECT_DOUBLE_EQ(v.PixelsPerMetre(Vec3(0.3, 0, 4)), 200) << "depth along forward only";
  EXPECT_DOUBLE_EQ(v.PixelsPerMetre(Vec3(0, 0, -1)), 0) << "behind the eye";
}

// Two contacts 2 mm apart at 1 m from a camera of focal length 800 px: their glyphs span under a
// pixel, so DrawContacts draws dots of the smallest size and neither cones nor arrows.
TEST(GlyphLod, DrawContactsDropsConesAndArrowsWhenZoomedOut) {
  StepRecord r;
  for (int i = 0; i < 2; ++i) {
    r.contacts.push_back(At(Vec3(0.002 * i, 0, 1), -1, -1, -1, i));
    ConstraintData cd;
    cd.first_row = 3 * i;
    cd.friction = 0.5;
    cd.source = i;
    r.problem.constraints.push_back(cd);
  }
  r.result.gamma = VecX::Zero(6);
  r.result.gamma.segment<3>(0) = Vec3(0.1, 0, 1);
  r.result.gamma.segment<3>(3) = Vec3(0.1, 0, 1);
  r.result.regime = {Regime::kStiction, Regime::kStiction};
  ContactDrawOptions o;
  o.cone_height = 0.05;
  o.impulse_scale = 1e-4;  // arrows of 0.1 mm
  o.summary_markers = false;  // each contact's own dot (merging: SummaryMarkers tests)
  ContactGlyphContext ctx;
  ctx.view.focal_px = 800;
  RecordingDebugDraw far;
  DrawContacts(r, o, ctx, &far);
  ASSERT_EQ(far.points.size(), 2u);
  EXPECT_DOUBLE_EQ(far.points[0].size, o.min_point_size);
  EXPECT_TRUE(far.cones.empty());
  EXPECT_TRUE(far.arrows.empty());
  // Zoomed in 100 times: cones and arrows are back, the cone height a fraction of the spacing.
  ctx.view.focal_px = 80000;
  o.impulse_scale = 0.01;
  RecordingDebugDraw near;
  DrawContacts(r, o, ctx, &near);
  ASSERT_EQ(near.cones.size(), 2u);
  EXPECT_NEAR(near.cones[0].height, 0.45 * 0.002, 1e-12);
  EXPECT_EQ(near.arrows.size(), 4u);
  for (const auto& a : near.arrows) {
    EXPECT_GT(a.radius, 0) << "shaft sized for the contact";
    EXPECT_LE(a.radius * 80000, 1.8 + 1e-9) << "at most 1.8 px";
  }
  // Without adaptive sizes every contact gets the full cone whatever the view.
  o.adaptive_size = false;
  RecordingDebugDraw fixed;
  DrawContacts(r, o, ctx, &fixed);
  ASSERT_EQ(fixed.cones.size(), 2u);
  EXPECT_DOUBLE_EQ(fixed.cones[0].height, 0.05);
}

// Bodies 1 and 2 touch, 3 touches only the floor (static body 0), 4 and 5 form a two-body tree.
Model FocusModel() {
  Model m;
  m.bodies.resize(6);
  m.bodies[0].tree = -1;  // the floor
  m.bodies[1].tree = 0;
  m.bodies[2].tree = 1;
  m.bodies[3].tree = 2;
  m.bodies[4].tree = 3;
  m.bodies[5].tree = 3;
  return m;
}
StepRecord FocusRecord() {
  StepRecord r;
  const int pairs[][2] = {{0, 1}, {1, 2}, {0, 3}, {0, 4}};
  for (int i = 0; i < 4; ++i) {
    r.contacts.push_back(At(Vec3(i, 0, 0), -1, -1, pairs[i][0], pairs[i][1]));
    ConstraintData cd;
    cd.first_row = 3 * i;
    cd.source = i;
    r.problem.constraints.push_back(cd);
  }
  r.result.gamma = VecX::Zero(12);
  for (int i = 0; i < 4; ++i) r.result.gamma(3 * i + 2) = 1;
  r.result.regime.assign(4, Regime::kStiction);
  return r;
}

TEST(GlyphFocus, IslandsChainBodiesThroughContactsAndTreesNotTheFloor) {
  const std::vector<int> island = ContactIslands(FocusRecord(), FocusModel());
  ASSERT_EQ(island.size(), 6u);
  EXPECT_EQ(island[1], island[2]) << "bodies 1 and 2 touch";
  EXPECT_NE(island[1], island[3]) << "the floor does not chain 1 and 3";
  EXPECT_EQ(island[4], island[5]) << "one kinematic tree";
  EXPECT_NE(island[0], island[1]);
}

TEST(GlyphFocus, BodyAndIslandFocusKeepOnlyTheirContacts) {
  const StepRecord r = FocusRecord();
  const Model m = FocusModel();
  EXPECT_EQ(FocusBodies(r, m, 2, GlyphFocus::kOff), std::vector<char>(6, 1));
  EXPECT_EQ(FocusBodies(r, m, -1, GlyphFocus::kBody), std::vector<char>(6, 1))
      << "nothing selected: nothing to focus on";
  const std::vector<char> body = FocusBodies(r, m, 2, GlyphFocus::kBody);
  EXPECT_EQ(body, (std::vector<char>{0, 0, 1, 0, 0, 0}));
  const std::vector<char> island = FocusBodies(r, m, 2, GlyphFocus::kIsland);
  EXPECT_EQ(island, (std::vector<char>{0, 1, 1, 0, 0, 0}));
  // Drawn: body 2's contact (1-2) under body focus; 0-1 and 1-2 under island focus.
  ContactGlyphContext ctx;
  ctx.focus_body = body;
  RecordingDebugDraw a;
  EXPECT_EQ(DrawContacts(r, ContactDrawOptions{}, ctx, &a).drawn, (std::vector<int>{1}));
  ctx.focus_body = island;
  RecordingDebugDraw b;
  EXPECT_EQ(DrawContacts(r, ContactDrawOptions{}, ctx, &b).drawn, (std::vector<int>{0, 1}));
  EXPECT_EQ(b.points.size(), 2u);
  EXPECT_STREQ(GlyphFocusName(GlyphFocus::kIsland), "island");
}

TEST(LabelPlacement, NoTwoKeptLabelsOverlap) {
  // 200 labels crowded into 300 x 200 px: many must be dropped, none may overlap.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> x(0, 300), y(0, 200);
  std::vector<LabelCandidate> c;
  for (int i = 0; i < 200; ++i) c.push_back({x(rng), y(rng), 24, 14});
  const LabelBox bounds{0, 0, 300, 200};
  const std::vector<PlacedLabel> placed = PlaceLabels(c, bounds);
  ASSERT_FALSE(placed.empty());
  EXPECT_LT(placed.size(), c.size()) << "a crowd cannot all be labelled";
  for (size_t i = 0; i < placed.size(); ++i) {
    const LabelBox& a = placed[i].box;
    EXPECT_GE(a.x0, bounds.x0);
    EXPECT_LE(a.x1, bounds.x1);
    EXPECT_GE(a.y0, bounds.y0);
    EXPECT_LE(a.y1, bounds.y1);
    EXPECT_NEAR(a.x1 - a.x0, 24, 1e-12);
    for (size_t j = i + 1; j < placed.size(); ++j) {
      EXPECT_FALSE(a.Overlaps(placed[j].box)) << placed[i].index << " and " << placed[j].index;
    }
  }
}

TEST(LabelPlacement, EarlierCandidatesWinAndNeighboursStack) {
  // Three labels on one anchor: the first takes the first slot, the others move to other
  // slots around it, all kept.
  const std::vector<LabelCandidate> c{{100, 100, 20, 10}, {100, 100, 20, 10}, {100, 100, 20, 10}};
  const std::vector<PlacedLabel> placed = PlaceLabels(c, LabelBox{0, 0, 400, 400}, 5);
  ASSERT_EQ(placed.size(), 3u);
  EXPECT_EQ(placed[0].index, 0);
  EXPECT_DOUBLE_EQ(placed[0].box.x0, 105) << "right of the anchor";
  EXPECT_DOUBLE_EQ(placed[0].box.y1, 95) << "above it";
  EXPECT_FALSE(placed[1].box.Overlaps(placed[0].box));
  EXPECT_FALSE(placed[2].box.Overlaps(placed[1].box));
  // With room for one slot only (bounds hug the first), the rest are dropped.
  const std::vector<PlacedLabel> tight = PlaceLabels(c, LabelBox{105, 85, 125, 95}, 5);
  ASSERT_EQ(tight.size(), 1u);
  EXPECT_EQ(tight[0].index, 0);
  // A blocked box (the legend) over the first slot: the first label takes the next one.
  const std::vector<PlacedLabel> moved =
      PlaceLabels({c[0]}, LabelBox{0, 0, 400, 400}, 5, {LabelBox{100, 80, 140, 99}});
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_DOUBLE_EQ(moved[0].box.y0, 105) << "below the anchor";
}

TEST(ScaleBar, RoundImpulseThatFits) {
  // 10 m per N s at 100 px per m: 1000 px per N s; 110 px hold 0.11 N s: the bar is 0.1 N s.
  ScaleBar b = ImpulseScaleBar(10, 100, 110);
  EXPECT_DOUBLE_EQ(b.impulse, 0.1);
  EXPECT_DOUBLE_EQ(b.length_px, 100);
  b = ImpulseScaleBar(10, 100, 90);  // 0.09 N s fit: 0.05
  EXPECT_DOUBLE_EQ(b.impulse, 0.05);
  EXPECT_DOUBLE_EQ(b.length_px, 50);
  b = ImpulseScaleBar(1, 1, 300);  // 300 N s fit: 200
  EXPECT_DOUBLE_EQ(b.impulse, 200);
  for (double scale : {1e-3, 0.37, 12.0, 4.4e4}) {
    const ScaleBar s = ImpulseScaleBar(scale, 731, 110);
    EXPECT_LE(s.length_px, 110 * (1 + 1e-12));
    EXPECT_GT(s.length_px, 110 / 2.5 * (1 - 1e-12)) << "the next round value would not fit";
    const double mantissa = s.impulse / std::pow(10.0, std::floor(std::log10(s.impulse) + 1e-12));
    EXPECT_TRUE(std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
                std::abs(mantissa - 5) < 1e-9)
        << s.impulse;
  }
  EXPECT_EQ(ImpulseScaleBar(0, 100, 110).length_px, 0);
  EXPECT_EQ(ImpulseScaleBar(10, std::nan(""), 110).length_px, 0);
  EXPECT_EQ(FormatImpulse(0.05), "50 mN\xC2\xB7s");
  EXPECT_EQ(FormatImpulse(2), "2 N\xC2\xB7s");
  EXPECT_EQ(FormatImpulse(2e-5), "20 \xC2\xB5N\xC2\xB7s");
}

// The colour language: regime colours, the cone saturation map, normal and friction arrows,
// selection and body axes never share a hue: CIE76 ΔE >= 25 between every two of the glyph
// colours, and between each of them and every colour of the saturation map; patch colours too.
TEST(ColourLanguage, GlyphColoursArePairwiseDistinct) {
  const std::vector<std::pair<const char*, Color>> glyphs{
      {"stiction", kStictionColor},        {"sliding", kSlidingColor},
      {"inactive", kInactiveColor},        {"gap load", kGapLoadColor},
      {"unit normal", kNormalColor},       {"normal impulse", kNormalImpulseColor},
      {"friction impulse", kFrictionImpulseColor}, {"selection", kSelectionColor},
      {"axis x", kAxisXColor},             {"axis y", kAxisYColor},
      {"axis z", kAxisZColor},             {"patch moment", kPatchMomentColor}};
  for (size_t i = 0; i < glyphs.size(); ++i) {
    for (size_t j = i + 1; j < glyphs.size(); ++j) {
      EXPECT_GE(DeltaE76(glyphs[i].second, glyphs[j].second), 25.0)
          << glyphs[i].first << " vs " << glyphs[j].first;
    }
    for (int k = 0; k <= 100; ++k) {
      EXPECT_GE(DeltaE76(SaturationColor(k / 100.0), glyphs[i].second), 25.0)
          << "cone map at " << k / 100.0 << " vs " << glyphs[i].first;
    }
  }
  // The cone map spans a visible range itself, and its saturated end is not the x axis' red.
  EXPECT_GT(DeltaE76(SaturationColor(0), SaturationColor(1)), 40.0);
  EXPECT_GT(DeltaE76(SaturationColor(1), Color{0.9f, 0.15f, 0.15f, 1}), 40.0);
  // ΔE itself: white and black are 100 apart, a colour is 0 from itself.
  EXPECT_NEAR(DeltaE76(Color{1, 1, 1, 1}, Color{0, 0, 0, 1}), 100.0, 0.1);
  EXPECT_DOUBLE_EQ(DeltaE76(kSlidingColor, kSlidingColor), 0.0);
}

TEST(PressureGlyphs, FocusHidesPatchesAndMarkersFollowThePatchSize) {
  ContactSurface s;
  ContactFace f;
  f.polygon = {Vec3(0, 0, 1), Vec3(0.01, 0, 1), Vec3(0, 0.01, 1)};
  f.pressure = {1e3, 1e3, 1e3};
  f.p0 = 1e3;
  f.area = 5e-5;
  f.centroid = Vec3(0.0033, 0.0033, 1);
  f.normal = Vec3::UnitZ();
  s.faces = {f};
  PressureDrawOptions o;
  o.marker_size = 9;
  RecordingDebugDraw all;
  DrawPressureSurfaces(std::vector<ContactSurface>{s, s}, o, &all);
  EXPECT_EQ(all.triangles.size(), 2u);
  o.surface_shown = {0, 1};
  RecordingDebugDraw one;
  DrawPressureSurfaces(std::vector<ContactSurface>{s, s}, o, &one);
  EXPECT_EQ(one.triangles.size(), 1u) << "the patch out of focus is not drawn";
  ASSERT_EQ(one.points.size(), 1u);
  EXPECT_DOUBLE_EQ(one.points[0].size, 9) << "no view: the marker size";
  // Seen from far (a 7 mm patch at 800 px per metre spans 6 px): the marker shrinks to 3 px.
  o.surface_shown.clear();
  o.view.focal_px = 800;
  o.view.eye = Vec3(0, 0, 0);
  RecordingDebugDraw far;
  DrawPressureSurfaces(std::vector<ContactSurface>{s}, o, &far);
  ASSERT_EQ(far.points.size(), 1u);
  EXPECT_DOUBLE_EQ(far.points[0].size, 3);
  EXPECT_GT(PatchArrowRadius(s, o), 0);
}

// Summary markers: a view from z = 10 looking down -z at 100 px per metre at depth 10 (focal
// 1000 px), cells of 28 px = 0.28 m at that depth.
GlyphView DownView() {
  GlyphView v;
  v.eye = Vec3(0, 0, 10);
  v.forward = -Vec3::UnitZ();
  v.right = Vec3::UnitX();
  v.up = Vec3::UnitY();
  v.focal_px = 1000;
  return v;
}

TEST(SummaryMarkers, ContactsInOneScreenCellMergeIntoOneMarker) {
  const GlyphView view = DownView();
  double x = 0, y = 0;
  ASSERT_TRUE(view.Project(Vec3(0.05, -0.02, 0), &x, &y));
  EXPECT_NEAR(x, 5.0, 1e-12) << "1000 px focal at depth 10: 100 px per metre";
  EXPECT_NEAR(y, -2.0, 1e-12);
  EXPECT_FALSE(view.Project(Vec3(0, 0, 11), &x, &y)) << "behind the eye";
  // Three contacts 1 to 2 px apart (cell [0, 28) px), one 50 px away (the next cell), one
  // behind the eye.
  const std::vector<Vec3> points = {Vec3(0.01, 0.01, 0), Vec3(0.02, 0.01, 0),
                                    Vec3(0.50, 0.01, 0), Vec3(0.03, 0.02, 0),
                                    Vec3(0.0, 0.0, 12)};
  const std::vector<int> regimes = {1, 0, 0, 1, 0};
  const std::vector<SummaryMarker> m = MergeSummaryMarkers(points, regimes, view, 28);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].members, (std::vector<int>{0, 1, 3})) << "in input order, by first member";
  EXPECT_EQ(m[0].count(), 3);
  EXPECT_TRUE(m[0].point.isApprox(Vec3(0.02, 4.0 / 300.0, 0), 1e-12)) << "mean of the points";
  EXPECT_EQ(m[0].regime_count[0], 1);
  EXPECT_EQ(m[0].regime_count[1], 2);
  EXPECT_EQ(m[0].regime, 1) << "two sliding against one stiction";
  EXPECT_EQ(m[1].members, (std::vector<int>{2}));
  EXPECT_EQ(m[2].members, (std::vector<int>{4})) << "unprojectable: a marker of its own";
  // Every contact is in exactly one marker.
  int total = 0;
  for (const SummaryMarker& k : m) total += k.count();
  EXPECT_EQ(total, 5);
  // Zoomed in 100 times, the same contacts are 100 to 200 px apart: no merging.
  GlyphView near = view;
  near.focal_px = 1e5;
  EXPECT_EQ(MergeSummaryMarkers(points, regimes, near, 28).size(), 5u);
  // No view, or no cell size: every contact stands alone.
  EXPECT_EQ(MergeSummaryMarkers(points, regimes, GlyphView{}, 28).size(), 5u);
  EXPECT_EQ(MergeSummaryMarkers(points, regimes, view, 0).size(), 5u);
  // Ties go to the lower regime value; an unknown regime counts as no contact.
  const std::vector<SummaryMarker> tie =
      MergeSummaryMarkers({Vec3(0, 0, 0), Vec3(0.001, 0, 0), Vec3(0.002, 0, 0)}, {2, 1, 7},
                          view, 28);
  ASSERT_EQ(tie.size(), 1u);
  EXPECT_EQ(tie[0].regime_count[2], 2);
  EXPECT_EQ(tie[0].regime, 2);
  EXPECT_TRUE(MergeSummaryMarkers({}, {}, view, 28).empty());
}

TEST(SummaryMarkers, MarkerGrowsWithTheLogOfItsCountUpToACap) {
  EXPECT_DOUBLE_EQ(SummaryMarkerPx(1, 6), 6) << "one contact: its own dot";
  EXPECT_DOUBLE_EQ(SummaryMarkerPx(8, 6), 12) << "three doublings: a third of 6 px each";
  EXPECT_DOUBLE_EQ(SummaryMarkerPx(1 << 20, 6), 15) << "at most 2.5 dots";
  EXPECT_LT(SummaryMarkerPx(2, 6), SummaryMarkerPx(3, 6));
}

}  // namespace
}  // namespace contactlab
