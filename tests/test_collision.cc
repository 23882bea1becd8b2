#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "app/mesh_loader.h"
#include "engine/geometry/collision.h"
#include "engine/geometry/collision_internal.h"

namespace contactlab {
namespace {

// Closed-form pairs are evaluated with a handful of flops on O(0.1 m) values: round-off only.
constexpr double kExact = 1e-12;
// GJK/EPA pairs: the direction comes from EPA (tolerance 1e-9 on the polytope distance) and φ is
// re-measured along it, so φ is accurate to second order in the direction error; points use the
// EPA position, which is accurate to about the square root of that tolerance.
constexpr double kGjkPhi = 1e-6;
constexpr double kGjkPoint = 1e-4;

Shape HalfSpace() {
  Shape s;
  s.type = ShapeType::kHalfSpace;
  return s;
}
Shape Sphere(double r) {
  Shape s;
  s.type = ShapeType::kSphere;
  s.radius = r;
  return s;
}
Shape Capsule(double r, double hl) {
  Shape s;
  s.type = ShapeType::kCapsule;
  s.radius = r;
  s.half_length = hl;
  return s;
}
Shape Box(double x, double y, double z) {
  Shape s;
  s.type = ShapeType::kBox;
  s.half_extents = Vec3(x, y, z);
  return s;
}
Shape Cylinder(double r, double hl) {
  Shape s;
  s.type = ShapeType::kCylinder;
  s.radius = r;
  s.half_length = hl;
  return s;
}
Shape Mesh(std::shared_ptr<const ConvexHull> hull) {
  Shape s;
  s.type = ShapeType::kConvexMesh;
  s.hull = std::move(hull);
  return s;
}
std::string Asset(const std::string& name) {
  return std::string(CONTACTLAB_SOURCE_DIR) + "/assets/meshes/" + name;
}

Pose At(double x, double y, double z) {
  Pose p;
  p.p = Vec3(x, y, z);
  return p;
}
Pose AtRot(const Vec3& p, double angle, const Vec3& axis) {
  Pose X;
  X.p = p;
  X.q = Quat(Eigen::AngleAxisd(angle, axis.normalized()));
  return X;
}

std::vector<ContactPoint> Collide(const Shape& a, const Pose& xa, const Shape& b, const Pose& xb,
                                  double margin = 1e-3) {
  std::vector<ContactPoint> out;
  int n = CollideShapes(a, xa, b, xb, margin, &out);
  EXPECT_EQ(n, static_cast<int>(out.size()));
  return out;
}

void ExpectVecNear(const Vec3& a, const Vec3& b, double tol) {
  EXPECT_NEAR((a - b).norm(), 0.0, tol) << "got " << a.transpose() << " want " << b.transpose();
}

double MinPhi(const std::vector<ContactPoint>& c) {
  double m = 1e300;
  for (const auto& p : c) m = std::min(m, p.phi);
  return m;
}

// ---------------------------------------------------------------- closed-form pairs

TEST(Analytic, SphereSpherePenetratingAndSwapped) {
  auto c = Collide(Sphere(0.1), At(0, 0, 0), Sphere(0.2), At(0.25, 0, 0));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, -0.05, kExact);
  ExpectVecNear(c[0].normal, Vec3::UnitX(), kExact);
  ExpectVecNear(c[0].point, Vec3(0.075, 0, 0), kExact);  // between 0.1 and 0.05
  auto s = Collide(Sphere(0.2), At(0.25, 0, 0), Sphere(0.1), At(0, 0, 0));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(s[0].phi, -0.05, kExact);
  ExpectVecNear(s[0].normal, -Vec3::UnitX(), kExact);  // from A (now the big one) into B
}

TEST(Analytic, MarginSemantics) {
  // Gap of exactly 0.02 between the spheres.
  const Shape a = Sphere(0.1), b = Sphere(0.1);
  const Pose xa = At(0, 0, 0), xb = At(0, 0.22, 0);
  auto kept = Collide(a, xa, b, xb, 0.03);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_NEAR(kept[0].phi, 0.02, kExact);
  EXPECT_GT(kept[0].phi, 0.0);
  ExpectVecNear(kept[0].point, Vec3(0, 0.11, 0), kExact);
  EXPECT_TRUE(Collide(a, xa, b, xb, 0.019).empty());  // φ >= margin is dropped
  EXPECT_TRUE(Collide(a, xa, b, xb, 0.0).empty());
  // The same rule for a multi-point manifold: a box 0.01 above the ground.
  EXPECT_EQ(Collide(HalfSpace(), Pose(), Box(0.1, 0.1, 0.1), At(0, 0, 0.11), 0.011).size(), 4u);
  EXPECT_EQ(Collide(HalfSpace(), Pose(), Box(0.1, 0.1, 0.1), At(0, 0, 0.11), 0.009).size(), 0u);
}

TEST(Analytic, SphereHalfSpaceTiltedPlane) {
  Pose plane = AtRot(Vec3(0.1, -0.2, 0.3), 0.4, Vec3(1, 2, 0));
  Vec3 n = plane.Rotate(Vec3::UnitZ());
  for (double h : {0.05, 0.1005, 0.12}) {  // penetrating, within margin, beyond margin
    Vec3 center = plane.p + h * n + plane.Rotate(Vec3(0.3, 0.1, 0));
    auto c = Collide(HalfSpace(), plane, Sphere(0.1), At(center.x(), center.y(), center.z()));
    if (h - 0.1 >= 1e-3) {
      EXPECT_TRUE(c.empty());
      continue;
    }
    ASSERT_EQ(c.size(), 1u);
    EXPECT_NEAR(c[0].phi, h - 0.1, kExact);
    ExpectVecNear(c[0].normal, n, kExact);
    ExpectVecNear(c[0].point, center - n * (0.1 + 0.5 * (h - 0.1)), kExact);
    auto s = Collide(Sphere(0.1), At(center.x(), center.y(), center.z()), HalfSpace(), plane);
    ASSERT_EQ(s.size(), 1u);
    ExpectVecNear(s[0].normal, -n, kExact);
  }
}

TEST(Analytic, CapsuleHalfSpaceFlatAndTilted) {
  auto flat = Collide(HalfSpace(), Pose(), Capsule(0.05, 0.2), AtRot(Vec3(0, 0, 0.049), kPi / 2,
                                                                     Vec3::UnitY()));
  ASSERT_EQ(flat.size(), 2u);
  for (const auto& p : flat) {
    EXPECT_NEAR(p.phi, -0.001, kExact);
    EXPECT_NEAR(std::abs(p.point.x()), 0.2, kExact);
    EXPECT_NEAR(p.point.z(), -0.0005, kExact);
  }
  EXPECT_NE(flat[0].point.x(), flat[1].point.x());
  // Tilted by 0.3 rad: the upper end is 0.4 sin(0.3) = 0.118 m higher, far beyond the margin.
  const double th = 0.3;
  double zc = 0.2 * std::sin(th) + 0.05 - 0.002;
  auto tilted = Collide(HalfSpace(), Pose(), Capsule(0.05, 0.2),
                        AtRot(Vec3(0, 0, zc), kPi / 2 - th, Vec3::UnitY()));
  ASSERT_EQ(tilted.size(), 1u);
  EXPECT_NEAR(tilted[0].phi, -0.002, kExact);
}

TEST(Analytic, CapsuleSphere) {
  // Sphere beside the capsule's middle. The axis lies along y after rotating z about x; the
  // closest axis point is (0, 0.05, 0), at distance 0.1 from the center.
  auto c = Collide(Capsule(0.05, 0.2), AtRot(Vec3::Zero(), kPi / 2, Vec3::UnitX()), Sphere(0.06),
                   At(0.06, 0.05, 0.08));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, 0.1 - 0.11, kExact);
  ExpectVecNear(c[0].normal, Vec3(0.6, 0, 0.8), kExact);
  // Capsule surface at 0.05, sphere surface at 0.04 from the axis point: midway 0.045.
  ExpectVecNear(c[0].point, Vec3(0.6, 0, 0.8) * 0.045 + Vec3(0, 0.05, 0), kExact);
  // Swapped and beyond the end cap: closest axis point is the end (0, 0, 0.2).
  auto s = Collide(Sphere(0.06), At(0, 0, 0.3), Capsule(0.05, 0.2), Pose());
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(s[0].phi, 0.1 - 0.11, kExact);
  ExpectVecNear(s[0].normal, -Vec3::UnitZ(), kExact);
}

