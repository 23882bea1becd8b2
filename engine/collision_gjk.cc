// Curved-shape narrow phase through libccd GJK/EPA. Each shape is described by a support
// function: a core (point, segment, box, cylinder or hull vertices) swept by a sphere of radius
// `radius`. Shape a is inflated by the margin so that pairs separated by less than the margin
// overlap; the penetration direction is then the exact separation direction of the original
// shapes, and the signed distance is measured along it from the two supporting planes.
#include <ccd/ccd.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/collision_internal.h"

namespace contactlab {
namespace collision_internal {
namespace {

enum class Core { kPoint, kSegment, kBox, kCylinder, kHull };

struct SupportObject {
  Core core = Core::kPoint;
  Pose pose;
  Vec3 half_extents = Vec3::Zero();
  double half_length = 0;
  double core_radius = 0;  // cylinder
  const std::vector<Vec3>* vertices = nullptr;
  double radius = 0;       // sphere sweep
};

Vec3 CoreSupportLocal(const SupportObject& o, const Vec3& d) {
  switch (o.core) {
    case Core::kPoint:
      return Vec3::Zero();
    case Core::kSegment:
      return Vec3(0, 0, d.z() >= 0 ? o.half_length : -o.half_length);
    case Core::kBox:
      return Vec3(d.x() >= 0 ? o.half_extents.x() : -o.half_extents.x(),
                  d.y() >= 0 ? o.half_extents.y() : -o.half_extents.y(),
                  d.z() >= 0 ? o.half_extents.z() : -o.half_extents.z());
    case Core::kCylinder: {
      double r = std::hypot(d.x(), d.y());
      Vec3 s(0, 0, d.z() >= 0 ? o.half_length : -o.half_length);
      if (r > 1e-12) {
        s.x() = o.core_radius * d.x() / r;
        s.y() = o.core_radius * d.y() / r;
      }
      return s;
    }
    case Core::kHull: {
      const std::vector<Vec3>& v = *o.vertices;
      size_t best = 0;
      double val = d.dot(v[0]);
      for (size_t i = 1; i < v.size(); ++i) {
        double x = d.dot(v[i]);
        if (x > val) {
          val = x;
          best = i;
        }
      }
      return v[best];
    }
  }
  return Vec3::Zero();
}

// World support point of the object along world direction d.
Vec3 SupportWorld(const SupportObject& o, const Vec3& d) {
  Vec3 s = o.pose.Apply(CoreSupportLocal(o, o.pose.q.conjugate() * d));
  double len = d.norm();
  if (o.radius > 0 && len > 1e-300) s += (o.radius / len) * d;
  return s;
}

void CcdSupport(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* vec) {
  const SupportObject& o = *static_cast<const SupportObject*>(obj);
  Vec3 s = SupportWorld(o, Vec3(dir->v[0], dir->v[1], dir->v[2]));
  ccdVec3Set(vec, s.x(), s.y(), s.z());
}

void CcdCenter(const void* obj, ccd_vec3_t* center) {
  const SupportObject& o = *static_cast<const SupportObject*>(obj);
  ccdVec3Set(center, o.pose.p.x(), o.pose.p.y(), o.pose.p.z());
}

SupportObject MakeObject(const Shape& s, const Pose& X) {
  SupportObject o;
  o.pose = X;
  switch (s.type) {
    case ShapeType::kSphere:
      o.core = Core::kPoint;
      o.radius = s.radius;
      break;
    case ShapeType::kCapsule:
      o.core = Core::kSegment;
      o.half_length = s.half_length;
      o.radius = s.radius;
      break;
    case ShapeType::kBox:
      o.core = Core::kBox;
      o.half_extents = s.half_extents;
      break;
    case ShapeType::kCylinder:
      o.core = Core::kCylinder;
      o.half_length = s.half_length;
      o.core_radius = s.radius;
      break;
    case ShapeType::kConvexMesh:
      o.core = Core::kHull;
      o.vertices = &s.hull->vertices;
      break;
    case ShapeType::kHalfSpace:
      break;  // not handled here
  }
  return o;
}

// Contact between two convex objects within `margin`, normal from a into b.
std::optional<ContactPoint> GjkContact(const SupportObject& a, const SupportObject& b,
                                       double margin) {
  SupportObject inflated = a;
  inflated.radius += std::max(margin, 0.0);
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = CcdSupport;
  ccd.support2 = CcdSupport;
  ccd.center1 = CcdCenter;
  ccd.center2 = CcdCenter;
  ccd.max_iterations = 200;
  ccd.epa_tolerance = 1e-9;
  ccd_real_t depth;
  ccd_vec3_t dir, pos;
  if (ccdGJKPenetration(&inflated, &b, &ccd, &depth, &dir, &pos) != 0) return std::nullopt;
  Vec3 n(dir.v[0], dir.v[1], dir.v[2]);
  double len = n.norm();
  if (!(len > 0.5)) return std::nullopt;  // touching only: no usable direction
  n /= len;
  // Signed distance along n between the supporting planes of the original shapes.
  double h_a = n.dot(SupportWorld(a, n));
  double h_b = n.dot(SupportWorld(b, -n));
  double phi = h_b - h_a;
  if (phi >= margin) return std::nullopt;
  Vec3 p(pos.v[0], pos.v[1], pos.v[2]);
  double mid = 0.5 * (h_a + h_b);
  return ContactPoint{p + (mid - n.dot(p)) * n, n, phi};
}

}  // namespace

int CollideGjk(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB, double margin,
               std::vector<ContactPoint>* out) {
  SupportObject oa = MakeObject(a, X_WA);
  SupportObject ob = MakeObject(b, X_WB);
  // A capsule against anything: its segment contact plus its two end spheres, so that a capsule
  // lying along a face gets two points. The segment contact is kept only when it is clearly
  // deeper than both end contacts (e.g. lying across an edge).
  const Shape* cap = a.type == ShapeType::kCapsule ? &a : (b.type == ShapeType::kCapsule ? &b
                                                                                           : nullptr);
  if (cap == nullptr || cap->half_length <= 0) {
    auto c = GjkContact(oa, ob, margin);
    if (!c) return 0;
    out->push_back(*c);
    return 1;
  }
  const bool cap_is_a = cap == &a;
  const SupportObject& capsule = cap_is_a ? oa : ob;
  const SupportObject& other = cap_is_a ? ob : oa;
  auto oriented = [&](const SupportObject& s) {
    return cap_is_a ? GjkContact(s, other, margin) : GjkContact(other, s, margin);
  };
  size_t begin = out->size();
  double min_end_phi = std::numeric_limits<double>::infinity();
  Vec3 axis = capsule.pose.Rotate(Vec3::UnitZ()) * capsule.half_length;
  for (double side : {-1.0, 1.0}) {
    SupportObject end;
    end.core = Core::kPoint;
    end.pose.p = capsule.pose.p + side * axis;
    end.radius = capsule.radius;
    if (auto c = oriented(end)) {
      out->push_back(*c);
      min_end_phi = std::min(min_end_phi, c->phi);
    }
  }
  if (auto c = oriented(capsule)) {
    const double tol = 1e-6 + 1e-3 * capsule.radius;
    if (out->size() == begin || c->phi < min_end_phi - tol) out->push_back(*c);
  }
  return static_cast<int>(out->size() - begin);
}

}  // namespace collision_internal
}  // namespace contactlab
