// Polytope-polytope narrow phase: separating-axis test over face normals and edge-edge cross
// products, then reference-face / incident-face clipping (Sutherland-Hodgman) for face contacts
// or closest points between the two supporting edges for edge contacts.
//
// Boxes are exact. Convex meshes use their hull. A cylinder is replaced by a right prism with
// kCylinderPrismSides sides whose vertices lie on the true rim (inscribed polygon), so flat-cap
// contacts are exact and side contacts are at most r (1 - cos(π/N)) too shallow.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>
#include <utility>

#include "engine/geometry/collision_internal.h"

namespace contactlab {
namespace collision_internal {
namespace {

struct Edge {
  int v0 = -1, v1 = -1;  // vertices
  int f0 = -1, f1 = -1;  // the two adjacent faces
};

// Faces and edges of a polytope; shared by every box and every prism, built per call for hulls.
struct Topology {
  std::vector<std::vector<int>> faces;  // cyclic vertex order
  std::vector<Vec3> normals;            // local frame, outward, unit
  std::vector<Edge> edges;              // each with its two faces (closed polytopes)
};

struct Polytope {
  std::shared_ptr<const Topology> topo;
  std::vector<Vec3> v;           // world vertices
  std::vector<Vec3> normals;     // world, outward, unit
  Vec3 interior = Vec3::Zero();  // a point inside (vertex centroid)
};

// `half` is scratch: (low vertex, high vertex, face) per face edge.
void BuildEdges(Topology* T, std::vector<std::tuple<int, int, int>>* half_scratch) {
  std::vector<std::tuple<int, int, int>>& half = *half_scratch;
  half.clear();
  T->edges.clear();
  for (size_t f = 0; f < T->faces.size(); ++f) {
    const auto& fv = T->faces[f];
    for (size_t k = 0; k < fv.size(); ++k) {
      int a = fv[k], b = fv[(k + 1) % fv.size()];
      half.emplace_back(std::min(a, b), std::max(a, b), static_cast<int>(f));
    }
  }
  std::sort(half.begin(), half.end());
  for (size_t i = 0; i < half.size();) {
    size_t j = i + 1;
    while (j < half.size() && std::get<0>(half[j]) == std::get<0>(half[i]) &&
           std::get<1>(half[j]) == std::get<1>(half[i])) {
      ++j;
    }
    if (j - i == 2) {  // manifold edge shared by exactly two faces
      Edge e;
      e.v0 = std::get<0>(half[i]);
      e.v1 = std::get<1>(half[i]);
      e.f0 = std::get<2>(half[i]);
      e.f1 = std::get<2>(half[i + 1]);
      T->edges.push_back(e);
    }
    i = j;
  }
}

// Box vertex index bit k set means +h on axis k. Faces listed CCW from outside.
std::shared_ptr<const Topology> BoxTopology() {
  static const std::shared_ptr<const Topology> topo = [] {
    auto t = std::make_shared<Topology>();
    t->faces = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    t->normals = {-Vec3::UnitX(), Vec3::UnitX(), -Vec3::UnitY(),
                  Vec3::UnitY(),  -Vec3::UnitZ(), Vec3::UnitZ()};
    std::vector<std::tuple<int, int, int>> half;
    BuildEdges(t.get(), &half);
    return t;
  }();
  return topo;
}

// Prism with kCylinderPrismSides sides: vertices 0..n-1 on the bottom rim, n..2n-1 on the top.
std::shared_ptr<const Topology> PrismTopology() {
  static const std::shared_ptr<const Topology> topo = [] {
    const int n = kCylinderPrismSides;
    auto t = std::make_shared<Topology>();
    std::vector<int> bottom, top;
    for (int i = 0; i < n; ++i) {
      bottom.push_back(n - 1 - i);
      top.push_back(n + i);
    }
    t->faces = {bottom, top};
    t->normals = {-Vec3::UnitZ(), Vec3::UnitZ()};
    for (int i = 0; i < n; ++i) {
      int j = (i + 1) % n;
      double th = 2.0 * kPi * (i + 0.5) / n;
      t->faces.push_back({i, j, n + j, n + i});
      t->normals.push_back(Vec3(std::cos(th), std::sin(th), 0));
    }
    std::vector<std::tuple<int, int, int>> half;
    BuildEdges(t.get(), &half);
    return t;
  }();
  return topo;
}

// Unit rim directions of the prism's vertices.
const std::vector<Vec3>& PrismRim() {
  static const std::vector<Vec3> rim = [] {
    std::vector<Vec3> r;
    for (int i = 0; i < kCylinderPrismSides; ++i) {
      double th = 2.0 * kPi * i / kCylinderPrismSides;
      r.emplace_back(std::cos(th), std::sin(th), 0);
    }
    return r;
  }();
  return rim;
}

// Working memory of CollidePolytopes, kept per thread so that the steady-state step does not
// allocate: the two polytopes, the topology of a convex mesh (per slot) and clipping buffers.
struct PolytopeScratch {
  Polytope P[2];
  // Faces and edges of the convex meshes seen last, by hull (holding the hull keeps the identity
  // test valid); evicted round-robin beyond kHullCacheSize.
  struct HullTopology {
    std::shared_ptr<const ConvexHull> hull;
    Topology topology;
  };
  static constexpr size_t kHullCacheSize = 16;
  std::vector<HullTopology> hulls;
  size_t next_eviction = 0;
  std::vector<std::tuple<int, int, int>> half_edges;
  std::vector<Vec3> nc, nd, dxc;  // per edge of B: arc end points and their cross product
  std::vector<Vec3> poly, clipped;
};

PolytopeScratch& Scratch() {
  thread_local PolytopeScratch scratch;
  return scratch;
}

// The cached topology of a convex mesh (built on first use); never evicts `keep`.
const Topology* HullTopologyFor(const std::shared_ptr<const ConvexHull>& hull, const Topology* keep,
                                PolytopeScratch* scratch) {
  for (PolytopeScratch::HullTopology& entry : scratch->hulls) {
    if (entry.hull == hull) return &entry.topology;
  }
  if (scratch->hulls.capacity() < PolytopeScratch::kHullCacheSize) {
    scratch->hulls.reserve(PolytopeScratch::kHullCacheSize);
  }
  PolytopeScratch::HullTopology* entry;
  if (scratch->hulls.size() < PolytopeScratch::kHullCacheSize) {
    entry = &scratch->hulls.emplace_back();
  } else {
    entry = &scratch->hulls[scratch->next_eviction++ % scratch->hulls.size()];
    if (&entry->topology == keep) {
      entry = &scratch->hulls[scratch->next_eviction++ % scratch->hulls.size()];
    }
  }
  entry->hull = hull;
  entry->topology.faces = hull->faces;
  entry->topology.normals = hull->face_normals;
  BuildEdges(&entry->topology, &scratch->half_edges);
  return &entry->topology;
}

// Fills *P (storage reused) with shape s at pose X. A convex mesh refers to its cached topology
// without owning it; `keep` is the other polytope's, which the cache must not evict.
void MakePolytope(const Shape& s, const Pose& X, const Topology* keep, PolytopeScratch* scratch,
                  Polytope* P) {
  P->v.clear();
  P->normals.clear();
  P->interior.setZero();
  Mat3 R = X.R();
  if (s.type == ShapeType::kBox) {
    P->topo = BoxTopology();
    const Vec3& h = s.half_extents;
    for (int i = 0; i < 8; ++i) {
      Vec3 v((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z());
      P->v.push_back(R * v + X.p);
    }
  } else if (s.type == ShapeType::kCylinder) {
    P->topo = PrismTopology();
    for (double z : {-s.half_length, s.half_length}) {
      for (const Vec3& u : PrismRim()) P->v.push_back(R * (s.radius * u + Vec3(0, 0, z)) + X.p);
    }
  } else {  // convex mesh
    const ConvexHull& h = *s.hull;
    // Aliasing constructor with no owner: refers to the cached topology, allocates nothing.
    P->topo = std::shared_ptr<const Topology>(std::shared_ptr<const Topology>(),
                                              HullTopologyFor(s.hull, keep, scratch));
    for (const Vec3& v : h.vertices) P->v.push_back(R * v + X.p);
  }
  for (const Vec3& n : P->topo->normals) P->normals.push_back(R * n);
  for (const Vec3& x : P->v) P->interior += x;
  if (!P->v.empty()) P->interior /= static_cast<double>(P->v.size());
}

double MinAlong(const Polytope& P, const Vec3& n) {
  double m = std::numeric_limits<double>::infinity();
  for (const Vec3& v : P.v) m = std::min(m, n.dot(v));
  return m;
}

// Largest separation of Q from the face planes of P; returns the face in *face.
double BestFace(const Polytope& P, const Polytope& Q, int* face) {
  double best = -std::numeric_limits<double>::infinity();
  *face = -1;
  for (size_t f = 0; f < P.topo->faces.size(); ++f) {
    const Vec3& n = P.normals[f];
    double sep = MinAlong(Q, n) - n.dot(P.v[P.topo->faces[f][0]]);
    if (sep > best) {
      best = sep;
      *face = static_cast<int>(f);
    }
  }
  return best;
}

// Polygon clipping against the half-space {x : s·x <= d} (Sutherland-Hodgman step).
void ClipPolygon(const std::vector<Vec3>& poly, const Vec3& s, double d, std::vector<Vec3>* out_poly) {
  std::vector<Vec3>& out = *out_poly;
  out.clear();
  const size_t n = poly.size();
  for (size_t k = 0; k < n; ++k) {
    const Vec3& a = poly[k];
    const Vec3& b = poly[(k + 1) % n];
    double da = s.dot(a) - d, db = s.dot(b) - d;
    if (da <= 0) out.push_back(a);
    if ((da < 0 && db > 0) || (da > 0 && db < 0)) out.push_back(a + (b - a) * (da / (da - db)));
  }
}

// Face contact: reference face `ref_face` of R, incident polytope I. Normals are reported as
// `sign` times the reference normal.
int FaceContact(const Polytope& R, int ref_face, const Polytope& I, double sign, double margin,
                std::vector<ContactPoint>* out) {
  const Vec3& n = R.normals[ref_face];
  const std::vector<int>& rf = R.topo->faces[ref_face];
  // Incident face: the face of I most anti-parallel to the reference normal.
  int inc = 0;
  double best = std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < I.topo->faces.size(); ++f) {
    double d = I.normals[f].dot(n);
    if (d < best) {
      best = d;
      inc = static_cast<int>(f);
    }
  }
  PolytopeScratch& scratch = Scratch();
  std::vector<Vec3>& poly = scratch.poly;
  poly.clear();
  for (int i : I.topo->faces[inc]) poly.push_back(I.v[i]);
  Vec3 centroid = Vec3::Zero();
  for (int i : rf) centroid += R.v[i];
  centroid /= static_cast<double>(rf.size());
  for (size_t k = 0; k < rf.size() && !poly.empty(); ++k) {
    const Vec3& a = R.v[rf[k]];
    const Vec3& b = R.v[rf[(k + 1) % rf.size()]];
    Vec3 s = (b - a).cross(n);
    double len = s.norm();
    if (len < 1e-12) continue;
    s /= len;
    if (s.dot(centroid - a) > 0) s = -s;  // side plane normal points out of the face
    ClipPolygon(poly, s, s.dot(a), &scratch.clipped);
    poly.swap(scratch.clipped);
  }
  const double plane = n.dot(R.v[rf[0]]);
  size_t begin = out->size();
  for (const Vec3& x : poly) {
    double sep = n.dot(x) - plane;
    if (sep < margin) out->push_back(ContactPoint{x - 0.5 * sep * n, sign * n, sep});
  }
  if (out->size() == begin) {
    // Clipping lost the overlap to round-off: report the deepest vertex of I.
    int deepest = 0;
    for (size_t i = 1; i < I.v.size(); ++i) {
      if (n.dot(I.v[i]) < n.dot(I.v[deepest])) deepest = static_cast<int>(i);
    }
    double sep = n.dot(I.v[deepest]) - plane;
    if (sep < margin) {
      out->push_back(ContactPoint{I.v[deepest] - 0.5 * sep * n, sign * n, sep});
    }
  }
  ReduceManifold(out, begin, 8);
  return static_cast<int>(out->size() - begin);
}

// Closest points between segments (general position; the edges here are not parallel).
void SegmentClosest(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2, Vec3* c1,
                    Vec3* c2) {
  Vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  double a = d1.squaredNorm(), e = d2.squaredNorm(), b = d1.dot(d2);
  double c = d1.dot(r), f = d2.dot(r);
  double denom = a * e - b * b;
  double s = denom > 1e-18 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  double t = (b * s + f) / e;
  if (t < 0) {
    t = 0;
    s = std::clamp(-c / a, 0.0, 1.0);
  } else if (t > 1) {
    t = 1;
    s = std::clamp((b - c) / a, 0.0, 1.0);
  }
  *c1 = p1 + s * d1;
  *c2 = p2 + t * d2;
}

// Work of the separating-axis test on A and B (see kSatWorkLimit).
double SatWork(const Polytope& A, const Polytope& B) {
  return static_cast<double>(A.topo->edges.size()) * static_cast<double>(B.topo->edges.size()) +
         static_cast<double>(A.topo->faces.size()) * static_cast<double>(B.v.size()) +
         static_cast<double>(B.topo->faces.size()) * static_cast<double>(A.v.size());
}

// Face of P whose world normal is most aligned with n.
int MostAlignedFace(const Polytope& P, const Vec3& n) {
  int best = 0;
  double best_dot = -std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < P.normals.size(); ++f) {
    const double d = P.normals[f].dot(n);
    if (d > best_dot) {
      best_dot = d;
      best = static_cast<int>(f);
    }
  }
  return best;
}

// Separation of Q from P along unit n (pointing from P toward Q): min over Q minus max over P.
double SeparationAlong(const Polytope& P, const Polytope& Q, const Vec3& n) {
  return MinAlong(Q, n) + MinAlong(P, -n);
}

int SatContact(Polytope& A, Polytope& B, double margin, std::vector<ContactPoint>* out);

int GjkPolytopeContact(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                       const Polytope& A, const Polytope& B, double margin,
                       std::vector<ContactPoint>* out) {
  Vec3 n, p;
  double phi;
  bool overlap;
  if (!PolytopeContactAxis(a, X_WA, b, X_WB, margin, &n, &phi, &p, &overlap)) return 0;
  // Best axis found: the GJK direction (separated; its distance is exact) or the better of
  // ±(EPA direction) measured on the polytopes (overlapping).
  double sep_axis = phi;
  if (overlap) {
    sep_axis = SeparationAlong(A, B, n);
    const double flipped = SeparationAlong(A, B, -n);
    if (flipped > sep_axis) {
      sep_axis = flipped;
      n = -n;
    }
  }
  // Face normals next to the axis: A's face facing B and B's face facing A.
  const int face_a = MostAlignedFace(A, n);
  const int face_b = MostAlignedFace(B, -n);
  const double sep_a = SeparationAlong(A, B, A.normals[face_a]);
  const double sep_b = SeparationAlong(B, A, B.normals[face_b]);
  double best = std::max({sep_axis, sep_a, sep_b});
  if (best >= margin) return 0;
  // Face contacts are preferred with the separating-axis path's tolerance (stable manifolds).
  const double kRelTol = 0.02, kAbsTol = 1e-6;
  const double tol = kRelTol * std::abs(best) + kAbsTol;
  if (std::max(sep_a, sep_b) >= best - tol) {
    if (sep_b > sep_a + kRelTol * std::abs(sep_a) + kAbsTol) {
      return FaceContact(B, face_b, A, -1.0, margin, out);
    }
    return FaceContact(A, face_a, B, 1.0, margin, out);
  }
  out->push_back(ContactPoint{p, n, sep_axis});
  return 1;
}

// How CollidePolytopesWith finds the contact axis.
enum class AxisSearch { kBySatWork, kSat, kGjk };

int CollidePolytopesWith(AxisSearch search, const Shape& a, const Pose& X_WA, const Shape& b,
                         const Pose& X_WB, double margin, std::vector<ContactPoint>* out) {
  PolytopeScratch& scratch = Scratch();
  Polytope& A = scratch.P[0];
  Polytope& B = scratch.P[1];
  MakePolytope(a, X_WA, nullptr, &scratch, &A);
  MakePolytope(b, X_WB, A.topo.get(), &scratch, &B);
  if (A.topo->faces.empty() || B.topo->faces.empty()) return 0;
  const bool gjk =
      search == AxisSearch::kGjk ||
      (search == AxisSearch::kBySatWork && SatWork(A, B) > kSatWorkLimit);
  return gjk ? GjkPolytopeContact(a, X_WA, b, X_WB, A, B, margin, out)
             : SatContact(A, B, margin, out);
}

}  // namespace

int CollidePolytopes(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                     double margin, std::vector<ContactPoint>* out) {
  return CollidePolytopesWith(AxisSearch::kBySatWork, a, X_WA, b, X_WB, margin, out);
}

int CollidePolytopesSat(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                        double margin, std::vector<ContactPoint>* out) {
  return CollidePolytopesWith(AxisSearch::kSat, a, X_WA, b, X_WB, margin, out);
}

int CollidePolytopesGjk(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                        double margin, std::vector<ContactPoint>* out) {
  return CollidePolytopesWith(AxisSearch::kGjk, a, X_WA, b, X_WB, margin, out);
}

namespace {

// Separating-axis test over face normals and Gauss-map-pruned edge pairs, then clipping.
int SatContact(Polytope& A, Polytope& B, double margin, std::vector<ContactPoint>* out) {
  PolytopeScratch& scratch = Scratch();

  int face_a, face_b;
  double sep_a = BestFace(A, B, &face_a);
  if (sep_a >= margin) return 0;
  double sep_b = BestFace(B, A, &face_b);
  if (sep_b >= margin) return 0;

  // Edge-edge axes, only for edge pairs whose arcs on the Gauss map cross (the pair forms a face
  // of the Minkowski difference); the axis is then oriented outward from A at its edge and the
  // two edges are the supporting features, so the separation needs no vertex scan.
  double sep_e = -std::numeric_limits<double>::infinity();
  Vec3 axis_e = Vec3::Zero();
  int edge_a = -1, edge_b = -1;
  // Per-edge data of B that does not depend on A's edge: the arc end points of -B's normals and
  // their cross product.
  const std::vector<Edge>& edges_b = B.topo->edges;
  std::vector<Vec3>&nc = scratch.nc, &nd = scratch.nd, &dxc = scratch.dxc;
  nc.resize(edges_b.size());
  nd.resize(edges_b.size());
  dxc.resize(edges_b.size());
  for (size_t j = 0; j < edges_b.size(); ++j) {
    nc[j] = -B.normals[edges_b[j].f0];
    nd[j] = -B.normals[edges_b[j].f1];
    dxc[j] = nd[j].cross(nc[j]);
  }
  for (size_t i = 0; i < A.topo->edges.size(); ++i) {
    const Edge& ea = A.topo->edges[i];
    const Vec3& na = A.normals[ea.f0];
    const Vec3& nb = A.normals[ea.f1];
    const Vec3 bxa = nb.cross(na);
    const Vec3 pa = A.v[ea.v0];
    const Vec3 da = A.v[ea.v1] - pa;
    for (size_t j = 0; j < edges_b.size(); ++j) {
      const double cba = nc[j].dot(bxa), dba = nd[j].dot(bxa);
      if (cba * dba >= 0) continue;
      const double adc = na.dot(dxc[j]), bdc = nb.dot(dxc[j]);
      if (adc * bdc >= 0 || cba * bdc <= 0) continue;
      const Edge& eb = edges_b[j];
      const Vec3 pb = B.v[eb.v0];
      Vec3 n = da.cross(B.v[eb.v1] - pb);
      double len = n.norm();
      if (len < 1e-9 * da.norm() * (B.v[eb.v1] - pb).norm()) continue;  // parallel edges
      n /= len;
      if (n.dot(pa - A.interior) < 0) n = -n;
      double sep = n.dot(pb - pa);
      if (sep >= margin) return 0;
      if (sep > sep_e) {
        sep_e = sep;
        axis_e = n;
        edge_a = static_cast<int>(i);
        edge_b = static_cast<int>(j);
      }
    }
  }

  // Prefer face contacts (stable manifolds); an edge axis wins only when clearly better.
  double sep_face = std::max(sep_a, sep_b);
  const double kRelTol = 0.02, kAbsTol = 1e-6;
  if (sep_e > sep_face + kRelTol * std::abs(sep_face) + kAbsTol) {
    const Edge& ea = A.topo->edges[edge_a];
    const Edge& eb = B.topo->edges[edge_b];
    Vec3 ca, cb;
    SegmentClosest(A.v[ea.v0], A.v[ea.v1], B.v[eb.v0], B.v[eb.v1], &ca, &cb);
    out->push_back(ContactPoint{0.5 * (ca + cb), axis_e, sep_e});
    return 1;
  }
  // Reference face on A unless B's face axis is clearly better.
  if (sep_b > sep_a + kRelTol * std::abs(sep_a) + kAbsTol) {
    return FaceContact(B, face_b, A, -1.0, margin, out);
  }
  return FaceContact(A, face_a, B, 1.0, margin, out);
}

}  // namespace

}  // namespace collision_internal
}  // namespace contactlab
