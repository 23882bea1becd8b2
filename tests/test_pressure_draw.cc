// Pressure-field contact made visible (engine/inspect/pressure_draw.h): the patches drawn through
// RecordingDebugDraw (one triangle fan per face, vertex colours from the colour map, the force
// arrow at the centre of pressure), the pressure picked under a ray, the legend's held range, the
// pressure labels, the tet mesh edges, and the simulator's compliant geometry accessor. On
// hand-built surfaces, where every primitive can be predicted, and on the simulated compliant box
// of scenes/hydro/box_on_floor.yaml.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "app/scene.h"
#include "engine/inspect/colormap.h"
#include "engine/inspect/debug_draw.h"
#include "engine/inspect/history.h"
#include "engine/inspect/pressure_draw.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

bool SameColor(const Color& a, const Color& b) {
  return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}

// A face in the plane z = 0 with normal +z from the given vertices (CCW from above) and vertex
// pressures; area, centroid and p0 filled for a convex polygon.
ContactFace MakeFace(const std::vector<Vec3>& polygon, const std::vector<double>& pressure,
                     bool b_rigid = false) {
  ContactFace f;
  f.polygon = polygon;
  f.pressure = pressure;
  f.normal = Vec3::UnitZ();
  double area = 0;
  Vec3 c = Vec3::Zero();
  double p0 = 0;
  for (size_t i = 1; i + 1 < polygon.size(); ++i) {
    const double a = 0.5 * (polygon[i] - polygon[0]).cross(polygon[i + 1] - polygon[0]).z();
    area += a;
    c += a * (polygon[0] + polygon[i] + polygon[i + 1]) / 3;
    p0 += a * (pressure[0] + pressure[i] + pressure[i + 1]) / 3;
  }
  f.area = area;
  f.centroid = c / area;
  f.p0 = p0 / area;
  f.g_a = b_rigid ? 1e6 : kRigidGradient;  // compliant against a rigid side
  f.g_b = b_rigid ? kRigidGradient : 1e6;
  return f;
}

// Patch 0: a unit square (pressures 0, 100, 200, 300) and a pentagon beside it; patch 1: a
// triangle at z = 1 whose rigid side is B.
std::vector<ContactSurface> HandSurfaces() {
  ContactSurface s0;
  s0.geom_a = 0;
  s0.geom_b = 1;
  s0.faces.push_back(MakeFace({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0), Vec3(0, 1, 0)},
                              {0, 100, 200, 300}));
  s0.faces.push_back(MakeFace({Vec3(2, 0, 0), Vec3(3, 0, 0), Vec3(3.5, 0.5, 0), Vec3(3, 1, 0),
                               Vec3(2, 1, 0)},
                              {50, 150, 250, 350, 450}));
  ContactSurface s1;
  s1.geom_a = 2;
  s1.geom_b = 0;
  ContactFace t = MakeFace({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}, {1000, 1000, 1000},
                           /*b_rigid=*/true);
  for (Vec3& v : t.polygon) v.z() = 1;
  t.centroid.z() = 1;
  s1.faces.push_back(t);
  return {s0, s1};
}