TEST(Analytic, CapsuleCapsuleCrossedAndParallel) {
  // Crossed at right angles, axes 0.09 apart.
  auto c = Collide(Capsule(0.05, 0.2), AtRot(Vec3::Zero(), kPi / 2, Vec3::UnitY()),
                   Capsule(0.05, 0.2), AtRot(Vec3(0.03, 0.01, 0.09), kPi / 2, Vec3::UnitX()));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, -0.01, kExact);
  ExpectVecNear(c[0].normal, Vec3::UnitZ(), kExact);
  ExpectVecNear(c[0].point, Vec3(0.03, 0, 0.045), kExact);
  // Parallel, overlapping over x in [-0.1, 0.2]: two points at the overlap ends.
  Pose xa = AtRot(Vec3::Zero(), kPi / 2, Vec3::UnitY());
  Pose xb = AtRot(Vec3(0.1, 0, 0.095), kPi / 2, Vec3::UnitY());
  auto p = Collide(Capsule(0.05, 0.2), xa, Capsule(0.05, 0.2), xb);
  ASSERT_EQ(p.size(), 2u);
  std::vector<double> xs{p[0].point.x(), p[1].point.x()};
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(xs[0], -0.1, kExact);
  EXPECT_NEAR(xs[1], 0.2, kExact);
  for (const auto& q : p) {
    EXPECT_NEAR(q.phi, -0.005, kExact);
    ExpectVecNear(q.normal, Vec3::UnitZ(), kExact);
  }
}

TEST(Analytic, SphereBoxOutsideAndInside) {
  Pose box = AtRot(Vec3(0.5, 0, 0), 0.7, Vec3(0, 0, 1));
  const Shape b = Box(0.1, 0.2, 0.3);
  // Face region: center 0.15 off the +x face.
  Vec3 c = box.Apply(Vec3(0.25, 0.05, -0.1));
  auto f = Collide(Sphere(0.2), At(c.x(), c.y(), c.z()), b, box);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(f[0].phi, -0.05, kExact);
  ExpectVecNear(f[0].normal, box.Rotate(-Vec3::UnitX()), kExact);
  // Edge region: offsets (0.03, 0.04) beyond the +x/+y edge, distance 0.05.
  c = box.Apply(Vec3(0.13, 0.24, 0));
  auto e = Collide(Sphere(0.04), At(c.x(), c.y(), c.z()), b, box, 0.02);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NEAR(e[0].phi, 0.01, kExact);
  ExpectVecNear(e[0].normal, box.Rotate(-Vec3(0.6, 0.8, 0)), kExact);
  // Midway between the edge and the sphere: 0.005 along the edge-to-center direction.
  ExpectVecNear(e[0].point, box.Apply(Vec3(0.1 + 0.003, 0.2 + 0.004, 0)), kExact);
  // Center inside, nearest face is +y (0.02 away): φ = -(0.02 + r).
  c = box.Apply(Vec3(0.0, 0.18, 0.1));
  auto in = Collide(b, box, Sphere(0.05), At(c.x(), c.y(), c.z()));
  ASSERT_EQ(in.size(), 1u);
  EXPECT_NEAR(in[0].phi, -0.07, kExact);
  ExpectVecNear(in[0].normal, box.Rotate(Vec3::UnitY()), kExact);  // box (A) into sphere (B)
}

TEST(Analytic, SeparatedWithinMarginClosedForm) {
  const double margin = 0.01;
  // Capsule lying 0.004 above the ground: two points with φ = 0.004.
  auto hc = Collide(HalfSpace(), Pose(), Capsule(0.05, 0.2),
                    AtRot(Vec3(0, 0, 0.054), kPi / 2, Vec3::UnitY()), margin);
  ASSERT_EQ(hc.size(), 2u);
  for (const auto& p : hc) {
    EXPECT_NEAR(p.phi, 0.004, kExact);
    EXPECT_NEAR(p.point.z(), 0.002, kExact);  // midway between z = 0 and z = 0.004
  }
  // Sphere 0.006 beside a capsule's side.
  auto cs = Collide(Capsule(0.05, 0.2), Pose(), Sphere(0.04), At(0.096, 0, 0.1), margin);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_NEAR(cs[0].phi, 0.006, kExact);
  ExpectVecNear(cs[0].normal, Vec3::UnitX(), kExact);
  ExpectVecNear(cs[0].point, Vec3(0.053, 0, 0.1), kExact);
  // Crossed capsules 0.007 apart.
  auto cc = Collide(Capsule(0.05, 0.2), AtRot(Vec3::Zero(), kPi / 2, Vec3::UnitY()),
                    Capsule(0.03, 0.2), AtRot(Vec3(0, 0, 0.087), kPi / 2, Vec3::UnitX()), margin);
  ASSERT_EQ(cc.size(), 1u);
  EXPECT_NEAR(cc[0].phi, 0.007, kExact);
  ExpectVecNear(cc[0].point, Vec3(0, 0, 0.0535), kExact);
  // Cylinder standing 0.003 above the ground: rim samples with φ = 0.003.
  auto hy = Collide(HalfSpace(), Pose(), Cylinder(0.1, 0.15), At(0, 0, 0.153), margin);
  ASSERT_GE(hy.size(), 4u);
  for (const auto& p : hy) EXPECT_NEAR(p.phi, 0.003, kExact);
  // Sphere 0.002 outside a box face.
  auto sb = Collide(Box(0.1, 0.2, 0.3), Pose(), Sphere(0.05), At(0, 0.252, 0), margin);
  ASSERT_EQ(sb.size(), 1u);
  EXPECT_NEAR(sb[0].phi, 0.002, kExact);
  ExpectVecNear(sb[0].normal, Vec3::UnitY(), kExact);
}

// ---------------------------------------------------------------- boxes

TEST(Box, RestingOnHalfSpaceGivesFourCorners) {
  Pose ground = AtRot(Vec3(0, 0, 0.2), 0.25, Vec3(1, 1, 0));
  Vec3 n = ground.Rotate(Vec3::UnitZ());
  Pose box = ground * AtRot(Vec3(0.3, -0.1, 0.3 - 0.002), 0.5, Vec3::UnitZ());
  auto c = Collide(HalfSpace(), ground, Box(0.1, 0.2, 0.3), box);
  ASSERT_EQ(c.size(), 4u);
  std::set<std::pair<int, int>> corners;
  for (const auto& p : c) {
    EXPECT_NEAR(p.phi, -0.002, kExact);
    ExpectVecNear(p.normal, n, kExact);
    Vec3 local = box.InverseApply(p.point);
    EXPECT_NEAR(std::abs(local.x()), 0.1, kExact);
    EXPECT_NEAR(std::abs(local.y()), 0.2, kExact);
    EXPECT_NEAR(local.z(), -0.3 + 0.001, kExact);  // midway between the surfaces
    corners.emplace(local.x() > 0, local.y() > 0);
  }
  EXPECT_EQ(corners.size(), 4u);
}

TEST(Box, TiltedOnHalfSpaceGivesEdgeOrCorner) {
  // Rotated about y: one bottom edge (2 corners) lowest; the others are 0.2 sin(0.3) higher.
  auto edge = Collide(HalfSpace(), Pose(), Box(0.1, 0.2, 0.3),
                      AtRot(Vec3(0, 0, 0.3), 0.3, Vec3::UnitY()));
  ASSERT_EQ(edge.size(), 2u);
  double expect = 0.3 - 0.1 * std::sin(0.3) - 0.3 * std::cos(0.3);
  for (const auto& p : edge) EXPECT_NEAR(p.phi, expect, kExact);
  // Generic rotation: one corner.
  Pose x = AtRot(Vec3(0, 0, 0.3), 0.4, Vec3(1, 2, 0.5));
  auto corner = Collide(HalfSpace(), Pose(), Box(0.1, 0.2, 0.3), x);
  ASSERT_EQ(corner.size(), 1u);
  Mat3 R = x.R();
  double lowest = 0.3 - R.row(2).cwiseAbs().dot(Vec3(0.1, 0.2, 0.3));
  EXPECT_NEAR(corner[0].phi, lowest, kExact);
}

