// Collision detection: closed-form narrow phase for the simple pairs, dispatch to the polytope
// (SAT + clipping) and GJK/EPA paths for the rest, sweep-and-prune broad phase and the detector.
#include "engine/geometry/collision.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "engine/geometry/collision_internal.h"

namespace contactlab {

using collision_internal::CollideGjk;
using collision_internal::CollidePolytopes;
using collision_internal::ReduceManifold;

namespace {

constexpr double kHugeExtent = 1e30;

// Below this length a direction is treated as undefined.
constexpr double kTinyLength = 1e-12;

void Push(const Vec3& point, const Vec3& normal, double phi, std::vector<ContactPoint>* out) {
  out->push_back(ContactPoint{point, normal, phi});
}

// Contact between two spheres given by centers and radii; normal from a into b.
bool SphereSphere(const Vec3& ca, double ra, const Vec3& cb, double rb, double margin,
                  std::vector<ContactPoint>* out) {
  Vec3 d = cb - ca;
  double dist = d.norm();
  double phi = dist - ra - rb;
  if (phi >= margin) return false;
  Vec3 n = dist > kTinyLength ? Vec3(d / dist) : Vec3(Vec3::UnitZ());
  Vec3 pa = ca + ra * n;
  Vec3 pb = cb - rb * n;
  Push(0.5 * (pa + pb), n, phi, out);
  return true;
}

// Closest point to x on segment [p, q].
Vec3 ClosestOnSegment(const Vec3& p, const Vec3& q, const Vec3& x) {
  Vec3 d = q - p;
  double dd = d.squaredNorm();
  if (dd < kTinyLength * kTinyLength) return p;
  double t = std::clamp((x - p).dot(d) / dd, 0.0, 1.0);
  return p + t * d;
}

// Closest points between segments [p1, q1] and [p2, q2] (non-degenerate, non-parallel case is
// the interesting one; degenerate inputs fall back to point-segment queries).
void ClosestSegmentSegment(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2,
                           Vec3* c1, Vec3* c2) {
  Vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  const double eps = kTinyLength * kTinyLength;
  double s = 0, t = 0;
  if (a <= eps && e <= eps) {
    *c1 = p1;
    *c2 = p2;
    return;
  }
  if (a <= eps) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    double c = d1.dot(r);
    if (e <= eps) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      double b = d1.dot(d2);
      double denom = a * e - b * b;
      s = denom > eps * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  *c1 = p1 + s * d1;
  *c2 = p2 + t * d2;
}

void SegmentEnds(const Shape& s, const Pose& X, Vec3* p, Vec3* q) {
  Vec3 axis = X.Rotate(Vec3::UnitZ()) * s.half_length;
  *p = X.p - axis;
  *q = X.p + axis;
}

int CapsuleCapsule(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                   double margin, std::vector<ContactPoint>* out) {
  Vec3 pa, qa, pb, qb;
  SegmentEnds(a, X_WA, &pa, &qa);
  SegmentEnds(b, X_WB, &pb, &qb);
  Vec3 da = qa - pa, db = qb - pb;
  double la = da.norm(), lb = db.norm();
  // Parallel axes: contact along the overlap of the two segments, reported at its two ends.
  if (la > kTinyLength && lb > kTinyLength &&
      da.cross(db).norm() < 1e-6 * la * lb) {
    Vec3 u = da / la;
    double t0 = std::max(0.0, std::min((pb - pa).dot(u), (qb - pa).dot(u)));
    double t1 = std::min(la, std::max((pb - pa).dot(u), (qb - pa).dot(u)));
    if (t1 - t0 > 1e-9 * la) {
      Vec3 c0 = pa + t0 * u;
      // Parallel axes are at a constant distance over the overlap; coincident axes fall back to
      // the single-point case below.
      if ((ClosestOnSegment(pb, qb, c0) - c0).norm() > kTinyLength) {
        int n = 0;
        for (double t : {t0, t1}) {
          Vec3 ca = pa + t * u;
          n += SphereSphere(ca, a.radius, ClosestOnSegment(pb, qb, ca), b.radius, margin, out);
        }
        return n;
      }
    }
  }
  Vec3 ca, cb;
  ClosestSegmentSegment(pa, qa, pb, qb, &ca, &cb);
  if ((cb - ca).norm() <= kTinyLength) {
    // Axes intersect: separate along the common perpendicular.
    Vec3 n = da.cross(db);
    if (n.norm() < kTinyLength) n = AnyOrthogonal(la > kTinyLength ? Vec3(da / la) : Vec3::UnitZ());
    n.normalize();
    if (n.dot(X_WB.p - X_WA.p) < 0) n = -n;
    double phi = -a.radius - b.radius;
    if (phi >= margin) return 0;
    Push(ca + 0.5 * (a.radius - b.radius) * n, n, phi, out);
    return 1;
  }
  return SphereSphere(ca, a.radius, cb, b.radius, margin, out) ? 1 : 0;
}

int SphereCapsule(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                  double margin, std::vector<ContactPoint>* out) {
  Vec3 p, q;
  SegmentEnds(b, X_WB, &p, &q);
  Vec3 c = ClosestOnSegment(p, q, X_WA.p);
  if ((c - X_WA.p).norm() <= kTinyLength) {
    // Center on the axis: separate perpendicular to the axis.
    Vec3 axis = X_WB.Rotate(Vec3::UnitZ());
    Vec3 n = AnyOrthogonal(axis);
    double phi = -a.radius - b.radius;
    if (phi >= margin) return 0;
    Push(c + 0.5 * (a.radius - b.radius) * n, n, phi, out);
    return 1;
  }
  return SphereSphere(X_WA.p, a.radius, c, b.radius, margin, out) ? 1 : 0;
}

int SphereBox(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB, double margin,
              std::vector<ContactPoint>* out) {
  const Vec3& h = b.half_extents;
  Vec3 c = X_WB.InverseApply(X_WA.p);  // sphere center in the box frame
  Vec3 q = c.cwiseMax(-h).cwiseMin(h);
  Vec3 n_out;  // box frame, outward from the box toward the sphere center
  Vec3 box_surface;
  double phi;
  if ((c - q).norm() > kTinyLength) {
    double dist = (c - q).norm();
    n_out = (c - q) / dist;
    box_surface = q;
    phi = dist - a.radius;
  } else {
    int axis = 0;
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < 3; ++i) {
      double d = h[i] - std::abs(c[i]);
      if (d < best) {
        best = d;
        axis = i;
      }
    }
    n_out = Vec3::Zero();
    n_out[axis] = c[axis] >= 0 ? 1.0 : -1.0;
    box_surface = c;
    box_surface[axis] = n_out[axis] * h[axis];
    phi = -best - a.radius;
  }
  if (phi >= margin) return 0;
  Vec3 sphere_surface = c - a.radius * n_out;
  Vec3 point = X_WB.Apply(0.5 * (box_surface + sphere_surface));
  Push(point, X_WB.Rotate(-n_out), phi, out);
  return 1;
}

// ---- Half-space (shape a) against shape b. Computed in the half-space frame. ----

// Adds the contact of a point x_h (half-space frame) that is the deepest point of b along -z.
bool HalfSpacePoint(const Pose& X_WA, const Vec3& x_h, double margin,
                    std::vector<ContactPoint>* out) {
  double phi = x_h.z();
  if (phi >= margin) return false;
  Vec3 mid = x_h - Vec3(0, 0, 0.5 * phi);
  Push(X_WA.Apply(mid), X_WA.Rotate(Vec3::UnitZ()), phi, out);
  return true;
}

int HalfSpaceCylinder(const Pose& X_WA, const Shape& b, const Pose& X_HB, double margin,
                      std::vector<ContactPoint>* out) {
  // A cap lying flat (its whole rim within the margin band, 2 R sin(tilt) < margin, and tilted by
  // less than kFlatTilt) is supported by 8 evenly spaced rim points. Otherwise each cap touches
  // at its lowest rim point only, so a cylinder rolling on its side always has exactly two
  // points, one per cap, like a capsule: rim samples passing under it would add and remove
  // contact stiffness as it turns and pump energy into the roll. The tilt bound keeps a large
  // (speculative) margin from turning a cylinder on its side into a "flat" one whose far rim
  // points, sweeping past at the spin speed, SAP's gliding band would load.
  size_t begin = out->size();
  const int kSamples = 8;
  Mat3 R = X_HB.R();
  Vec3 axis = R.col(2);
  Vec3 down_radial = -(Vec3::UnitZ() - axis * axis.z());
  double down_norm = down_radial.norm();  // sin(tilt)
  constexpr double kFlatTilt = 0.05;      // sin of the largest tilt of a flat cap (2.9°)
  const bool flat = 2.0 * b.radius * down_norm < margin && down_norm < kFlatTilt;
  for (double side : {-1.0, 1.0}) {
    Vec3 cap = X_HB.p + side * b.half_length * axis;
    // The cap can only touch if its lowest rim point is within the margin.
    double lowest = cap.z() - b.radius * down_norm;
    if (lowest >= margin) continue;
    if (!flat) {
      HalfSpacePoint(X_WA, cap + b.radius * down_radial / down_norm, margin, out);
      continue;
    }
    for (int k = 0; k < kSamples; ++k) {
      double th = 2.0 * kPi * k / kSamples;
      Vec3 x = cap + b.radius * (std::cos(th) * R.col(0) + std::sin(th) * R.col(1));
      HalfSpacePoint(X_WA, x, margin, out);
    }
  }
  ReduceManifold(out, begin, 8);
  return static_cast<int>(out->size() - begin);
}

int HalfSpaceOther(const Pose& X_WA, const Shape& b, const Pose& X_WB, double margin,
                   std::vector<ContactPoint>* out) {
  Pose X_HB = X_WA.Inverse() * X_WB;
  size_t begin = out->size();
  switch (b.type) {
    case ShapeType::kHalfSpace:
      return 0;
    case ShapeType::kSphere:
      HalfSpacePoint(X_WA, X_HB.p - Vec3(0, 0, b.radius), margin, out);
      break;
    case ShapeType::kCapsule: {
      Vec3 axis = X_HB.Rotate(Vec3::UnitZ()) * b.half_length;
      for (double side : {-1.0, 1.0}) {
        HalfSpacePoint(X_WA, X_HB.p + side * axis - Vec3(0, 0, b.radius), margin, out);
      }
      break;
    }
    case ShapeType::kBox: {
      for (int i = 0; i < 8; ++i) {
        Vec3 v((i & 1) ? b.half_extents.x() : -b.half_extents.x(),
               (i & 2) ? b.half_extents.y() : -b.half_extents.y(),
               (i & 4) ? b.half_extents.z() : -b.half_extents.z());
        HalfSpacePoint(X_WA, X_HB.Apply(v), margin, out);
      }
      ReduceManifold(out, begin, 4);
      break;
    }
    case ShapeType::kCylinder:
      return HalfSpaceCylinder(X_WA, b, X_HB, margin, out);
    case ShapeType::kConvexMesh: {
      if (!b.hull) return 0;  // an empty hull simply has no vertices below the plane
      for (const Vec3& v : b.hull->vertices) HalfSpacePoint(X_WA, X_HB.Apply(v), margin, out);
      ReduceManifold(out, begin, 8);
      break;
    }
  }
  return static_cast<int>(out->size() - begin);
}

// Dispatch for a.type <= b.type.
int CollideOrdered(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                   double margin, std::vector<ContactPoint>* out) {
  if (a.type == ShapeType::kHalfSpace) return HalfSpaceOther(X_WA, b, X_WB, margin, out);
  auto empty_mesh = [](const Shape& s) {
    return s.type == ShapeType::kConvexMesh && (!s.hull || s.hull->vertices.empty());
  };
  if (empty_mesh(a) || empty_mesh(b)) return 0;
  switch (a.type) {
    case ShapeType::kSphere:
      switch (b.type) {
        case ShapeType::kSphere:
          return SphereSphere(X_WA.p, a.radius, X_WB.p, b.radius, margin, out) ? 1 : 0;
        case ShapeType::kCapsule:
          return SphereCapsule(a, X_WA, b, X_WB, margin, out);
        case ShapeType::kBox:
          return SphereBox(a, X_WA, b, X_WB, margin, out);
        default:
          return CollideGjk(a, X_WA, b, X_WB, margin, out);
      }
    case ShapeType::kCapsule:
      if (b.type == ShapeType::kCapsule) return CapsuleCapsule(a, X_WA, b, X_WB, margin, out);
      return CollideGjk(a, X_WA, b, X_WB, margin, out);
    default:
      // Box, cylinder and convex mesh among themselves.
      return CollidePolytopes(a, X_WA, b, X_WB, margin, out);
  }
}

}  // namespace

