#include "engine/geometry/hydroelastic/contact_surface.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace contactlab {
namespace {

// Faces whose normal is farther than this from a body's gradient direction are discarded.
const double kCosMaxAngle = std::cos(5.0 * kPi / 8.0);

// The four faces of a positively oriented tet, each with its opposite vertex.
constexpr int kTetFace[4][4] = {{1, 2, 3, 0}, {0, 3, 2, 1}, {0, 1, 3, 2}, {0, 2, 1, 3}};

double TetSize(const std::array<Vec3, 4>& x) {
  double s = 0;
  for (int i = 1; i < 4; ++i) s = std::max(s, (x[i] - x[0]).norm());
  return s;
}

// The polygon where the plane n·x = offset cuts the tet (vertices x), unordered. Signed
// distances within `tol` of 0 are snapped to 0 (round-off: a plane computed through a tet face
// rarely gives exact zeros), and vertices with distance <= 0 count as below: a cut edge joins a
// vertex below to one above, so a plane through a shared tet face yields its polygon in exactly
// one of the two tets (the one above).
// (At most four points: a plane cuts at most four edges of a tet. `points` is overwritten.)
void SliceTet(const std::array<Vec3, 4>& x, const Vec3& n, double offset, double tol,
              std::vector<Vec3>* points) {
  std::array<double, 4> s;
  for (int i = 0; i < 4; ++i) {
    s[i] = n.dot(x[i]) - offset;
    if (std::abs(s[i]) <= tol) s[i] = 0;
  }
  points->clear();
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) {
      const bool bi = s[i] <= 0, bj = s[j] <= 0;
      if (bi == bj) continue;
      const double t = s[i] / (s[i] - s[j]);
      points->push_back(x[i] + t * (x[j] - x[i]));
    }
}

// Sorts the (at most four) points of a slice counter-clockwise about n, around their average,
// and drops repeated points.
void OrderAbout(std::vector<Vec3>* points, const Vec3& n, double tol) {
  const int count = static_cast<int>(points->size());
  if (count < 3) return;
  Vec3 c = Vec3::Zero();
  for (const Vec3& p : *points) c += p;
  c /= static_cast<double>(count);
  const Vec3 t1 = AnyOrthogonal(n), t2 = n.cross(t1);
  std::array<std::pair<double, int>, 4> keyed;
  for (int i = 0; i < count; ++i) {
    const Vec3 r = (*points)[i] - c;
    keyed[i] = {std::atan2(r.dot(t2), r.dot(t1)), i};
  }
  std::sort(keyed.begin(), keyed.begin() + count);
  std::array<Vec3, 4> sorted;
  for (int i = 0; i < count; ++i) sorted[i] = (*points)[keyed[i].second];
  points->clear();
  for (int i = 0; i < count; ++i)
    if (points->empty() || (sorted[i] - points->back()).norm() > tol) points->push_back(sorted[i]);
  while (points->size() > 1 && (points->front() - points->back()).norm() <= tol) points->pop_back();
}

// Scratch buffers reused across calls of one surface computation (no allocation per tet pair
// once they have grown).
struct ClipScratch {
  std::vector<Vec3> out;
  std::vector<double> d;
};

