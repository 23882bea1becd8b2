#include "render/scene_geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/geometry/collision.h"

namespace contactlab {

namespace {

Pose PoseOf(const Geom& g, const std::vector<Pose>& X_WB) {
  if (g.body >= 0 && g.body >= static_cast<int>(X_WB.size())) return g.local;
  return GeomPose(g, X_WB);
}

// An orthonormal frame (u, v) of the plane with unit normal n, u x v = n.
void PlaneFrame(const Vec3& n, Vec3* u, Vec3* v) {
  *u = (std::abs(n.z()) < 0.9 ? Vec3::UnitZ().cross(n) : Vec3::UnitX().cross(n)).normalized();
  *v = n.cross(*u);
}

}  // namespace

Bounds3 FiniteGeometryBounds(const Model& model, const std::vector<Pose>& X_WB) {
  Bounds3 b;
  for (const Geom& g : model.geoms) {
    if (g.shape.type == ShapeType::kHalfSpace) continue;
    Vec3 lo, hi;
    ShapeAabb(g.shape, PoseOf(g, X_WB), 0.0, &lo, &hi);
    if (!lo.allFinite() || !hi.allFinite()) continue;
    b.Add(lo);
    b.Add(hi);
  }
  return b;
}

std::vector<Vec3> ClipPolygonToPlane(const std::vector<Vec3>& polygon, const Vec3& p,
                                     const Vec3& n) {
  std::vector<Vec3> out;
  const size_t count = polygon.size();
  if (count == 0) return out;
  for (size_t i = 0; i < count; ++i) {
    const Vec3& a = polygon[i];
    const Vec3& b = polygon[(i + 1) % count];
    const double da = n.dot(a - p), db = n.dot(b - p);
    if (da >= 0) out.push_back(a);
    if ((da >= 0) != (db >= 0)) {
      const double t = da / (da - db);
      out.push_back(a + t * (b - a));
    }
  }
  if (out.size() < 3) out.clear();
  return out;
}

std::vector<Vec3> InsetConvexPolygon(const std::vector<Vec3>& polygon, double width) {
  const size_t n = polygon.size();
  if (n < 3 || !(width >= 0)) return {};
  // Inward unit normal of edge i (from vertex i to i + 1) of a counter-clockwise polygon.
  std::vector<Vec3> normal(n);
  for (size_t i = 0; i < n; ++i) {
    const Vec3 e = polygon[(i + 1) % n] - polygon[i];
    const Vec3 m(-e.y(), e.x(), 0.0);
    const double len = m.norm();
    if (!(len > 0)) return {};
    normal[i] = m / len;
  }
  std::vector<Vec3> out(n);
  for (size_t i = 0; i < n; ++i) {
    // Where the two moved edges at vertex i meet (the miter point).
    const Vec3& a = normal[(i + n - 1) % n];
    const Vec3& b = normal[i];
    const double c = 1.0 + a.dot(b);
    if (!(c > 1e-9)) return {};
    out[i] = polygon[i] + width * (a + b) / c;
  }
  // Every edge keeps its direction, or the polygon was too small.
  for (size_t i = 0; i < n; ++i) {
    const Vec3 e = polygon[(i + 1) % n] - polygon[i];
    const Vec3 f = out[(i + 1) % n] - out[i];
    if (!(e.dot(f) > 0)) return {};
  }
  return out;
}

std::vector<Vec3> HalfSpaceFace(const std::vector<HalfSpacePlane>& planes, int index,
                                const Vec3& center, double half_size, double top_z) {
  const HalfSpacePlane& h = planes[index];
  const Vec3 n = h.normal.normalized();
  // An orthonormal frame (u, v, n) of the plane, u x v = n: counter-clockwise seen from +n.
  Vec3 u, v;
  PlaneFrame(n, &u, &v);
  const Vec3 c = center - n.dot(center - h.point) * n;
  const double s = half_size;
  std::vector<Vec3> poly{c - s * u - s * v, c + s * u - s * v, c + s * u + s * v,
                         c - s * u + s * v};
  for (int j = 0; j < static_cast<int>(planes.size()) && !poly.empty(); ++j) {
    if (j == index) continue;
    const Vec3 nj = planes[j].normal.normalized();
    // A coincident plane facing the same way: the two faces are one; the first keeps it.
    if (nj.dot(n) > 1 - 1e-9 && std::abs(nj.dot(planes[j].point - h.point)) < 1e-9) {
      if (j < index) return {};
      continue;
    }
    poly = ClipPolygonToPlane(poly, planes[j].point, nj);
  }
  if (!poly.empty() && std::isfinite(top_z)) {
    poly = ClipPolygonToPlane(poly, Vec3(0, 0, top_z), -Vec3::UnitZ());
  }
  return poly;
}

HalfSpaceFaces ComputeHalfSpaceFaces(const Model& model, const std::vector<Pose>& X_WB,
                                     double half_size) {
  HalfSpaceFaces out;
  std::vector<HalfSpacePlane> planes;
  std::vector<Pose> poses;
  for (int i = 0; i < static_cast<int>(model.geoms.size()); ++i) {
    const Geom& g = model.geoms[i];
    if (g.shape.type != ShapeType::kHalfSpace) continue;
    const Pose X = PoseOf(g, X_WB);
    out.geoms.push_back(i);
    poses.push_back(X);
    planes.push_back(HalfSpacePlane{X.p, X.R().col(2)});
  }
  if (planes.size() < 2) {
    out.geoms.clear();
    return out;
  }
  out.boxed = true;
  const Bounds3 bodies = FiniteGeometryBounds(model, X_WB);
  const Vec3 center = bodies.empty() ? Vec3::Zero() : bodies.Center();
  // The walls' top: above the bodies by a quarter of their height (at least 5 % of their size).
  double top = -std::numeric_limits<double>::infinity();
  out.bodies_top = WallTopAboveBodies(bodies);
  if (std::isfinite(out.bodies_top)) top = out.bodies_top;
  // ... or the highest corner where the half-spaces meet (a box whose rim stands higher).
  const double big = half_size * (1 - 1e-6);
  std::vector<std::vector<Vec3>> world(planes.size());
  for (int k = 0; k < static_cast<int>(planes.size()); ++k) {
    world[k] = HalfSpaceFace(planes, k, center, half_size, std::numeric_limits<double>::infinity());
    // Corners on the square's edge are not corners of the box.
    const Vec3 n = planes[k].normal.normalized();
    const Vec3 c = center - n.dot(center - planes[k].point) * n;
    Vec3 u, v;
    PlaneFrame(n, &u, &v);
    for (const Vec3& p : world[k]) {
      if (std::abs((p - c).dot(u)) < big && std::abs((p - c).dot(v)) < big) {
        top = std::max(top, p.z());
      }
    }
  }
  if (!std::isfinite(top)) top = center.z() + half_size;
  out.top_z = top;
  out.rim_width = bodies.empty() ? 0.0 : 0.005 * (bodies.max - bodies.min).norm();
  for (int k = 0; k < static_cast<int>(planes.size()); ++k) {
    const std::vector<Vec3> face = HalfSpaceFace(planes, k, center, half_size, top);
    std::vector<Vec3> local;
    local.reserve(face.size());
    for (const Vec3& p : face) {
      Vec3 q = poses[k].InverseApply(p);
      q.z() = 0;
      local.push_back(q);
    }
    out.polygons.push_back(std::move(local));
  }
  return out;
}

double WallTopAboveBodies(const Bounds3& bodies) {
  if (bodies.empty()) return std::numeric_limits<double>::quiet_NaN();
  const Vec3 size = bodies.max - bodies.min;
  return bodies.max.z() + std::max(0.25 * size.z(), 0.05 * size.norm());
}

bool WallTopOutdated(double bodies_top, const Bounds3& bodies, double max_extent) {
  const double wanted = WallTopAboveBodies(bodies);
  if (!std::isfinite(wanted)) return false;
  if (!((bodies.max - bodies.min).maxCoeff() <= max_extent)) return false;
  if (!std::isfinite(bodies_top)) return true;
  if (wanted > bodies_top) return true;
  const double needed = wanted - bodies.min.z();
  return bodies_top - bodies.min.z() > 1.5 * needed;
}

}  // namespace contactlab
