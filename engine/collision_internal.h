// Narrow-phase building blocks shared by the collision translation units. Not part of the public
// engine interface.
#pragma once

#include <vector>

#include "engine/collision.h"

namespace contactlab {
namespace collision_internal {

// Number of sides of the polygonal prism that stands in for a cylinder in polytope-polytope
// tests (vertices lie on the true rim; flat sides are inset by r (1 - cos(π/N)), 0.86% of r).
constexpr int kCylinderPrismSides = 24;

// Box, convex mesh or (prism-approximated) cylinder vs box, convex mesh or cylinder, by the
// separating-axis test and reference/incident face clipping. Normal from a into b.
int CollidePolytopes(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                     double margin, std::vector<ContactPoint>* out);

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
