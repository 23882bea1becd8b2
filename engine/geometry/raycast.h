// Ray casting against a model's geometry, for picking bodies in a 3D view.
//
// A ray is origin + t · direction with t >= 0. Every shape is treated as a closed solid:
//   - a ray starting outside reports the first point where it enters the solid (touching the
//     boundary, e.g. a tangent ray or a ray along a face, counts as a hit);
//   - a ray starting inside a convex shape reports the point where it leaves it (never t = 0
//     at the origin itself, unless the origin lies on the boundary and the ray points outward);
//   - a half-space (z <= 0 in its frame) is hit only from its outer side: the origin must have
//     z >= 0 and the ray must point strictly into the half-space (d_z < 0). Rays starting inside
//     it, or parallel to its plane, miss.
// The reported normal is the shape's outward unit normal at the reported point, world frame.
// Capsules are exact (cylinder side plus two hemispherical caps); cylinders have flat caps;
// convex meshes are the intersection of their hull's face planes (each plane through the face's
// outermost vertex along its outward normal face_normals[f]).
#pragma once

#include <optional>
#include <vector>

#include "engine/common/math.h"
#include "engine/multibody/model.h"

namespace contactlab {

struct RayHit {
  int geom = -1;        // index into Model::geoms
  int body = -1;        // owning body of the geometry (-1 = world)
  double distance = 0;  // [m] along the normalized ray direction from the origin
  Vec3 point = Vec3::Zero();   // hit point, world frame [m]
  Vec3 normal = Vec3::Zero();  // outward unit surface normal at `point`, world frame
};

// Intersection of the ray o + t d (d unit, both world frame) with `shape` posed at X_WG, by the
// rules in the file comment. On a hit returns true with *t >= 0 [m] and *normal the world-frame
// outward unit normal at o + t d; on a miss returns false and leaves the outputs unchanged.
// A convex mesh without a hull or without faces never hits.
bool RayShape(const Shape& shape, const Pose& X_WG, const Vec3& o, const Vec3& d_unit, double* t,
              Vec3* normal);

// Nearest hit of the ray origin + t · direction (t >= 0) over the model's geometry posed by
// X_WB (per body world pose, as KinematicsCache::X_WB; geometry of body -1 is static and uses
// Geom::local as its world pose). `direction` need not be unit; RayHit::distance is measured
// along the normalized direction [m]. Every geometry is considered, including geometry with
// collide = false (it is drawn, so it can be picked). With include_static = false, geometry of
// the world and of bodies without a kinematic tree (static, prescribed or welded to the world)
// is skipped. Ties go to the lower geometry index. Throws std::invalid_argument if X_WB does not
// have one pose per body or if origin/direction are not finite or direction is zero.
std::optional<RayHit> CastRay(const Model& model, const std::vector<Pose>& X_WB,
                              const Vec3& origin, const Vec3& direction,
                              bool include_static = true);

}  // namespace contactlab
