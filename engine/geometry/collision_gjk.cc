// Curved-shape narrow phase through libccd GJK/EPA. Each shape is described by a support
// function: a core (point, segment, box, cylinder or hull vertices) swept by a sphere of radius
// `radius`. When the cores are apart, GJK (own implementation, exact for polytope cores) gives
// their closest points and φ = distance - radii. When the cores overlap, libccd's GJK/EPA gives
// the penetration direction, and φ is measured along it between the supporting planes.
#include <ccd/ccd.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "engine/geometry/collision_internal.h"

namespace contactlab {
namespace collision_internal {
namespace {

enum class Core { kPoint, kSegment, kBox, kCylinder, kHull };

// Vertex adjacency of a convex hull (edges of its faces) in compressed rows, and start vertices
// for hill climbing: the extreme vertices along the 26 directions of a cube's faces, edges and
// corners, so that a climb starts near its goal.
struct HullGraph {
  std::vector<int> offsets;  // neighbours of vertex i: neighbors[offsets[i] .. offsets[i+1])
  std::vector<int> neighbors;
  std::vector<int> starts;
  Vec3 centroid = Vec3::Zero();  // of the vertices: an interior point (MPR)
};

HullGraph BuildHullGraph(const ConvexHull& h) {
  HullGraph g;
  const int n = static_cast<int>(h.vertices.size());
  std::vector<std::pair<int, int>> edges;
  for (const auto& face : h.faces) {
    for (size_t k = 0; k < face.size(); ++k) {
      int a = face[k], b = face[(k + 1) % face.size()];
      if (a < 0 || b < 0 || a >= n || b >= n || a == b) continue;
      edges.emplace_back(a, b);
      edges.emplace_back(b, a);
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  g.offsets.assign(n + 1, 0);
  for (const auto& e : edges) ++g.offsets[e.first + 1];
  for (int i = 0; i < n; ++i) g.offsets[i + 1] += g.offsets[i];
  g.neighbors.reserve(edges.size());
  for (const auto& e : edges) g.neighbors.push_back(e.second);
  for (int x = -1; x <= 1; ++x) {
    for (int y = -1; y <= 1; ++y) {
      for (int z = -1; z <= 1; ++z) {
        if (x == 0 && y == 0 && z == 0) continue;
        const Vec3 d(x, y, z);
        int best = 0;
        for (int i = 1; i < n; ++i) {
          if (d.dot(h.vertices[i]) > d.dot(h.vertices[best])) best = i;
        }
        g.starts.push_back(best);
      }
    }
  }
  std::sort(g.starts.begin(), g.starts.end());
  g.starts.erase(std::unique(g.starts.begin(), g.starts.end()), g.starts.end());
  for (const Vec3& v : h.vertices) g.centroid += v;
  if (n > 0) g.centroid /= static_cast<double>(n);
  return g;
}

// The graph of a hull with more than kHillClimbVertices vertices (null for smaller hulls), built
// on first use and cached per thread by hull identity (the entry holds the hull, so the identity
// stays valid); evicted round-robin beyond kSize entries.
std::shared_ptr<const HullGraph> GraphFor(const std::shared_ptr<const ConvexHull>& hull) {
  if (!hull || hull->vertices.size() <= kHillClimbVertices) return nullptr;
  struct Entry {
    std::shared_ptr<const ConvexHull> hull;
    std::shared_ptr<const HullGraph> graph;
  };
  constexpr size_t kSize = 32;
  thread_local std::vector<Entry> cache;
  thread_local size_t next = 0;
  for (const Entry& e : cache) {
    if (e.hull == hull) return e.graph;
  }
  auto graph = std::make_shared<const HullGraph>(BuildHullGraph(*hull));
  if (cache.size() < kSize) {
    cache.push_back(Entry{hull, graph});
  } else {
    cache[next++ % kSize] = Entry{hull, graph};
  }
  return graph;
}

// Vertex of `v` maximizing d·v: steepest ascent on the vertex graph from the best of `warm` and
// the graph's start vertices. Each move strictly increases d·v, so it ends, at a vertex no
// neighbour improves on, which on a convex polytope is a global maximum.
int ClimbSupport(const std::vector<Vec3>& v, const HullGraph& g, const Vec3& d, int warm) {
  int best = warm >= 0 && warm < static_cast<int>(v.size()) ? warm : 0;
  double val = d.dot(v[best]);
  for (int s : g.starts) {
    double x = d.dot(v[s]);
    if (x > val) {
      val = x;
      best = s;
    }
  }
  while (true) {
    int next = best;
    for (int k = g.offsets[best]; k < g.offsets[best + 1]; ++k) {
      const int nb = g.neighbors[k];
      const double x = d.dot(v[nb]);
      if (x > val) {
        val = x;
        next = nb;
      }
    }
    if (next == best) return best;
    best = next;
  }
}

struct SupportObject {
  Core core = Core::kPoint;
  Pose pose;
  Vec3 half_extents = Vec3::Zero();
  double half_length = 0;
  double core_radius = 0;  // cylinder
  const std::vector<Vec3>* vertices = nullptr;
  std::shared_ptr<const HullGraph> graph;  // large hulls: hill-climbing support
  mutable int warm = 0;                    // last support vertex (start of the next climb)
  Vec3 center_local = Vec3::Zero();        // an interior point (a hull's origin may be outside)
  double radius = 0;       // sphere sweep
  const Shape* shape = nullptr;  // the shape this describes (null for capsule end spheres)
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
      if (o.graph) {
        o.warm = ClimbSupport(v, *o.graph, d, o.warm);
        return v[o.warm];
      }
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
  const Vec3 c = o.pose.Apply(o.center_local);
  ccdVec3Set(center, c.x(), c.y(), c.z());
}

SupportObject MakeObject(const Shape& s, const Pose& X) {
  SupportObject o;
  o.pose = X;
  o.shape = &s;
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
      o.graph = GraphFor(s.hull);
      if (o.graph) {
        o.center_local = o.graph->centroid;
      } else if (!s.hull->vertices.empty()) {
        for (const Vec3& v : s.hull->vertices) o.center_local += v;
        o.center_local /= static_cast<double>(s.hull->vertices.size());
      }
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
  Vec3 pa, pb;  // closest points of the two cores (a common point when overlapping)
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
    if (vv < 1e-24 * scale * scale) break;  // origin on the simplex: overlap
    SimplexVertex w = support(-v);
    // Converged when the new support point does not get closer to the origin along v.
    if (vv - v.dot(w.w) <= 1e-12 * vv) break;
    bool duplicate = false;
    for (const auto& s : simplex) duplicate |= (s.w - w.w).squaredNorm() < 1e-28 * scale * scale;
    if (duplicate) break;
    simplex.push_back(w);
    v = ClosestOnSimplex(&simplex, &lambda);
    if (simplex.size() == 4) break;  // origin inside the tetrahedron: overlap
  }
  result.pa = Vec3::Zero();
  result.pb = Vec3::Zero();
  for (size_t i = 0; i < simplex.size(); ++i) {
    result.pa += lambda[i] * simplex[i].a;
    result.pb += lambda[i] * simplex[i].b;
  }
  result.overlap = simplex.size() == 4 ||
                   (result.pb - result.pa).squaredNorm() < 1e-24 * scale * scale;
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

// Penetration of overlapping cores (radius sweeps removed by the caller): direction from a into
// b, depth and a contact position. libccd's EPA for small shapes; with a large hull, libccd's MPR,
// whose iterations are bounded (EPA has no iteration bound and, on a finely tessellated curved
// hull, expands thousands of faces with a linear nearest-face search each: seconds per call).
// The callers re-measure the separation along this direction and along face normals, so MPR's
// approximate direction does not enter a face contact's result.
bool CorePenetration(const SupportObject& ca, const SupportObject& cb, Vec3* dir, Vec3* pos,
                     double* depth) {
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = CcdSupport;
  ccd.support2 = CcdSupport;
  ccd.center1 = CcdCenter;
  ccd.center2 = CcdCenter;
  ccd.max_iterations = 500;
  ccd.epa_tolerance = 1e-10;
  ccd.mpr_tolerance = 1e-12;
  ccd_real_t d = 0;
  ccd_vec3_t v, p;
  const bool large = ca.graph || cb.graph;
  const int code = large ? ccdMPRPenetration(&ca, &cb, &ccd, &d, &v, &p)
                         : ccdGJKPenetration(&ca, &cb, &ccd, &d, &v, &p);
  if (code != 0) return false;
  *dir = Vec3(v.v[0], v.v[1], v.v[2]);
  *pos = Vec3(p.v[0], p.v[1], p.v[2]);
  *depth = d;
  return dir->norm() > 0.5;
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
  double depth;
  Vec3 dir, pos;
  // The signed distance is the largest separation over all directions, so the separation
  // along any direction bounds it from below. Candidates: libccd's EPA direction (when it gives
  // one; it degrades when the cores only touch), the line of centers, both frames' axes (box
  // faces, cylinder caps) and hull face normals. The best candidate is kept.
  std::vector<Vec3> candidates;
  Vec3 p = 0.5 * (sep.pa + sep.pb);
  bool have_ccd = false;
  if (CorePenetration(ca, cb, &dir, &pos, &depth)) {
    candidates.push_back(dir.normalized());
    have_ccd = true;
  }
  Vec3 centers = b.pose.p - a.pose.p;
  if (centers.norm() > 1e-12) candidates.push_back(centers.normalized());
  for (const SupportObject* o : {&a, &b}) {
    for (int k = 0; k < 3; ++k) {
      Vec3 axis = o->pose.Rotate(Vec3::Unit(k));
      candidates.push_back(axis);
      candidates.push_back(-axis);
    }
  }
  for (const SupportObject* o : {&a, &b}) {
    if (o->shape == nullptr || o->shape->type != ShapeType::kConvexMesh || o->graph) continue;
    for (const Vec3& fn : o->shape->hull->face_normals) {
      candidates.push_back(o->pose.Rotate(fn));
      candidates.push_back(-o->pose.Rotate(fn));
    }
  }
  Vec3 n = Vec3::UnitZ();
  double best = -std::numeric_limits<double>::infinity();
  // Large hulls: each face normal is tried with its outward sign only, and the hull's own support
  // along it is the face plane (no support query), so the loop is linear in the face count.
  for (const SupportObject* o : {&a, &b}) {
    if (o->shape == nullptr || o->shape->type != ShapeType::kConvexMesh || !o->graph) continue;
    const ConvexHull& h = *o->shape->hull;
    const bool is_a = o == &a;
    const SupportObject& other = is_a ? b : a;
    for (size_t f = 0; f < h.faces.size(); ++f) {
      if (h.faces[f].empty()) continue;
      const Vec3 nf = o->pose.Rotate(h.face_normals[f]);
      const double plane = nf.dot(o->pose.Apply(h.vertices[h.faces[f][0]]));
      // Direction from a into b: the outward normal of a's face, the inward normal of b's.
      const Vec3 c = is_a ? nf : Vec3(-nf);
      const double s =
          is_a ? c.dot(SupportWorld(other, -c)) - plane : -plane - c.dot(SupportWorld(other, c));
      if (s > best) {
        best = s;
        n = c;
        p = 0.5 * (sep.pa + sep.pb);
      }
    }
  }
  for (size_t k = 0; k < candidates.size(); ++k) {
    const Vec3& c = candidates[k];
    double s = c.dot(SupportWorld(b, -c)) - c.dot(SupportWorld(a, c));
    if (s > best) {
      best = s;
      n = c;
      if (k == 0 && have_ccd)
        p = pos;
      else p = 0.5 * (sep.pa + sep.pb);
    }
  }
  // Signed distance along n between the supporting planes of the full shapes.
  double h_a = n.dot(SupportWorld(a, n));
  double h_b = n.dot(SupportWorld(b, -n));
  double phi = h_b - h_a;
  if (phi >= margin) return std::nullopt;
  double mid = 0.5 * (h_a + h_b);
  return ContactPoint{p + (mid - n.dot(p)) * n, n, phi};
}

// Flat face of `s` (box face, hull face or cylinder cap) whose outward normal is `m` to within
// round-off of the GJK/EPA direction. Fills the face polygon (world; empty for a cylinder cap,
// which is described by `disk_center` and `disk_radius`) and the exact face normal.
bool FindFlatFace(const Shape& s, const Pose& X, const Vec3& m, std::vector<Vec3>* poly,
                  Vec3* normal, Vec3* disk_center, double* disk_radius) {
  const double kAligned = 1.0 - 1e-6;
  poly->clear();
  Vec3 ml = X.q.conjugate() * m;
  if (s.type == ShapeType::kBox) {
    int i = 0;
    ml.cwiseAbs().maxCoeff(&i);
    if (std::abs(ml[i]) < kAligned) return false;
    double sign = ml[i] > 0 ? 1.0 : -1.0;
    int j = (i + 1) % 3, k = (i + 2) % 3;
    const Vec3& h = s.half_extents;
    for (auto [sj, sk] : {std::pair(1.0, 1.0), std::pair(-1.0, 1.0), std::pair(-1.0, -1.0),
                          std::pair(1.0, -1.0)}) {
      Vec3 v;
      v[i] = sign * h[i];
      v[j] = sj * h[j];
      v[k] = sk * h[k];
      poly->push_back(X.Apply(v));
    }
    Vec3 nl = Vec3::Zero();
    nl[i] = sign;
    *normal = X.Rotate(nl);
    return true;
  }
  if (s.type == ShapeType::kConvexMesh) {
    const ConvexHull& h = *s.hull;
    int best = -1;
    double best_dot = kAligned;
    for (size_t f = 0; f < h.faces.size(); ++f) {
      double d = h.face_normals[f].dot(ml);
      if (d > best_dot) {
        best_dot = d;
        best = static_cast<int>(f);
      }
    }
    if (best < 0) return false;
    for (int i : h.faces[best]) poly->push_back(X.Apply(h.vertices[i]));
    *normal = X.Rotate(h.face_normals[best]);
    return true;
  }
  if (s.type == ShapeType::kCylinder && std::abs(ml.z()) >= kAligned) {
    double sign = ml.z() > 0 ? 1.0 : -1.0;
    *normal = X.Rotate(Vec3(0, 0, sign));
    *disk_center = X.Apply(Vec3(0, 0, sign * s.half_length));
    *disk_radius = s.radius;
    return true;
  }
  return false;
}

// Clips segment [p, q] to the prism over a convex polygon face with normal m (side planes
// perpendicular to the face). Returns false if nothing is left.
bool ClipSegmentToPolygon(const std::vector<Vec3>& poly, const Vec3& m, Vec3* p, Vec3* q) {
  Vec3 centroid = Vec3::Zero();
  for (const Vec3& v : poly) centroid += v;
  centroid /= static_cast<double>(poly.size());
  for (size_t k = 0; k < poly.size(); ++k) {
    const Vec3& a = poly[k];
    Vec3 side = (poly[(k + 1) % poly.size()] - a).cross(m);
    double len = side.norm();
    if (len < 1e-12) continue;
    side /= len;
    if (side.dot(centroid - a) > 0) side = -side;
    double dp = side.dot(*p - a), dq = side.dot(*q - a);
    if (dp > 0 && dq > 0) return false;
    if (dp > 0) *p += (*q - *p) * (dp / (dp - dq));
    else if (dq > 0) *q += (*p - *q) * (dq / (dq - dp));
  }
  return true;
}

// Clips segment [p, q] to the infinite cylinder of radius r about the line through c along m.
bool ClipSegmentToDisk(const Vec3& c, const Vec3& m, double r, Vec3* p, Vec3* q) {
  Vec3 d = *q - *p, w = *p - c;
  Vec3 dp = d - m * m.dot(d), wp = w - m * m.dot(w);  // components across the axis
  double qa = dp.squaredNorm(), qb = 2 * dp.dot(wp), qc = wp.squaredNorm() - r * r;
  if (qa < 1e-18) return qc <= 0;
  double disc = qb * qb - 4 * qa * qc;
  if (disc < 0) return false;
  double sq = std::sqrt(disc);
  double t0 = std::max(0.0, (-qb - sq) / (2 * qa)), t1 = std::min(1.0, (-qb + sq) / (2 * qa));
  if (t0 > t1) return false;
  Vec3 p0 = *p;
  *p = p0 + t0 * d;
  *q = p0 + t1 * d;
  return true;
}

}  // namespace

int CollideGjk(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB, double margin,
               std::vector<ContactPoint>* out) {
  SupportObject oa = MakeObject(a, X_WA);
  SupportObject ob = MakeObject(b, X_WB);
  const Shape* cap = nullptr;
  if (a.type == ShapeType::kCapsule) {
    cap = &a;
  } else if (b.type == ShapeType::kCapsule) {
    cap = &b;
  }
  if (cap == nullptr || cap->half_length <= 0) {
    auto c = GjkContact(oa, ob, margin);
    if (!c) return 0;
    out->push_back(*c);
    return 1;
  }
  const bool cap_is_a = cap == &a;
  const SupportObject& capsule = cap_is_a ? oa : ob;
  const SupportObject& other = cap_is_a ? ob : oa;
  const Shape& other_shape = cap_is_a ? b : a;
  const Pose& X_other = cap_is_a ? X_WB : X_WA;
  const double sign = cap_is_a ? 1.0 : -1.0;  // contacts below are computed capsule -> other
  size_t begin = out->size();

  // The whole segment is never farther than its ends: no segment contact, no contact at all.
  auto seg = GjkContact(capsule, other, margin);
  if (!seg) return 0;
  Vec3 axis = capsule.pose.Rotate(Vec3::UnitZ()) * capsule.half_length;

  // Capsule against a flat face (box face, hull face, cylinder cap): clip the axis segment to the
  // face and report the clipped ends, so that a capsule lying on a face (even overhanging an
  // edge) gets two points at the ends of its supported part.
  std::vector<Vec3> poly;
  Vec3 m, disk_center;
  double disk_radius = 0;
  if (FindFlatFace(other_shape, X_other, -seg->normal, &poly, &m, &disk_center, &disk_radius)) {
    Vec3 p = capsule.pose.p - axis, q = capsule.pose.p + axis;
    bool kept = poly.empty() ? ClipSegmentToDisk(disk_center, m, disk_radius, &p, &q)
                             : ClipSegmentToPolygon(poly, m, &p, &q);
    if (kept) {
      const Vec3 face_point = poly.empty() ? disk_center : poly[0];
      const int count = (q - p).norm() < 1e-9 ? 1 : 2;  // clipped to a single point or not
      for (int k = 0; k < count; ++k) {
        const Vec3& x = k == 0 ? p : q;
        double h = m.dot(x - face_point);
        double phi = h - capsule.radius;
        if (phi >= margin) continue;
        out->push_back(ContactPoint{x - (h - 0.5 * phi) * m, -sign * m, phi});
      }
      if (out->size() > begin) return static_cast<int>(out->size() - begin);
    }
  }

  // Otherwise (edges, curved sides): the two end spheres, plus the segment contact when it is
  // clearly deeper than both (e.g. lying across an edge).
  double min_end_phi = std::numeric_limits<double>::infinity();
  for (double side : {-1.0, 1.0}) {
    SupportObject end;
    end.core = Core::kPoint;
    end.pose.p = capsule.pose.p + side * axis;
    end.radius = capsule.radius;
    if (auto c = GjkContact(end, other, margin)) {
      out->push_back(ContactPoint{c->point, sign * c->normal, c->phi});
      min_end_phi = std::min(min_end_phi, c->phi);
    }
  }
  const double tol = 1e-6 + 1e-3 * capsule.radius;
  if (out->size() == begin || seg->phi < min_end_phi - tol) {
    out->push_back(ContactPoint{seg->point, sign * seg->normal, seg->phi});
  }
  return static_cast<int>(out->size() - begin);
}

bool PolytopeContactAxis(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                         double margin, Vec3* normal, double* phi, Vec3* point, bool* overlap) {
  // Cylinders enter as their prism (vertices on the rim), the polytope the caller clips.
  thread_local std::vector<Vec3> prism[2];
  auto object = [&](const Shape& s, const Pose& X, int slot) {
    SupportObject o = MakeObject(s, X);
    if (s.type == ShapeType::kCylinder) {
      std::vector<Vec3>& v = prism[slot];
      v.clear();
      for (double z : {-s.half_length, s.half_length}) {
        for (int i = 0; i < kCylinderPrismSides; ++i) {
          const double th = 2.0 * kPi * i / kCylinderPrismSides;
          v.emplace_back(s.radius * std::cos(th), s.radius * std::sin(th), z);
        }
      }
      o.core = Core::kHull;
      o.vertices = &v;
      o.graph = nullptr;
    }
    return o;
  };
  const SupportObject oa = object(a, X_WA, 0);
  const SupportObject ob = object(b, X_WB, 1);
  const Separation sep = GjkDistance(oa, ob);
  const Vec3 d = sep.pb - sep.pa;
  const double dist = d.norm();
  const double scale = std::max({1.0, X_WA.p.norm(), X_WB.p.norm()});
  if (!sep.overlap && dist > 1e-12 * scale) {
    if (dist >= margin) return false;
    *normal = d / dist;
    *phi = dist;
    *point = 0.5 * (sep.pa + sep.pb);
    *overlap = false;
    return true;
  }
  // Overlapping (or touching) cores: the EPA or MPR direction (CorePenetration), or the line of
  // centers when it gives none; the caller tests the face normals around it.
  *overlap = true;
  *point = 0.5 * (sep.pa + sep.pb);
  *phi = 0;
  Vec3 n = oa.pose.Apply(oa.center_local) - ob.pose.Apply(ob.center_local);
  n = -n;
  Vec3 dir, pos;
  double depth = 0;
  if (CorePenetration(oa, ob, &dir, &pos, &depth)) {
    n = dir;
    *point = pos;
  }
  n = n.norm() > 1e-12 ? Vec3(n.normalized()) : Vec3(Vec3::UnitZ());
  // Separation along a direction, from the supports (exact for polytopes).
  auto separation = [&](const Vec3& u) {
    return u.dot(SupportWorld(ob, -u)) - u.dot(SupportWorld(oa, u));
  };
  // Refinement of the direction (MPR's follows the line of the interior points, not the
  // shortest way out): move b out along the current direction by its penetration plus half of
  // it, take GJK's exact closest-point direction of the separated pair, and repeat. The
  // direction of least penetration is a fixed point (moved out along it, the shapes touch with
  // that normal); the best direction met is kept, measured on the unmoved shapes.
  double best = separation(n);
  Vec3 best_n = n;
  for (int iter = 0; iter < 8; ++iter) {
    const double pen = -separation(n);
    if (!(pen > 0)) break;
    const double shift = 1.5 * pen + 1e-12 * scale;
    SupportObject moved = ob;
    moved.pose.p += shift * n;
    const Separation s2 = GjkDistance(oa, moved);
    const Vec3 d2 = s2.pb - s2.pa;
    if (s2.overlap || !(d2.norm() > 0)) break;
    const Vec3 m = d2.normalized();
    const double sep_m = separation(m);
    if (sep_m > best) {
      best = sep_m;
      best_n = m;
      *point = 0.5 * (s2.pa + s2.pb - shift * n);
    }
    if ((m - n).norm() < 1e-12) break;
    n = m;
  }
  *normal = best_n;
  *phi = best;
  return true;
}

}  // namespace collision_internal
}  // namespace contactlab
