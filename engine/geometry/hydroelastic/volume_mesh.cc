#include "engine/geometry/hydroelastic/volume_mesh.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace contactlab {
namespace {

// Refinement stops before a level that would exceed this many tets.
constexpr int kMaxRefinedTets = 200000;
constexpr double kMaxEstimatedTets = 4e6;

double SignedVolume(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  return (b - a).dot((c - a).cross(d - a)) / 6.0;
}

// Vertices merged by position: points closer than `tol` share one index. A hash grid of cell
// size 4·tol, searched in the 27 neighbouring cells.
class VertexPool {
 public:
  VertexPool(VolumeMesh* mesh, double scale)
      : mesh_(mesh), tol_(1e-9 * scale), cell_(4e-9 * scale) {}

  int Add(const Vec3& x, double extent) {
    const long long ix = static_cast<long long>(std::floor(x.x() / cell_));
    const long long iy = static_cast<long long>(std::floor(x.y() / cell_));
    const long long iz = static_cast<long long>(std::floor(x.z() / cell_));
    for (long long dx = -1; dx <= 1; ++dx)
      for (long long dy = -1; dy <= 1; ++dy)
        for (long long dz = -1; dz <= 1; ++dz) {
          auto it = grid_.find(Key(ix + dx, iy + dy, iz + dz));
          if (it == grid_.end()) continue;
          for (int v : it->second)
            if ((mesh_->vertices[v] - x).norm() <= tol_) return v;
        }
    const int id = static_cast<int>(mesh_->vertices.size());
    mesh_->vertices.push_back(x);
    mesh_->extent.push_back(extent);
    grid_[Key(ix, iy, iz)].push_back(id);
    return id;
  }

 private:
  static unsigned long long Key(long long x, long long y, long long z) {
    const unsigned long long m = (1ull << 21) - 1;
    return ((static_cast<unsigned long long>(x) & m) << 42) |
           ((static_cast<unsigned long long>(y) & m) << 21) |
           (static_cast<unsigned long long>(z) & m);
  }
  VolumeMesh* mesh_;
  double tol_, cell_;
  std::unordered_map<unsigned long long, std::vector<int>> grid_;
};

// Appends tet (a, b, c, d) positively oriented; drops it when degenerate (repeated vertex or
// volume below `min_volume`).
void AddTet(VolumeMesh* mesh, int a, int b, int c, int d, double min_volume) {
  if (a == b || a == c || a == d || b == c || b == d || c == d) return;
  const auto& v = mesh->vertices;
  const double vol = SignedVolume(v[a], v[b], v[c], v[d]);
  if (std::abs(vol) <= min_volume) return;
  if (vol > 0)
    mesh->tets.push_back({a, b, c, d});
  else
    mesh->tets.push_back({a, c, b, d});
}

// ---- Medial-axis meshes of convex polytopes with a uniform inward offset (box, prism) ----

// A patch of a face of the outer polytope: corners V (in cyclic order), their images W on the
// polytope offset inward by the maximal depth m (the affine map taking the face onto its inner
// face), and the face's plane n·x = offset (n outward).
struct OffsetFace {
  std::vector<Vec3> outer, inner;
  Vec3 normal;
  double offset = 0;
};

// The region of a face (the points whose nearest face it is) is the convex hull of the face and
// its inner face, bounded by the quads (V_i, V_i+1, W_i+1, W_i) on the bisector planes with the
// neighbouring faces; the patches of a face cut it into frustums (patch, image), whose side quads
// are planar (each patch edge is parallel to its image). Every frustum polygon is split into
// triangles around its corner average (the same points on both sides of a shared polygon, so the
// mesh conforms), and the frustum is a fan of tets from its own corner average. In the region,
// e = (offset − n·x)/m: the normalized distance to the face, linear.
VolumeMesh MakeOffsetPolytopeMesh(const std::vector<OffsetFace>& faces, double depth,
                                  double scale) {
  VolumeMesh mesh;
  VertexPool pool(&mesh, scale);
  const double min_volume = 1e-12 * scale * scale * scale;
  for (const OffsetFace& f : faces) {
    auto extent = [&](const Vec3& x) {
      return std::clamp((f.offset - f.normal.dot(x)) / depth, 0.0, 1.0);
    };
    const int k = static_cast<int>(f.outer.size());
    std::vector<std::vector<Vec3>> polygons;
    polygons.push_back(f.outer);
    polygons.push_back(f.inner);
    for (int i = 0; i < k; ++i) {
      const int j = (i + 1) % k;
      polygons.push_back({f.outer[i], f.outer[j], f.inner[j], f.inner[i]});
    }
    Vec3 centre = Vec3::Zero();
    for (int i = 0; i < k; ++i) centre += f.outer[i] + f.inner[i];
    centre /= 2.0 * k;
    const int c = pool.Add(centre, extent(centre));
    for (const auto& poly : polygons) {
      Vec3 mid = Vec3::Zero();
      for (const Vec3& x : poly) mid += x;
      mid /= static_cast<double>(poly.size());
      const int m = pool.Add(mid, extent(mid));
      const int n = static_cast<int>(poly.size());
      for (int i = 0; i < n; ++i) {
        const int a = pool.Add(poly[i], extent(poly[i]));
        const int b = pool.Add(poly[(i + 1) % n], extent(poly[(i + 1) % n]));
        AddTet(&mesh, c, m, a, b, min_volume);
      }
    }
  }
  return mesh;
}

// ---- Shell meshes around a medial set (sphere, capsule) ----

// Unit-sphere triangulation: the octahedron with each face cut into n² triangles, projected.
// Grid points are computed coordinate by coordinate so shared edges give identical values.
struct SurfaceMesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;  // CCW from outside
};