TEST(Box, RestingOnLargerBoxGivesFourCorners) {
  const Shape table = Box(1, 1, 0.5);
  const Pose x_table = At(0, 0, -0.5);  // top face at z = 0
  Pose x_box = AtRot(Vec3(0.2, 0.1, 0.3 - 0.001), 0.3, Vec3::UnitZ());
  for (bool swapped : {false, true}) {
    auto c = swapped ? Collide(Box(0.1, 0.2, 0.3), x_box, table, x_table)
                     : Collide(table, x_table, Box(0.1, 0.2, 0.3), x_box);
    ASSERT_EQ(c.size(), 4u);
    std::set<std::pair<int, int>> corners;
    for (const auto& p : c) {
      // Face-face clipping: intersections of planes with vertical edges, round-off only.
      EXPECT_NEAR(p.phi, -0.001, kExact);
      ExpectVecNear(p.normal, Vec3(0, 0, swapped ? -1.0 : 1.0), kExact);
      Vec3 local = x_box.InverseApply(p.point);
      EXPECT_NEAR(std::abs(local.x()), 0.1, kExact);
      EXPECT_NEAR(std::abs(local.y()), 0.2, kExact);
      EXPECT_NEAR(p.point.z(), -0.0005, kExact);
      corners.emplace(local.x() > 0, local.y() > 0);
    }
    EXPECT_EQ(corners.size(), 4u);
  }
}

TEST(Box, OverhangingBoxIsClippedToTheSupport) {
  // Box of half width 0.3 centered over the table's edge x = 0.5: contact spans x in [0.2, 0.5].
  auto c = Collide(Box(0.5, 0.5, 0.1), At(0, 0, -0.1), Box(0.3, 0.1, 0.1), At(0.5, 0, 0.099));
  ASSERT_EQ(c.size(), 4u);
  for (const auto& p : c) {
    EXPECT_NEAR(p.phi, -0.001, kExact);
    EXPECT_TRUE(std::abs(p.point.x() - 0.2) < kExact || std::abs(p.point.x() - 0.5) < kExact)
        << p.point.transpose();
  }
}

TEST(Box, TiltedOnBoxGivesEdgeOrCorner) {
  auto edge = Collide(Box(1, 1, 0.5), At(0, 0, -0.5), Box(0.1, 0.2, 0.3),
                      AtRot(Vec3(0, 0, 0.3), 0.3, Vec3::UnitY()));
  ASSERT_EQ(edge.size(), 2u);
  double expect = 0.3 - 0.1 * std::sin(0.3) - 0.3 * std::cos(0.3);
  for (const auto& p : edge) EXPECT_NEAR(p.phi, expect, kExact);
  Pose x = AtRot(Vec3(0, 0, 0.3), 0.4, Vec3(1, 2, 0.5));
  auto corner = Collide(Box(1, 1, 0.5), At(0, 0, -0.5), Box(0.1, 0.2, 0.3), x);
  ASSERT_EQ(corner.size(), 1u);
  double lowest = 0.3 - x.R().row(2).cwiseAbs().dot(Vec3(0.1, 0.2, 0.3));
  EXPECT_NEAR(corner[0].phi, lowest, kExact);
}

TEST(Box, EdgeEdgeContact) {
  // Two unit-ish boxes rotated 45° about orthogonal axes so their edges cross: A's top edge
  // along y at height 0.1 sqrt(2), B's bottom edge along x.
  Pose xa = AtRot(Vec3::Zero(), kPi / 4, Vec3::UnitY());
  double top = 0.1 * std::sqrt(2.0);
  Pose xb = AtRot(Vec3(0, 0, 2 * top - 0.004), kPi / 4, Vec3::UnitX());
  auto c = Collide(Box(0.1, 0.1, 0.1), xa, Box(0.1, 0.1, 0.1), xb);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, -0.004, kExact);
  ExpectVecNear(c[0].normal, Vec3::UnitZ(), 1e-9);  // direction from a normalized cross product
  ExpectVecNear(c[0].point, Vec3(0, 0, top - 0.002), 1e-9);
}

TEST(Box, SeparatedWithinMarginReportsPositivePhi) {
  auto c = Collide(Box(0.1, 0.1, 0.1), Pose(), Box(0.05, 0.05, 0.05), At(0.03, 0, 0.153), 0.01);
  ASSERT_EQ(c.size(), 4u);
  for (const auto& p : c) EXPECT_NEAR(p.phi, 0.003, kExact);
  // φ = 0.003 is not below a margin just under it (margin exactly 0.003 is a round-off tie).
  EXPECT_TRUE(Collide(Box(0.1, 0.1, 0.1), Pose(), Box(0.05, 0.05, 0.05), At(0.03, 0, 0.153),
                      0.0029)
                  .empty());
}

// ---------------------------------------------------------------- cylinders

// Centroid of contact points, projected on the plane z = 0.
Vec3 Centroid(const std::vector<ContactPoint>& c) {
  Vec3 s = Vec3::Zero();
  for (const auto& p : c) s += p.point;
  return s / static_cast<double>(c.size());
}

TEST(Cylinder, RestingFlatOnHalfSpaceIsStable) {
  for (bool upside_down : {false, true}) {
    Pose x = AtRot(Vec3(0.3, -0.2, 0.15 - 0.001), upside_down ? kPi : 0.0, Vec3::UnitX());
    x.q = x.q * Quat(Eigen::AngleAxisd(0.37, Vec3::UnitZ()));  // arbitrary spin about the axis
    auto c = Collide(HalfSpace(), Pose(), Cylinder(0.1, 0.15), x);
    ASSERT_GE(c.size(), 4u);
    for (const auto& p : c) {
      EXPECT_NEAR(p.phi, -0.001, kExact);
      EXPECT_NEAR(std::hypot(p.point.x() - 0.3, p.point.y() + 0.2), 0.1, kExact);  // on the rim
    }
    // Support polygon centered under the COM: the rim samples are evenly spaced.
    Vec3 g = Centroid(c);
    EXPECT_NEAR(g.x(), 0.3, kExact);
    EXPECT_NEAR(g.y(), -0.2, kExact);
  }
}

TEST(Cylinder, TiltedOnHalfSpaceGivesLowestRimPoint) {
  const double th = 0.3;
  const double zc = 0.15 * std::cos(th) + 0.1 * std::sin(th) - 0.002;
  Pose x = AtRot(Vec3(0, 0, zc), th, Vec3::UnitY());
  // The nearest rim samples are 0.1 sin(th) (1 - cos 45°) = 8.7 mm higher: beyond the margin.
  auto c = Collide(HalfSpace(), Pose(), Cylinder(0.1, 0.15), x);
  ASSERT_EQ(c.size(), 1u);
  double lowest = -0.002;
  EXPECT_NEAR(c[0].phi, lowest, kExact);
  // Rotation about +y tips the local +x direction downward, so the lowest rim point is the
  // bottom cap's rim point along local +x.
  Vec3 expect = x.Apply(Vec3(0.1, 0, -0.15));
  EXPECT_NEAR(c[0].point.x(), expect.x(), kExact);
  EXPECT_NEAR(c[0].point.y(), 0.0, kExact);
}

TEST(Cylinder, LyingOnItsSideOnHalfSpaceGivesOnePointPerCap) {
  // Axis horizontal: the lowest rim point of each cap touches; the other rim samples are at
  // least r (1 - cos 45°) = 29 mm higher.
  Pose x = AtRot(Vec3(0.2, 0.1, 0.1 - 0.003), kPi / 2, Vec3(1, 1, 0));
  auto c = Collide(HalfSpace(), Pose(), Cylinder(0.1, 0.15), x);
  ASSERT_EQ(c.size(), 2u);
  for (const auto& p : c) {
    EXPECT_NEAR(p.phi, -0.003, kExact);
    EXPECT_NEAR(std::hypot(p.point.x() - 0.2, p.point.y() - 0.1), 0.15, kExact);  // at the caps
  }
}

TEST(Cylinder, RestingFlatOnBoxIsStable) {
  // Prism approximation: its vertices are on the true rim, so a flat cap contact is exact.
  Pose x = At(0.1, 0.05, 0.15 - 0.002);
  for (bool swapped : {false, true}) {
    auto c = swapped ? Collide(Cylinder(0.1, 0.15), x, Box(1, 1, 0.5), At(0, 0, -0.5))
                     : Collide(Box(1, 1, 0.5), At(0, 0, -0.5), Cylinder(0.1, 0.15), x);
    ASSERT_GE(c.size(), 4u);
    ASSERT_LE(c.size(), 8u);
    for (const auto& p : c) {
      EXPECT_NEAR(p.phi, -0.002, kExact);
      ExpectVecNear(p.normal, Vec3(0, 0, swapped ? -1.0 : 1.0), kExact);
    }
    // The reduced set is the farthest-point sample of 24 evenly spaced rim vertices: its centroid
    // lies within r (1 - cos(π/8)) of the axis.
    Vec3 g = Centroid(c);
    EXPECT_LT(std::hypot(g.x() - 0.1, g.y() - 0.05), 0.1 * (1 - std::cos(kPi / 8)));
  }
}