TEST(PressureDraw, OneTriangleFanPerFaceWithColourMapVertexColours) {
  const std::vector<ContactSurface> surfaces = HandSurfaces();
  PressureDrawOptions o;
  o.p_min = 0;
  o.p_max = 400;
  o.offset = 0.01;
  o.force_arrows = o.centre_of_pressure = false;
  RecordingDebugDraw rec;
  DrawPressureSurfaces(surfaces, o, &rec);
  // Fans: 4 - 2 + 5 - 2 + 3 - 2 triangles, in face order.
  ASSERT_EQ(rec.triangles.size(), 2u + 3u + 1u);
  EXPECT_TRUE(rec.lines.empty() && rec.arrows.empty() && rec.points.empty());
  size_t k = 0;
  for (const ContactSurface& s : surfaces) {
    for (const ContactFace& f : s.faces) {
      const Vec3 shift = 0.01 * FaceOffsetDirection(f);
      for (size_t i = 1; i + 1 < f.polygon.size(); ++i, ++k) {
        const auto& t = rec.triangles[k];
        EXPECT_TRUE(t.a.isApprox(f.polygon[0] + shift)) << "fan from vertex 0, face " << k;
        EXPECT_TRUE(t.b.isApprox(f.polygon[i] + shift));
        EXPECT_TRUE(t.c.isApprox(f.polygon[i + 1] + shift));
        const Color want_a = PressureMapColor(o.color_map, std::min(1.0, f.pressure[0] / 400));
        const Color want_b = PressureMapColor(o.color_map, std::min(1.0, f.pressure[i] / 400));
        const Color want_c =
            PressureMapColor(o.color_map, std::min(1.0, f.pressure[i + 1] / 400));
        EXPECT_TRUE(SameColor(t.color_a, want_a)) << "triangle " << k;
        EXPECT_TRUE(SameColor(t.color_b, want_b)) << "triangle " << k;
        EXPECT_TRUE(SameColor(t.color_c, want_c)) << "triangle " << k;
      }
    }
  }
  // The square's vertex at 0 Pa has the bottom colour, the pentagon's 450 Pa (above the range)
  // the top one; 200 Pa sits in the middle of the map.
  EXPECT_TRUE(SameColor(rec.triangles[0].color_a, kLimeMapPoints.front()));
  EXPECT_TRUE(SameColor(rec.triangles[0].color_c, PressureMapColor(PressureColorMap::kLime, 0.5)));
  EXPECT_TRUE(SameColor(rec.triangles[4].color_c, kLimeMapPoints.back()));
  // Another map gives other colours.
  o.color_map = PressureColorMap::kViridis;
  RecordingDebugDraw viridis;
  DrawPressureSurfaces(surfaces, o, &viridis);
  ASSERT_EQ(viridis.triangles.size(), rec.triangles.size());
  EXPECT_TRUE(SameColor(viridis.triangles[0].color_a, kViridisMapPoints.front()));
  EXPECT_FALSE(SameColor(viridis.triangles[0].color_a, rec.triangles[0].color_a));
}

TEST(PressureDraw, FacesAreDrawnOffTowardTheCompliantSide) {
  const std::vector<ContactSurface> surfaces = HandSurfaces();
  // Patch 0: B compliant (A rigid): along +n. Patch 1: B rigid: along −n.
  EXPECT_TRUE(FaceOffsetDirection(surfaces[0].faces[0]).isApprox(Vec3::UnitZ()));
  EXPECT_TRUE(FaceOffsetDirection(surfaces[1].faces[0]).isApprox(-Vec3::UnitZ()));
  PressureDrawOptions o;
  o.offset = 0.25;
  RecordingDebugDraw rec;
  DrawPressureSurfaces(surfaces, o, &rec);
  EXPECT_DOUBLE_EQ(rec.triangles.front().a.z(), 0.25);
  EXPECT_DOUBLE_EQ(rec.triangles.back().a.z(), 0.75);
}

TEST(PressureDraw, ForceArrowIsTheSurfaceForceTimesTheScaleAtTheCentreOfPressure) {
  const std::vector<ContactSurface> surfaces = HandSurfaces();
  PressureDrawOptions o;
  o.force_scale = 2.5e-3;
  o.surfaces = false;
  RecordingDebugDraw rec;
  DrawPressureSurfaces(surfaces, o, &rec);
  EXPECT_TRUE(rec.triangles.empty());
  ASSERT_EQ(rec.arrows.size(), surfaces.size());
  ASSERT_EQ(rec.points.size(), surfaces.size());
  for (size_t i = 0; i < surfaces.size(); ++i) {
    const Vec3 cop = surfaces[i].CentreOfPressure();
    const Vec3 force = surfaces[i].Force();
    ASSERT_GT(force.norm(), 0);
    EXPECT_TRUE(rec.arrows[i].from.isApprox(cop));
    EXPECT_LT((rec.arrows[i].to - (cop + 2.5e-3 * force)).norm(), 1e-12);
    EXPECT_TRUE(SameColor(rec.arrows[i].color, kPatchForceColor));
    EXPECT_TRUE(rec.points[i].p.isApprox(cop));
    EXPECT_TRUE(SameColor(rec.points[i].color, kCentreOfPressureColor));
  }
}

