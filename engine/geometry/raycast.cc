// Ray-shape intersections. Every convex shape is intersected in its geometry frame as the
// parameter interval [t_in, t_out] of the line o + t d inside the closed solid, each end with its
// outward normal; the reported hit is t_in when t_in >= 0 (entry) and otherwise t_out when
// t_out >= 0 (the origin is inside: exit).
#include "engine/geometry/raycast.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace contactlab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Line-in-solid interval [t_in, t_out] [m] with the outward normals at both ends (local frame).
struct Interval {
  double t_in = -kInf, t_out = kInf;
  Vec3 n_in = Vec3::Zero(), n_out = Vec3::Zero();
  bool empty = false;

  // Intersects with another convex constraint whose interval is [t0, t1].
  void Clip(double t0, const Vec3& n0, double t1, const Vec3& n1) {
    if (t0 > t_in) {
      t_in = t0;
      n_in = n0;
    }
    if (t1 < t_out) {
      t_out = t1;
      n_out = n1;
    }
  }
  // Unites with the interval [t0, t1] of another convex piece (the union must be convex).
  void Unite(double t0, const Vec3& n0, double t1, const Vec3& n1) {
    if (t0 < t_in) {
      t_in = t0;
      n_in = n0;
    }
    if (t1 > t_out) {
      t_out = t1;
      n_out = n1;
    }
  }
};

// Empty interval, to be grown by Interval::Unite.
Interval EmptyUnion() {
  Interval u;
  u.t_in = kInf;
  u.t_out = -kInf;
  return u;
}

// Real roots t0 <= t1 of a t² + 2 b t + c = 0 (a > 0), in the cancellation-free form.
bool QuadraticRoots(double a, double b, double c, double* t0, double* t1) {
  const double disc = b * b - a * c;
  if (disc < 0) return false;
  const double q = -(b + std::copysign(std::sqrt(disc), b));
  if (q == 0) {  // b = 0 and disc = 0, hence c = 0: a double root at 0
    *t0 = *t1 = 0;
    return true;
  }
  double r0 = q / a, r1 = c / q;
  if (r0 > r1) std::swap(r0, r1);
  *t0 = r0;
  *t1 = r1;
  return true;
}

// The slab |x_i| <= h along axis i. Returns false when the line misses it.
bool ClipSlab(int i, double h, const Vec3& o, const Vec3& d, Interval* s) {
  Vec3 e = Vec3::Zero();
  e(i) = 1.0;
  if (d(i) == 0) return std::abs(o(i)) <= h;
  const double t_minus = (-h - o(i)) / d(i);  // crossing of the plane x_i = −h
  const double t_plus = (h - o(i)) / d(i);    // crossing of the plane x_i = +h
  if (d(i) > 0) {
    s->Clip(t_minus, -e, t_plus, e);
  } else {
    s->Clip(t_plus, e, t_minus, -e);
  }
  return true;
}

// Ball of radius r about c. Returns false when the line misses it.
bool SphereInterval(const Vec3& c, double r, const Vec3& o, const Vec3& d, double* t0, Vec3* n0,
                    double* t1, Vec3* n1) {
  const Vec3 oc = o - c;
  if (!QuadraticRoots(d.squaredNorm(), oc.dot(d), oc.squaredNorm() - r * r, t0, t1)) return false;
  *n0 = (oc + *t0 * d).normalized();
  *n1 = (oc + *t1 * d).normalized();
  return true;
}

// Infinite cylinder x² + y² <= r² about the z axis. Returns false when the line misses it; a line
// parallel to the axis inside it gives (−∞, ∞).
bool InfiniteCylinderInterval(double r, const Vec3& o, const Vec3& d, double* t0, Vec3* n0,
                              double* t1, Vec3* n1) {
  const double a = d.x() * d.x() + d.y() * d.y();
  const double c = o.x() * o.x() + o.y() * o.y() - r * r;
  if (a == 0) {
    if (c > 0) return false;
    *t0 = -kInf;
    *t1 = kInf;
    *n0 = *n1 = Vec3::Zero();
    return true;
  }
  if (!QuadraticRoots(a, o.x() * d.x() + o.y() * d.y(), c, t0, t1)) return false;
  auto radial = [&](double t) {
    return Vec3(o.x() + t * d.x(), o.y() + t * d.y(), 0.0).normalized();
  };
  *n0 = radial(*t0);
  *n1 = radial(*t1);
  return true;
}