SurfaceMesh OctahedronSphere(int n) {
  SurfaceMesh s;
  VolumeMesh scratch;  // a VertexPool needs a mesh to hold the positions
  VertexPool pool(&scratch, 1.0);
  for (int sx : {-1, 1})
    for (int sy : {-1, 1})
      for (int sz : {-1, 1}) {
        std::vector<std::vector<int>> id(n + 1, std::vector<int>(n + 1, -1));
        for (int i = 0; i <= n; ++i)
          for (int j = 0; i + j <= n; ++j) {
            const int k = n - i - j;
            Vec3 p(sx * static_cast<double>(i) / n, sy * static_cast<double>(j) / n,
                   sz * static_cast<double>(k) / n);
            id[i][j] = pool.Add(p.normalized(), 0.0);
          }
        auto add = [&](int a, int b, int c) {
          const Vec3& pa = scratch.vertices[a];
          const Vec3 nrm = (scratch.vertices[b] - pa).cross(scratch.vertices[c] - pa);
          if (nrm.dot(pa + scratch.vertices[b] + scratch.vertices[c]) < 0) std::swap(b, c);
          s.triangles.push_back({a, b, c});
        };
        for (int i = 0; i < n; ++i)
          for (int j = 0; i + j < n; ++j) {
            add(id[i][j], id[i + 1][j], id[i][j + 1]);
            if (i + j + 1 < n) add(id[i + 1][j], id[i + 1][j + 1], id[i][j + 1]);
          }
      }
  s.vertices = scratch.vertices;
  return s;
}

// A triangular prism given by vertex ids, bottom (b) and top (t), with an order key per
// cross-section vertex.
struct Prism {
  std::array<int, 3> b, t;
  std::array<long long, 3> key;
};

// Cuts a prism into three tets. Every side quad gets the diagonal from the lower-key vertex's
// bottom to the higher-key vertex's top, so prisms sharing a quad agree.
void AddPrism(VolumeMesh* mesh, Prism p, double min_volume) {
  std::array<int, 3> o = {0, 1, 2};
  std::sort(o.begin(), o.end(), [&](int x, int y) { return p.key[x] < p.key[y]; });
  const int b0 = p.b[o[0]], b1 = p.b[o[1]], b2 = p.b[o[2]];
  const int t0 = p.t[o[0]], t1 = p.t[o[1]], t2 = p.t[o[2]];
  AddTet(mesh, b0, b1, b2, t2, min_volume);
  AddTet(mesh, b0, b1, t1, t2, min_volume);
  AddTet(mesh, b0, t0, t1, t2, min_volume);
}