// Clips a convex polygon (CCW about its plane normal) to the tet (vertices x), in place; the
// polygon is left empty when nothing with area remains. When the polygon lies in the plane of a
// tet face, it is kept only if the tet lies on the side `side` of it (side·(opposite vertex −
// polygon) > 0), so a polygon on a face shared by two tets is counted once.
void ClipToTet(std::vector<Vec3>* poly_io, const std::array<Vec3, 4>& x, const Vec3& side,
               double tol, ClipScratch* scratch) {
  std::vector<Vec3>& poly = *poly_io;
  std::vector<Vec3>& out = scratch->out;
  std::vector<double>& d = scratch->d;
  for (const auto& f : kTetFace) {
    if (poly.size() < 3) break;
    const Vec3& q = x[f[0]];
    Vec3 m = (x[f[1]] - q).cross(x[f[2]] - q);
    const double mn = m.norm();
    if (mn == 0) {
      poly.clear();
      return;
    }
    m /= mn;
    d.resize(poly.size());
    bool coplanar = true;
    for (size_t i = 0; i < poly.size(); ++i) {
      d[i] = m.dot(poly[i] - q);
      if (std::abs(d[i]) > tol) coplanar = false;
    }
    if (coplanar) {
      if (side.dot(x[f[3]] - poly[0]) > 0) continue;
      poly.clear();
      return;
    }
    out.clear();
    for (size_t i = 0; i < poly.size(); ++i) {
      const size_t j = (i + 1) % poly.size();
      const bool in_i = d[i] <= 0, in_j = d[j] <= 0;
      if (in_i) out.push_back(poly[i]);
      if (in_i != in_j) out.push_back(poly[i] + d[i] / (d[i] - d[j]) * (poly[j] - poly[i]));
    }
    poly.clear();
    for (const Vec3& p : out)
      if (poly.empty() || (p - poly.back()).norm() > tol) poly.push_back(p);
    while (poly.size() > 1 && (poly.front() - poly.back()).norm() <= tol) poly.pop_back();
  }
  if (poly.size() < 3) poly.clear();
}

std::array<Vec3, 4> TetVertices(const VolumeMesh& mesh, int t) {
  const auto& q = mesh.tets[t];
  return {mesh.vertices[q[0]], mesh.vertices[q[1]], mesh.vertices[q[2]], mesh.vertices[q[3]]};
}

// A gradient component along a face normal within 1e-9 of the gradient's magnitude is round-off
// of a field that grows parallel to the face (a box's edge strips, where the field is the
// distance to a side): it is made exactly 0, so that such faces are treated alike (the recipe
// skips them, face_constraints.h) instead of by the sign of the round-off.
double TangentSnapped(double g_along_normal, double gradient_norm) {
  return std::abs(g_along_normal) <= kTangentGradientFraction * gradient_norm ? 0.0
                                                                              : g_along_normal;
}

// Builds a face from a polygon in A's frame (ordered about n_A, the normal in A's frame), with
// pressures from A's tet `ta`. Returns false for a polygon without area.
bool MakeFace(const std::vector<Vec3>& poly_A, const Vec3& n_A, const PressureField& field_a,
              int ta, double g_b, int tb, const Pose& X_WA, double size, ContactFace* face) {
  if (poly_A.size() < 3) return false;
  double area = 0;
  Vec3 centroid = Vec3::Zero();
  for (size_t i = 1; i + 1 < poly_A.size(); ++i) {
    const double tri = 0.5 * (poly_A[i] - poly_A[0]).cross(poly_A[i + 1] - poly_A[0]).dot(n_A);
    area += tri;
    centroid += tri * (poly_A[0] + poly_A[i] + poly_A[i + 1]) / 3.0;
  }
  if (std::abs(area) <= 1e-14 * size * size) return false;
  centroid /= area;
  std::vector<Vec3> poly = poly_A;
  if (area < 0) {
    std::reverse(poly.begin(), poly.end());
    area = -area;
  }
  face->polygon.clear();
  face->pressure.clear();
  for (const Vec3& p : poly) {
    face->polygon.push_back(X_WA.Apply(p));
    face->pressure.push_back(std::max(0.0, field_a.PressureInTet(ta, p)));
  }
  face->area = area;
  face->centroid = X_WA.Apply(centroid);
  face->normal = X_WA.Rotate(n_A);
  face->p0 = std::max(0.0, field_a.PressureInTet(ta, centroid));
  face->g_a = TangentSnapped(-field_a.Gradient(ta).dot(n_A), field_a.Gradient(ta).norm());
  face->g_b = g_b;
  face->tet_a = ta;
  face->tet_b = tb;
  return true;
}