TEST(Cylinder, StackedOnCylinder) {
  auto c = Collide(Cylinder(0.2, 0.1), At(0, 0, 0), Cylinder(0.1, 0.1), At(0.02, 0, 0.199));
  ASSERT_GE(c.size(), 4u);
  for (const auto& p : c) EXPECT_NEAR(p.phi, -0.001, kExact);
}

TEST(Cylinder, SideBySideUsesPrismApproximation) {
  // Parallel axes 0.19 apart, radii 0.1: true φ = -0.01. The prism sides are inset by up to
  // r (1 - cos(π/24)) per cylinder.
  auto c = Collide(Cylinder(0.1, 0.1), Pose(), Cylinder(0.1, 0.1), At(0.19, 0, 0));
  ASSERT_GE(c.size(), 1u);
  const double inset = 0.1 * (1 - std::cos(kPi / 24));
  EXPECT_NEAR(MinPhi(c), -0.01, 2 * inset + kExact);
  for (const auto& p : c) EXPECT_GT(p.normal.x(), 0.99);
}

TEST(Curved, SphereCylinderSideAndCap) {
  // Closed form in the cylinder frame: round-off only.
  Pose cyl = AtRot(Vec3(0.1, 0.2, 0.3), 0.6, Vec3(1, 0, 1));
  Vec3 side = cyl.Apply(Vec3(0.13 * std::cos(0.4), 0.13 * std::sin(0.4), 0.05));
  auto c = Collide(Sphere(0.05), At(side.x(), side.y(), side.z()), Cylinder(0.1, 0.15), cyl);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, -0.02, kExact);
  ExpectVecNear(c[0].normal, cyl.Rotate(-Vec3(std::cos(0.4), std::sin(0.4), 0)), kExact);
  ExpectVecNear(c[0].point, cyl.Apply(Vec3(0.09 * std::cos(0.4), 0.09 * std::sin(0.4), 0.05)),
                kExact);
  // Above the cap, separated by 0.004 with a margin of 0.01.
  Vec3 cap = cyl.Apply(Vec3(0.03, -0.02, 0.15 + 0.054));
  auto d = Collide(Cylinder(0.1, 0.15), cyl, Sphere(0.05), At(cap.x(), cap.y(), cap.z()), 0.01);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NEAR(d[0].phi, 0.004, kExact);
  ExpectVecNear(d[0].normal, cyl.Rotate(Vec3::UnitZ()), kExact);
  EXPECT_TRUE(
      Collide(Cylinder(0.1, 0.15), cyl, Sphere(0.05), At(cap.x(), cap.y(), cap.z()), 0.0039)
          .empty());
}

TEST(Gjk, SphereMeshMatchesSphereBox) {
  auto hull = LoadConvexMesh(Asset("cube.obj"), Vec3(0.2, 0.4, 0.6));
  Pose x = AtRot(Vec3(0.1, 0, 0), 0.5, Vec3(0, 1, 1));
  for (Vec3 local : {Vec3(0.0, 0.0, 0.33), Vec3(0.0, 0.0, 0.36), Vec3(0.13, 0.0, 0.32)}) {
    Vec3 c = x.Apply(local);
    auto box = Collide(Sphere(0.05), At(c.x(), c.y(), c.z()), Box(0.1, 0.2, 0.3), x, 0.02);
    auto mesh = Collide(Sphere(0.05), At(c.x(), c.y(), c.z()), Mesh(hull), x, 0.02);
    ASSERT_EQ(box.size(), 1u);
    ASSERT_EQ(mesh.size(), 1u);
    EXPECT_NEAR(mesh[0].phi, box[0].phi, kGjkPhi);
    ExpectVecNear(mesh[0].normal, box[0].normal, kGjkPoint);
    ExpectVecNear(mesh[0].point, box[0].point, kGjkPoint);
  }
}

TEST(Gjk, CapsuleLyingOnBoxGivesTwoPoints) {
  Pose x = AtRot(Vec3(0.1, 0.1, 0.05 - 0.002), kPi / 2, Vec3(1, 1, 0));
  for (bool swapped : {false, true}) {
    auto c = swapped ? Collide(Capsule(0.05, 0.2), x, Box(1, 1, 0.5), At(0, 0, -0.5))
                     : Collide(Box(1, 1, 0.5), At(0, 0, -0.5), Capsule(0.05, 0.2), x);
    ASSERT_EQ(c.size(), 2u);
    for (const auto& p : c) {
      EXPECT_NEAR(p.phi, -0.002, kGjkPhi);
      ExpectVecNear(p.normal, Vec3(0, 0, swapped ? -1.0 : 1.0), kGjkPoint);
      EXPECT_NEAR((p.point - Vec3(0.1, 0.1, -0.001)).norm(), 0.2, kGjkPoint);  // under the ends
    }
  }
  // Lying across a ridge (box edge along y at x = 0.5, z = 0): one point at the ridge.
  Pose across = AtRot(Vec3(0.5, 0, 0.05 - 0.003), kPi / 2, Vec3::UnitY());
  auto r = Collide(Box(0.5, 0.5, 0.5), At(0, 0, -0.5), Capsule(0.05, 0.2), across);
  ASSERT_GE(r.size(), 1u);
  EXPECT_NEAR(MinPhi(r), -0.003, kGjkPhi);
}

TEST(Gjk, CapsuleOverhangingAnEdgeIsClippedToTheFace) {
  // Capsule along x from -0.1 to 0.3 on a box whose top face ends at x = 0.2 (and on a cylinder
  // cap of radius 0.2): the supported part of the axis is [-0.1, 0.2], reported at both ends.
  // The face path is closed form once the face is found: round-off only.
  Pose x = AtRot(Vec3(0.1, 0, 0.05 - 0.002), kPi / 2, Vec3::UnitY());
  for (const Shape& support : {Box(0.2, 0.2, 0.1), Cylinder(0.2, 0.1)}) {
    auto c = Collide(Capsule(0.05, 0.2), x, support, At(0, 0, -0.1));
    ASSERT_EQ(c.size(), 2u);
    std::vector<double> xs;
    for (const auto& p : c) {
      EXPECT_NEAR(p.phi, -0.002, kExact);
      ExpectVecNear(p.normal, -Vec3::UnitZ(), kExact);  // capsule (A) into the support (B)
      EXPECT_NEAR(p.point.z(), -0.001, kExact);
      xs.push_back(p.point.x());
    }
    std::sort(xs.begin(), xs.end());
    EXPECT_NEAR(xs[0], -0.1, kExact);
    EXPECT_NEAR(xs[1], 0.2, kExact);
  }
}

TEST(Gjk, CapsuleOnCylinderAndMesh) {
  auto hull = LoadConvexMesh(Asset("cube.obj"), Vec3(2, 2, 1));  // top face at z = 0.5
  Pose x = AtRot(Vec3(0, 0, 0.5 + 0.05 + 0.004), kPi / 2, Vec3::UnitX());
  auto c = Collide(Mesh(hull), Pose(), Capsule(0.05, 0.2), x, 0.01);
  ASSERT_EQ(c.size(), 2u);
  for (const auto& p : c) EXPECT_NEAR(p.phi, 0.004, kGjkPhi);
  // Capsule standing on a cylinder's cap, off center: one point under the lower end.
  auto d = Collide(Cylinder(0.3, 0.1), Pose(), Capsule(0.05, 0.2), At(0.1, 0, 0.349));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NEAR(d[0].phi, -0.001, kGjkPhi);
  ExpectVecNear(d[0].point, Vec3(0.1, 0, 0.0995 + 0.0), kGjkPoint);
}