// L shells between each surface vertex S_s and its core point C_s (on the medial set): shell k
// holds C_s + (k/L)(S_s − C_s) with e = 1 − k/L. Each prism between shells is cut into three
// tets by AddPrism with the surface vertex index as key (shell k is the bottom). Between shell 0
// and shell 1, a triangle whose three vertices share one core point (a sphere's centre, a
// capsule's cap centre) collapses to a cone of one tet; the other triangles (`columns[t]` true)
// are skipped and their inner layer is left to the caller (`id` gives it the vertices).
struct ShellMesh {
  VolumeMesh mesh;
  std::vector<int> id;  // mesh vertex of (surface vertex s, shell k): id[k * ns + s]
};

ShellMesh MakeShellMesh(const SurfaceMesh& surface, const std::vector<Vec3>& core, int layers,
                        double scale, const std::vector<bool>& columns) {
  ShellMesh out;
  VertexPool pool(&out.mesh, scale);
  const double min_volume = 1e-12 * scale * scale * scale;
  const int ns = static_cast<int>(surface.vertices.size());
  out.id.resize(static_cast<size_t>(ns) * (layers + 1));
  for (int k = 0; k <= layers; ++k) {
    const double t = static_cast<double>(k) / layers;
    for (int s = 0; s < ns; ++s) {
      const Vec3 x =
          k == layers ? surface.vertices[s] : Vec3(core[s] + t * (surface.vertices[s] - core[s]));
      out.id[static_cast<size_t>(k) * ns + s] = pool.Add(x, 1.0 - t);
    }
  }
  auto at = [&](int s, int layer) { return out.id[static_cast<size_t>(layer) * ns + s]; };
  for (size_t tri = 0; tri < surface.triangles.size(); ++tri) {
    const auto& v = surface.triangles[tri];
    for (int k = columns[tri] ? 1 : 0; k < layers; ++k)
      AddPrism(&out.mesh,
               Prism{{at(v[0], k), at(v[1], k), at(v[2], k)},
                     {at(v[0], k + 1), at(v[1], k + 1), at(v[2], k + 1)},
                     {v[0], v[1], v[2]}},
               min_volume);
  }
  return out;
}

void CheckPositive(double value, const char* what) {
  if (!(value > 0) || !std::isfinite(value))
    throw std::invalid_argument(std::string("hydroelastic mesh: ") + what + " must be > 0 (got " +
                                std::to_string(value) + ")");
}

}  // namespace

double VolumeMesh::TetVolume(int t) const {
  const auto& q = tets[t];
  return SignedVolume(vertices[q[0]], vertices[q[1]], vertices[q[2]], vertices[q[3]]);
}

double VolumeMesh::TotalVolume() const {
  double v = 0;
  for (int t = 0; t < num_tets(); ++t) v += TetVolume(t);
  return v;
}

Vec3 VolumeMesh::ExtentGradient(int t) const {
  const auto& q = tets[t];
  Mat3 d;
  d.row(0) = (vertices[q[1]] - vertices[q[0]]).transpose();
  d.row(1) = (vertices[q[2]] - vertices[q[0]]).transpose();
  d.row(2) = (vertices[q[3]] - vertices[q[0]]).transpose();
  const Vec3 de(extent[q[1]] - extent[q[0]], extent[q[2]] - extent[q[0]],
                extent[q[3]] - extent[q[0]]);
  return d.partialPivLu().solve(de);
}

Eigen::Vector4d VolumeMesh::Barycentric(int t, const Vec3& x) const {
  const auto& q = tets[t];
  Mat3 d;
  d.col(0) = vertices[q[1]] - vertices[q[0]];
  d.col(1) = vertices[q[2]] - vertices[q[0]];
  d.col(2) = vertices[q[3]] - vertices[q[0]];
  const Vec3 l = d.partialPivLu().solve(x - vertices[q[0]]);
  return Eigen::Vector4d(1.0 - l.sum(), l.x(), l.y(), l.z());
}