TEST(PressureDraw, OutlinesFollowEveryPolygonEdge) {
  const std::vector<ContactSurface> surfaces = HandSurfaces();
  PressureDrawOptions o;
  o.outlines = true;
  o.surfaces = o.force_arrows = o.centre_of_pressure = false;
  o.offset = 0;
  RecordingDebugDraw rec;
  DrawPressureSurfaces(surfaces, o, &rec);
  ASSERT_EQ(rec.lines.size(), 4u + 5u + 3u);
  EXPECT_TRUE(rec.lines[3].a.isApprox(Vec3(0, 1, 0)));
  EXPECT_TRUE(rec.lines[3].b.isApprox(Vec3(0, 0, 0))) << "closed polygon";
  EXPECT_TRUE(SameColor(rec.lines[0].color, kFaceOutlineColor));
}

TEST(PressureDraw, NothingIsDrawnForARecordWithoutSurfaces) {
  StepRecord r;
  Contact c;  // a point contact: DrawPressureSurfaces ignores it
  c.point = Vec3(0, 0, 0.1);
  r.contacts.push_back(c);
  PressureDrawOptions o;
  o.outlines = true;
  RecordingDebugDraw rec;
  DrawPressureSurfaces(r, o, &rec);
  EXPECT_TRUE(rec.triangles.empty() && rec.lines.empty() && rec.arrows.empty() &&
              rec.points.empty() && rec.texts.empty() && rec.cones.empty());
  EXPECT_EQ(MaxSurfacePressure(r.surfaces), 0.0);
  EXPECT_FALSE(PickPressure(r.surfaces, Vec3(0, 0, 1), Vec3(0, 0, -1)));
}

TEST(PressureDraw, FaceContactGlyphsCanBeLeftToThePatch) {
  StepRecord r;
  for (int i = 0; i < 3; ++i) {
    Contact c;
    c.point = Vec3(i, 0, 0);
    c.surface = i == 1 ? -1 : 0;  // contacts 0 and 2 stand for faces
    c.face = i == 1 ? -1 : i / 2;
    r.contacts.push_back(c);
  }
  ContactDrawOptions o;
  o.inactive = true;  // these contacts have no constraint: candidates without impulse
  RecordingDebugDraw all, points_only;
  DrawContacts(r, o, &all);
  EXPECT_EQ(all.points.size(), 3u);
  o.face_contacts = false;
  DrawContacts(r, o, &points_only);
  ASSERT_EQ(points_only.points.size(), 1u);
  EXPECT_EQ(points_only.points[0].p.x(), 1.0);
}

TEST(PressureDraw, TrianglesReplayAndTint) {
  RecordingDebugDraw rec, replay;
  rec.Triangle(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), kLimeMapPoints[0], kLimeMapPoints[1],
               kLimeMapPoints[2]);
  rec.Replay(&replay);
  ASSERT_EQ(replay.triangles.size(), 1u);
  EXPECT_TRUE(SameColor(replay.triangles[0].color_b, kLimeMapPoints[1]));
  RecordingDebugDraw tinted_out;
  TintedDebugDraw tinted(&tinted_out, Color{1, 0, 0, 1});
  rec.Replay(&tinted);
  ASSERT_EQ(tinted_out.triangles.size(), 1u);
  EXPECT_TRUE(SameColor(tinted_out.triangles[0].color_c, (Color{1, 0, 0, 1})));
  rec.Clear();
  EXPECT_TRUE(rec.triangles.empty());
}

// The lime map: one hue, luminance strictly rising, and clear of every other glyph colour (issue
// 16's colour language): regimes, gap load, normals and impulse arrows, selection white, body
// axes, and the whole cone saturation map.
TEST(PressureColorMap, LimeIsMonotoneAndClearOfTheOtherGlyphColours) {
  std::vector<Color> others{kStictionColor,      kSlidingColor,        kInactiveColor,
                            kGapLoadColor,       kNormalColor,         kNormalImpulseColor,
                            kFrictionImpulseColor, Color{1, 1, 1, 1},  Color{1, 0.3f, 0.3f, 1},
                            Color{0.3f, 1, 0.3f, 1}, Color{0.3f, 0.5f, 1, 1}};
  for (int i = 0; i <= 100; ++i) others.push_back(SaturationColor(i / 100.0));
  double previous_luminance = -1;
  for (int i = 0; i <= 200; ++i) {
    const Color c = PressureMapColor(PressureColorMap::kLime, i / 200.0);
    const double lum = Luminance(c);
    EXPECT_GT(lum, previous_luminance) << "at " << i / 200.0;
    previous_luminance = lum;
    for (const Color& o : others) {
      EXPECT_GE(RgbDistance(c, o), 0.3) << "at " << i / 200.0 << " vs (" << o.r << ", " << o.g
                                        << ", " << o.b << ")";
    }
    // Hue between yellow (60) and green (120): red and green above blue, green the largest.
    EXPECT_GT(c.g, c.r);
    EXPECT_GT(c.r, c.b);
  }
  EXPECT_TRUE(SameColor(PressureMapColor(PressureColorMap::kLime, std::nan("")),
                        kLimeMapPoints.front()));
  EXPECT_TRUE(SameColor(PressureMapColor(PressureColorMap::kLime, 7), kLimeMapPoints.back()));
}

