// Curved-shape narrow phase through libccd GJK/EPA. Each shape is described by a support
// function: a core (point, segment, box, cylinder or hull vertices) swept by a sphere of radius
// `radius`. When the cores are apart, GJK (own implementation, exact for polytope cores) gives
// their closest points and φ = distance - radii. When the cores overlap, libccd's GJK/EPA gives
// the penetration direction, and φ is measured along it between the supporting planes.
#include <ccd/ccd.h>

#include <algorithm>
#include <cmath>
#include <Eigen/LU>
#include <limits>
#include <optional>
#include <vector>

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

// Vertex of the simplex on the Minkowski difference A - B, with its two witness points.
struct SimplexVertex {
  Vec3 w, a, b;
};

// Closest point to the origin on the convex hull of simplex vertices s[0..n). Replaces the
// simplex by the smallest sub-simplex that contains that point and returns its barycentric
// weights in `lambda`. Every sub-simplex whose affine projection of the origin has positive
// weights is a candidate; the closest candidate is the answer.
Vec3 ClosestOnSimplex(std::vector<SimplexVertex>* s, std::vector<double>* lambda) {
  const int n = static_cast<int>(s->size());
  double best_norm = std::numeric_limits<double>::infinity();
  int best_mask = 0;
  double best_l[4] = {0, 0, 0, 0};
  for (int mask = 1; mask < (1 << n); ++mask) {
    int idx[4], k = 0;
    for (int i = 0; i < n; ++i) {
      if (mask & (1 << i)) idx[k++] = i;
    }
    double l[4] = {1, 0, 0, 0};
    const Vec3& y0 = (*s)[idx[0]].w;
    if (k > 1) {
      // Minimize |y0 + E μ|² over μ: (EᵀE) μ = -Eᵀ y0.
      Eigen::Matrix<double, 3, Eigen::Dynamic> E(3, k - 1);
      for (int j = 1; j < k; ++j) E.col(j - 1) = (*s)[idx[j]].w - y0;
      Eigen::MatrixXd G = E.transpose() * E;
      Eigen::VectorXd rhs = -E.transpose() * y0;
      Eigen::FullPivLU<Eigen::MatrixXd> lu(G);
      double scale = G.diagonal().maxCoeff();
      if (!(scale > 0)) continue;
      lu.setThreshold(1e-12);
      if (lu.rank() < k - 1) continue;  // degenerate sub-simplex
      Eigen::VectorXd mu = lu.solve(rhs);
      l[0] = 1.0 - mu.sum();
      for (int j = 1; j < k; ++j) l[j] = mu[j - 1];
    }
    bool inside = true;
    for (int j = 0; j < k; ++j) inside &= l[j] > 0;
    if (!inside) continue;
    Vec3 v = Vec3::Zero();
    for (int j = 0; j < k; ++j) v += l[j] * (*s)[idx[j]].w;
    double nv = v.squaredNorm();
    if (nv < best_norm) {
      best_norm = nv;
      best_mask = mask;
      for (int j = 0; j < 4; ++j) best_l[j] = l[j];
    }
  }
  if (best_mask == 0) {  // numerically degenerate: keep the vertex closest to the origin
    int i0 = 0;
    for (int i = 1; i < n; ++i) {
      if ((*s)[i].w.squaredNorm() < (*s)[i0].w.squaredNorm()) i0 = i;
    }
    best_mask = 1 << i0;
    best_l[0] = 1;
  }
  std::vector<SimplexVertex> kept;
  lambda->clear();
  int k = 0;
  for (int i = 0; i < n; ++i) {
    if (best_mask & (1 << i)) {
      kept.push_back((*s)[i]);
      lambda->push_back(best_l[k++]);
    }
  }
  *s = kept;
  Vec3 v = Vec3::Zero();
  for (size_t i = 0; i < s->size(); ++i) v += (*lambda)[i] * (*s)[i].w;
  return v;
}

struct Separation {
  bool overlap = false;
  Vec3 pa, pb;  // closest points of the two cores when separated
};