double VolumeMesh::MaxEdgeLength() const {
  double longest = 0;
  for (const auto& q : tets)
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j)
        longest = std::max(longest, (vertices[q[i]] - vertices[q[j]]).norm());
  return longest;
}

std::vector<std::array<int, 3>> VolumeMesh::BoundaryFaces() const {
  std::map<std::array<int, 3>, std::pair<int, std::array<int, 3>>> count;
  for (const auto& q : tets) {
    const std::array<std::array<int, 3>, 4> faces = {
        {{q[1], q[2], q[3]}, {q[0], q[3], q[2]}, {q[0], q[1], q[3]}, {q[0], q[2], q[1]}}};
    for (const auto& f : faces) {
      std::array<int, 3> key = f;
      std::sort(key.begin(), key.end());
      auto& entry = count[key];
      ++entry.first;
      entry.second = f;
    }
  }
  std::vector<std::array<int, 3>> boundary;
  for (const auto& [key, entry] : count)
    if (entry.first == 1) boundary.push_back(entry.second);
  return boundary;
}

VolumeMesh RefineUniform(const VolumeMesh& mesh) {
  VolumeMesh out;
  out.vertices = mesh.vertices;
  out.extent = mesh.extent;
  std::map<std::pair<int, int>, int> midpoint;
  auto mid = [&](int a, int b) {
    const std::pair<int, int> key(std::min(a, b), std::max(a, b));
    auto it = midpoint.find(key);
    if (it != midpoint.end()) return it->second;
    const int id = static_cast<int>(out.vertices.size());
    out.vertices.push_back(0.5 * (mesh.vertices[a] + mesh.vertices[b]));
    out.extent.push_back(0.5 * (mesh.extent[a] + mesh.extent[b]));
    midpoint.emplace(key, id);
    return id;
  };
  for (const auto& q : mesh.tets) {
    const int m01 = mid(q[0], q[1]), m02 = mid(q[0], q[2]), m03 = mid(q[0], q[3]);
    const int m12 = mid(q[1], q[2]), m13 = mid(q[1], q[3]), m23 = mid(q[2], q[3]);
    AddTet(&out, q[0], m01, m02, m03, 0.0);
    AddTet(&out, m01, q[1], m12, m13, 0.0);
    AddTet(&out, m02, m12, q[2], m23, 0.0);
    AddTet(&out, m03, m13, m23, q[3], 0.0);
    // Inner octahedron around its shortest diagonal; ring = the other four in cyclic order.
    auto len = [&](int a, int b) { return (out.vertices[a] - out.vertices[b]).squaredNorm(); };
    const double d0 = len(m01, m23), d1 = len(m02, m13), d2 = len(m03, m12);
    int p, r;
    std::array<int, 4> ring;
    if (d0 <= d1 && d0 <= d2) {
      p = m01;
      r = m23;
      ring = {m02, m12, m13, m03};
    } else if (d1 <= d2) {
      p = m02;
      r = m13;
      ring = {m01, m12, m23, m03};
    } else {
      p = m03;
      r = m12;
      ring = {m01, m02, m23, m13};
    }
    for (int i = 0; i < 4; ++i) AddTet(&out, p, r, ring[i], ring[(i + 1) % 4], 0.0);
  }
  return out;
}

VolumeMesh RefineToResolution(VolumeMesh mesh, double resolution, int max_levels) {
  for (int level = 0; level < max_levels; ++level) {
    if (mesh.MaxEdgeLength() <= resolution) break;
    if (8.0 * mesh.num_tets() > kMaxRefinedTets) break;
    mesh = RefineUniform(mesh);
  }
  return mesh;
}

VolumeMesh MakeSphereVolumeMesh(double radius, double resolution) {
  CheckPositive(radius, "sphere radius");
  CheckPositive(resolution, "resolution");
  // Octahedron edge (a quarter great circle, πR/2) cut into n chords of about h; L shells h apart.
  const int n = std::max(1, static_cast<int>(std::ceil(0.5 * kPi * radius / resolution)));
  const int layers = std::max(1, static_cast<int>(std::ceil(radius / resolution)));
  SurfaceMesh s = OctahedronSphere(n);
  for (Vec3& v : s.vertices) v *= radius;
  return MakeShellMesh(s, std::vector<Vec3>(s.vertices.size(), Vec3::Zero()), layers, radius,
                       std::vector<bool>(s.triangles.size(), false))
      .mesh;
}