TEST(PressureColorMap, FractionOfTheRange) {
  EXPECT_DOUBLE_EQ(PressureFraction(250, 0, 1000), 0.25);
  EXPECT_DOUBLE_EQ(PressureFraction(-5, 0, 1000), 0.0);
  EXPECT_DOUBLE_EQ(PressureFraction(5000, 0, 1000), 1.0);
  EXPECT_DOUBLE_EQ(PressureFraction(std::nan(""), 0, 1000), 0.0);
  EXPECT_DOUBLE_EQ(PressureFraction(1500, 1000, 2000), 0.5);
  EXPECT_DOUBLE_EQ(PressureFraction(5, 10, 10), 0.0) << "empty range: below";
  EXPECT_DOUBLE_EQ(PressureFraction(15, 10, 10), 1.0) << "empty range: above";
}

TEST(PressurePick, InterpolatesTheVertexPressuresUnderTheRay) {
  const std::vector<ContactSurface> surfaces = HandSurfaces();
  // Square: pressures 0, 100, 200, 300 at (0,0), (1,0), (1,1), (0,1): on the fan triangle
  // (0,0), (1,0), (1,1) p = 100 x + 100 y, on (0,0), (1,1), (0,1) p = −100 x + 300 y; each is
  // interpolated linearly. (Points with x + y > 1, outside the triangle at z = 1 above.)
  auto pick = PickPressure(surfaces, Vec3(0.8, 0.6, 2), Vec3(0, 0, -1));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->surface, 0);
  EXPECT_EQ(pick->face, 0);
  EXPECT_NEAR(pick->pressure, 100 * 0.8 + 100 * 0.6, 1e-9);
  EXPECT_TRUE(pick->point.isApprox(Vec3(0.8, 0.6, 0)));
  pick = PickPressure(surfaces, Vec3(0.4, 0.9, 2), Vec3(0, 0, -1));
  ASSERT_TRUE(pick);
  EXPECT_NEAR(pick->pressure, -100 * 0.4 + 300 * 0.9, 1e-9);
  // From above, the triangle at z = 1 (1000 Pa) hides the square under it; from below, the
  // square hides the triangle.
  pick = PickPressure(surfaces, Vec3(0.2, 0.2, 5), Vec3(0, 0, -2));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->surface, 1);
  EXPECT_NEAR(pick->pressure, 1000, 1e-9);
  EXPECT_NEAR(pick->distance, 2.0, 1e-12) << "in units of |direction|";
  pick = PickPressure(surfaces, Vec3(0.2, 0.2, -5), Vec3(0, 0, 1));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->surface, 0);
  // Misses: beside every face, and pointing away.
  EXPECT_FALSE(PickPressure(surfaces, Vec3(1.5, 0.5, 2), Vec3(0, 0, -1)));
  EXPECT_FALSE(PickPressure(surfaces, Vec3(0.5, 0.5, 2), Vec3(0, 0, 1)));
  // The pentagon's third fan triangle.
  pick = PickPressure(surfaces, Vec3(3.2, 0.5, 1), Vec3(0, 0, -1));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->face, 1);
}

