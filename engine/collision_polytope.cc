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
#include <utility>

#include "engine/collision_internal.h"

namespace contactlab {
namespace collision_internal {
namespace {

struct Polytope {
  std::vector<Vec3> v;                  // world vertices
  std::vector<std::vector<int>> faces;  // cyclic vertex order
  std::vector<Vec3> normals;            // world, outward, unit
  std::vector<std::pair<int, int>> edges;
  std::vector<int> edge_dir;            // index into dirs for each edge
  std::vector<Vec3> dirs;               // distinct edge directions (unit, up to sign)
};

void AddFace(Polytope* P, std::vector<int> idx, const Vec3& normal) {
  P->faces.push_back(std::move(idx));
  P->normals.push_back(normal);
}

void BuildEdges(Polytope* P) {
  std::vector<std::pair<int, int>> e;
  for (const auto& f : P->faces) {
    for (size_t k = 0; k < f.size(); ++k) {
      int a = f[k], b = f[(k + 1) % f.size()];
      e.emplace_back(std::min(a, b), std::max(a, b));
    }
  }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  P->edges = e;
  for (const auto& [a, b] : e) {
    Vec3 d = P->v[b] - P->v[a];
    double len = d.norm();
    if (len < 1e-12) {
      P->edge_dir.push_back(-1);
      continue;
    }
    d /= len;
    int found = -1;
    for (size_t k = 0; k < P->dirs.size(); ++k) {
      if (P->dirs[k].cross(d).norm() < 1e-9) {
        found = static_cast<int>(k);
        break;
      }
    }
    if (found < 0) {
      found = static_cast<int>(P->dirs.size());
      P->dirs.push_back(d);
    }
    P->edge_dir.push_back(found);
  }
}

Polytope MakePolytope(const Shape& s, const Pose& X) {
  Polytope P;
  Mat3 R = X.R();
  if (s.type == ShapeType::kBox) {
    const Vec3& h = s.half_extents;
    for (int i = 0; i < 8; ++i) {
      Vec3 v((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z());
      P.v.push_back(X.Apply(v));
    }
    // Vertex index bit k set means +h on axis k. Faces listed CCW from outside.
    AddFace(&P, {0, 4, 6, 2}, -R.col(0));
    AddFace(&P, {1, 3, 7, 5}, R.col(0));
    AddFace(&P, {0, 1, 5, 4}, -R.col(1));
    AddFace(&P, {2, 6, 7, 3}, R.col(1));
    AddFace(&P, {0, 2, 3, 1}, -R.col(2));
    AddFace(&P, {4, 5, 7, 6}, R.col(2));
  } else if (s.type == ShapeType::kCylinder) {
    const int n = kCylinderPrismSides;
    for (int z = 0; z < 2; ++z) {
      for (int i = 0; i < n; ++i) {
        double th = 2.0 * kPi * i / n;
        P.v.push_back(X.Apply(Vec3(s.radius * std::cos(th), s.radius * std::sin(th),
                                   z ? s.half_length : -s.half_length)));
      }
    }
    std::vector<int> bottom, top;
    for (int i = 0; i < n; ++i) {
      bottom.push_back(n - 1 - i);
      top.push_back(n + i);
    }
    AddFace(&P, bottom, -R.col(2));
    AddFace(&P, top, R.col(2));
    for (int i = 0; i < n; ++i) {
      int j = (i + 1) % n;
      double th = 2.0 * kPi * (i + 0.5) / n;
      AddFace(&P, {i, j, n + j, n + i}, R * Vec3(std::cos(th), std::sin(th), 0));
    }
  } else {  // convex mesh
    const ConvexHull& h = *s.hull;
    for (const Vec3& v : h.vertices) P.v.push_back(X.Apply(v));
    for (size_t f = 0; f < h.faces.size(); ++f) AddFace(&P, h.faces[f], R * h.face_normals[f]);
  }
  BuildEdges(&P);
  return P;
}

double MinAlong(const Polytope& P, const Vec3& n) {
  double m = std::numeric_limits<double>::infinity();
  for (const Vec3& v : P.v) m = std::min(m, n.dot(v));
  return m;
}

double MaxAlong(const Polytope& P, const Vec3& n) {
  double m = -std::numeric_limits<double>::infinity();
  for (const Vec3& v : P.v) m = std::max(m, n.dot(v));
  return m;
}

// Largest separation of Q from the face planes of P; returns the face in *face.
double BestFace(const Polytope& P, const Polytope& Q, int* face) {
  double best = -std::numeric_limits<double>::infinity();
  *face = -1;
  for (size_t f = 0; f < P.faces.size(); ++f) {
    const Vec3& n = P.normals[f];
    double sep = MinAlong(Q, n) - n.dot(P.v[P.faces[f][0]]);
    if (sep > best) {
      best = sep;
      *face = static_cast<int>(f);
    }
  }
  return best;
}

// Polygon clipping against the half-space {x : s·x <= d} (Sutherland-Hodgman step).
std::vector<Vec3> ClipPolygon(const std::vector<Vec3>& poly, const Vec3& s, double d) {
  std::vector<Vec3> out;
  const size_t n = poly.size();
  for (size_t k = 0; k < n; ++k) {
    const Vec3& a = poly[k];
    const Vec3& b = poly[(k + 1) % n];
    double da = s.dot(a) - d, db = s.dot(b) - d;
    if (da <= 0) out.push_back(a);
    if ((da < 0 && db > 0) || (da > 0 && db < 0)) out.push_back(a + (b - a) * (da / (da - db)));
  }
  return out;
}

// Face contact: reference face `ref_face` of R, incident polytope I. Normals are reported as
// `sign` times the reference normal.
int FaceContact(const Polytope& R, int ref_face, const Polytope& I, double sign, double margin,
                std::vector<ContactPoint>* out) {
  const Vec3& n = R.normals[ref_face];
  const std::vector<int>& rf = R.faces[ref_face];
  // Incident face: the face of I most anti-parallel to the reference normal.
  int inc = 0;
  double best = std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < I.faces.size(); ++f) {
    double d = I.normals[f].dot(n);
    if (d < best) {
      best = d;
      inc = static_cast<int>(f);
    }
  }
  std::vector<Vec3> poly;
  for (int i : I.faces[inc]) poly.push_back(I.v[i]);
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
    poly = ClipPolygon(poly, s, s.dot(a));
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

// Supporting edge of P along n (parallel to direction index d) with the largest n·midpoint.
int SupportEdge(const Polytope& P, int d, const Vec3& n) {
  int best = -1;
  double val = -std::numeric_limits<double>::infinity();
  for (size_t e = 0; e < P.edges.size(); ++e) {
    if (P.edge_dir[e] != d) continue;
    double m = n.dot(P.v[P.edges[e].first] + P.v[P.edges[e].second]);
    if (m > val) {
      val = m;
      best = static_cast<int>(e);
    }
  }
  return best;
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

}  // namespace

int CollidePolytopes(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                     double margin, std::vector<ContactPoint>* out) {
  Polytope A = MakePolytope(a, X_WA);
  Polytope B = MakePolytope(b, X_WB);
  if (A.faces.empty() || B.faces.empty()) return 0;

  int face_a, face_b;
  double sep_a = BestFace(A, B, &face_a);
  if (sep_a >= margin) return 0;
  double sep_b = BestFace(B, A, &face_b);
  if (sep_b >= margin) return 0;

  // Edge-edge axes, each oriented so that it points from A toward B.
  double sep_e = -std::numeric_limits<double>::infinity();
  Vec3 axis_e = Vec3::Zero();
  int dir_a = -1, dir_b = -1;
  for (size_t i = 0; i < A.dirs.size(); ++i) {
    for (size_t j = 0; j < B.dirs.size(); ++j) {
      Vec3 n = A.dirs[i].cross(B.dirs[j]);
      double len = n.norm();
      if (len < 1e-6) continue;  // (nearly) parallel edges are covered by the face axes
      n /= len;
      double max_a = MaxAlong(A, n), min_a = MinAlong(A, n);
      double max_b = MaxAlong(B, n), min_b = MinAlong(B, n);
      double s_pos = min_b - max_a, s_neg = min_a - max_b;
      double sep = std::max(s_pos, s_neg);
      if (sep >= margin) return 0;
      if (sep > sep_e) {
        sep_e = sep;
        axis_e = s_pos >= s_neg ? n : Vec3(-n);
        dir_a = static_cast<int>(i);
        dir_b = static_cast<int>(j);
      }
    }
  }

  // Prefer face contacts (stable manifolds); an edge axis wins only when clearly better.
  double sep_face = std::max(sep_a, sep_b);
  const double kRelTol = 0.02, kAbsTol = 1e-6;
  if (sep_e > sep_face + kRelTol * std::abs(sep_face) + kAbsTol) {
    int ea = SupportEdge(A, dir_a, axis_e);
    int eb = SupportEdge(B, dir_b, -axis_e);
    if (ea >= 0 && eb >= 0) {
      Vec3 ca, cb;
      SegmentClosest(A.v[A.edges[ea].first], A.v[A.edges[ea].second], B.v[B.edges[eb].first],
                     B.v[B.edges[eb].second], &ca, &cb);
      out->push_back(ContactPoint{0.5 * (ca + cb), axis_e, sep_e});
      return 1;
    }
  }
  // Reference face on A unless B's face axis is clearly better.
  if (sep_b > sep_a + kRelTol * std::abs(sep_a) + kAbsTol) {
    return FaceContact(B, face_b, A, -1.0, margin, out);
  }
  return FaceContact(A, face_a, B, 1.0, margin, out);
}

}  // namespace collision_internal
}  // namespace contactlab