namespace collision_internal {

void ReduceManifold(std::vector<ContactPoint>* out, size_t begin, int max_points) {
  size_t n = out->size() - begin;
  if (n <= static_cast<size_t>(max_points)) return;
  // Scratch kept per thread (no allocation in the steady-state step).
  thread_local std::vector<ContactPoint> pts, kept;
  thread_local std::vector<char> taken;
  thread_local std::vector<double> min_dist;
  pts.assign(out->begin() + begin, out->end());
  taken.assign(n, 0);
  min_dist.assign(n, std::numeric_limits<double>::infinity());
  kept.clear();
  size_t deepest = 0;
  for (size_t i = 1; i < n; ++i) {
    if (pts[i].phi < pts[deepest].phi) deepest = i;
  }
  size_t next = deepest;
  for (int k = 0; k < max_points; ++k) {
    taken[next] = 1;
    kept.push_back(pts[next]);
    double best = -1;
    size_t best_i = next;
    for (size_t i = 0; i < n; ++i) {
      if (taken[i]) continue;
      min_dist[i] = std::min(min_dist[i], (pts[i].point - pts[next].point).squaredNorm());
      if (min_dist[i] > best) {
        best = min_dist[i];
        best_i = i;
      }
    }
    if (best_i == next) break;
    next = best_i;
  }
  out->resize(begin);
  out->insert(out->end(), kept.begin(), kept.end());
}

}  // namespace collision_internal