TEST(PressureRange, HoldIsSetOnceFromTheFirstStepWithPressureAndHeld) {
  PressureRangeState s;
  ASSERT_EQ(s.mode, PressureRangeMode::kHold);
  EXPECT_EQ(PressureRangeOf(s), (std::array<double, 2>{0, 1})) << "before any pressure";
  s = UpdatePressureRange(s, 0, 0);  // a step without patches
  EXPECT_FALSE(s.held);
  s = UpdatePressureRange(s, 431.2, 3);
  EXPECT_TRUE(s.held);
  EXPECT_EQ(s.held_step, 3);
  EXPECT_EQ(PressureRangeOf(s), (std::array<double, 2>{0, 500}));
  // Held: a lower pressure never rescales it, nor one within it.
  for (double p : {499.0, 12.0, 0.0, 500.0}) {
    s = UpdatePressureRange(s, p, 10);
    EXPECT_EQ(PressureRangeOf(s), (std::array<double, 2>{0, 500})) << p;
    EXPECT_EQ(s.held_step, 3);
  }
  // A higher one grows it to its 1-2-5 ceiling (instead of saturating), and it stays there.
  s = UpdatePressureRange(s, 1400, 7);
  EXPECT_EQ(PressureRangeOf(s), (std::array<double, 2>{0, 2000}));
  EXPECT_EQ(s.held_step, 7);
  for (double p : {1900.0, 300.0, 0.0}) {
    s = UpdatePressureRange(s, p, 10);
    EXPECT_EQ(PressureRangeOf(s), (std::array<double, 2>{0, 2000})) << p;
  }
  s = UpdatePressureRange(s, INFINITY, 10);
  EXPECT_EQ(PressureRangeOf(s)[1], 2000) << "a non-finite pressure never grows it";
  s.held_max = 500;  // as before, for the refit below
  s.held_step = 3;
  // Refit: waits for a step with pressure, then takes it once.
  s.refit_requested = true;
  s = UpdatePressureRange(s, 0, 11);
  EXPECT_TRUE(s.refit_requested);
  EXPECT_EQ(PressureRangeOf(s)[1], 500);
  s = UpdatePressureRange(s, 1.7e6, 12);
  EXPECT_FALSE(s.refit_requested);
  EXPECT_EQ(PressureRangeOf(s), (std::array<double, 2>{0, 2e6}));
  EXPECT_EQ(s.held_step, 12);
  s = UpdatePressureRange(s, 10, 13);
  EXPECT_EQ(PressureRangeOf(s)[1], 2e6);
  // Round-off pressures below the noise floor do not count as pressure.
  PressureRangeState touching;
  touching = UpdatePressureRange(touching, 1.16e-10, 1, 1.0);
  EXPECT_FALSE(touching.held);
  touching = UpdatePressureRange(touching, 36.3, 2, 1.0);
  EXPECT_TRUE(touching.held);
  EXPECT_EQ(touching.held_step, 2);
  EXPECT_EQ(PressureRangeOf(touching)[1], 50);
  // Non-finite pressure never sets a range.
  PressureRangeState fresh;
  fresh = UpdatePressureRange(fresh, std::nan(""), 1);
  fresh = UpdatePressureRange(fresh, INFINITY, 2);
  EXPECT_FALSE(fresh.held);
}

TEST(PressureRange, FixedIsTheUsersRange) {
  PressureRangeState s;
  s.mode = PressureRangeMode::kFixed;
  s.fixed_min = 100;
  s.fixed_max = 2500;
  s = UpdatePressureRange(s, 1e6, 1);
  EXPECT_FALSE(s.held) << "fixed mode never holds";
  EXPECT_EQ(PressureRangeOf(s), (std::array<double, 2>{100, 2500}));
  // A typed max <= min still gives a usable range above min.
  s.fixed_max = 50;
  EXPECT_EQ(PressureRangeOf(s), (std::array<double, 2>{100, 200}));
  s.fixed_min = 0;
  s.fixed_max = 0;
  EXPECT_EQ(PressureRangeOf(s), (std::array<double, 2>{0, 1}));
  // Back to hold: the held range of before is still there.
  s.mode = PressureRangeMode::kHold;
  s = UpdatePressureRange(s, 37, 4);
  EXPECT_EQ(PressureRangeOf(s), (std::array<double, 2>{0, 50}));
}

TEST(PressureRange, NiceCeiling) {
  EXPECT_EQ(NicePressureCeiling(490.5), 500);
  EXPECT_EQ(NicePressureCeiling(500), 500);
  EXPECT_EQ(NicePressureCeiling(500.0000001), 500) << "round-off of an exact value";
  EXPECT_EQ(NicePressureCeiling(501), 1000);
  EXPECT_EQ(NicePressureCeiling(1001), 2000);
  EXPECT_EQ(NicePressureCeiling(0.03), 0.05);
  EXPECT_EQ(NicePressureCeiling(0), 1);
  EXPECT_EQ(NicePressureCeiling(-4), 1);
}