VolumeMesh MakeCapsuleVolumeMesh(double radius, double half_length, double resolution) {
  CheckPositive(radius, "capsule radius");
  CheckPositive(resolution, "resolution");
  if (!(half_length >= 0))
    throw std::invalid_argument("hydroelastic mesh: capsule half_length must be >= 0");
  const int n = std::max(1, static_cast<int>(std::ceil(0.5 * kPi * radius / resolution)));
  const int layers = std::max(1, static_cast<int>(std::ceil(radius / resolution)));
  const int rows =
      half_length > 0 ? std::max(1, static_cast<int>(std::ceil(2 * half_length / resolution))) : 0;
  const SurfaceMesh unit = OctahedronSphere(n);
  SurfaceMesh s;
  std::vector<Vec3> core;
  // Caps: hemisphere vertices shifted by ±l. Equator vertices (z == 0 exactly) get one copy per
  // row of the cylinder band, z from −l (row 0) to +l (row `rows`).
  std::vector<int> cap_id(unit.vertices.size(), -1);
  std::vector<int> equator;  // unit indices
  for (size_t i = 0; i < unit.vertices.size(); ++i) {
    const Vec3& u = unit.vertices[i];
    if (u.z() == 0) {
      equator.push_back(static_cast<int>(i));
      continue;
    }
    const double zc = u.z() > 0 ? half_length : -half_length;
    cap_id[i] = static_cast<int>(s.vertices.size());
    s.vertices.push_back(radius * u + Vec3(0, 0, zc));
    core.push_back(Vec3(0, 0, zc));
  }
  std::sort(equator.begin(), equator.end(), [&](int a, int b) {
    return std::atan2(unit.vertices[a].y(), unit.vertices[a].x()) <
           std::atan2(unit.vertices[b].y(), unit.vertices[b].x());
  });
  std::map<int, std::vector<int>> band;  // unit index → surface id per row
  for (int e : equator) {
    auto& ids = band[e];
    for (int r = 0; r <= rows; ++r) {
      const double z = rows > 0 ? -half_length + 2.0 * half_length * r / rows : 0.0;
      ids.push_back(static_cast<int>(s.vertices.size()));
      s.vertices.push_back(Vec3(radius * unit.vertices[e].x(), radius * unit.vertices[e].y(), z));
      core.push_back(Vec3(0, 0, z));
    }
  }
  auto add = [&](int a, int b, int c, const Vec3& inside) {
    const Vec3& pa = s.vertices[a];
    const Vec3 nrm = (s.vertices[b] - pa).cross(s.vertices[c] - pa);
    if (nrm.dot(pa - inside) < 0) std::swap(b, c);
    s.triangles.push_back({a, b, c});
  };
  for (const auto& t : unit.triangles) {
    double zsum = 0;
    for (int i : t) zsum += unit.vertices[i].z();
    const bool upper = zsum > 0;
    std::array<int, 3> ids;
    for (int k = 0; k < 3; ++k) {
      const int i = t[k];
      ids[k] = cap_id[i] >= 0 ? cap_id[i] : band[i][upper ? rows : 0];
    }
    add(ids[0], ids[1], ids[2], Vec3(0, 0, upper ? half_length : -half_length));
  }
  // Band quads between ring positions lo < hi (cyclic neighbours) and rows r, r + 1, cut along
  // lo_r – hi_{r+1} (the diagonal AddPrism gives the column prisms below).
  const int ne = static_cast<int>(equator.size());
  std::vector<bool> columns(s.triangles.size(), false);
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < ne; ++i) {
      const int lo = std::min(i, (i + 1) % ne), hi = std::max(i, (i + 1) % ne);
      const auto& e0 = band[equator[lo]];
      const auto& e1 = band[equator[hi]];
      const Vec3 axis(0, 0, s.vertices[e0[r]].z());
      add(e0[r], e1[r], e1[r + 1], axis);
      add(e0[r], e1[r + 1], e0[r + 1], axis);
      columns.push_back(true);
      columns.push_back(true);
    }
  ShellMesh shells = MakeShellMesh(s, core, layers, radius + half_length, columns);
  // The band's inner layer: between the axis and shell 1 the band is a ring of triangular
  // prisms (axis, ring lo, ring hi) × (row r, row r + 1), not a collapsed shell. Keys: the axis
  // first, then the ring position.
  const int ns = static_cast<int>(s.vertices.size());
  auto at = [&](int sid, int layer) { return shells.id[static_cast<size_t>(layer) * ns + sid]; };
  const double scale = radius + half_length;
  const double min_volume = 1e-12 * scale * scale * scale;
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < ne; ++i) {
      const int lo = std::min(i, (i + 1) % ne), hi = std::max(i, (i + 1) % ne);
      const auto& e0 = band[equator[lo]];
      const auto& e1 = band[equator[hi]];
      AddPrism(&shells.mesh,
               Prism{{at(e0[r], 0), at(e0[r], 1), at(e1[r], 1)},
                     {at(e0[r + 1], 0), at(e0[r + 1], 1), at(e1[r + 1], 1)},
                     {-1, lo, hi}},
               min_volume);
    }
  return std::move(shells.mesh);
}