TEST(Gjk, DeepPenetrationOfTheCore) {
  // Sphere center inside a cube mesh: EPA on a polytope difference converges to the exact face;
  // compare with the closed-form sphere-box result.
  auto hull = LoadConvexMesh(Asset("cube.obj"), Vec3(0.2, 0.4, 0.6));
  Pose x = AtRot(Vec3(0.1, 0, 0), 0.5, Vec3(0, 1, 1));
  Vec3 c = x.Apply(Vec3(0.02, 0.15, -0.1));  // nearest face: +y, 0.05 away
  auto box = Collide(Sphere(0.03), At(c.x(), c.y(), c.z()), Box(0.1, 0.2, 0.3), x);
  auto mesh = Collide(Sphere(0.03), At(c.x(), c.y(), c.z()), Mesh(hull), x);
  ASSERT_EQ(box.size(), 1u);
  ASSERT_EQ(mesh.size(), 1u);
  EXPECT_NEAR(box[0].phi, -0.08, kExact);
  EXPECT_NEAR(mesh[0].phi, box[0].phi, kGjkPhi);
  ExpectVecNear(mesh[0].normal, box[0].normal, kGjkPoint);
  // Sphere center inside a cylinder, 0.03 from the side wall and 0.1 from the caps.
  Pose cyl = AtRot(Vec3(0, 0.1, 0), 0.3, Vec3(1, 1, 0));
  c = cyl.Apply(Vec3(0.07 * std::cos(1.0), 0.07 * std::sin(1.0), 0.05));
  auto in = Collide(Sphere(0.02), At(c.x(), c.y(), c.z()), Cylinder(0.1, 0.15), cyl);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_NEAR(in[0].phi, -0.05, kExact);  // sphere-cylinder is closed form
  ExpectVecNear(in[0].normal, cyl.Rotate(-Vec3(std::cos(1.0), std::sin(1.0), 0)), kExact);
  // Capsule whose lower end is inside the cylinder's top cap region (core penetrating): the
  // end-sphere contact is closed form, depth 0.01 + r below the cap.
  auto cap = Collide(Capsule(0.02, 0.1), At(0.03, 0.0, 0.15 + 0.1 - 0.01), Cylinder(0.1, 0.15),
                     Pose());
  ASSERT_GE(cap.size(), 1u);
  EXPECT_NEAR(MinPhi(cap), -0.03, kExact);
}

TEST(Gjk, SphereCenterExactlyOnAMeshFace) {
  // The sphere's center (its core) touches the hull to round-off: GJK reports overlap while
  // libccd may see none. φ is still -r along the face normal. Closed-form extents: round-off.
  auto hull = LoadConvexMesh(Asset("cube.obj"), Vec3(0.2, 0.4, 0.6));
  auto c = Collide(Sphere(0.05), At(0.02, 0.03, 0.3), Mesh(hull), Pose());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, -0.05, 1e-9);  // float storage of the face's coordinates
  ExpectVecNear(c[0].normal, -Vec3::UnitZ(), 1e-9);
}

// ---------------------------------------------------------------- meshes

TEST(Mesh, ObjCubeOnHalfSpaceEqualsBox) {
  auto hull = LoadConvexMesh(Asset("cube.obj"), Vec3(0.2, 0.4, 0.6));
  for (const Pose& x : {At(0.1, 0.2, 0.299), AtRot(Vec3(0, 0, 0.3), 0.3, Vec3::UnitY()),
                        AtRot(Vec3(0, 0, 0.3), 0.4, Vec3(1, 2, 0.5))}) {
    auto box = Collide(HalfSpace(), Pose(), Box(0.1, 0.2, 0.3), x);
    auto mesh = Collide(HalfSpace(), Pose(), Mesh(hull), x);
    ASSERT_EQ(box.size(), mesh.size());
    ASSERT_FALSE(box.empty());
    auto key = [](const ContactPoint& p) { return std::make_tuple(p.point.x(), p.point.y()); };
    std::sort(box.begin(), box.end(), [&](auto& a, auto& b) { return key(a) < key(b); });
    std::sort(mesh.begin(), mesh.end(), [&](auto& a, auto& b) { return key(a) < key(b); });
    for (size_t i = 0; i < box.size(); ++i) {
      EXPECT_NEAR(mesh[i].phi, box[i].phi, kExact);
      ExpectVecNear(mesh[i].point, box[i].point, kExact);
      ExpectVecNear(mesh[i].normal, box[i].normal, kExact);
    }
  }
}

TEST(Mesh, CubeMeshOnBoxEqualsBoxOnBox) {
  auto hull = LoadConvexMesh(Asset("cube.obj"), Vec3(0.2, 0.4, 0.6));
  Pose x = AtRot(Vec3(0.2, 0.1, 0.299), 0.3, Vec3::UnitZ());
  auto box = Collide(Box(1, 1, 0.5), At(0, 0, -0.5), Box(0.1, 0.2, 0.3), x);
  auto mesh = Collide(Box(1, 1, 0.5), At(0, 0, -0.5), Mesh(hull), x);
  ASSERT_EQ(mesh.size(), 4u);
  ASSERT_EQ(box.size(), 4u);
  for (const auto& m : mesh) {
    double best = 1e9;
    for (const auto& b : box) best = std::min(best, (b.point - m.point).norm());
    EXPECT_LT(best, kExact);
    EXPECT_NEAR(m.phi, -0.001, kExact);
  }
}

TEST(Mesh, ManyVerticesOnHalfSpaceAreReduced) {
  // A 64-gon prism resting flat: 64 vertices below the margin, reduced to 8 spread points.
  std::vector<Vec3> pts;
  for (int i = 0; i < 64; ++i) {
    double th = 2 * kPi * i / 64;
    for (double z : {-0.1, 0.1}) pts.emplace_back(0.2 * std::cos(th), 0.2 * std::sin(th), z);
  }
  auto c = Collide(HalfSpace(), Pose(), Mesh(MakeConvexHull(pts)), At(0.5, 0, 0.0995));
  ASSERT_EQ(c.size(), 8u);
  for (const auto& p : c) EXPECT_NEAR(p.phi, -0.0005, kExact);
  Vec3 g = Centroid(c);
  // Farthest-point sampling of a regular 64-gon picks a nearly regular octagon.
  EXPECT_LT(std::hypot(g.x() - 0.5, g.y()), 0.2 * (1 - std::cos(kPi / 8)));
}

TEST(Mesh, TetrahedronPointDownOnBox) {
  auto hull = LoadConvexMesh(Asset("octahedron.ply"), Vec3::Ones());
  // Octahedron vertex (0, 0, -0.1) 0.002 into the table.
  auto c = Collide(Box(1, 1, 0.5), At(0, 0, -0.5), Mesh(hull), At(0.1, 0.1, 0.098));
  ASSERT_EQ(c.size(), 1u);
  // The file stores 0.1 as a float (0.1 + 1.5e-9).
  EXPECT_NEAR(c[0].phi, -0.002, 1e-8);
  ExpectVecNear(c[0].point, Vec3(0.1, 0.1, -0.001), 1e-8);
}

TEST(Mesh, EmptyOrMissingHullGivesNoContact) {
  auto empty = std::make_shared<ConvexHull>();
  for (const Shape& other : {HalfSpace(), Sphere(0.1), Capsule(0.05, 0.1), Box(0.1, 0.1, 0.1),
                             Cylinder(0.1, 0.1)}) {
    EXPECT_TRUE(Collide(other, Pose(), Mesh(empty), Pose()).empty());
    EXPECT_TRUE(Collide(Mesh(nullptr), Pose(), other, Pose()).empty());
  }
}

// ---------------------------------------------------------------- every pair

Shape ShapeOfType(ShapeType t, const std::shared_ptr<const ConvexHull>& hull) {
  switch (t) {
    case ShapeType::kHalfSpace: return HalfSpace();
    case ShapeType::kSphere: return Sphere(0.1);
    case ShapeType::kCapsule: return Capsule(0.05, 0.1);
    case ShapeType::kBox: return Box(0.08, 0.1, 0.12);
    case ShapeType::kCylinder: return Cylinder(0.1, 0.08);
    case ShapeType::kConvexMesh: return Mesh(hull);
  }
  return Sphere(0.1);
}