int CollideShapes(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                  double margin, std::vector<ContactPoint>* out) {
  if (static_cast<int>(a.type) <= static_cast<int>(b.type)) {
    return CollideOrdered(a, X_WA, b, X_WB, margin, out);
  }
  size_t begin = out->size();
  int n = CollideOrdered(b, X_WB, a, X_WA, margin, out);
  for (size_t i = begin; i < out->size(); ++i) (*out)[i].normal = -(*out)[i].normal;
  return n;
}

void ShapeAabb(const Shape& s, const Pose& X_WG, double inflate, Vec3* lo, Vec3* hi) {
  Vec3 ext = Vec3::Zero();
  Vec3 center = X_WG.p;
  Mat3 R = X_WG.R();
  switch (s.type) {
    case ShapeType::kHalfSpace:
      *lo = Vec3::Constant(-kHugeExtent);
      *hi = Vec3::Constant(kHugeExtent);
      return;
    case ShapeType::kSphere:
      ext = Vec3::Constant(s.radius);
      break;
    case ShapeType::kCapsule:
      ext = R.col(2).cwiseAbs() * s.half_length + Vec3::Constant(s.radius);
      break;
    case ShapeType::kBox:
      ext = R.cwiseAbs() * s.half_extents;
      break;
    case ShapeType::kCylinder: {
      Vec3 a = R.col(2);
      for (int i = 0; i < 3; ++i) {
        ext[i] = std::abs(a[i]) * s.half_length +
                 s.radius * std::sqrt(std::max(0.0, 1.0 - a[i] * a[i]));
      }
      break;
    }
    case ShapeType::kConvexMesh: {
      if (!s.hull || s.hull->vertices.empty()) {
        ext = Vec3::Zero();
        break;
      }
      Vec3 mn = Vec3::Constant(std::numeric_limits<double>::infinity());
      Vec3 mx = -mn;
      for (const Vec3& v : s.hull->vertices) {
        Vec3 w = R * v;
        mn = mn.cwiseMin(w);
        mx = mx.cwiseMax(w);
      }
      *lo = center + mn - Vec3::Constant(inflate);
      *hi = center + mx + Vec3::Constant(inflate);
      return;
    }
  }
  *lo = center - ext - Vec3::Constant(inflate);
  *hi = center + ext + Vec3::Constant(inflate);
}