// Number of pieces of at most `resolution` that cut `length`.
static int Cells(double length, double resolution) {
  return std::max(1, static_cast<int>(std::ceil(length / resolution - 1e-9)));
}

VolumeMesh MakeBoxVolumeMesh(const Vec3& half_extents, double resolution) {
  CheckPositive(half_extents.minCoeff(), "box half extents");
  CheckPositive(resolution, "resolution");
  const double m = half_extents.minCoeff();
  const Vec3 inner = half_extents - Vec3::Constant(m);
  // Each face is cut into a grid of patches at most h on a side (a count per box edge, so
  // neighbouring faces cut their shared edge alike); a patch's inner image is the patch scaled
  // onto the inner box (the affine map from a face to its inner face).
  std::vector<OffsetFace> faces;
  for (int axis = 0; axis < 3; ++axis)
    for (int sign : {-1, 1}) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      const int nu = Cells(2 * half_extents[u], resolution);
      const int nv = Cells(2 * half_extents[v], resolution);
      auto outer = [&](int i, int j) {
        Vec3 o;
        o[axis] = sign * half_extents[axis];
        o[u] = -half_extents[u] + 2 * half_extents[u] * i / nu;
        o[v] = -half_extents[v] + 2 * half_extents[v] * j / nv;
        return o;
      };
      auto image = [&](const Vec3& o) {
        Vec3 w;
        for (int k = 0; k < 3; ++k) w[k] = o[k] * inner[k] / half_extents[k];
        return w;
      };
      for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
          OffsetFace f;
          f.normal = Vec3::Zero();
          f.normal[axis] = sign;
          f.offset = half_extents[axis];
          f.outer = {outer(i, j), outer(i + 1, j), outer(i + 1, j + 1), outer(i, j + 1)};
          for (const Vec3& o : f.outer) f.inner.push_back(image(o));
          faces.push_back(f);
        }
    }
  return MakeOffsetPolytopeMesh(faces, m, half_extents.norm());
}