TEST(AllPairs, EveryTypePairOverlapsSeparatesAndFlipsNormals) {
  auto hull = LoadConvexMesh(Asset("octahedron.ply"), Vec3(1.2, 1.0, 1.4));
  const ShapeType types[] = {ShapeType::kHalfSpace, ShapeType::kSphere,   ShapeType::kCapsule,
                             ShapeType::kBox,       ShapeType::kCylinder, ShapeType::kConvexMesh};
  Pose xa = AtRot(Vec3(0.01, -0.02, 0.0), 0.2, Vec3(1, 0.3, 0.1));
  Pose xb = AtRot(Vec3(0.03, 0.02, 0.06), 0.35, Vec3(-0.2, 1, 0.4));
  for (ShapeType ta : types) {
    for (ShapeType tb : types) {
      SCOPED_TRACE(std::to_string(static_cast<int>(ta)) + " vs " +
                   std::to_string(static_cast<int>(tb)));
      Shape a = ShapeOfType(ta, hull), b = ShapeOfType(tb, hull);
      auto ab = Collide(a, xa, b, xb);
      auto ba = Collide(b, xb, a, xa);
      if (ta == ShapeType::kHalfSpace && tb == ShapeType::kHalfSpace) {
        EXPECT_TRUE(ab.empty());
        continue;
      }
      ASSERT_FALSE(ab.empty());
      ASSERT_FALSE(ba.empty());
      for (const auto& p : ab) {
        EXPECT_NEAR(p.normal.norm(), 1.0, 1e-9);  // normalized
        EXPECT_LT(p.phi, 0.0);
      }
      // Swapping the arguments flips the normal of the deepest point and keeps its depth.
      // Depth tolerance: identical algorithms except the reference-face choice, which differs
      // only for near-tied axes (2% rule), and EPA tolerance for curved pairs.
      auto deepest = [](const std::vector<ContactPoint>& c) {
        return *std::min_element(c.begin(), c.end(),
                                 [](auto& x, auto& y) { return x.phi < y.phi; });
      };
      ContactPoint d1 = deepest(ab), d2 = deepest(ba);
      EXPECT_NEAR(d1.phi, d2.phi, 1e-6);
      ExpectVecNear(d1.normal, -d2.normal, 1e-4);
      // The normal is the gradient of the signed distance with respect to translating B:
      // moving B by δ along the deepest point's normal raises the smallest φ by δ. Tolerance:
      // second-order terms in δ plus the EPA direction error of the curved pairs.
      const double delta = 1e-3;
      Pose moved = xb;
      moved.p += delta * d1.normal;
      auto after = Collide(a, xa, b, moved);
      ASSERT_FALSE(after.empty());
      EXPECT_NEAR(MinPhi(after) - d1.phi, delta, 1e-5);
      // Far apart: nothing (half-spaces are moved below instead).
      Pose far = xb;
      if (tb == ShapeType::kHalfSpace) {
        far.p -= xb.Rotate(Vec3::UnitZ());
      } else {
        far.p += Vec3(0, 0, 2.0);
      }
      EXPECT_TRUE(Collide(a, xa, b, far).empty());
    }
  }
}

// Random overlapping poses of a pair: translating B by -φ n of the deepest contact must leave
// the shapes just touching (smallest φ back to 0), which checks depth and direction together.
// Returns the number of penetrating samples tested.
int CheckTouchAfterSeparation(const Shape& a, const Shape& b, unsigned seed, double tol) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  int tested = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Pose xa = AtRot(Vec3(u(rng), u(rng), u(rng)) * 0.02, 3 * u(rng), Vec3(u(rng), u(rng), 1));
    Pose xb = AtRot(Vec3(u(rng), u(rng), u(rng)) * 0.15, 3 * u(rng), Vec3(1, u(rng), u(rng)));
    auto c = Collide(a, xa, b, xb, 0.0);
    if (c.empty()) continue;
    auto d = *std::min_element(c.begin(), c.end(), [](auto& x, auto& y) { return x.phi < y.phi; });
    Pose moved = xb;
    moved.p -= d.phi * d.normal;
    // A small margin so the touching pair is still reported.
    auto after = Collide(a, xa, b, moved, 1e-3);
    if (after.empty()) {
      ADD_FAILURE() << "trial " << trial << ": no contact after separating by " << -d.phi;
      continue;
    }
    EXPECT_NEAR(MinPhi(after), 0.0, tol) << "trial " << trial << " phi " << d.phi;
    ++tested;
  }
  return tested;
}

TEST(RandomPairs, SeparatingByPhiAlongNormalTouches) {
  auto hull = LoadConvexMesh(Asset("octahedron.ply"), Vec3(1.2, 1.0, 1.4));
  // Polytope pairs: SAT depth and axis are exact; round-off only.
  EXPECT_GT(CheckTouchAfterSeparation(Box(0.1, 0.06, 0.08), Box(0.05, 0.09, 0.07), 1, 1e-9), 50);
  EXPECT_GT(CheckTouchAfterSeparation(Box(0.1, 0.06, 0.08), Mesh(hull), 2, 1e-9), 50);
  EXPECT_GT(CheckTouchAfterSeparation(Mesh(hull), Mesh(hull), 3, 1e-9), 50);
  EXPECT_GT(CheckTouchAfterSeparation(Cylinder(0.08, 0.06), Box(0.05, 0.09, 0.07), 4, 1e-9), 50);
  // Sphere vs mesh: separated cores give exact GJK closest points; overlapping cores use EPA on
  // a polytope, converged to its tolerance.
  EXPECT_GT(CheckTouchAfterSeparation(Sphere(0.06), Mesh(hull), 5, 1e-6), 50);
  // Capsules: the deepest of the end-sphere and segment contacts; the segment contact replaces
  // the end ones only when deeper by 1e-6 + 1e-3 r, which bounds the error.
  EXPECT_GT(CheckTouchAfterSeparation(Capsule(0.04, 0.08), Box(0.05, 0.09, 0.07), 6, 1e-4), 50);
  EXPECT_GT(CheckTouchAfterSeparation(Capsule(0.04, 0.08), Mesh(hull), 7, 1e-4), 50);
}

TEST(RandomPairs, CapsuleBoxMatchesDenseSphereSampling) {
  // For a capsule whose axis stays outside the box, φ = dist(axis, box) - r, the minimum over
  // spheres centered on the axis. 2001 samples over 0.16 m: the point-box distance is
  // 1-Lipschitz, so the sampled minimum is within half a spacing (4e-5 m) of the true one.
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> u(-1, 1);
  const Shape cap = Capsule(0.04, 0.08), box = Box(0.05, 0.09, 0.07);
  int tested = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Pose xb = AtRot(Vec3::Zero(), 3 * u(rng), Vec3(u(rng), u(rng), 1));
    Pose xc = AtRot(Vec3(u(rng), u(rng), u(rng)) * 0.2, 3 * u(rng), Vec3(1, u(rng), u(rng)));
    Vec3 axis = xc.Rotate(Vec3::UnitZ()) * 0.08;
    double sampled = 1e9;
    for (int k = 0; k <= 2000; ++k) {
      Vec3 p = xc.p + (-1.0 + k / 1000.0) * axis;
      auto s = Collide(Sphere(0.04), At(p.x(), p.y(), p.z()), box, xb, 1.0);
      ASSERT_EQ(s.size(), 1u);
      sampled = std::min(sampled, s[0].phi);
    }
    if (sampled + 0.04 <= 1e-3 || sampled > 0.02) continue;  // axis inside the box, or far
    auto c = Collide(cap, xc, box, xb, 0.02);
    ASSERT_FALSE(c.empty()) << "trial " << trial;
    EXPECT_NEAR(MinPhi(c), sampled, 4e-5) << "trial " << trial;
    ++tested;
  }
  EXPECT_GT(tested, 30);
}

// ---------------------------------------------------------------- broad phase and detector

// Model with one free-floating body per geom (tree set by hand; Finalize is not needed here).
Model MakeScene(int n, unsigned seed, double extent) {
  Model m;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-extent, extent);
  std::uniform_real_distribution<double> size(0.02, 0.1);
  std::uniform_real_distribution<double> ang(-kPi, kPi);
  m.trees.resize(1);
  for (int i = 0; i < n; ++i) {
    Body b;
    b.tree = 0;
    m.bodies.push_back(b);
    Geom g;
    g.body = i;
    g.local = Pose();
    if (i % 2 == 0) {
      g.shape = Sphere(size(rng));
    } else {
      g.shape = Box(size(rng), size(rng), size(rng));
    }
    m.geoms.push_back(g);
  }
  return m;
}

std::vector<Pose> RandomPoses(int n, unsigned seed, double extent) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-extent, extent);
  std::uniform_real_distribution<double> ang(-kPi, kPi);
  std::vector<Pose> x;
  for (int i = 0; i < n; ++i) {
    x.push_back(AtRot(Vec3(u(rng), u(rng), 0.3 * u(rng)), ang(rng),
                      Vec3(u(rng) + 0.01, u(rng), u(rng))));
  }
  return x;
}