// GJK distance between the cores of a and b (sphere sweeps ignored).
Separation GjkDistance(const SupportObject& a, const SupportObject& b) {
  SupportObject ca = a, cb = b;
  ca.radius = 0;
  cb.radius = 0;
  auto support = [&](const Vec3& d) {
    SimplexVertex v;
    v.a = SupportWorld(ca, d);
    v.b = SupportWorld(cb, -d);
    v.w = v.a - v.b;
    return v;
  };
  std::vector<SimplexVertex> simplex{support(b.pose.p - a.pose.p + Vec3(1e-9, 0, 0))};
  std::vector<double> lambda{1.0};
  Vec3 v = simplex[0].w;
  Separation result;
  const double scale = std::max(1.0, v.norm());
  for (int iter = 0; iter < 128; ++iter) {
    double vv = v.squaredNorm();
    if (vv < 1e-24 * scale * scale) {
      result.overlap = true;
      return result;
    }
    SimplexVertex w = support(-v);
    // Converged when the new support point does not get closer to the origin along v.
    if (vv - v.dot(w.w) <= 1e-12 * vv) break;
    bool duplicate = false;
    for (const auto& s : simplex) duplicate |= (s.w - w.w).squaredNorm() < 1e-28 * scale * scale;
    if (duplicate) break;
    simplex.push_back(w);
    v = ClosestOnSimplex(&simplex, &lambda);
    if (simplex.size() == 4) {  // origin inside the tetrahedron
      result.overlap = true;
      return result;
    }
  }
  result.pa = Vec3::Zero();
  result.pb = Vec3::Zero();
  for (size_t i = 0; i < simplex.size(); ++i) {
    result.pa += lambda[i] * simplex[i].a;
    result.pb += lambda[i] * simplex[i].b;
  }
  if ((result.pb - result.pa).squaredNorm() < 1e-24 * scale * scale) result.overlap = true;
  return result;
}

// Closed form for a sphere (point core a) against a cylinder core b, normal from a into b.
std::optional<ContactPoint> SphereCylinder(const SupportObject& a, const SupportObject& b,
                                           double margin) {
  const double R = b.core_radius, h = b.half_length;
  Vec3 c = b.pose.InverseApply(a.pose.p);
  double rho = std::hypot(c.x(), c.y());
  Vec3 u = rho > 1e-12 ? Vec3(c.x() / rho, c.y() / rho, 0) : Vec3(Vec3::UnitX());
  Vec3 surface, n_out;  // cylinder frame: nearest cylinder surface point, outward normal there
  double phi;
  if (rho <= R && std::abs(c.z()) <= h) {
    double d_side = R - rho, d_cap = h - std::abs(c.z());
    if (d_side < d_cap) {
      n_out = u;
      surface = c + d_side * u;
      phi = -d_side - a.radius;
    } else {
      n_out = Vec3(0, 0, c.z() >= 0 ? 1.0 : -1.0);
      surface = Vec3(c.x(), c.y(), n_out.z() * h);
      phi = -d_cap - a.radius;
    }
  } else {
    surface = std::min(rho, R) * u;
    surface.z() = std::clamp(c.z(), -h, h);
    Vec3 d = c - surface;
    double dist = d.norm();
    n_out = d / dist;
    phi = dist - a.radius;
  }
  if (phi >= margin) return std::nullopt;
  Vec3 sphere_surface = c - a.radius * n_out;
  return ContactPoint{b.pose.Apply(0.5 * (surface + sphere_surface)), b.pose.Rotate(-n_out), phi};
}

// Contact between two convex objects within `margin`, normal from a into b. Separated cores
// give exact closest points (GJK); overlapping cores use libccd's GJK/EPA penetration.
std::optional<ContactPoint> GjkContact(const SupportObject& a, const SupportObject& b,
                                       double margin) {
  if (a.core == Core::kPoint && b.core == Core::kCylinder) return SphereCylinder(a, b, margin);
  Separation sep = GjkDistance(a, b);
  if (!sep.overlap) {
    Vec3 d = sep.pb - sep.pa;
    double dist = d.norm();
    double phi = dist - a.radius - b.radius;
    if (phi >= margin) return std::nullopt;
    Vec3 n = d / dist;
    Vec3 sa = sep.pa + a.radius * n, sb = sep.pb - b.radius * n;
    return ContactPoint{0.5 * (sa + sb), n, phi};
  }
  SupportObject ca = a, cb = b;
  ca.radius = 0;
  cb.radius = 0;
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = CcdSupport;
  ccd.support2 = CcdSupport;
  ccd.center1 = CcdCenter;
  ccd.center2 = CcdCenter;
  ccd.max_iterations = 500;
  ccd.epa_tolerance = 1e-10;
  ccd_real_t depth;
  ccd_vec3_t dir, pos;
  if (ccdGJKPenetration(&ca, &cb, &ccd, &depth, &dir, &pos) != 0) return std::nullopt;
  Vec3 n(dir.v[0], dir.v[1], dir.v[2]);
  double len = n.norm();
  if (!(len > 0.5)) n = AnyOrthogonal(Vec3::UnitZ());  // exactly touching cores
  else n /= len;
  // Signed distance along n between the supporting planes of the full shapes.
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
