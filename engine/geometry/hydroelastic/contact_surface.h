// Contact surfaces of pressure-field (hydroelastic) contact.
//
// A contact surface between geometries A and B is a set of planar convex polygons (faces):
//   - compliant A against rigid B: the part of B's boundary inside A's volume mesh, cut tet by
//     tet; the pressure is A's field interpolated on it;
//   - compliant A against compliant B: the surface where the two fields are equal, p_A = p_B,
//     computed tet pair by tet pair (two linear fields are equal on a plane; the face is that plane
//     clipped by both tets).
// Per face: the polygon (world, counter-clockwise about the normal), its area A_e and centroid,
// the unit normal n̂ from A into B (the Contact convention, geometry/contact.h), the pressure
// p0 = p(centroid) and the gradients of both fields along the normal, each positive into its own
// body:
//   g_a = −∇p_A·n̂,  g_b = ∇p_B·n̂   (+∞ for a rigid body)
// (n̂ points into B, as Drake's surface normal points into its body M; so g_b and g_a are the
// g_M and g_N of the SAP digest's per-face recipe, see face_constraints.h).
// Faces whose normal makes more than 5π/8 with a body's pressure gradient direction (−n̂ for A,
// +n̂ for B) are discarded, as Drake does: they lie where the fields point the wrong way (a
// rigid body poking through to the far side, or two fields' inner regions).
#pragma once

#include <limits>
#include <memory>
#include <vector>

#include "engine/common/math.h"
#include "engine/geometry/hydroelastic/bvh.h"
#include "engine/geometry/hydroelastic/volume_mesh.h"
#include "engine/multibody/model.h"

namespace contactlab {

// A compliant geometry: its pressure field and the hierarchy over its tets, in its frame G.
struct CompliantGeometry {
  CompliantGeometry(VolumeMesh mesh, double modulus)
      : field(std::move(mesh), modulus), bvh(field.mesh()) {}
  PressureField field;
  TetBvh bvh;
};

// Tet mesh of `shape` at `resolution` [m] with modulus E [Pa]. Throws std::invalid_argument for
// a half-space or invalid values.
std::shared_ptr<const CompliantGeometry> MakeCompliantGeometry(const Shape& shape, double modulus,
                                                               double resolution);

// The boundary of a rigid convex geometry as convex polygons in its frame G (CCW from outside),
// with outward unit normals: a box's six faces, a convex mesh's hull faces; a sphere, capsule or
// cylinder is tessellated as the boundary of its volume mesh at `resolution`. A half-space has no
// polygons (use ComputeContactSurfaceHalfSpace).
struct RigidSurface {
  std::vector<std::vector<Vec3>> polygons;
  std::vector<Vec3> normals;
};
RigidSurface MakeRigidSurface(const Shape& shape, double resolution);

struct ContactFace {
  std::vector<Vec3> polygon;     // world [m], CCW about `normal`
  std::vector<double> pressure;  // p at each polygon vertex [Pa]
  double area = 0;               // A_e [m²]
  Vec3 centroid = Vec3::Zero();  // area centroid, world [m]
  Vec3 normal = Vec3::UnitZ();   // n̂, world, unit, from A into B
  double p0 = 0;                 // p at the centroid [Pa]
  double g_a = 0, g_b = 0;     // pressure gradients along n̂ into A and into B [Pa/m] (∞: rigid)
  int tet_a = -1, tet_b = -1;  // source tets (-1 on a rigid side)
};

struct ContactSurface {
  int geom_a = -1, geom_b = -1;
  std::vector<ContactFace> faces;

  double Area() const;            // Σ A_e [m²]
  Vec3 Centroid() const;          // area-weighted centroid [m] (zero if empty)
  double NormalForceSum() const;  // Σ A_e p0 [N] (the one-point quadrature of ∫p dA)
  Vec3 Force() const;             // Σ A_e p0 n̂: force of A on B [N]
  Vec3 CentreOfPressure() const;  // Σ A_e p0 c_e / Σ A_e p0 [m] (zero if no pressure)
};

constexpr double kRigidGradient = std::numeric_limits<double>::infinity();
// |g| <= kTangentGradientFraction |∇p| is stored as g = 0 (the field grows parallel to the face;
// what is left is round-off). The per-face recipe then skips the face.
constexpr double kTangentGradientFraction = 1e-9;

// Compliant A (pose X_WA) against the rigid half-space B (z <= 0 of frame X_WB).
ContactSurface ComputeContactSurfaceHalfSpace(const CompliantGeometry& a, const Pose& X_WA,
                                              const Pose& X_WB);
// Compliant A against a rigid convex surface B.
ContactSurface ComputeContactSurfaceRigid(const CompliantGeometry& a, const Pose& X_WA,
                                          const RigidSurface& b, const Pose& X_WB);
// Compliant A against compliant B: the equal-pressure surface.
ContactSurface ComputeContactSurfaceCompliant(const CompliantGeometry& a, const Pose& X_WA,
                                              const CompliantGeometry& b, const Pose& X_WB);
// The same surface seen with A and B swapped: normals negated, polygons reversed, g_a ↔ g_b.
ContactSurface Swapped(const ContactSurface& s);

// A geometry as hydroelastic contact sees it: compliant (a pressure field) or rigid (a surface,
// or the half-space z <= 0 of its frame).
struct HydroelasticShape {
  std::shared_ptr<const CompliantGeometry> compliant;  // set: compliant
  RigidSurface rigid;                                  // used when not compliant
  bool half_space = false;                             // rigid half-space (no polygons)

  bool is_compliant() const { return compliant != nullptr; }
};
// compliant: MakeCompliantGeometry(shape, modulus, resolution) (modulus > 0, else it throws);
// rigid: MakeRigidSurface(shape, resolution), or the half-space flag (modulus unused).
HydroelasticShape MakeHydroelasticShape(const Shape& shape, bool compliant, double modulus,
                                        double resolution);

// The contact surface of any pair with at least one compliant side, faces oriented from A into
// B; geom_a and geom_b are set from the arguments. Two rigid sides have no pressure field: the
// result is empty (point contact handles such pairs).
ContactSurface ComputeContactSurface(const HydroelasticShape& a, const Pose& X_WA, int geom_a,
                                     const HydroelasticShape& b, const Pose& X_WB, int geom_b);

}  // namespace contactlab