TEST(PressureFormat, UnitsAndDigits) {
  EXPECT_EQ(FormatPressure(490.5), "490 Pa");  // %.0f rounds half to even
  EXPECT_EQ(FormatPressure(0), "0 Pa");
  EXPECT_EQ(FormatPressure(-0.0), "0 Pa");
  EXPECT_EQ(FormatPressure(12.5), "12.5 Pa");
  EXPECT_EQ(FormatPressure(1500), "1.5 kPa");
  EXPECT_EQ(FormatPressure(1000), "1 kPa");
  EXPECT_EQ(FormatPressure(999.6), "1 kPa");
  EXPECT_EQ(FormatPressure(25000), "25 kPa");
  EXPECT_EQ(FormatPressure(3.21e6), "3.21 MPa");
  EXPECT_EQ(FormatPressure(2e9), "2 GPa");
  EXPECT_EQ(FormatPressure(4e12), "4000 GPa");
  EXPECT_EQ(FormatPressure(-2500), "-2.5 kPa");
  EXPECT_EQ(FormatPressure(1.1641532e-10), "1.16e-10 Pa") << "never a bare 0 for a tiny value";
  EXPECT_EQ(FormatPressure(0.05), "0.05 Pa");
}

TEST(TetMeshEdges, AllEdgesAndBoundaryEdges) {
  VolumeMesh one;
  one.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
  one.tets = {{0, 1, 2, 3}};
  one.extent = {0, 0, 0, 1};
  EXPECT_EQ(TetMeshEdges(one, false).size(), 6u);
  EXPECT_EQ(TetMeshEdges(one, true).size(), 6u);
  // A box mesh: every boundary edge is an edge of the mesh; the boundary is a closed triangle
  // surface, so it has 3F/2 edges; and the interior has more.
  const VolumeMesh box = MakeBoxVolumeMesh(Vec3(0.2, 0.15, 0.1), 0.1);
  const auto all = TetMeshEdges(box, false);
  const auto boundary = TetMeshEdges(box, true);
  const size_t faces = box.BoundaryFaces().size();
  EXPECT_EQ(boundary.size(), 3 * faces / 2);
  EXPECT_LT(boundary.size(), all.size());
  const std::set<std::array<int, 2>> all_set(all.begin(), all.end());
  EXPECT_EQ(all_set.size(), all.size()) << "each edge once";
  for (const auto& e : boundary) {
    EXPECT_LT(e[0], e[1]);
    EXPECT_TRUE(all_set.count(e));
  }
  // Drawn posed: one line per edge, moved by the pose.
  Pose X;
  X.p = Vec3(1, 2, 3);
  X.q = Quat(Eigen::AngleAxisd(0.5 * kPi, Vec3::UnitZ()));
  RecordingDebugDraw rec;
  DrawTetMeshEdges(one.vertices, TetMeshEdges(one, false), X, kTetEdgeColor, &rec);
  ASSERT_EQ(rec.lines.size(), 6u);
  EXPECT_TRUE(rec.lines[0].a.isApprox(Vec3(1, 2, 3)));  // vertex 0 = origin
  EXPECT_TRUE(rec.lines[0].b.isApprox(Vec3(1, 3, 3)));  // vertex 1 = x, turned to +y
  // Out-of-range indices are skipped.
  RecordingDebugDraw bad;
  DrawTetMeshEdges(one.vertices, {{0, 9}, {-1, 2}, {1, 2}}, Pose{}, kTetEdgeColor, &bad);
  EXPECT_EQ(bad.lines.size(), 1u);
}

Scene LoadHydroScene(const std::string& name) {
  return LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/hydro/" + name);
}

TEST(CompliantGeometryAccessor, MeshOfCompliantGeometriesOnly) {
  const Scene scene = LoadHydroScene("box_on_floor.yaml");
  Simulator sim(scene.model, scene.settings);
  int box = -1, floor = -1;
  for (int g = 0; g < static_cast<int>(scene.model.geoms.size()); ++g) {
    (scene.model.geoms[g].shape.type == ShapeType::kBox ? box : floor) = g;
  }
  ASSERT_GE(box, 0);
  ASSERT_GE(floor, 0);
  const CompliantGeometry* mesh = sim.compliant_geometry(box);
  ASSERT_NE(mesh, nullptr);
  EXPECT_GT(mesh->field.mesh().num_tets(), 0);
  EXPECT_DOUBLE_EQ(mesh->field.modulus(), 1e6);
  // The box's mesh fills the box: 0.2 x 0.2 x 0.1 m.
  EXPECT_NEAR(mesh->field.mesh().TotalVolume(), 0.004, 1e-12);
  EXPECT_EQ(sim.compliant_geometry(floor), nullptr) << "rigid";
  EXPECT_EQ(sim.compliant_geometry(-1), nullptr);
  EXPECT_EQ(sim.compliant_geometry(99), nullptr);
  sim.Step();
  EXPECT_EQ(sim.compliant_geometry(box), mesh) << "stepping keeps the mesh";
}