// Line-in-solid interval in the geometry frame; false when the line misses the shape.
bool ShapeInterval(const Shape& shape, const Vec3& o, const Vec3& d, Interval* s) {
  switch (shape.type) {
    case ShapeType::kHalfSpace:
      return false;  // handled by the caller (hit from outside only)
    case ShapeType::kSphere: {
      Vec3 n0, n1;
      if (!SphereInterval(Vec3::Zero(), shape.radius, o, d, &s->t_in, &n0, &s->t_out, &n1))
        return false;
      s->n_in = n0;
      s->n_out = n1;
      return true;
    }
    case ShapeType::kBox:
      for (int i = 0; i < 3; ++i)
        if (!ClipSlab(i, shape.half_extents(i), o, d, s)) return false;
      return s->t_in <= s->t_out;
    case ShapeType::kCylinder: {
      double t0, t1;
      Vec3 n0, n1;
      if (!InfiniteCylinderInterval(shape.radius, o, d, &t0, &n0, &t1, &n1)) return false;
      s->Clip(t0, n0, t1, n1);
      if (!ClipSlab(2, shape.half_length, o, d, s)) return false;
      return s->t_in <= s->t_out;
    }
    case ShapeType::kCapsule: {
      // Union of the two end balls and the side of the cylinder between them. A side crossing
      // counts only where |z| <= half_length; a crossing of the finite cylinder through a cap
      // disk lies inside that cap's ball, whose own crossing is at least as far out, so leaving
      // it out does not change the union.
      const double h = shape.half_length, r = shape.radius;
      Interval u = EmptyUnion();
      double t0, t1;
      Vec3 n0, n1;
      for (double zc : {-h, h}) {
        if (SphereInterval(Vec3(0, 0, zc), r, o, d, &t0, &n0, &t1, &n1)) u.Unite(t0, n0, t1, n1);
      }
      if (InfiniteCylinderInterval(r, o, d, &t0, &n0, &t1, &n1) && std::isfinite(t0)) {
        if (std::abs(o.z() + t0 * d.z()) <= h) u.Unite(t0, n0, t0, n0);
        if (std::abs(o.z() + t1 * d.z()) <= h) u.Unite(t1, n1, t1, n1);
      }
      if (u.t_in > u.t_out) return false;
      *s = u;
      return true;
    }
    case ShapeType::kConvexMesh: {
      if (!shape.hull || shape.hull->faces.empty()) return false;
      const ConvexHull& hull = *shape.hull;
      for (size_t f = 0; f < hull.faces.size() && f < hull.face_normals.size(); ++f) {
        if (hull.faces[f].empty()) continue;
        const Vec3& n = hull.face_normals[f];
        // Plane n·x = offset through the face's outermost vertex (faces of a merged hull may be
        // slightly non-planar; this keeps every vertex inside).
        double offset = -kInf;
        for (int vi : hull.faces[f]) offset = std::max(offset, n.dot(hull.vertices[vi]));
        const double num = offset - n.dot(o);  // >= 0 when o is on the inner side
        const double den = n.dot(d);
        if (den == 0) {
          if (num < 0) return false;
          continue;
        }
        const double t = num / den;
        if (den < 0) {
          s->Clip(t, n, kInf, Vec3::Zero());
        } else {
          s->Clip(-kInf, Vec3::Zero(), t, n);
        }
      }
      return s->t_in <= s->t_out;
    }
  }
  return false;
}

}  // namespace

bool RayShape(const Shape& shape, const Pose& X_WG, const Vec3& o, const Vec3& d_unit, double* t,
              Vec3* normal) {
  const Vec3 o_G = X_WG.InverseApply(o);
  const Vec3 d_G = X_WG.q.conjugate() * d_unit;
  if (shape.type == ShapeType::kHalfSpace) {
    // Outer side only: the origin on or above the plane, moving strictly into the half-space.
    if (!(o_G.z() >= 0 && d_G.z() < 0)) return false;
    *t = -o_G.z() / d_G.z();
    *normal = X_WG.Rotate(Vec3::UnitZ());
    return true;
  }
  Interval s;
  if (!ShapeInterval(shape, o_G, d_G, &s)) return false;
  double t_hit;
  Vec3 n_hit;
  if (s.t_in >= 0) {
    t_hit = s.t_in;  // entry from outside (or at the origin on the boundary)
    n_hit = s.n_in;
  } else if (s.t_out >= 0) {
    t_hit = s.t_out;  // the origin is inside: exit point
    n_hit = s.n_out;
  } else {
    return false;  // the solid is behind the origin
  }
  if (!std::isfinite(t_hit)) return false;  // unbounded (degenerate hull)
  *t = t_hit;
  *normal = X_WG.Rotate(n_hit);
  return true;
}

std::optional<RayHit> CastRay(const Model& model, const std::vector<Pose>& X_WB,
                              const Vec3& origin, const Vec3& direction, bool include_static) {
  if (X_WB.size() != model.bodies.size())
    throw std::invalid_argument("CastRay: X_WB must hold one pose per body");
  const double len = direction.norm();
  if (!origin.allFinite() || !direction.allFinite() || !(len > 0))
    throw std::invalid_argument("CastRay: origin and direction must be finite, direction nonzero");
  const Vec3 d = direction / len;
  std::optional<RayHit> best;
  for (int gi = 0; gi < static_cast<int>(model.geoms.size()); ++gi) {
    const Geom& g = model.geoms[gi];
    if (!include_static && model.BodyTree(g.body) < 0) continue;
    const Pose X_WG = g.body < 0 ? g.local : X_WB[g.body] * g.local;
    double t;
    Vec3 n;
    if (!RayShape(g.shape, X_WG, origin, d, &t, &n)) continue;
    if (best && t >= best->distance) continue;
    RayHit hit;
    hit.geom = gi;
    hit.body = g.body;
    hit.distance = t;
    hit.point = origin + t * d;
    hit.normal = n;
    best = hit;
  }
  return best;
}

}  // namespace contactlab