// True if sign·n̂ is within 5π/8 of the direction of ∇p: sign = −1 for A (its field grows
// against n̂), +1 for B (its field grows along n̂).
bool AlongGradient(const Vec3& grad, const Vec3& n, double sign) {
  const double gn = grad.norm();
  return gn > 0 && sign * grad.dot(n) >= kCosMaxAngle * gn;
}

}  // namespace

std::shared_ptr<const CompliantGeometry> MakeCompliantGeometry(const Shape& shape, double modulus,
                                                               double resolution) {
  return std::make_shared<const CompliantGeometry>(MakeVolumeMesh(shape, resolution), modulus);
}

RigidSurface MakeRigidSurface(const Shape& shape, double resolution) {
  RigidSurface s;
  auto add = [&](std::vector<Vec3> poly) {
    Vec3 n = Vec3::Zero();  // Newell's normal
    for (size_t i = 0; i < poly.size(); ++i) n += poly[i].cross(poly[(i + 1) % poly.size()]);
    if (n.norm() == 0) return;
    s.normals.push_back(n.normalized());
    s.polygons.push_back(std::move(poly));
  };
  switch (shape.type) {
    case ShapeType::kHalfSpace:
      return s;
    case ShapeType::kBox: {
      const Vec3& h = shape.half_extents;
      for (int axis = 0; axis < 3; ++axis)
        for (int sign : {-1, 1}) {
          const int u = (axis + 1) % 3, v = (axis + 2) % 3;
          const int su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
          std::vector<Vec3> poly;
          for (int c = 0; c < 4; ++c) {
            const int ci = sign > 0 ? c : 3 - c;
            Vec3 p;
            p[axis] = sign * h[axis];
            p[u] = su[ci] * h[u];
            p[v] = sv[ci] * h[v];
            poly.push_back(p);
          }
          add(poly);
        }
      return s;
    }
    case ShapeType::kConvexMesh: {
      if (!shape.hull) throw std::invalid_argument("rigid surface: convex mesh without a hull");
      for (const auto& face : shape.hull->faces) {
        std::vector<Vec3> poly;
        for (int i : face) poly.push_back(shape.hull->vertices[i]);
        add(poly);
      }
      return s;
    }
    default: {
      const VolumeMesh mesh = MakeVolumeMesh(shape, resolution);
      for (const auto& f : mesh.BoundaryFaces())
        add({mesh.vertices[f[0]], mesh.vertices[f[1]], mesh.vertices[f[2]]});
      return s;
    }
  }
}

double ContactSurface::Area() const {
  double a = 0;
  for (const auto& f : faces) a += f.area;
  return a;
}

Vec3 ContactSurface::Centroid() const {
  Vec3 c = Vec3::Zero();
  double a = 0;
  for (const auto& f : faces) {
    c += f.area * f.centroid;
    a += f.area;
  }
  return a > 0 ? Vec3(c / a) : Vec3::Zero();
}

double ContactSurface::NormalForceSum() const {
  double f = 0;
  for (const auto& face : faces) f += face.area * face.p0;
  return f;
}

Vec3 ContactSurface::Force() const {
  Vec3 f = Vec3::Zero();
  for (const auto& face : faces) f += face.area * face.p0 * face.normal;
  return f;
}

Vec3 ContactSurface::CentreOfPressure() const {
  Vec3 c = Vec3::Zero();
  double w = 0;
  for (const auto& f : faces) {
    c += f.area * f.p0 * f.centroid;
    w += f.area * f.p0;
  }
  return w > 0 ? Vec3(c / w) : Vec3::Zero();
}