void SweepAndPrune(const std::vector<Vec3>& lo, const std::vector<Vec3>& hi,
                   std::vector<std::pair<int, int>>* pairs) {
  pairs->clear();
  const int n = static_cast<int>(lo.size());
  if (n < 2) return;
  // Sweep along the axis where the box centers are most spread out (largest variance).
  Vec3 mean = Vec3::Zero(), sq = Vec3::Zero();
  for (int i = 0; i < n; ++i) {
    Vec3 c = 0.5 * (lo[i] + hi[i]);
    mean += c;
    sq += c.cwiseProduct(c);
  }
  mean /= n;
  Vec3 var = sq / n - mean.cwiseProduct(mean);
  int axis = 0;
  for (int k = 1; k < 3; ++k) {
    if (var[k] > var[axis]) axis = k;
  }
  thread_local std::vector<int> order;  // kept per thread: no allocation in the steady state
  order.resize(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int i, int j) {
    if (lo[i][axis] != lo[j][axis]) return lo[i][axis] < lo[j][axis];
    return i < j;
  });
  const int o1 = (axis + 1) % 3, o2 = (axis + 2) % 3;
  for (int s = 0; s < n; ++s) {
    int i = order[s];
    double end = hi[i][axis];
    for (int t = s + 1; t < n; ++t) {
      int j = order[t];
      if (lo[j][axis] > end) break;
      if (lo[i][o1] <= hi[j][o1] && lo[j][o1] <= hi[i][o1] && lo[i][o2] <= hi[j][o2] &&
          lo[j][o2] <= hi[i][o2]) {
        pairs->emplace_back(std::min(i, j), std::max(i, j));
      }
    }
  }
  // Sorted by (first, second): a counting sort on the first box, then each box's few partners
  // sorted (the pairs are distinct, so the order is the one std::sort gives).
  thread_local std::vector<int> start;
  thread_local std::vector<std::pair<int, int>> sorted;
  start.assign(n + 1, 0);
  for (const auto& pr : *pairs) ++start[pr.first + 1];
  for (int i = 0; i < n; ++i) start[i + 1] += start[i];
  sorted.resize(pairs->size());
  for (const auto& pr : *pairs) sorted[start[pr.first]++] = pr;
  // start[i] is now the end of box i's run (the begin of box i + 1's).
  int begin = 0;
  for (int i = 0; i < n; ++i) {
    std::sort(sorted.begin() + begin, sorted.begin() + start[i]);
    begin = start[i];
  }
  pairs->swap(sorted);
}

