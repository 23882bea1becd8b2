// Triangle meshes of the primitive shapes (render/mesh.h), checked without a GL context:
// every vertex on the shape's surface, normals outward, winding counter-clockwise from outside.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "render/mesh.h"

namespace contactlab {
namespace {

// Checks for a convex shape centred at the origin: each triangle is wound counter-clockwise
// seen from outside (its geometric normal points away from the centre) and agrees with the
// stored vertex normals.
void ExpectOutwardAndConsistent(const MeshData& m, const char* what) {
  ASSERT_GT(m.num_triangles(), 0) << what;
  int bad_winding = 0, bad_normal = 0;
  for (int t = 0; t < m.num_triangles(); ++t) {
    const int i0 = m.indices[3 * t], i1 = m.indices[3 * t + 1], i2 = m.indices[3 * t + 2];
    const Vec3 a = m.Position(i0), b = m.Position(i1), c = m.Position(i2);
    const Vec3 n = (b - a).cross(c - a);
    if (n.norm() < 1e-12) continue;  // degenerate pole triangles carry no area
    const Vec3 centroid = (a + b + c) / 3.0;
    if (n.dot(centroid) <= 0) ++bad_winding;
    for (int i : {i0, i1, i2}) {
      if (m.Normal(i).dot(n) <= 0) ++bad_normal;
    }
  }
  EXPECT_EQ(bad_winding, 0) << what << ": triangles wound inward";
  EXPECT_EQ(bad_normal, 0) << what << ": vertex normals disagree with winding";
}

TEST(RenderMesh, BoxHasTwelveOutwardTrianglesOnItsFaces) {
  const Vec3 h(0.1, 0.2, 0.3);
  const MeshData m = MakeBoxMesh(h);
  EXPECT_EQ(m.num_triangles(), 12) << "two per face";
  EXPECT_EQ(m.num_vertices(), 24) << "four per face, flat normals";
  for (int i = 0; i < m.num_vertices(); ++i) {
    const Vec3 p = m.Position(i);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(std::abs(p[k]), h[k], 1e-7) << "corner of the box";
  }
  ExpectOutwardAndConsistent(m, "box");
}

TEST(RenderMesh, SphereVerticesLieOnTheSphere) {
  const MeshData m = MakeSphereMesh(0.25, 24, 12);
  for (int i = 0; i < m.num_vertices(); ++i) {
    EXPECT_NEAR(m.Position(i).norm(), 0.25, 1e-6);
    EXPECT_NEAR(m.Normal(i).norm(), 1.0, 1e-6);
  }
  ExpectOutwardAndConsistent(m, "sphere");
}

TEST(RenderMesh, CapsuleVerticesAreRadiusFromTheAxisSegment) {
  const double r = 0.05, hl = 0.2;
  const MeshData m = MakeCapsuleMesh(r, hl, 20, 6);
  double zmax = -1;
  for (int i = 0; i < m.num_vertices(); ++i) {
    const Vec3 p = m.Position(i);
    const Vec3 closest(0, 0, std::clamp(p.z(), -hl, hl));
    EXPECT_NEAR((p - closest).norm(), r, 1e-6) << "vertex " << i;
    zmax = std::max(zmax, p.z());
  }
  EXPECT_NEAR(zmax, hl + r, 1e-6) << "caps reach half_length + radius";
  ExpectOutwardAndConsistent(m, "capsule");
}

TEST(RenderMesh, CylinderHasFlatCapsAtHalfLength) {
  const MeshData m = MakeCylinderMesh(0.1, 0.3, 16);
  for (int i = 0; i < m.num_vertices(); ++i) {
    const Vec3 p = m.Position(i);
    const bool on_cap = std::abs(std::abs(p.z()) - 0.3) < 1e-7;
    const bool on_side = std::abs(std::hypot(p.x(), p.y()) - 0.1) < 1e-7;
    EXPECT_TRUE(on_cap || on_side) << "vertex " << i << " off the surface";
  }
  ExpectOutwardAndConsistent(m, "cylinder");
}

TEST(RenderMesh, PlaneFacesUp) {
  const MeshData m = MakePlaneMesh(5.0);
  ASSERT_EQ(m.num_triangles(), 2);
  for (int t = 0; t < 2; ++t) {
    const Vec3 a = m.Position(m.indices[3 * t]), b = m.Position(m.indices[3 * t + 1]),
               c = m.Position(m.indices[3 * t + 2]);
    EXPECT_GT((b - a).cross(c - a).z(), 0) << "counter-clockwise seen from +z (outside)";
  }
}

TEST(RenderMesh, ConvexMeshUsesRenderTrianglesOrFansTheHullFaces) {
  ConvexHull hull;
  hull.vertices = {Vec3(1, 1, 1), Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)};
  // Faces counter-clockwise from outside.
  hull.faces = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
  const MeshData from_faces = MakeConvexMesh(hull);
  EXPECT_EQ(from_faces.num_triangles(), 4);
  ExpectOutwardAndConsistent(from_faces, "hull faces");
  hull.render_vertices = hull.vertices;
  hull.render_triangles = {0, 1, 2, 0, 3, 1};  // only two triangles of the render mesh
  const MeshData from_render = MakeConvexMesh(hull);
  EXPECT_EQ(from_render.num_triangles(), 2) << "the render mesh takes precedence";
  hull.render_triangles.push_back(9);  // out of range: skipped, not a crash
  hull.render_triangles.push_back(0);
  hull.render_triangles.push_back(1);
  EXPECT_EQ(MakeConvexMesh(hull).num_triangles(), 2);
}

TEST(RenderMesh, ShapeDispatch) {
  Shape s;
  s.type = ShapeType::kBox;
  EXPECT_EQ(MakeShapeMesh(s).num_triangles(), 12);
  s.type = ShapeType::kHalfSpace;
  EXPECT_EQ(MakeShapeMesh(s).num_triangles(), 2);
  s.type = ShapeType::kConvexMesh;
  EXPECT_EQ(MakeShapeMesh(s).num_triangles(), 0) << "a mesh shape without hull draws nothing";
}

}  // namespace
}  // namespace contactlab
