// Ray casting (engine/geometry/raycast.h) against hand-computed hit distances and normals.
//
// Tolerance: 1e-12 m on distances and 1e-12 on unit-normal components throughout. Every expected
// value is a closed form of a few arithmetic operations on O(1..10) numbers; the intersection
// routines add a quadratic solve or a handful of divisions and at most one rotation by a unit
// quaternion, each good to a few ulps (~1e-15 relative), far below 1e-12. A wrong face, root or
// sign is off by >= 1e-2, so the tests cannot pass by accident.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "engine/multibody/multibody.h"
#include "engine/geometry/raycast.h"
#include "tests/test_models.h"

namespace contactlab {
namespace {

using namespace contactlab::testing;  // NOLINT

constexpr double kTol = 1e-12;

Pose At(const Vec3& p, const Quat& q = Quat::Identity()) {
  Pose x;
  x.p = p;
  x.q = q;
  return x;
}

Shape Sphere(double r) { return SphereShape(r); }
Shape Box(const Vec3& h) { return BoxShape(h); }
Shape Cylinder(double r, double half_length) {
  Shape s;
  s.type = ShapeType::kCylinder;
  s.radius = r;
  s.half_length = half_length;
  return s;
}
Shape Capsule(double r, double half_length) {
  Shape s = Cylinder(r, half_length);
  s.type = ShapeType::kCapsule;
  return s;
}
Shape HalfSpace() {
  Shape s;
  s.type = ShapeType::kHalfSpace;
  return s;
}

// The octahedron |x| + |y| + |z| <= 1: eight faces with normals (±1, ±1, ±1)/√3, built by hand
// (no hull library involved).
Shape Octahedron() {
  auto hull = std::make_shared<ConvexHull>();
  hull->vertices = {Vec3(1, 0, 0), Vec3(-1, 0, 0), Vec3(0, 1, 0),
                    Vec3(0, -1, 0), Vec3(0, 0, 1), Vec3(0, 0, -1)};
  for (int sx : {1, -1})
    for (int sy : {1, -1})
      for (int sz : {1, -1}) {
        const int ix = sx > 0 ? 0 : 1, iy = sy > 0 ? 2 : 3, iz = sz > 0 ? 4 : 5;
        const Vec3 n = Vec3(sx, sy, sz) / std::sqrt(3.0);
        // CCW from outside: (x, y, z) is CCW about (1, 1, 1); an odd number of flips reverses it.
        if (sx * sy * sz > 0) {
          hull->faces.push_back({ix, iy, iz});
        } else {
          hull->faces.push_back({ix, iz, iy});
        }
        hull->face_normals.push_back(n);
      }
  Shape s;
  s.type = ShapeType::kConvexMesh;
  s.hull = hull;
  return s;
}

struct Cast {
  bool hit = false;
  double t = -1;
  Vec3 n = Vec3::Zero();
};

// Casts along `d` (normalized here, as CastRay does).
Cast Ray(const Shape& s, const Pose& X, const Vec3& o, const Vec3& d) {
  Cast c;
  c.hit = RayShape(s, X, o, d.normalized(), &c.t, &c.n);
  return c;
}

void ExpectHit(const Cast& c, double t, const Vec3& n, const char* what) {
  ASSERT_TRUE(c.hit) << what;
  EXPECT_NEAR(c.t, t, kTol) << what;
  EXPECT_NEAR((c.n - n).lpNorm<Eigen::Infinity>(), 0.0, kTol)
      << what << ": normal " << c.n.transpose() << " expected " << n.transpose();
}

TEST(RayShape, Sphere) {
  const Shape s = Sphere(0.5);
  const Pose X = At(Vec3(1, 2, 3));
  // From above, straight down: top of the sphere at z = 3.5, t = 10 − 3.5.
  ExpectHit(Ray(s, X, Vec3(1, 2, 10), Vec3(0, 0, -2)), 6.5, Vec3::UnitZ(), "down");
  // From −x: surface at x = 0.5, t = 5 − 0.5.
  ExpectHit(Ray(s, X, Vec3(-4, 2, 3), Vec3(1, 0, 0)), 4.5, -Vec3::UnitX(), "from -x");
  // Along the diagonal towards the center from 10 m away: t = 10 − r.
  const Vec3 u = Vec3(1, 1, 1).normalized();
  ExpectHit(Ray(s, X, X.p + 10 * u, -u), 9.5, u, "diagonal");
  // Off-center chord, 0.3 m off the axis: enters 0.4 m before the center plane (0.3-0.4-0.5).
  ExpectHit(Ray(s, X, Vec3(1.3, -3, 3), Vec3(0, 1, 0)), 4.6, Vec3(0.6, -0.8, 0), "chord");
  // Origin at the center: exit point one radius out.
  ExpectHit(Ray(s, X, X.p, Vec3(0, 0, 1)), 0.5, Vec3::UnitZ(), "inside");
  // Tangent ray (0.5 m off the center line; every quantity exact in binary): touches at t = 5.
  ExpectHit(Ray(s, X, Vec3(1.5, -3, 3), Vec3(0, 1, 0)), 5.0, Vec3::UnitX(), "grazing");
  EXPECT_FALSE(Ray(s, X, Vec3(1.5 + 1e-9, -3, 3), Vec3(0, 1, 0)).hit) << "just outside";
  EXPECT_FALSE(Ray(s, X, Vec3(1, 2, 10), Vec3(0, 0, 1)).hit) << "pointing away";
  EXPECT_FALSE(Ray(s, X, Vec3(3, 2, 10), Vec3(0, 0, -1)).hit) << "beside";
}

TEST(RayShape, Box) {
  const Vec3 h(0.1, 0.2, 0.3);
  const Pose X = At(Vec3(0, 0, 1));
  // Slab method: the x face at 0.1.
  ExpectHit(Ray(Box(h), X, Vec3(5, 0, 1), Vec3(-1, 0, 0)), 4.9, Vec3::UnitX(), "+x face");
  ExpectHit(Ray(Box(h), X, Vec3(0.05, -0.1, -4), Vec3(0, 0, 3)), 4.7, -Vec3::UnitZ(), "-z face");
  // Rotated 90° about z: the local y extent (0.2) now faces +x.
  const Pose Xr = At(Vec3(0, 0, 1), AxisAngleDeg(Vec3::UnitZ(), 90));
  ExpectHit(Ray(Box(h), Xr, Vec3(5, 0, 1), Vec3(-1, 0, 0)), 4.8, Vec3::UnitX(), "rotated 90");
  // Cube of half-size 0.1 rotated 45° about z, ray at y = 0.01: hits the face with normal
  // (1, 1, 0)/√2, the plane (x + y)/√2 = 0.1, at x = 0.1√2 − 0.01.
  const Pose X45 = At(Vec3(0, 0, 1), AxisAngleDeg(Vec3::UnitZ(), 45));
  ExpectHit(Ray(Box(Vec3::Constant(0.1)), X45, Vec3(5, 0.01, 1), Vec3(-1, 0, 0)),
            5 - (0.1 * std::sqrt(2.0) - 0.01), Vec3(1, 1, 0) / std::sqrt(2.0), "rotated 45");
  // Inside, along (1, 1, 1): leaves through the nearest slab, x (0.1 / (1/√3)).
  ExpectHit(Ray(Box(h), X, X.p, Vec3(1, 1, 1)), 0.1 * std::sqrt(3.0), Vec3::UnitX(), "inside");
  // Grazing along the top face plane z = 1.25 of a box with binary-exact extents (so that the
  // ray lies exactly in the plane): touches the face's edge at x = 0.125.
  const Shape g = Box(Vec3(0.125, 0.25, 0.25));
  ExpectHit(Ray(g, X, Vec3(5, 0, 1.25), Vec3(-1, 0, 0)), 4.875, Vec3::UnitX(), "grazing");
  EXPECT_FALSE(Ray(g, X, Vec3(5, 0, 1.25 + 1e-9), Vec3(-1, 0, 0)).hit) << "just above";
  EXPECT_FALSE(Ray(Box(h), X, Vec3(5, 0.25, 1), Vec3(-1, 0, 0)).hit) << "beside";
  EXPECT_FALSE(Ray(Box(h), X, Vec3(5, 0, 1), Vec3(1, 0, 0)).hit) << "pointing away";
}

TEST(RayShape, CylinderWithFlatCaps) {
  const Shape s = Cylinder(0.25, 0.4);
  const Pose X;
  ExpectHit(Ray(s, X, Vec3(3, 0, 0.1), Vec3(-1, 0, 0)), 2.75, Vec3::UnitX(), "side");
  ExpectHit(Ray(s, X, Vec3(0.05, 0, 5), Vec3(0, 0, -1)), 4.6, Vec3::UnitZ(), "cap (parallel)");
  ExpectHit(Ray(s, X, Vec3(0.05, 0, -5), Vec3(0, 0, 1)), 4.6, -Vec3::UnitZ(), "bottom cap");
  // From the center along (1, 0, 1): the side (x = 0.25 at z = 0.25 < 0.4) comes first.
  ExpectHit(Ray(s, X, Vec3::Zero(), Vec3(1, 0, 1)), 0.25 * std::sqrt(2.0), Vec3::UnitX(),
            "inside, side exit");
  // Along (1, 0, 4): the cap plane z = 0.4 (at x = 0.1 < 0.25) comes first, t = 0.4 √17 / 4.
  ExpectHit(Ray(s, X, Vec3::Zero(), Vec3(1, 0, 4)), 0.1 * std::sqrt(17.0), Vec3::UnitZ(),
            "inside, cap exit");
  // Slanted onto the cap: along (−1, 0, −4) from (0.2, 0, 0.6), the plane z = 0.4 is reached
  // after 0.2 in z, at x = 0.15 < 0.25, and t = 0.2 √17 / 4.
  ExpectHit(Ray(s, X, Vec3(0.2, 0, 0.6), Vec3(-1, 0, -4)), 0.05 * std::sqrt(17.0),
            Vec3::UnitZ(), "cap, slanted");
  // Axis along world x (90° about y maps local z to world x): the cap faces +x.
  const Pose Xr = At(Vec3(1, 0, 0), AxisAngleDeg(Vec3::UnitY(), 90));
  ExpectHit(Ray(s, Xr, Vec3(6, 0, 0), Vec3(-1, 0, 0)), 4.6, Vec3::UnitX(), "rotated cap");
  ExpectHit(Ray(s, Xr, Vec3(1, 0, 5), Vec3(0, 0, -1)), 4.75, Vec3::UnitZ(), "rotated side");
  // Tangent to the side at x = 0.25 (binary-exact): touches at t = 3.
  ExpectHit(Ray(s, X, Vec3(0.25, -3, 0), Vec3(0, 1, 0)), 3.0, Vec3::UnitX(), "grazing side");
  EXPECT_FALSE(Ray(s, X, Vec3(0.3, 0, 5), Vec3(0, 0, -1)).hit) << "parallel, outside radius";
  EXPECT_FALSE(Ray(s, X, Vec3(3, 0, 0.45), Vec3(-1, 0, 0)).hit) << "above the cap";
  EXPECT_FALSE(Ray(s, X, Vec3(0.2501, -3, 0), Vec3(0, 1, 0)).hit) << "beside";
}

TEST(RayShape, Capsule) {
  const Shape s = Capsule(0.25, 0.5);
  const Pose X;
  ExpectHit(Ray(s, X, Vec3(3, 0, 0.3), Vec3(-1, 0, 0)), 2.75, Vec3::UnitX(), "side");
  // Along the axis: the top of the upper hemisphere at z = 0.75.
  ExpectHit(Ray(s, X, Vec3(0, 0, 5), Vec3(0, 0, -1)), 4.25, Vec3::UnitZ(), "pole");
  // 0.15 m off the axis: the hemisphere at height 0.5 + √(0.25² − 0.15²) = 0.7,
  // normal (0.15, 0, 0.2)/0.25.
  ExpectHit(Ray(s, X, Vec3(0.15, 0, 5), Vec3(0, 0, -1)), 4.3, Vec3(0.6, 0, 0.8), "hemisphere");
  // Towards the upper cap's center along (−1, 0, −1) from 5 m away: t = 5 − r.
  const Vec3 u = Vec3(1, 0, 1).normalized();
  ExpectHit(Ray(s, X, Vec3(0, 0, 0.5) + 5 * u, -u), 4.75, u, "slanted onto cap");
  ExpectHit(Ray(s, X, Vec3::Zero(), Vec3(0, 0, 1)), 0.75, Vec3::UnitZ(), "inside, axial");
  ExpectHit(Ray(s, X, Vec3::Zero(), Vec3(1, 0, 0)), 0.25, Vec3::UnitX(), "inside, radial");
  ExpectHit(Ray(s, X, Vec3(0, 0, 0.5), u), 0.25, u, "inside, from the cap center");
  // Axis along world −y (90° about x): the local bottom cap faces +y.
  const Pose Xr = At(Vec3::Zero(), AxisAngleDeg(Vec3::UnitX(), 90));
  ExpectHit(Ray(s, Xr, Vec3(0, 5, 0), Vec3(0, -1, 0)), 4.25, Vec3::UnitY(), "rotated");
  ExpectHit(Ray(s, At(Vec3(0, 0, 2)), Vec3(3, 0, 2.3), Vec3(-1, 0, 0)), 2.75, Vec3::UnitX(),
            "translated");
  ExpectHit(Ray(s, X, Vec3(0.25, -3, 0), Vec3(0, 1, 0)), 3.0, Vec3::UnitX(), "grazing side");
  EXPECT_FALSE(Ray(s, X, Vec3(0.3, 0, 5), Vec3(0, 0, -1)).hit) << "parallel, outside radius";
  EXPECT_FALSE(Ray(s, X, Vec3(3, 0, 0.76), Vec3(-1, 0, 0)).hit) << "above the pole";
  // At height 0.7 the cap's cross-section has radius √(0.25² − 0.2²) = 0.15.
  EXPECT_FALSE(Ray(s, X, Vec3(3, 0.16, 0.7), Vec3(-1, 0, 0)).hit) << "beside the cap";
  EXPECT_TRUE(Ray(s, X, Vec3(3, 0.14, 0.7), Vec3(-1, 0, 0)).hit) << "inside the cap's circle";
}

TEST(RayShape, ConvexMesh) {
  const Shape s = Octahedron();
  const Pose X;
  // At (y, z) = (0.1, 0.2) from +x: face x + y + z = 1 at x = 0.7 (the other three +x faces are
  // crossed earlier along the ray, i.e. are not the entry).
  ExpectHit(Ray(s, X, Vec3(5, 0.1, 0.2), Vec3(-1, 0, 0)), 4.3, Vec3(1, 1, 1) / std::sqrt(3.0),
            "+x+y+z face");
  ExpectHit(Ray(s, X, Vec3(-5, 0.1, -0.2), Vec3(1, 0, 0)), 4.3, Vec3(-1, 1, -1) / std::sqrt(3.0),
            "-x+y-z face");
  // From the center along (1, 1, 1): exits at (1/3, 1/3, 1/3), t = 1/√3.
  ExpectHit(Ray(s, X, Vec3::Zero(), Vec3(1, 1, 1)), 1 / std::sqrt(3.0),
            Vec3(1, 1, 1) / std::sqrt(3.0), "inside");
  // Rotated 90° about z and translated: the local −y faces now face +x.
  const Pose Xr = At(Vec3(0, 0, 2), AxisAngleDeg(Vec3::UnitZ(), 90));
  // World (y, z − 2) = (0.1, 0.2) → local (x, y) = (0.1, −x_w); local face (1, −1, 1) → world
  // normal (1, 1, 1)/√3 rotated: R_z(90) (1, −1, 1) = (1, 1, 1).
  ExpectHit(Ray(s, Xr, Vec3(5, 0.1, 2.2), Vec3(-1, 0, 0)), 4.3, Vec3(1, 1, 1) / std::sqrt(3.0),
            "rotated");
  EXPECT_FALSE(Ray(s, X, Vec3(5, 0.6, 0.6), Vec3(-1, 0, 0)).hit) << "|y| + |z| > 1";
  EXPECT_FALSE(Ray(s, X, Vec3(5, 0.1, 0.2), Vec3(1, 0, 0)).hit) << "pointing away";
  Shape empty;
  empty.type = ShapeType::kConvexMesh;
  EXPECT_FALSE(Ray(empty, X, Vec3(5, 0, 0), Vec3(-1, 0, 0)).hit) << "no hull";
}

TEST(RayShape, HalfSpaceHitOnlyFromOutside) {
  const Shape s = HalfSpace();
  ExpectHit(Ray(s, Pose{}, Vec3(0, 0, 2), Vec3(1, 0, -1)), 2 * std::sqrt(2.0), Vec3::UnitZ(),
            "slanted");
  // Ground tilted 30° about y: normal n = (sin 30°, 0, cos 30°); from (1, 0, 5) straight down,
  // n·(o − t e_z) = 0 gives t = 5 + 0.5 / cos 30°.
  const Pose Xt = At(Vec3::Zero(), AxisAngleDeg(Vec3::UnitY(), 30));
  const double c30 = std::sqrt(3.0) / 2;
  ExpectHit(Ray(s, Xt, Vec3(1, 0, 5), Vec3(0, 0, -1)), 5 + 0.5 / c30, Vec3(0.5, 0, c30), "tilted");
  ExpectHit(Ray(s, At(Vec3(0, 0, -1)), Vec3(0, 0, 3), Vec3(0, 0, -1)), 4.0, Vec3::UnitZ(),
            "lowered");
  EXPECT_FALSE(Ray(s, Pose{}, Vec3(0, 0, -1), Vec3(0, 0, -1)).hit) << "origin inside";
  EXPECT_FALSE(Ray(s, Pose{}, Vec3(0, 0, -1), Vec3(0, 0, 1)).hit) << "inside, looking up";
  EXPECT_FALSE(Ray(s, Pose{}, Vec3(0, 0, 1), Vec3(1, 0, 0)).hit) << "parallel";
  EXPECT_FALSE(Ray(s, Pose{}, Vec3(0, 0, 1), Vec3(0, 0, 1)).hit) << "pointing away";
}

// Ground (world), a static box, two free spheres stacked along z and a prescribed sphere.
struct PickScene {
  Model m;
  int ground_geom = -1, static_geom = -1, low = -1, high = -1, moving = -1;
};

PickScene MakePickScene() {
  PickScene s;
  Model& m = s.m;
  AddGround(&m, Pose{}, 0);
  s.ground_geom = 0;
  // Static body (no joint, not prescribed) with a box whose top is at z = 3.
  Body st;
  st.name = "shelf";
  m.bodies.push_back(st);
  AddGeom(&m, 0, Box(Vec3(0.5, 0.5, 0.1)), 0, At(Vec3(0, 0, 2.9)));
  s.static_geom = 1;
  s.low = AddFreeBody(&m, "low", 1.0, SphereInertia(1.0, 0.2), At(Vec3(0, 0, 1)));
  AddGeom(&m, s.low, Sphere(0.2), 0);
  // The high sphere's geometry is offset 0.5 m above its body origin at z = 1.5.
  s.high = AddFreeBody(&m, "high", 1.0, SphereInertia(1.0, 0.2), At(Vec3(0, 0, 1.5)));
  AddGeom(&m, s.high, Sphere(0.2), 0, At(Vec3(0, 0, 0.5)));
  Body pr;
  pr.name = "moving";
  pr.prescribed = true;
  pr.pose0 = At(Vec3(3, 0, 1));
  m.bodies.push_back(pr);
  s.moving = static_cast<int>(m.bodies.size()) - 1;
  AddGeom(&m, s.moving, Sphere(0.2), 0);
  m.Finalize();
  return s;
}

std::vector<Pose> Poses(const Model& m) {
  Multibody mb(&m);
  KinematicsCache kin;
  mb.UpdateKinematics(m.q_default, 0.0, &kin);
  return kin.X_WB;
}

TEST(CastRay, NearestOfSeveralBodies) {
  const PickScene s = MakePickScene();
  const std::vector<Pose> X_WB = Poses(s.m);
  // Between the shelf (bottom at z = 2.8) and the high sphere (top at 2.2), looking down: the
  // high sphere is nearest, at distance 2.5 − 2.2; the direction's length does not matter.
  auto hit = CastRay(s.m, X_WB, Vec3(0, 0, 2.5), Vec3(0, 0, -7));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->body, s.high);
  EXPECT_EQ(hit->geom, 3);
  EXPECT_NEAR(hit->distance, 0.3, kTol);
  EXPECT_NEAR((hit->point - Vec3(0, 0, 2.2)).norm(), 0.0, kTol);
  EXPECT_NEAR((hit->normal - Vec3::UnitZ()).norm(), 0.0, kTol);
  // From inside the ground (z = −1) looking up: the half-space is hit from outside only, so the
  // low sphere is hit from below, at z = 0.8.
  hit = CastRay(s.m, X_WB, Vec3(0, 0, -1), Vec3(0, 0, 1));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->body, s.low);
  EXPECT_NEAR(hit->distance, 1.8, kTol);
  EXPECT_NEAR((hit->normal + Vec3::UnitZ()).norm(), 0.0, kTol);
  // Moving the low sphere with X_WB (not with the model) moves what is picked.
  std::vector<Pose> moved = X_WB;
  moved[s.low].p = Vec3(1, 0, 1);
  hit = CastRay(s.m, moved, Vec3(1, 0, 2.5), Vec3(0, 0, -1));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->body, s.low);
  EXPECT_NEAR(hit->distance, 1.3, kTol);
  // A ray that misses every body and points away from the ground.
  EXPECT_FALSE(CastRay(s.m, X_WB, Vec3(10, 10, 1), Vec3(1, 0, 1)));
}