// The simulated box on the floor: one patch drawn as one fan per face with the colours of its
// vertex pressures, and its arrow the patch force at the step's impulse scale.
TEST(PressureDraw, SimulatedBoxOnFloor) {
  const Scene scene = LoadHydroScene("box_on_floor.yaml");
  Simulator sim(scene.model, scene.settings);
  StepRecord record;
  for (int i = 0; i < 200; ++i) record = sim.Step();
  ASSERT_EQ(record.surfaces.size(), 1u);
  const ContactSurface& s = record.surfaces[0];
  ASSERT_GT(s.faces.size(), 100u);
  PressureDrawOptions o;
  o.p_max = NicePressureCeiling(MaxSurfacePressure(record.surfaces));
  o.force_scale = 10.0 * scene.settings.time_step;  // impulse scale 10 m/(N s)
  o.moment_arrows = false;  // checked in PatchResultantHoldsTheBoxAndDrawsItsMoment
  RecordingDebugDraw rec;
  DrawPressureSurfaces(record, o, &rec);
  size_t triangles = 0;
  for (const ContactFace& f : s.faces) triangles += f.polygon.size() - 2;
  ASSERT_EQ(rec.triangles.size(), triangles);
  size_t k = 0;
  for (const ContactFace& f : s.faces) {
    for (size_t i = 1; i + 1 < f.polygon.size(); ++i, ++k) {
      ASSERT_TRUE(SameColor(rec.triangles[k].color_a, PressureColor(f.pressure[0], o)));
      ASSERT_TRUE(SameColor(rec.triangles[k].color_b, PressureColor(f.pressure[i], o)));
      ASSERT_TRUE(SameColor(rec.triangles[k].color_c, PressureColor(f.pressure[i + 1], o)));
    }
  }
  ASSERT_EQ(rec.arrows.size(), 1u);
  EXPECT_TRUE(rec.arrows[0].from.isApprox(s.CentreOfPressure()));
  EXPECT_LT((rec.arrows[0].to - rec.arrows[0].from - o.force_scale * s.Force()).norm(), 1e-12);
  // The patch carries the 2 kg box: its force is about m g, up (floor into box), and its centre
  // of pressure under the box's centre.
  EXPECT_NEAR(s.Force().z(), 2.0 * 9.81, 0.2 * 2.0 * 9.81);
  EXPECT_NEAR(s.CentreOfPressure().head<2>().norm(), 0, 1e-3);
  // Faces are drawn off the floor, into the box (the compliant side).
  for (const auto& t : rec.triangles) ASSERT_GT(t.a.z(), 0);
  // Hovering the middle of the patch reads the uniform pressure m g / A.
  const auto pick = PickPressure(record.surfaces, Vec3(0.01, 0.02, 1), Vec3(0, 0, -1));
  ASSERT_TRUE(pick);
  EXPECT_NEAR(pick->pressure, 2.0 * 9.81 / 0.04, 0.25 * 2.0 * 9.81 / 0.04);
}

