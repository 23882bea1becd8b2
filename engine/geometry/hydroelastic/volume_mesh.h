// Tetrahedral volume meshes of compliant geometry and their linear pressure fields.
//
// Pressure-field (hydroelastic) contact (Elandt et al.; Masterjohn et al., arXiv 2110.04157)
// gives each compliant body a scalar pressure field p: Ω → [0, ∞) that is zero on the surface and
// grows into the interior. The field used here is the one Drake uses:
//
//   p(x) = E · e(x),   e ∈ [0, 1] the "extent": 0 on the surface, 1 at the deepest point,
//
// stored per mesh vertex and interpolated linearly in each tetrahedron, so ∇p is constant per tet.
//
// Meshes, all in the geometry frame G of the shape (see multibody/model.h, Shape):
//   - box and cylinder: the mesh conforms to the medial axis of the polytope (the cylinder is a
//     regular N-gon prism whose corners lie on the circle), so e = (distance to the nearest
//     face) / (largest such distance) is exactly linear in every tet. Each face is cut into
//     patches at most h on a side; the region of a patch is the frustum between it and its image
//     on the inner polytope (the polytope offset inward by the largest depth), fanned into tets;
//   - sphere and capsule: concentric shells around the medial set (the centre, the axis segment),
//     e = 1 − k/L on shell k of L; exact at the vertices, linear in between;
//   - convex mesh: a fan of tets from the vertex centroid to the triangulated hull faces, e = 1 at
//     the centroid and 0 on the hull (not the distance to the surface; a fan has no better field),
//     then regular 1→8 subdivision until every edge is at most h (or the next level would pass
//     200 000 tets); subdivision keeps the linear field exact.
// A resolution hint h [m] sets the refinement: surface chords and patch edges are at most about h
// (the octahedral sphere's chords reach about 1.5 h near its face centres).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "engine/common/math.h"
#include "engine/multibody/model.h"

namespace contactlab {

// A tetrahedral mesh with a per-vertex extent. Tets are positively oriented:
// (v1 − v0) · ((v2 − v0) × (v3 − v0)) > 0.
struct VolumeMesh {
  std::vector<Vec3> vertices;            // geometry frame [m]
  std::vector<std::array<int, 4>> tets;  // vertex indices
  std::vector<double> extent;            // e per vertex, in [0, 1] [-]

  int num_tets() const { return static_cast<int>(tets.size()); }
  double TetVolume(int t) const;  // [m³], > 0
  double TotalVolume() const;     // [m³]
  // Gradient of the linearly interpolated extent in tet t, geometry frame [1/m].
  Vec3 ExtentGradient(int t) const;
  // Barycentric coordinates of x (geometry frame) in tet t; they sum to 1.
  Eigen::Vector4d Barycentric(int t, const Vec3& x) const;
  // Longest tet edge [m].
  double MaxEdgeLength() const;
  // Boundary faces: triangles that belong to exactly one tet, oriented outward.
  std::vector<std::array<int, 3>> BoundaryFaces() const;
};

// Regular 1→8 subdivision of every tet (edge midpoints; the inner octahedron is cut along its
// shortest diagonal). Conforming, and exact for a field linear in each tet.
VolumeMesh RefineUniform(const VolumeMesh& mesh);
// Subdivides until the longest edge is at most `resolution`: at most `max_levels` times, and
// never to more than 200 000 tets.
VolumeMesh RefineToResolution(VolumeMesh mesh, double resolution, int max_levels = 5);

// Mesh builders. `resolution` [m] > 0 is the target edge length.
VolumeMesh MakeSphereVolumeMesh(double radius, double resolution);
VolumeMesh MakeBoxVolumeMesh(const Vec3& half_extents, double resolution);
// Regular N-gon prism inscribed in the cylinder (axis z, N from the resolution, at least 8).
VolumeMesh MakeCylinderVolumeMesh(double radius, double half_length, double resolution);
VolumeMesh MakeCapsuleVolumeMesh(double radius, double half_length, double resolution);
VolumeMesh MakeConvexVolumeMesh(const ConvexHull& hull, double resolution);
// Dispatch on the shape type; throws std::invalid_argument for a half-space (no volume), and
// with VolumeMeshSizeError's message for a resolution too fine for the shape.
VolumeMesh MakeVolumeMesh(const Shape& shape, double resolution);
// Empty, or why MakeVolumeMesh refuses `resolution` for `shape` before building: more than
// 4 million tets estimated (24 Π max(extent_i, h) / h³, above every builder's count), with the
// coarsest resolution that would be accepted.
std::string VolumeMeshSizeError(const Shape& shape, double resolution);

// Linear pressure field p = E · e over a volume mesh, with the per-tet gradient cached.
class PressureField {
 public:
  PressureField(VolumeMesh mesh, double modulus);

  const VolumeMesh& mesh() const { return mesh_; }
  double modulus() const { return modulus_; }                                // E [Pa]
  double VertexPressure(int v) const { return modulus_ * mesh_.extent[v]; }  // [Pa]
  const Vec3& Gradient(int t) const { return gradient_[t]; }  // ∇p in tet t, frame G [Pa/m]
  // p at x (frame G) by the linear interpolation of tet t (x need not be inside) [Pa].
  double PressureInTet(int t, const Vec3& x) const { return p_at_origin_[t] + gradient_[t].dot(x); }

 private:
  VolumeMesh mesh_;
  double modulus_;
  std::vector<Vec3> gradient_;       // per tet [Pa/m]
  std::vector<double> p_at_origin_;  // per tet: the tet's linear function at x = 0 [Pa]
};

}  // namespace contactlab