CollisionDetector::CollisionDetector(const Model* model) : model_(model) {}

void CollisionDetector::FindContacts(const std::vector<Pose>& X_WB, double margin,
                                     std::vector<Contact>* contacts, CollisionStats* stats,
                                     const SpeculativeMargin* speculative) {
  const Model& m = *model_;
  contacts->clear();
  const int ng = static_cast<int>(m.geoms.size());

  // Speculative margin (see SpeculativeMargin): a per-body share for the broad phase, bounded
  // with the largest τ_d and μ that any pair can have, and the exact per-pair value for the
  // narrow phase.
  double band_factor_max = 0;  // (δt + τ_max) √(1 + μ_max²) [s]
  if (speculative) {
    double tau_max = 0, mu_max = 0;
    for (const Material& mat : m.materials) {
      tau_max = std::max(tau_max, mat.dissipation_time);
      mu_max = std::max(mu_max, mat.friction);
    }
    for (const PairOverride& o : m.pair_overrides) {
      tau_max = std::max(tau_max, o.values.dissipation_time);
      mu_max = std::max(mu_max, o.values.friction);
    }
    band_factor_max = (speculative->time_step + tau_max) * std::sqrt(1 + mu_max * mu_max);
  }
  // Speed bound of one body alone (broad phase) and of a pair (narrow phase) [m/s].
  auto body_speed = [&](int body) {
    if (!speculative || body < 0) return 0.0;
    return speculative->velocity[body].norm() + speculative->extra[body];
  };
  auto pair_margin = [&](int gi, int gj) {
    if (!speculative) return margin;
    const int a = m.geoms[gi].body, b = m.geoms[gj].body;
    const Vec3 va = a >= 0 ? speculative->velocity[a] : Vec3::Zero();
    const Vec3 vb = b >= 0 ? speculative->velocity[b] : Vec3::Zero();
    const double u = (va - vb).norm() + (a >= 0 ? speculative->extra[a] : 0.0) +
                     (b >= 0 ? speculative->extra[b] : 0.0);
    if (!(u > 0)) return margin;
    const ContactValues v = m.PairContactValues(gi, gj);
    return margin + (speculative->time_step + v.dissipation_time) *
                        std::sqrt(1 + v.friction * v.friction) * u;
  };

  // Bodies directly connected by a joint (a joint to the world does not filter anything).
  std::vector<std::pair<int, int>>& jointed = jointed_;
  jointed.clear();
  for (const Joint& j : m.joints) {
    if (j.parent >= 0 && j.child >= 0) {
      jointed.emplace_back(std::min(j.parent, j.child), std::max(j.parent, j.child));
    }
  }
  for (const auto& [a, b] : m.excluded_body_pairs) {
    jointed.emplace_back(std::min(a, b), std::max(a, b));
  }
  std::sort(jointed.begin(), jointed.end());

  auto allowed = [&](int gi, int gj) {
    const Geom& a = m.geoms[gi];
    const Geom& b = m.geoms[gj];
    if (a.body == b.body) return false;
    if (m.BodyTree(a.body) < 0 && m.BodyTree(b.body) < 0) return false;
    std::pair<int, int> key(std::min(a.body, b.body), std::max(a.body, b.body));
    return !std::binary_search(jointed.begin(), jointed.end(), key);
  };

  std::vector<Pose>& poses = poses_;
  poses.resize(ng);
  std::vector<int>& half_spaces = half_spaces_;
  std::vector<int>& others = others_;
  half_spaces.clear();
  others.clear();
  for (int g = 0; g < ng; ++g) {
    const Geom& geom = m.geoms[g];
    if (!geom.collide) continue;
    poses[g] = GeomPose(geom, X_WB);
    (geom.shape.type == ShapeType::kHalfSpace ? half_spaces : others).push_back(g);
  }

  std::vector<Vec3>& lo = lo_;
  std::vector<Vec3>& hi = hi_;
  lo.resize(others.size());
  hi.resize(others.size());
  for (size_t k = 0; k < others.size(); ++k) {
    const double inflate = margin + band_factor_max * body_speed(m.geoms[others[k]].body);
    ShapeAabb(m.geoms[others[k]].shape, poses[others[k]], inflate, &lo[k], &hi[k]);
  }
  std::vector<std::pair<int, int>>& local_pairs = local_pairs_;
  SweepAndPrune(lo, hi, &local_pairs);

  candidate_pairs_.clear();
  for (const auto& [i, j] : local_pairs) {
    int gi = std::min(others[i], others[j]), gj = std::max(others[i], others[j]);
    if (allowed(gi, gj)) candidate_pairs_.emplace_back(gi, gj);
  }
  const std::ptrdiff_t num_swept = static_cast<std::ptrdiff_t>(candidate_pairs_.size());
  // Half-spaces against every geom whose inflated box reaches below the boundary plane.
  for (int h : half_spaces) {
    const Pose& X_WH = poses[h];
    Vec3 n = X_WH.Rotate(Vec3::UnitZ());
    double offset = n.dot(X_WH.p);
    for (size_t k = 0; k < others.size(); ++k) {
      Vec3 c = 0.5 * (lo[k] + hi[k]);
      Vec3 e = 0.5 * (hi[k] - lo[k]);
      double lowest = n.dot(c) - n.cwiseAbs().dot(e) - offset;
      // The box is already inflated by the geom's share; the half-space body's share is added.
      if (lowest > margin + band_factor_max * body_speed(m.geoms[h].body)) continue;
      int g = others[k];
      int gi = std::min(h, g), gj = std::max(h, g);
      if (allowed(gi, gj)) candidate_pairs_.emplace_back(gi, gj);
    }
  }
  // The sweep's pairs are sorted already (others is increasing, so the map keeps their order):
  // only the half-space pairs need sorting before the merge.
  if (num_swept < static_cast<std::ptrdiff_t>(candidate_pairs_.size())) {
    std::sort(candidate_pairs_.begin() + num_swept, candidate_pairs_.end());
    merged_pairs_.resize(candidate_pairs_.size());  // kept storage (std::inplace_merge allocates)
    std::merge(candidate_pairs_.begin(), candidate_pairs_.begin() + num_swept,
               candidate_pairs_.begin() + num_swept, candidate_pairs_.end(), merged_pairs_.begin());
    candidate_pairs_.swap(merged_pairs_);
  }

  double max_pair_margin = margin;
  hydro_pairs_.clear();
  const bool any_hydro = hydro_geoms_.size() == static_cast<size_t>(ng);
  for (const auto& [gi, gj] : candidate_pairs_) {
    const Geom& a = m.geoms[gi];
    const Geom& b = m.geoms[gj];
    if (any_hydro && (hydro_geoms_[gi] || hydro_geoms_[gj]) && m.PairIsHydroelastic(gi, gj)) {
      hydro_pairs_.emplace_back(gi, gj);
      continue;
    }
    points_.clear();
    const double margin_ij = pair_margin(gi, gj);
    max_pair_margin = std::max(max_pair_margin, margin_ij);
    CollideShapes(a.shape, poses[gi], b.shape, poses[gj], margin_ij, &points_);
    for (const ContactPoint& p : points_) {
      Contact c;
      c.geom_a = gi;
      c.geom_b = gj;
      c.body_a = a.body;
      c.body_b = b.body;
      c.point = p.point;
      c.normal = p.normal;
      c.phi = p.phi;
      contacts->push_back(c);
    }
  }
  if (stats) {
    stats->geoms = ng;
    stats->broadphase_pairs = static_cast<int>(candidate_pairs_.size());
    stats->contacts = static_cast<int>(contacts->size());
    stats->max_pair_margin = max_pair_margin;
  }
}

}  // namespace contactlab