// The solve's resultant of a patch: at rest the floor patch's contact forces (pressure and
// friction) hold the box's weight with no moment about the centre of pressure; the moment arrow
// is moment_scale · M from the centre of pressure, in its own colour.
TEST(PressureDraw, PatchResultantHoldsTheBoxAndDrawsItsMoment) {
  const Scene scene = LoadHydroScene("box_on_floor.yaml");
  Simulator sim(scene.model, scene.settings);
  StepRecord record;
  for (int i = 0; i < 600; ++i) record = sim.Step();
  ASSERT_EQ(record.surfaces.size(), 1u);
  const PatchResultant r = PatchResultantOf(record, 0);
  ASSERT_TRUE(r.solved);
  const double W = 2.0 * 9.81;
  // Settled for 0.6 s (the box's normal mode is damped in milliseconds): the residual motion
  // and the solver's tolerance bound the error.
  EXPECT_NEAR(r.force.z(), W, 1e-4 * W);
  EXPECT_NEAR(r.force.head<2>().norm(), 0, 1e-4 * W);
  EXPECT_LT(r.moment.norm(), 1e-4 * W * 0.1);  // 0.1 m: the half side
  EXPECT_TRUE(r.point.isApprox(record.surfaces[0].CentreOfPressure()));
  EXPECT_FALSE(PatchResultantOf(record, 1).solved) << "no such patch";
  // The drawn moment arrow, with a hand-made record whose single face pushes off-centre.
  StepRecord one = record;
  PressureDrawOptions o;
  o.surfaces = false;
  o.force_arrows = false;
  o.centre_of_pressure = false;
  o.moment_scale = 3.0;
  const PatchResultant solved = PatchResultantOf(one, 0);
  RecordingDebugDraw rec;
  DrawPressureSurfaces(one, o, &rec);
  if (solved.moment.norm() > 0) {
    ASSERT_EQ(rec.arrows.size(), 1u);
    EXPECT_TRUE(rec.arrows[0].from.isApprox(solved.point));
    EXPECT_LT((rec.arrows[0].to - solved.point - 3.0 * solved.moment).norm(), 1e-15);
    EXPECT_TRUE(SameColor(rec.arrows[0].color, kPatchMomentColor));
  }
  // A friction impulse added to one face's constraint makes a moment r × f about the centre.
  ASSERT_FALSE(one.problem.constraints.empty());
  const ConstraintData& cd = one.problem.constraints.front();
  const Contact& c = one.contacts[cd.source];
  const double dt = one.after.time - one.before.time;
  const Vec3 extra_world = ContactFrame(c.normal).transpose() * Vec3(0.5, 0, 0);  // [N]
  one.result.gamma(cd.first_row) += 0.5 * dt;  // +0.5 N along the first tangent
  const PatchResultant pushed = PatchResultantOf(one, 0);
  EXPECT_LT((pushed.force - solved.force - extra_world).norm(), 1e-9);
  EXPECT_LT((pushed.moment - solved.moment - (c.point - solved.point).cross(extra_world)).norm(),
            1e-9);
}

// The timeline replays patches: the history keeps each step's surfaces, so drawing a recorded
// step gives that step's patch (which changes while the box settles), not the newest one.
TEST(PressureDraw, TimelineRecordsReplayTheirPatches) {
  const Scene scene = LoadHydroScene("box_on_floor.yaml");
  Simulator sim(scene.model, scene.settings);
  History history;
  std::vector<StepRecord> steps;
  for (int i = 0; i < 40; ++i) {
    steps.push_back(sim.Step());
    history.Push(steps.back());
  }
  ASSERT_EQ(history.size(), 40);
  PressureDrawOptions o;
  o.p_max = 500;
  auto draw = [&](const StepRecord& r) {
    RecordingDebugDraw rec;
    DrawPressureSurfaces(r, o, &rec);
    return rec;
  };
  for (int i : {5, 20, 39}) {
    const StepRecord& replayed = history.At(i);
    ASSERT_EQ(replayed.step, steps[i].step);
    ASSERT_EQ(replayed.surfaces.size(), 1u);
    const RecordingDebugDraw a = draw(replayed), b = draw(steps[i]);
    ASSERT_EQ(a.triangles.size(), b.triangles.size());
    for (size_t k = 0; k < a.triangles.size(); ++k) {
      ASSERT_EQ(a.triangles[k].a, b.triangles[k].a);
      ASSERT_TRUE(SameColor(a.triangles[k].color_a, b.triangles[k].color_a));
    }
    ASSERT_EQ(a.arrows.size(), b.arrows.size());  // force, and moment when it is not zero
    ASSERT_GE(a.arrows.size(), 1u);
    for (size_t k = 0; k < a.arrows.size(); ++k) EXPECT_EQ(a.arrows[k].to, b.arrows[k].to);
  }
  // The pressure grows while the box settles: step 5's patch is not step 39's.
  EXPECT_LT(MaxSurfacePressure(history.At(5).surfaces),
            0.9 * MaxSurfacePressure(history.At(39).surfaces));
}

}  // namespace
}  // namespace contactlab
