// Narrow-phase building blocks shared by the collision translation units. Not part of the public
// engine interface.
#pragma once

#include <vector>

#include "engine/geometry/collision.h"

namespace contactlab {
namespace collision_internal {

// Number of sides of the polygonal prism that stands in for a cylinder in polytope-polytope
// tests (vertices lie on the true rim; flat sides are inset by r (1 - cos(π/N)), 0.86% of r).
constexpr int kCylinderPrismSides = 24;

// Convex meshes with more vertices than this answer support queries by hill climbing on their
// vertex graph (O(path length) instead of O(vertices); exact on a convex polytope, where a vertex
// no neighbour improves on is a global maximum).
constexpr size_t kHillClimbVertices = 32;

// Work bound of the separating-axis test, counted as E_A E_B + F_A V_B + F_B V_A (edge pairs and
// face-vertex products). Pairs above it (large hulls: a 60 000-vertex hull has 180 000 edges)
// go to CollidePolytopesGjk, which is linear in the vertex and face counts.
constexpr double kSatWorkLimit = 1e6;

// Box, convex mesh or (prism-approximated) cylinder vs box, convex mesh or cylinder, by the
// separating-axis test and reference/incident face clipping, or CollidePolytopesGjk when the
// pair exceeds kSatWorkLimit. Normal from a into b.
int CollidePolytopes(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                     double margin, std::vector<ContactPoint>* out);

// The separating-axis path of CollidePolytopes, whatever the size (tests compare the two paths).
int CollidePolytopesSat(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                        double margin, std::vector<ContactPoint>* out);

// The large-polytope path: the contact axis from GJK (separated: exact distance and direction)
// or libccd EPA (overlapping), checked against the best-aligned face normal of each polytope;
// when a face normal is as good as the best axis (within the separating-axis test's face
// preference tolerance) the manifold comes from the same reference/incident face clipping as
// the separating-axis path, otherwise one point along the axis. Linear in vertices and faces.
int CollidePolytopesGjk(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                        double margin, std::vector<ContactPoint>* out);

// Contact axis of two polytope shapes (box, cylinder as its prism, convex mesh) for
// CollidePolytopesGjk: false when the shapes are at least `margin` apart; otherwise the unit
// normal from a into b, the signed distance along it (exact when separated, the EPA depth when
// overlapping) and a point between the surfaces.
bool PolytopeContactAxis(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                         double margin, Vec3* normal, double* phi, Vec3* point, bool* overlap);

// Sphere or capsule vs cylinder, box or convex mesh. Shapes are cores (point, segment, box,
// cylinder, hull) swept by a radius: separated cores use GJK closest points (exact for polytope
// cores, converged to round-off for cylinders), overlapping cores use libccd GJK/EPA (exact face
// for polytopes, approximate for cylinders); sphere vs cylinder is closed form. Capsules are
// sampled (segment plus both end spheres) so that a capsule lying on a face gives two points.
// Normal from a into b.
int CollideGjk(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB, double margin,
               std::vector<ContactPoint>* out);

// Keeps at most `max_points` of out[begin, end): the deepest point first, then repeatedly the
// point farthest from those already kept. Order is deterministic.
void ReduceManifold(std::vector<ContactPoint>* out, size_t begin, int max_points);

}  // namespace collision_internal
}  // namespace contactlab