ContactSurface ComputeContactSurfaceHalfSpace(const CompliantGeometry& a, const Pose& X_WA,
                                              const Pose& X_WB) {
  ContactSurface out;
  const Pose X_AB = X_WA.Inverse() * X_WB;
  const Vec3 n_B = X_AB.Rotate(Vec3::UnitZ());  // the half-space's outward normal, frame A
  const double offset = n_B.dot(X_AB.p);
  const Vec3 n_hat = -n_B;  // from A into B
  const VolumeMesh& mesh = a.field.mesh();
  std::vector<Vec3> poly;
  a.bvh.QueryHalfSpace(n_B, offset, [&](int t) {
    if (!AlongGradient(a.field.Gradient(t), n_hat, -1.0)) return;
    const auto x = TetVertices(mesh, t);
    const double size = TetSize(x);
    SliceTet(x, n_B, offset, 1e-12 * size, &poly);
    OrderAbout(&poly, n_hat, 1e-12 * size);
    ContactFace face;
    if (MakeFace(poly, n_hat, a.field, t, kRigidGradient, -1, X_WA, size, &face))
      out.faces.push_back(std::move(face));
  });
  return out;
}

ContactSurface ComputeContactSurfaceRigid(const CompliantGeometry& a, const Pose& X_WA,
                                          const RigidSurface& b, const Pose& X_WB) {
  ContactSurface out;
  const Pose X_AB = X_WA.Inverse() * X_WB;
  const VolumeMesh& mesh = a.field.mesh();
  std::vector<Vec3> clipped;
  ClipScratch scratch;
  for (size_t k = 0; k < b.polygons.size(); ++k) {
    std::vector<Vec3> poly_A;
    Aabb box;
    for (const Vec3& p : b.polygons[k]) {
      poly_A.push_back(X_AB.Apply(p));
      box.Include(poly_A.back());
    }
    const Vec3 n_rigid = X_AB.Rotate(b.normals[k]);  // outward of B, frame A
    const Vec3 n_hat = -n_rigid;                     // from A into B
    a.bvh.Query(box, [&](int t) {
      if (!AlongGradient(a.field.Gradient(t), n_hat, -1.0)) return;
      const auto x = TetVertices(mesh, t);
      const double size = TetSize(x);
      // A polygon on a tet face belongs to the tet outside B (side n_rigid).
      clipped = poly_A;
      ClipToTet(&clipped, x, n_rigid, 1e-12 * size, &scratch);
      ContactFace face;
      if (MakeFace(clipped, n_hat, a.field, t, kRigidGradient, -1, X_WA, size, &face))
        out.faces.push_back(std::move(face));
    });
  }
  return out;
}