VolumeMesh MakeCylinderVolumeMesh(double radius, double half_length, double resolution) {
  CheckPositive(radius, "cylinder radius");
  CheckPositive(half_length, "cylinder half_length");
  CheckPositive(resolution, "resolution");
  const int sides = std::max(8, static_cast<int>(std::ceil(2 * kPi * radius / resolution)));
  const double r_in = radius * std::cos(kPi / sides);  // inradius of the N-gon
  const double m = std::min(r_in, half_length);
  const double shrink = (r_in - m) / r_in;
  const double zi = half_length - m;
  std::vector<Vec3> ring(sides);
  for (int i = 0; i < sides; ++i) {
    const double a = 2 * kPi * i / sides;
    ring[i] = Vec3(radius * std::cos(a), radius * std::sin(a), 0);
  }
  // The inner prism is the N-gon scaled by `shrink` with half-height zi: the affine map
  // (x, y, z) ↦ (shrink x, shrink y, z zi / l) takes every face onto its inner face.
  auto image = [&](const Vec3& o) {
    return Vec3(shrink * o.x(), shrink * o.y(), o.z() * zi / half_length);
  };
  // Patches at most h on a side: each ring edge and each cap radius is cut into k pieces, the
  // height into nz; a cap is a fan of N triangles from its centre, each cut into k² triangles.
  const double chord = (ring[1] - ring[0]).norm();
  const int k = std::max(Cells(chord, resolution), Cells(radius, resolution));
  const int nz = Cells(2 * half_length, resolution);
  std::vector<OffsetFace> faces;
  auto add = [&](const Vec3& normal, double offset, std::vector<Vec3> outer) {
    OffsetFace f;
    f.normal = normal;
    f.offset = offset;
    for (const Vec3& o : outer) f.inner.push_back(image(o));
    f.outer = std::move(outer);
    faces.push_back(std::move(f));
  };
  for (int i = 0; i < sides; ++i) {
    const int j = (i + 1) % sides;
    const double a = 2 * kPi * (i + 0.5) / sides;
    const Vec3 normal(std::cos(a), std::sin(a), 0);
    auto at = [&](int s, int t) {
      const Vec3 xy = ring[i] + (ring[j] - ring[i]) * (static_cast<double>(s) / k);
      return Vec3(xy.x(), xy.y(), -half_length + 2 * half_length * t / nz);
    };
    for (int s = 0; s < k; ++s)
      for (int t = 0; t < nz; ++t)
        add(normal, r_in, {at(s, t), at(s + 1, t), at(s + 1, t + 1), at(s, t + 1)});
  }
  for (int sign : {-1, 1}) {
    const Vec3 centre(0, 0, sign * half_length);
    for (int i = 0; i < sides; ++i) {
      const Vec3 p = ring[i] + centre, q = ring[(i + 1) % sides] + centre;
      // Barycentric grid: point (s, t) = centre + (s/k)(p − centre) + (t/k)(q − centre).
      auto at = [&](int s, int t) {
        return Vec3(centre + (p - centre) * (static_cast<double>(s) / k) +
                    (q - centre) * (static_cast<double>(t) / k));
      };
      for (int s = 0; s < k; ++s)
        for (int t = 0; s + t < k; ++t) {
          add(Vec3(0, 0, sign), half_length, {at(s, t), at(s + 1, t), at(s, t + 1)});
          if (s + t + 1 < k)
            add(Vec3(0, 0, sign), half_length, {at(s + 1, t), at(s + 1, t + 1), at(s, t + 1)});
        }
    }
  }
  return MakeOffsetPolytopeMesh(faces, m, radius + half_length);
}

VolumeMesh MakeConvexVolumeMesh(const ConvexHull& hull, double resolution) {
  CheckPositive(resolution, "resolution");
  if (hull.vertices.size() < 4 || hull.faces.empty())
    throw std::invalid_argument("hydroelastic mesh: convex mesh '" + hull.source +
                                "' has no volume (fewer than 4 vertices or no faces)");
  VolumeMesh mesh;
  Vec3 centre = Vec3::Zero();
  double scale = 0;
  for (const Vec3& v : hull.vertices) centre += v;
  centre /= static_cast<double>(hull.vertices.size());
  for (const Vec3& v : hull.vertices) scale = std::max(scale, (v - centre).norm());
  mesh.vertices = hull.vertices;
  mesh.extent.assign(hull.vertices.size(), 0.0);
  const int c = static_cast<int>(mesh.vertices.size());
  mesh.vertices.push_back(centre);
  mesh.extent.push_back(1.0);
  const double min_volume = 1e-12 * scale * scale * scale;
  for (const auto& face : hull.faces)
    for (size_t i = 1; i + 1 < face.size(); ++i)
      AddTet(&mesh, c, face[0], face[i], face[i + 1], min_volume);
  if (mesh.tets.empty())
    throw std::invalid_argument("hydroelastic mesh: convex mesh '" + hull.source + "' is flat");
  return RefineToResolution(std::move(mesh), resolution);
}

