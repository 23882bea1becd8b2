// Camera presets, fitting, tracking and the axes gizmo (render/camera.h), and the scene geometry
// the viewer frames and draws (render/scene_geometry.h): the bounds of finite geometry and the
// faces of half-spaces that form a box.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"
#include "render/camera.h"
#include "render/scene_geometry.h"

namespace contactlab {
namespace {

// Every point of a sphere's sampled surface projects inside a width x height viewport.
void ExpectSphereInView(const OrbitCamera& cam, const Vec3& c, double r, double w, double h) {
  int checked = 0;
  for (int i = 0; i <= 12; ++i) {
    for (int j = 0; j < 24; ++j) {
      const double th = kPi * i / 12, ph = 2 * kPi * j / 24;
      const Vec3 p = c + r * Vec3(std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph),
                                  std::cos(th));
      double x = 0, y = 0;
      ASSERT_TRUE(cam.Project(p, w, h, &x, &y)) << "behind the eye";
      EXPECT_GE(x, 0);
      EXPECT_LE(x, w);
      EXPECT_GE(y, 0);
      EXPECT_LE(y, h);
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(CameraFit, SphereFitsTheFrustumAtAnyAspect) {
  for (double aspect : {0.4, 1.0, 750.0 / 670.0, 3.0}) {
    for (double az : {0.0, 0.7, 2.5}) {
      OrbitCamera cam;
      cam.azimuth = az;
      cam.elevation = 0.4;
      const Vec3 c(0.3, -1.0, 2.0);
      cam.FitSphere(c, 0.5, aspect);
      EXPECT_EQ(cam.target, c);
      ExpectSphereInView(cam, c, 0.5, 600.0 * aspect, 600.0);
      // Not absurdly far either: the sphere spans at least half the narrower side.
      double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
      ASSERT_TRUE(cam.Project(c, 600 * aspect, 600, &x0, &y0));
      ASSERT_TRUE(cam.Project(c + 0.5 * cam.Up(), 600 * aspect, 600, &x1, &y1));
      EXPECT_GT(2 * std::abs(y1 - y0), 0.5 * std::min(600.0, 600.0 * aspect)) << aspect;
    }
  }
}

TEST(CameraFit, BadRadiusKeepsTheDistance) {
  OrbitCamera cam;
  cam.distance = 3;
  cam.FitSphere(Vec3(1, 2, 3), 0.0, 1.0);
  EXPECT_EQ(cam.distance, 3);
  EXPECT_EQ(cam.target, Vec3(1, 2, 3));
  cam.FitSphere(Vec3(0, 0, 0), std::nan(""), 1.0);
  EXPECT_EQ(cam.distance, 3);
}

TEST(CameraPresets, FrontSideTopLookAlongTheAxes) {
  Bounds3 b;
  b.Add(Vec3(-1, -1, 0));
  b.Add(Vec3(1, 1, 2));
  OrbitCamera cam;
  ApplyCameraPreset(CameraPreset::kFront, b, 1.5, &cam);
  EXPECT_NEAR(cam.Forward().dot(Vec3::UnitY()), 1.0, 1e-9) << "front: eye on -y looking along +y";
  EXPECT_NEAR(cam.Right().dot(Vec3::UnitX()), 1.0, 1e-9) << "x to the right";
  EXPECT_NEAR(cam.Up().dot(Vec3::UnitZ()), 1.0, 1e-9) << "z up";
  ExpectSphereInView(cam, b.Center(), b.Radius(), 900, 600);
  ApplyCameraPreset(CameraPreset::kSide, b, 1.5, &cam);
  EXPECT_NEAR(cam.Forward().dot(-Vec3::UnitX()), 1.0, 1e-9) << "side: eye on +x";
  EXPECT_NEAR(cam.Up().dot(Vec3::UnitZ()), 1.0, 1e-9);
  ExpectSphereInView(cam, b.Center(), b.Radius(), 900, 600);
  ApplyCameraPreset(CameraPreset::kTop, b, 1.5, &cam);
  EXPECT_GT(cam.Forward().dot(-Vec3::UnitZ()), 0.999) << "top: looking down";
  EXPECT_NEAR(cam.Right().dot(Vec3::UnitX()), 1.0, 1e-9) << "x to the right";
  EXPECT_GT(cam.Up().dot(Vec3::UnitY()), 0.999) << "y up on screen";
  ExpectSphereInView(cam, b.Center(), b.Radius(), 900, 600);
}

TEST(CameraPresets, FitKeepsTheAnglesAndEmptyBoundsKeepTheView) {
  OrbitCamera cam;
  cam.azimuth = 0.9;
  cam.elevation = 0.3;
  Bounds3 b;
  b.Add(Vec3(10, 10, 10));
  b.Add(Vec3(12, 11, 10.5));
  ApplyCameraPreset(CameraPreset::kFit, b, 1.0, &cam);
  EXPECT_EQ(cam.azimuth, 0.9);
  EXPECT_EQ(cam.elevation, 0.3);
  EXPECT_TRUE(cam.target.isApprox(b.Center()));
  ExpectSphereInView(cam, b.Center(), b.Radius(), 600, 600);
  OrbitCamera kept;
  kept.target = Vec3(1, 2, 3);
  kept.distance = 7;
  ApplyCameraPreset(CameraPreset::kFit, Bounds3{}, 1.0, &kept);
  EXPECT_EQ(kept.target, Vec3(1, 2, 3));
  EXPECT_EQ(kept.distance, 7);
}

TEST(Bounds, IgnoresPointsThatAreNotFinite) {
  Bounds3 b;
  EXPECT_TRUE(b.empty());
  b.Add(Vec3(std::nan(""), 0, 0));
  b.Add(Vec3(INFINITY, 0, 0));
  EXPECT_TRUE(b.empty());
  b.Add(Vec3(1, 2, 3));
  EXPECT_FALSE(b.empty());
  EXPECT_EQ(b.Radius(), 0.0);
}

TEST(CameraTracking, SmoothFollowConvergesWithoutOvershoot) {
  Vec3 p(0, 0, 0);
  const Vec3 goal(1, 0, 0);
  double last = 0;
  for (int i = 0; i < 60; ++i) {
    p = SmoothFollow(p, goal, 1.0 / 60, 0.15);
    EXPECT_GT(p.x(), last);
    EXPECT_LE(p.x(), 1.0);
    last = p.x();
  }
  EXPECT_GT(p.x(), 0.99) << "one second is about 7 time constants";
  // Half way after dt = tau ln 2.
  EXPECT_NEAR(SmoothFollow(Vec3::Zero(), goal, 0.15 * std::log(2.0), 0.15).x(), 0.5, 1e-12);
  EXPECT_EQ(SmoothFollow(Vec3::Zero(), goal, 0.1, 0.0), goal) << "no smoothing";
  EXPECT_EQ(SmoothFollow(Vec3::Zero(), goal, 0.0, 0.15), Vec3::Zero()) << "no time passed";
  EXPECT_EQ(SmoothFollow(Vec3::Zero(), Vec3(std::nan(""), 0, 0), 0.1, 0.15), Vec3::Zero());
}

TEST(AxesGizmo, ScreenDirectionsAndDepthOrder) {
  OrbitCamera cam;
  ApplyCameraPreset(CameraPreset::kFront, Bounds3{}, 1.0, &cam);
  AxesGizmo g = ComputeAxesGizmo(cam);
  EXPECT_NEAR(g.axis[0].x(), 1, 1e-9) << "x to the right";
  EXPECT_NEAR(g.axis[2].y(), -1, 1e-9) << "z up (screen y down)";
  EXPECT_NEAR(g.axis[1].norm(), 0, 1e-9) << "y points into the screen";
  EXPECT_EQ(g.order[0], 1) << "y, pointing away from the eye, is drawn first";
  cam.azimuth = 0.6;
  cam.elevation = 0.5;
  g = ComputeAxesGizmo(cam);
  for (int k = 0; k < 3; ++k) EXPECT_LE(g.axis[k].norm(), 1 + 1e-12);
  EXPECT_GT(-g.axis[2].y(), 0) << "z up on screen";
}

TEST(HalfSpaceFace, ClipsAPlaneByTheOthers) {
  // A floor and a wall at x = 1 whose free side is x <= 1.
  std::vector<HalfSpacePlane> planes{{Vec3::Zero(), Vec3::UnitZ()}, {Vec3(1, 0, 0), -Vec3::UnitX()}};
  const std::vector<Vec3> floor = HalfSpaceFace(planes, 0, Vec3::Zero(), 5.0, 3.0);
  ASSERT_GE(floor.size(), 3u);
  for (const Vec3& p : floor) {
    EXPECT_LE(p.x(), 1 + 1e-12);
    EXPECT_NEAR(p.z(), 0, 1e-12);
  }
  const std::vector<Vec3> wall = HalfSpaceFace(planes, 1, Vec3::Zero(), 5.0, 3.0);
  ASSERT_GE(wall.size(), 3u);
  double top = -1;
  for (const Vec3& p : wall) {
    EXPECT_NEAR(p.x(), 1, 1e-12);
    EXPECT_GE(p.z(), -1e-12) << "above the floor";
    top = std::max(top, p.z());
  }
  EXPECT_NEAR(top, 3.0, 1e-12) << "up to the top";
  // Counter-clockwise seen from the free side: the polygon's normal is the plane's.
  const Vec3 n = (wall[1] - wall[0]).cross(wall[2] - wall[0]);
  EXPECT_GT(n.dot(-Vec3::UnitX()), 0);
  // A plane hidden inside another half-space has no face: z = -1 lies below the floor's solid.
  planes.push_back({Vec3(0, 0, -1), Vec3::UnitZ()});
  EXPECT_TRUE(HalfSpaceFace(planes, 2, Vec3::Zero(), 5.0, 3.0).empty());
}

TEST(HalfSpaceFace, ClipPolygonKeepsTheFreeSide) {
  const std::vector<Vec3> square{Vec3(-1, -1, 0), Vec3(1, -1, 0), Vec3(1, 1, 0), Vec3(-1, 1, 0)};
  EXPECT_EQ(ClipPolygonToPlane(square, Vec3(0, 0, 0), Vec3::UnitX()).size(), 4u);
  EXPECT_TRUE(ClipPolygonToPlane(square, Vec3(2, 0, 0), Vec3::UnitX()).empty());
  EXPECT_EQ(ClipPolygonToPlane(square, Vec3(-2, 0, 0), Vec3::UnitX()), square);
  // A corner cut off: a pentagon.
  EXPECT_EQ(ClipPolygonToPlane(square, Vec3(0.5, 0.5, 0), -Vec3(1, 1, 0).normalized()).size(), 5u);
}

TEST(HalfSpaceFace, InsetMovesEveryEdgeInwards) {
  const std::vector<Vec3> square{Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(2, 1, 0), Vec3(0, 1, 0)};
  const std::vector<Vec3> in = InsetConvexPolygon(square, 0.1);
  ASSERT_EQ(in.size(), 4u);
  EXPECT_TRUE(in[0].isApprox(Vec3(0.1, 0.1, 0)));
  EXPECT_TRUE(in[2].isApprox(Vec3(1.9, 0.9, 0)));
  // A triangle: each inset edge lies `width` inside its edge.
  const std::vector<Vec3> tri{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  const std::vector<Vec3> t = InsetConvexPolygon(tri, 0.05);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_NEAR(t[0].y(), 0.05, 1e-12);
  EXPECT_NEAR(t[0].x(), 0.05, 1e-12);
  EXPECT_NEAR((Vec3(1, 1, 0).normalized()).dot(t[1]) , std::sqrt(0.5) - 0.05, 1e-12);
  EXPECT_TRUE(InsetConvexPolygon(square, 0.6).empty()) << "wider than half the polygon";
  EXPECT_TRUE(InsetConvexPolygon({}, 0.1).empty());
  EXPECT_EQ(InsetConvexPolygon(square, 0.0), square);
}

std::vector<Pose> InitialPoses(const Scene& scene, Model* model) {
  *model = scene.model;
  Simulator sim(scene.model, scene.settings);
  *model = sim.model();
  Multibody mb(model);
  KinematicsCache kin;
  mb.UpdateKinematics(sim.state().q, 0.0, &kin);
  return kin.X_WB;
}

TEST(HalfSpaceFaces, ClutterWallsFormAnOpenBox) {
  const Scene scene =
      LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/clutter_40_walls.yaml");
  Model model;
  const std::vector<Pose> X = InitialPoses(scene, &model);
  const Bounds3 bodies = FiniteGeometryBounds(model, X);
  ASSERT_FALSE(bodies.empty());
  EXPECT_LT(bodies.max.x(), 0.4) << "the bodies lie inside the walls";
  const HalfSpaceFaces faces = ComputeHalfSpaceFaces(model, X);
  ASSERT_TRUE(faces.boxed);
  ASSERT_EQ(faces.geoms.size(), 5u) << "floor and four walls";
  EXPECT_GE(faces.top_z, bodies.max.z()) << "the walls reach above the bodies";
  EXPECT_LT(faces.top_z, bodies.max.z() + 0.5 * (bodies.max.z() - bodies.min.z()) + 1e-9);
  for (size_t k = 0; k < faces.geoms.size(); ++k) {
    const Geom& g = model.geoms[faces.geoms[k]];
    const Pose X_WG = g.body >= 0 ? X[g.body] * g.local : g.local;
    ASSERT_GE(faces.polygons[k].size(), 3u);
    for (const Vec3& local : faces.polygons[k]) {
      EXPECT_EQ(local.z(), 0.0) << "in the geometry frame's plane";
      const Vec3 w = X_WG.Apply(local);
      // Every face lies within the box [-0.4, 0.4]^2 x [0, top].
      EXPECT_LE(std::abs(w.x()), 0.4 + 1e-9);
      EXPECT_LE(std::abs(w.y()), 0.4 + 1e-9);
      EXPECT_GE(w.z(), -1e-9);
      EXPECT_LE(w.z(), faces.top_z + 1e-9);
    }
  }
}

// mesh_pile's ramp (a translucent half-space, grey like the floor) was drawn over the floor's
// grid, which ran on under it: the ramp could not be told from the floor. As faces, the floor
// stops where the ramp rises (x = 0.3) and the ramp is the part above the floor.
TEST(HalfSpaceFaces, MeshPileRampRisesFromWhereTheFloorEnds) {
  const Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/mesh_pile.yaml");
  Model model;
  const std::vector<Pose> X = InitialPoses(scene, &model);
  const HalfSpaceFaces faces = ComputeHalfSpaceFaces(model, X);
  ASSERT_TRUE(faces.boxed);
  ASSERT_EQ(faces.geoms.size(), 2u);
  auto world = [&](int k) {
    const Geom& g = model.geoms[faces.geoms[k]];
    const Pose X_WG = g.body >= 0 ? X[g.body] * g.local : g.local;
    std::vector<Vec3> out;
    for (const Vec3& p : faces.polygons[k]) out.push_back(X_WG.Apply(p));
    return out;
  };
  const std::vector<Vec3> floor = world(0), ramp = world(1);
  ASSERT_GE(floor.size(), 3u);
  ASSERT_GE(ramp.size(), 3u);
  double floor_max_x = -1e9, ramp_min_z = 1e9, ramp_max_z = -1e9;
  for (const Vec3& p : floor) floor_max_x = std::max(floor_max_x, p.x());
  for (const Vec3& p : ramp) {
    ramp_min_z = std::min(ramp_min_z, p.z());
    ramp_max_z = std::max(ramp_max_z, p.z());
    EXPECT_GE(p.x(), 0.3 - 1e-9) << "the ramp starts at x = 0.3";
  }
  EXPECT_NEAR(floor_max_x, 0.3, 1e-9) << "the floor ends under the ramp's foot";
  EXPECT_NEAR(ramp_min_z, 0.0, 1e-9) << "the ramp rises from the floor";
  EXPECT_NEAR(ramp_max_z, faces.top_z, 1e-9) << "up to the walls' top";
  EXPECT_GT(faces.top_z, FiniteGeometryBounds(model, X).max.z());
}

TEST(HalfSpaceFaces, ALoneFloorStaysAnInfinitePlane) {
  const Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/box_stack.yaml");
  Model model;
  const std::vector<Pose> X = InitialPoses(scene, &model);
  int half_spaces = 0;
  for (const Geom& g : model.geoms) half_spaces += g.shape.type == ShapeType::kHalfSpace;
  ASSERT_EQ(half_spaces, 1);
  const HalfSpaceFaces faces = ComputeHalfSpaceFaces(model, X);
  EXPECT_FALSE(faces.boxed);
  EXPECT_TRUE(faces.polygons.empty());
}

// The walls follow the bodies: made again when a body rises above the top they were made for,
// or when the pile settled to well below it; kept while nothing changed much, and kept (finite)
// when the bounds are empty or a body was flung far away.
TEST(HalfSpaceFaces, WallTopFollowsTheBodiesAndStaysFinite) {
  Bounds3 pile;
  pile.Add(Vec3(-0.3, -0.3, 0.0));
  pile.Add(Vec3(0.3, 0.3, 0.4));
  // Above the bodies by a quarter of their height (0.1 m > 5 % of the 0.94 m diagonal).
  const double top = WallTopAboveBodies(pile);
  EXPECT_NEAR(top, 0.5, 1e-12);
  EXPECT_TRUE(std::isnan(WallTopAboveBodies(Bounds3{})));
  EXPECT_FALSE(WallTopOutdated(top, pile)) << "made for these bodies";
  // A body thrown up to z = 0.8: the walls must grow.
  Bounds3 thrown = pile;
  thrown.Add(Vec3(0, 0, 0.8));
  EXPECT_TRUE(WallTopOutdated(top, thrown));
  // Settled to 0.3 m: the 0.5 m walls need 0.375 m; 0.5 <= 1.5 x 0.375, kept.
  Bounds3 settled;
  settled.Add(Vec3(-0.3, -0.3, 0.0));
  settled.Add(Vec3(0.3, 0.3, 0.3));
  EXPECT_FALSE(WallTopOutdated(top, settled));
  // Settled to 0.1 m: 0.5 m walls against 0.125 m needed, remade lower.
  Bounds3 flat;
  flat.Add(Vec3(-0.3, -0.3, 0.0));
  flat.Add(Vec3(0.3, 0.3, 0.1));
  EXPECT_TRUE(WallTopOutdated(top, flat));
  EXPECT_LT(WallTopAboveBodies(flat), top);
  // A body flung 100 m away (wider than 50 m): the walls stay as they are.
  Bounds3 flung = pile;
  flung.Add(Vec3(0, 0, 100));
  EXPECT_FALSE(WallTopOutdated(top, flung));
  EXPECT_FALSE(WallTopOutdated(top, Bounds3{}));
  EXPECT_TRUE(WallTopOutdated(std::numeric_limits<double>::quiet_NaN(), pile))
      << "walls made without bodies are made again once there are some";
}

// The faces made for the bodies' current poses reach above them: lift the clutter's bodies by
// 0.5 m and the walls' top follows.
TEST(HalfSpaceFaces, FacesForMovedBodiesCoverTheirCurrentExtent) {
  const Scene scene =
      LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/clutter_40_walls.yaml");
  Model model;
  std::vector<Pose> X = InitialPoses(scene, &model);
  const HalfSpaceFaces at_load = ComputeHalfSpaceFaces(model, X);
  for (size_t b = 0; b < X.size(); ++b) {
    if (model.bodies[b].tree >= 0) X[b].p.z() += 0.5;
  }
  const Bounds3 lifted = FiniteGeometryBounds(model, X);
  EXPECT_TRUE(WallTopOutdated(at_load.bodies_top, lifted));
  const HalfSpaceFaces now = ComputeHalfSpaceFaces(model, X);
  EXPECT_GE(now.top_z, lifted.max.z());
  EXPECT_TRUE(std::isfinite(now.top_z));
  EXPECT_FALSE(WallTopOutdated(now.bodies_top, lifted));
}

}  // namespace
}  // namespace contactlab