ContactSurface ComputeContactSurfaceCompliant(const CompliantGeometry& a, const Pose& X_WA,
                                              const CompliantGeometry& b, const Pose& X_WB) {
  ContactSurface out;
  const Pose X_AB = X_WA.Inverse() * X_WB;
  const Mat3 R_AB = X_AB.R();
  const Vec3 p_BA = X_AB.InverseApply(Vec3::Zero());  // A's origin in B's frame
  const VolumeMesh& mesh_a = a.field.mesh();
  const VolumeMesh& mesh_b = b.field.mesh();
  std::vector<Vec3> poly;
  ClipScratch scratch;
  a.bvh.QueryPairs(b.bvh, X_AB, [&](int ta, int tb) {
    // Both linear fields in A's frame: p(x) = p_origin + ∇p·x.
    const Vec3& grad_a = a.field.Gradient(ta);
    const double pa0 = a.field.PressureInTet(ta, Vec3::Zero());
    const Vec3 grad_b = R_AB * b.field.Gradient(tb);
    const double pb0 = b.field.PressureInTet(tb, p_BA);
    // p_A = p_B on the plane (∇p_B − ∇p_A)·x = p_A0 − p_B0; n̂ along ∇p_B − ∇p_A (into B).
    const Vec3 dg = grad_b - grad_a;
    const double dg_norm = dg.norm();
    if (dg_norm <= 1e-14 * (grad_a.norm() + grad_b.norm())) return;
    const Vec3 n_hat = dg / dg_norm;
    if (!AlongGradient(grad_a, n_hat, -1.0) || !AlongGradient(grad_b, n_hat, 1.0)) return;
    const double offset = (pa0 - pb0) / dg_norm;
    // Cheap rejections before any polygon is built: the plane must cut both tets.
    // (Distances within 1e-12 of the tet's size count as 0, as in SliceTet.)
    auto cuts = [&](const std::array<Vec3, 4>& x) {
      const double tol = 1e-12 * TetSize(x);
      int below = 0;
      for (const Vec3& p : x) below += n_hat.dot(p) - offset <= tol ? 1 : 0;
      return below > 0 && below < 4;
    };
    const auto xa = TetVertices(mesh_a, ta);
    if (!cuts(xa)) return;
    std::array<Vec3, 4> xb = TetVertices(mesh_b, tb);
    for (Vec3& p : xb) p = R_AB * p + X_AB.p;
    if (!cuts(xb)) {
      // A plane through a face of B's tet still counts when B's tet lies on the +n̂ side of it
      // (ClipToTet's tie rule); any other tet it misses entirely.
      const double tol = 1e-12 * TetSize(xb);
      int on = 0, above = 0;
      for (const Vec3& p : xb) {
        const double s_p = n_hat.dot(p) - offset;
        on += std::abs(s_p) <= tol ? 1 : 0;
        above += s_p > tol ? 1 : 0;
      }
      if (on < 3 || above == 0) return;
    }
    const double size = std::min(TetSize(xa), TetSize(xb));
    SliceTet(xa, n_hat, offset, 1e-12 * TetSize(xa), &poly);
    OrderAbout(&poly, n_hat, 1e-12 * size);
    if (poly.size() < 3) return;
    ClipToTet(&poly, xb, n_hat, 1e-12 * size, &scratch);
    ContactFace face;
    if (MakeFace(poly, n_hat, a.field, ta, TangentSnapped(grad_b.dot(n_hat), grad_b.norm()), tb,
                 X_WA, size, &face))
      out.faces.push_back(std::move(face));
  });
  return out;
}

ContactSurface Swapped(const ContactSurface& s) {
  ContactSurface out;
  out.geom_a = s.geom_b;
  out.geom_b = s.geom_a;
  out.faces = s.faces;
  for (ContactFace& f : out.faces) {
    std::reverse(f.polygon.begin(), f.polygon.end());
    std::reverse(f.pressure.begin(), f.pressure.end());
    f.normal = -f.normal;
    std::swap(f.g_a, f.g_b);
    std::swap(f.tet_a, f.tet_b);
  }
  return out;
}

HydroelasticShape MakeHydroelasticShape(const Shape& shape, bool compliant, double modulus,
                                        double resolution) {
  HydroelasticShape out;
  if (compliant) {
    out.compliant = MakeCompliantGeometry(shape, modulus, resolution);
  } else if (shape.type == ShapeType::kHalfSpace) {
    out.half_space = true;
  } else {
    out.rigid = MakeRigidSurface(shape, resolution);
  }
  return out;
}

ContactSurface ComputeContactSurface(const HydroelasticShape& a, const Pose& X_WA, int geom_a,
                                     const HydroelasticShape& b, const Pose& X_WB, int geom_b) {
  ContactSurface out;
  if (a.is_compliant() && b.is_compliant()) {
    out = ComputeContactSurfaceCompliant(*a.compliant, X_WA, *b.compliant, X_WB);
  } else if (a.is_compliant()) {
    out = b.half_space ? ComputeContactSurfaceHalfSpace(*a.compliant, X_WA, X_WB)
                       : ComputeContactSurfaceRigid(*a.compliant, X_WA, b.rigid, X_WB);
  } else if (b.is_compliant()) {
    out = Swapped(a.half_space ? ComputeContactSurfaceHalfSpace(*b.compliant, X_WB, X_WA)
                               : ComputeContactSurfaceRigid(*b.compliant, X_WB, a.rigid, X_WA));
  }
  out.geom_a = geom_a;
  out.geom_b = geom_b;
  return out;
}

}  // namespace contactlab