TEST(BroadPhase, SweepAndPruneEqualsBruteForce) {
  const int n = 500;
  Model m = MakeScene(n, 3, 1.0);
  std::vector<Pose> x = RandomPoses(n, 4, 1.0);
  std::vector<Vec3> lo(n), hi(n);
  for (int i = 0; i < n; ++i) ShapeAabb(m.geoms[i].shape, x[i], 0.01, &lo[i], &hi[i]);
  std::vector<std::pair<int, int>> brute;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      bool overlap = true;
      for (int k = 0; k < 3; ++k) overlap &= lo[i][k] <= hi[j][k] && lo[j][k] <= hi[i][k];
      if (overlap) brute.emplace_back(i, j);
    }
  }
  std::vector<std::pair<int, int>> sap;
  SweepAndPrune(lo, hi, &sap);
  EXPECT_GT(brute.size(), 50u);  // the scene is dense enough to be a meaningful check
  EXPECT_EQ(sap, brute);
}

TEST(BroadPhase, AabbContainsTheShape) {
  // Support points of each shape along ±axes lie inside (touch) its box.
  auto hull = LoadConvexMesh(Asset("tetrahedron.stl"), Vec3::Ones());
  Pose x = AtRot(Vec3(0.1, 0.2, 0.3), 0.9, Vec3(1, 2, 3));
  for (const Shape& s : {Sphere(0.1), Capsule(0.05, 0.2), Box(0.1, 0.2, 0.3),
                         Cylinder(0.1, 0.2), Mesh(hull)}) {
    Vec3 lo, hi;
    ShapeAabb(s, x, 0.0, &lo, &hi);
    // The ground touches the shape exactly when placed at the box's lowest z.
    Pose ground = At(0, 0, lo.z());
    auto c = Collide(HalfSpace(), ground, s, x, 1e-9);
    ASSERT_FALSE(c.empty());
    EXPECT_NEAR(MinPhi(c), 0.0, 1e-12);  // both computed from the same closed-form extents
  }
}

TEST(Detector, MatchesBruteForceOnRandomScene) {
  const int n = 500;
  Model m = MakeScene(n, 5, 0.8);
  std::vector<Pose> x = RandomPoses(n, 6, 0.8);
  CollisionDetector det(&m);
  std::vector<Contact> contacts;
  CollisionStats stats;
  det.FindContacts(x, 0.005, &contacts, &stats);
  std::vector<std::tuple<int, int, double>> expect;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      std::vector<ContactPoint> pts;
      CollideShapes(m.geoms[i].shape, x[i], m.geoms[j].shape, x[j], 0.005, &pts);
      for (const auto& p : pts) expect.emplace_back(i, j, p.phi);
    }
  }
  std::vector<std::tuple<int, int, double>> got;
  for (const Contact& c : contacts) {
    EXPECT_EQ(c.body_a, c.geom_a);
    EXPECT_EQ(c.body_b, c.geom_b);
    got.emplace_back(c.geom_a, c.geom_b, c.phi);
  }
  EXPECT_GT(expect.size(), 20u);
  EXPECT_EQ(got, expect);  // same pairs, same order (sorted by geom pair), same points
  EXPECT_EQ(stats.contacts, static_cast<int>(contacts.size()));
  EXPECT_EQ(stats.geoms, n);
  // Deterministic: a second call gives bit-identical output.
  std::vector<Contact> again;
  det.FindContacts(x, 0.005, &again);
  ASSERT_EQ(again.size(), contacts.size());
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].point, contacts[i].point);
    EXPECT_EQ(again[i].normal, contacts[i].normal);
  }
}

TEST(Detector, FiltersAndGround) {
  Model m;
  m.trees.resize(1);
  // Bodies: 0 free, 1 child of 0 (revolute), 2 free, 3 static (no dofs), 4 free, non-colliding.
  for (int i = 0; i < 5; ++i) {
    Body b;
    b.tree = (i == 3) ? -1 : 0;
    m.bodies.push_back(b);
  }
  Joint free0;
  free0.type = JointType::kFree;
  free0.parent = -1;
  free0.child = 0;
  Joint rev;
  rev.type = JointType::kRevolute;
  rev.parent = 0;
  rev.child = 1;
  m.joints = {free0, rev};
  auto add = [&](int body, Shape s, bool collide = true) {
    Geom g;
    g.body = body;
    g.shape = s;
    g.collide = collide;
    m.geoms.push_back(g);
  };
  add(-1, HalfSpace());           // 0: ground (world)
  add(0, Sphere(0.1));            // 1
  add(0, Sphere(0.1));            // 2: same body as 1
  add(1, Sphere(0.1));            // 3: jointed to body 0
  add(2, Sphere(0.1));            // 4: overlaps 1
  add(3, Box(0.1, 0.1, 0.1));     // 5: static, overlaps the ground and 4
  add(4, Sphere(0.1), false);     // 6: non-colliding, overlaps everything
  std::vector<Pose> x(5);
  x[0] = At(0, 0, 0.099);
  x[1] = At(0.05, 0, 0.099);
  x[2] = At(0.15, 0, 0.099);
  x[3] = At(0.3, 0, 0.1);
  x[4] = At(0.1, 0, 0.099);
  CollisionDetector det(&m);
  std::vector<Contact> c;
  CollisionStats stats;
  det.FindContacts(x, 0.001, &c, &stats);
  std::set<std::pair<int, int>> pairs;
  for (const Contact& k : c) {
    pairs.emplace(k.geom_a, k.geom_b);
    EXPECT_LT(k.geom_a, k.geom_b);
    EXPECT_EQ(k.body_a, m.geoms[k.geom_a].body);
    EXPECT_EQ(k.body_b, m.geoms[k.geom_b].body);
    EXPECT_EQ(k.stiffness, 0.0);  // material is filled by the simulator
    if (k.geom_a == 0) {
      EXPECT_NEAR(k.normal.z(), 1.0, kExact);  // ground (A) into the geom
    }
  }
  // Ground vs the free spheres (a joint to the world filters nothing), spheres 1/2/3 vs 4,
  // 4 vs static box 5. Not: 1-2 (same body), 1/2-3 (jointed), ground-5 (both without dofs),
  // anything with 6.
  std::set<std::pair<int, int>> expect{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 4},
                                       {2, 4}, {3, 4}, {4, 5}};
  EXPECT_EQ(pairs, expect);
  EXPECT_EQ(stats.broadphase_pairs, static_cast<int>(expect.size()));
}

TEST(Detector, ScalesToThousandsOfGeoms) {
  // 4000 spheres and boxes spread over a 10 m square: the detector's candidate pairs are exactly
  // the sweep-and-prune pairs of the margin-inflated boxes (nothing is filtered: every geom has
  // its own body with dofs), and the sparse layout keeps them far below n².
  const int n = 4000;
  Model m = MakeScene(n, 8, 5.0);
  std::vector<Pose> x = RandomPoses(n, 9, 5.0);
  CollisionDetector det(&m);
  std::vector<Contact> c;
  CollisionStats stats;
  det.FindContacts(x, 0.001, &c, &stats);
  std::vector<Vec3> lo(n), hi(n);
  for (int i = 0; i < n; ++i) ShapeAabb(m.geoms[i].shape, x[i], 0.001, &lo[i], &hi[i]);
  std::vector<std::pair<int, int>> sap;
  SweepAndPrune(lo, hi, &sap);
  EXPECT_EQ(stats.broadphase_pairs, static_cast<int>(sap.size()));
  EXPECT_LT(sap.size(), static_cast<size_t>(20 * n));
}

// ---------------------------------------------------------------- large hulls

// n points on the sphere of radius r about the origin (Fibonacci lattice: no four coplanar in
// practice, so Qhull keeps every point as a vertex and makes triangular faces).
std::vector<Vec3> FibonacciSphere(int n, double r) {
  std::vector<Vec3> pts;
  const double golden = kPi * (3.0 - std::sqrt(5.0));
  for (int i = 0; i < n; ++i) {
    const double z = 1.0 - 2.0 * (i + 0.5) / n;
    const double rho = std::sqrt(1.0 - z * z);
    pts.emplace_back(r * rho * std::cos(golden * i), r * rho * std::sin(golden * i), r * z);
  }
  return pts;
}

// Smallest distance from the origin to a face plane: the inscribed hull lies between this
// sphere and the circumscribed one.
double Inradius(const ConvexHull& h) {
  double r = 1e300;
  for (size_t f = 0; f < h.faces.size(); ++f) {
    r = std::min(r, h.face_normals[f].dot(h.vertices[h.faces[f][0]]));
  }
  return r;
}