TEST(CastRay, IncludeStaticFilter) {
  const PickScene s = MakePickScene();
  const std::vector<Pose> X_WB = Poses(s.m);
  // From above the shelf: the static box (top z = 3) shadows the spheres.
  auto hit = CastRay(s.m, X_WB, Vec3(0, 0, 5), Vec3(0, 0, -1));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->geom, s.static_geom);
  EXPECT_EQ(hit->body, 0);
  EXPECT_NEAR(hit->distance, 2.0, kTol);
  hit = CastRay(s.m, X_WB, Vec3(0, 0, 5), Vec3(0, 0, -1), /*include_static=*/false);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->body, s.high);
  EXPECT_NEAR(hit->distance, 5 - 2.2, kTol);
  // Beside the stack: the ground (world geometry) only when static geometry is included.
  hit = CastRay(s.m, X_WB, Vec3(2, 0, 5), Vec3(0, 0, -1));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->geom, s.ground_geom);
  EXPECT_EQ(hit->body, -1);
  EXPECT_NEAR(hit->distance, 5.0, kTol);
  EXPECT_FALSE(CastRay(s.m, X_WB, Vec3(2, 0, 5), Vec3(0, 0, -1), false));
  // The prescribed body has no tree: picked only with static geometry included.
  hit = CastRay(s.m, X_WB, Vec3(3, 0, 5), Vec3(0, 0, -1));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->body, s.moving);
  EXPECT_NEAR(hit->distance, 5 - 1.2, kTol);
  EXPECT_FALSE(CastRay(s.m, X_WB, Vec3(3, 0, 5), Vec3(0, 0, -1), false));
}

TEST(CastRay, RejectsBadInput) {
  const PickScene s = MakePickScene();
  const std::vector<Pose> X_WB = Poses(s.m);
  EXPECT_THROW(CastRay(s.m, X_WB, Vec3(0, 0, 5), Vec3::Zero()), std::invalid_argument);
  EXPECT_THROW(CastRay(s.m, X_WB, Vec3(0, 0, NAN), Vec3(0, 0, 1)), std::invalid_argument);
  EXPECT_THROW(CastRay(s.m, std::vector<Pose>(1), Vec3(0, 0, 5), Vec3(0, 0, -1)),
               std::invalid_argument);
}

}  // namespace
}  // namespace contactlab