// Refuses resolutions that would build millions of tets (memory and time) before building:
// the estimate 24 Π max(extent_i, h) / h³ bounds the builders' counts measured in
// tests/test_hydroelastic.cc (e.g. 82 000 against 29 744 for a sphere at h = R/8).
std::string VolumeMeshSizeError(const Shape& shape, double resolution) {
  if (shape.type != ShapeType::kHalfSpace && resolution > 0 && std::isfinite(resolution)) {
    Vec3 ext;
    switch (shape.type) {
      case ShapeType::kSphere: ext = Vec3::Constant(2 * shape.radius); break;
      case ShapeType::kBox: ext = 2 * shape.half_extents; break;
      case ShapeType::kCylinder:
      case ShapeType::kCapsule:
        ext = Vec3(2 * shape.radius, 2 * shape.radius,
                   2 * shape.half_length + (shape.type == ShapeType::kCapsule ? 2 * shape.radius : 0));
        break;
      default: {
        Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();
        if (shape.hull && !shape.hull->vertices.empty()) {
          lo = hi = shape.hull->vertices.front();
          for (const Vec3& p : shape.hull->vertices) {
            lo = lo.cwiseMin(p);
            hi = hi.cwiseMax(p);
          }
        }
        ext = hi - lo;
      }
    }
    double estimate = 24;
    for (int i = 0; i < 3; ++i) estimate *= std::max(ext[i], resolution) / resolution;
    if (estimate > kMaxEstimatedTets) {
      std::ostringstream os;
      os << "hydroelastic mesh: resolution " << resolution << " m is too fine for a "
         << ShapeTypeName(shape.type) << " of extents " << ext.x() << " x " << ext.y() << " x "
         << ext.z() << " m (about " << static_cast<long long>(estimate)
         << " tets estimated, limit " << static_cast<long long>(kMaxEstimatedTets)
         << "); use a resolution of at least about "
         << std::cbrt(24 * ext.prod() / kMaxEstimatedTets) << " m";
      return os.str();
    }
  }
  return {};
}

VolumeMesh MakeVolumeMesh(const Shape& shape, double resolution) {
  if (const std::string why = VolumeMeshSizeError(shape, resolution); !why.empty()) {
    throw std::invalid_argument(why);
  }
  switch (shape.type) {
    case ShapeType::kSphere:
      return MakeSphereVolumeMesh(shape.radius, resolution);
    case ShapeType::kBox:
      return MakeBoxVolumeMesh(shape.half_extents, resolution);
    case ShapeType::kCylinder:
      return MakeCylinderVolumeMesh(shape.radius, shape.half_length, resolution);
    case ShapeType::kCapsule:
      return MakeCapsuleVolumeMesh(shape.radius, shape.half_length, resolution);
    case ShapeType::kConvexMesh:
      if (!shape.hull) throw std::invalid_argument("hydroelastic mesh: convex mesh without a hull");
      return MakeConvexVolumeMesh(*shape.hull, resolution);
    case ShapeType::kHalfSpace:
      break;
  }
  throw std::invalid_argument("hydroelastic mesh: a half-space cannot be compliant (no volume)");
}

PressureField::PressureField(VolumeMesh mesh, double modulus)
    : mesh_(std::move(mesh)), modulus_(modulus) {
  if (!(modulus > 0) || !std::isfinite(modulus))
    throw std::invalid_argument("hydroelastic: modulus must be > 0 (got " +
                                std::to_string(modulus) + ")");
  gradient_.resize(mesh_.tets.size());
  p_at_origin_.resize(mesh_.tets.size());
  for (int t = 0; t < mesh_.num_tets(); ++t) {
    gradient_[t] = modulus_ * mesh_.ExtentGradient(t);
    const int v0 = mesh_.tets[t][0];
    p_at_origin_[t] = VertexPressure(v0) - gradient_[t].dot(mesh_.vertices[v0]);
  }
}

}  // namespace contactlab