// Exact signed distance of a polytope above the plane z = 0: its lowest vertex.
double LowestZ(const ConvexHull& h, const Pose& X) {
  double z = 1e300;
  for (const Vec3& v : h.vertices) z = std::min(z, X.Apply(v).z());
  return z;
}

const std::shared_ptr<const ConvexHull>& Ball60k() {
  static const std::shared_ptr<const ConvexHull> hull = MakeConvexHull(FibonacciSphere(60000, 0.1));
  return hull;
}

TEST(LargeHull, GjkPathMatchesSeparatingAxisPath) {
  // A 2000-vertex sphere hull is small enough for the separating-axis test and large enough for
  // the hill-climbing support: both paths on the same poses. Face contacts come from the same
  // clipping, so they agree to round-off; near a box edge the axis comes from EPA (tolerance
  // 1e-10 on the polytope distance), so φ agrees to kGjkPhi.
  auto hull = MakeConvexHull(FibonacciSphere(2000, 0.1));
  ASSERT_EQ(hull->vertices.size(), 2000u);
  const Shape ball = Mesh(hull), box = Box(0.5, 0.5, 0.05);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  struct Case {
    Pose box, ball;
    bool face;
  };
  std::vector<Case> cases;
  for (double h : {0.0995, 0.1, 0.1004}) {  // penetrating, touching, within the margin
    for (int k = 0; k < 3; ++k) {
      Pose b =
          AtRot(Vec3(0.1 * u(rng), 0.1 * u(rng), h), kPi * u(rng), Vec3(u(rng), u(rng), u(rng)));
      cases.push_back({At(0, 0, -0.05), b, true});
    }
  }
  // Tilted box under the ball.
  Pose tilted = AtRot(Vec3(0, 0, 0), 0.3, Vec3::UnitX());
  Pose box_tilted = tilted * At(0, 0, -0.05);
  cases.push_back({box_tilted, Pose{tilted.Rotate(Vec3(0.05, 0.02, 0.0997)), tilted.q}, true});
  // Over the box's edge (x = 0.5): vertex/edge contact.
  cases.push_back({At(0, 0, -0.05), At(0.5 + 0.06, 0, 0.078), false});
  for (const Case& c : cases) {
    for (bool swap : {false, true}) {
      std::vector<ContactPoint> sat, gjk;
      const double margin = 1e-3;
      if (swap) {
        collision_internal::CollidePolytopesSat(ball, c.ball, box, c.box, margin, &sat);
        collision_internal::CollidePolytopesGjk(ball, c.ball, box, c.box, margin, &gjk);
      } else {
        collision_internal::CollidePolytopesSat(box, c.box, ball, c.ball, margin, &sat);
        collision_internal::CollidePolytopesGjk(box, c.box, ball, c.ball, margin, &gjk);
      }
      ASSERT_FALSE(sat.empty());
      ASSERT_FALSE(gjk.empty());
      EXPECT_NEAR(MinPhi(gjk), MinPhi(sat), c.face ? 1e-12 : kGjkPhi);
      if (c.face) {
        ASSERT_EQ(gjk.size(), sat.size());
        for (size_t i = 0; i < sat.size(); ++i) {
          EXPECT_NEAR(gjk[i].phi, sat[i].phi, 1e-12);
          ExpectVecNear(gjk[i].normal, sat[i].normal, 1e-12);
          ExpectVecNear(gjk[i].point, sat[i].point, 1e-12);
        }
      }
    }
  }
}

TEST(LargeHull, SixtyThousandVertexSphereRestingOnABox) {
  // Closed form: the polytope's φ on a flat face is its lowest vertex (brute force here), and the
  // inscribed hull puts it between the sphere's (h - r) and h - inradius. The large path (GJK +
  // face clipping) reproduces the lowest vertex to round-off, as does the half-space path.
  const auto& hull = Ball60k();
  ASSERT_EQ(hull->vertices.size(), 60000u);
  const double r_in = Inradius(*hull);
  EXPECT_GT(r_in, 0.0999);  // facets of a 60 000-point sphere: sag below 1e-4 r
  for (const Pose& ball :
       {At(0.01, -0.02, 0.0995), AtRot(Vec3(0, 0.1, 0.0998), 1.0, Vec3(1, 2, 3))}) {
    const double exact = LowestZ(*hull, ball);
    auto on_box = Collide(Box(0.5, 0.5, 0.05), At(0, 0, -0.05), Mesh(hull), ball);
    ASSERT_FALSE(on_box.empty());
    EXPECT_NEAR(MinPhi(on_box), exact, 1e-12);
    for (const auto& p : on_box) ExpectVecNear(p.normal, Vec3::UnitZ(), 1e-12);
    EXPECT_GE(MinPhi(on_box), ball.p.z() - 0.1 - 1e-12);
    EXPECT_LE(MinPhi(on_box), ball.p.z() - r_in + 1e-12);
    auto on_plane = Collide(HalfSpace(), Pose(), Mesh(hull), ball);
    EXPECT_NEAR(MinPhi(on_plane), exact, 1e-12);
  }
}

TEST(LargeHull, TwoSixtyThousandVertexSpheres) {
  // Two copies of the hull, centers 0.199 apart along a tilted line: the spheres overlap by
  // 0.001; the inscribed hulls by between 0.001 - 2 (r - inradius) and 0.001. As on the
  // separating-axis path, a face normal within 2% + 1e-6 of the best axis is preferred (stable
  // manifolds), so φ may lie below the best axis's value by that much. The normal is the line of
  // centers up to the facets' angular size (about 0.016 rad for 60 000 points).
  const auto& hull = Ball60k();
  const double r_in = Inradius(*hull);
  const Vec3 dir = Vec3(1, 2, -0.5).normalized();
  const Pose a = AtRot(Vec3(0.1, 0, 0), 0.2, Vec3::UnitZ());
  const Pose b = AtRot(a.p + 0.199 * dir, 1.1, Vec3(1, 1, 0));
  auto c = Collide(Mesh(hull), a, Mesh(hull), b);
  ASSERT_FALSE(c.empty());
  const double face_tol = 0.02 * 0.001 + 1e-6;
  EXPECT_GE(MinPhi(c), 0.199 - 0.2 - face_tol);
  EXPECT_LE(MinPhi(c), 0.199 - 2 * r_in + 1e-9);
  EXPECT_LT(MinPhi(c), 0.0);
  for (const auto& p : c) EXPECT_GT(p.normal.dot(dir), std::cos(0.02));
  // Apart by 0.0005 beyond the circumscribed spheres: the distance lies in
  // [0.0005, 0.0005 + 2 (r - inradius)], less the face preference tolerance.
  const Pose far = AtRot(a.p + 0.2005 * dir, 1.1, Vec3(1, 1, 0));
  auto d = Collide(Mesh(hull), a, Mesh(hull), far, 0.01);
  ASSERT_FALSE(d.empty());
  EXPECT_GE(MinPhi(d), 0.0005 - (0.02 * 0.0005 + 1e-6));
  EXPECT_LE(MinPhi(d), 0.0005 + 2 * (0.1 - r_in) + 1e-9);
  for (const auto& p : d) EXPECT_GT(p.normal.dot(dir), std::cos(0.02));
}

TEST(LargeHull, SphereSunkIntoALargeHullUsesTheNearestFace) {
  // Sphere (r = 0.05) centered inside the hull: φ = -(distance to the nearest face plane) - r,
  // exactly (every face normal is a candidate, evaluated through the face plane).
  const auto& hull = Ball60k();
  const Pose x = AtRot(Vec3(0.2, 0.1, 0.3), 0.7, Vec3(0, 1, 1));
  for (const Vec3& local : {Vec3(0, 0, 0.08), Vec3(0.03, -0.05, 0.04)}) {
    double nearest = 1e300;
    for (size_t f = 0; f < hull->faces.size(); ++f) {
      nearest =
          std::min(nearest, hull->face_normals[f].dot(hull->vertices[hull->faces[f][0]] - local));
    }
    const Vec3 c = x.Apply(local);
    auto got = Collide(Sphere(0.05), At(c.x(), c.y(), c.z()), Mesh(hull), x);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_NEAR(got[0].phi, -nearest - 0.05, 1e-12);
  }
}

}  // namespace
}  // namespace contactlab
