#include "app/mesh_loader.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace contactlab {
namespace {

// Hull of `points`; on failure throws std::runtime_error with `what` as the message prefix.
std::shared_ptr<ConvexHull> BuildHull(const std::vector<Vec3>& points, const std::string& what) {
  if (points.size() < 4) {
    throw std::runtime_error(what + ": degenerate hull (fewer than 4 points)");
  }
  // Reject flat or degenerate input before Qhull: the point cloud must span a volume. The
  // smallest singular value of the centered points, relative to the largest, measures flatness.
  Vec3 mean = Vec3::Zero();
  for (const Vec3& p : points) mean += p;
  mean /= static_cast<double>(points.size());
  Mat3 cov = Mat3::Zero();
  for (const Vec3& p : points) cov += (p - mean) * (p - mean).transpose();
  Eigen::SelfAdjointEigenSolver<Mat3> eig(cov);
  Vec3 ev = eig.eigenvalues().cwiseMax(0.0);  // ascending
  if (!(ev[2] > 0) || std::sqrt(ev[0] / ev[2]) < 1e-6) {
    throw std::runtime_error(what + ": degenerate hull (points are flat, collinear or coincident)");
  }

  std::vector<coordT> coords;
  coords.reserve(points.size() * 3);
  for (const Vec3& p : points) {
    coords.push_back(p.x());
    coords.push_back(p.y());
    coords.push_back(p.z());
  }
  qhT qh_storage;
  qhT* qh = &qh_storage;
  // Qhull's messages go to a scratch file so that a failure can be reported in the exception.
  FILE* err = std::tmpfile();
  FILE* errout = err ? err : stderr;
  QHULL_LIB_CHECK
  qh_zero(qh, errout);
  // Default options merge coplanar facets (pre-merge by centrum, C-0), giving polygonal faces.
  char options[] = "qhull";
  int code = qh_new_qhull(qh, 3, static_cast<int>(points.size()), coords.data(), False, options,
                          nullptr, errout);
  auto hull = std::make_shared<ConvexHull>();
  if (code == 0) {
    std::map<int, int> index_of;  // Qhull point id -> hull vertex index
    vertexT* vertex;
    FORALLvertices {
      int id = qh_pointid(qh, vertex->point);
      index_of[id] = 0;
    }
    for (auto& [id, idx] : index_of) {
      idx = static_cast<int>(hull->vertices.size());
      hull->vertices.push_back(points[id]);
    }
    facetT* facet;
    FORALLfacets {
      Vec3 n(facet->normal[0], facet->normal[1], facet->normal[2]);
      n.normalize();
      std::vector<int> face;
      vertexT** vertexp;
      FOREACHvertex_(facet->vertices) {
        face.push_back(index_of[qh_pointid(qh, vertex->point)]);
      }
      // Order the face's vertices CCW about the outward normal.
      Vec3 c = Vec3::Zero();
      for (int i : face) c += hull->vertices[i];
      c /= static_cast<double>(face.size());
      Vec3 u = AnyOrthogonal(n), w = n.cross(u);
      std::vector<std::pair<double, int>> by_angle;
      for (int i : face) {
        Vec3 d = hull->vertices[i] - c;
        by_angle.emplace_back(std::atan2(d.dot(w), d.dot(u)), i);
      }
      std::sort(by_angle.begin(), by_angle.end());
      face.clear();
      for (const auto& [angle, i] : by_angle) face.push_back(i);
      hull->faces.push_back(face);
      hull->face_normals.push_back(n);
    }
  }
  std::string message;
  if (code != 0 && err) {
    std::rewind(err);
    char buf[256];
    size_t got = std::fread(buf, 1, sizeof(buf) - 1, err);
    buf[got] = '\0';
    message = buf;
    size_t eol = message.find('\n');
    if (eol != std::string::npos) message.resize(eol);
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong, totlong;
  qh_memfreeshort(qh, &curlong, &totlong);
  if (err) std::fclose(err);
  if (code != 0) throw std::runtime_error(what + ": convex hull failed (" + message + ")");
  return hull;
}

// Volume of a hull from its oriented faces (fan triangulation about the vertex centroid).
double HullVolume(const ConvexHull& h) {
  Vec3 o = Vec3::Zero();
  for (const Vec3& v : h.vertices) o += v;
  o /= static_cast<double>(h.vertices.size());
  double volume = 0;
  for (const auto& face : h.faces) {
    for (size_t k = 1; k + 1 < face.size(); ++k) {
      volume += (h.vertices[face[0]] - o)
                    .cross(h.vertices[face[k]] - o)
                    .dot(h.vertices[face[k + 1]] - o) /
                6.0;
    }
  }
  return volume;
}

// Cache of parsed files, keyed by path, size and modification time, so that reloading a scene
// (or a scene that uses one file for many bodies) parses each file once. Bounded by entry count
// and total vertices; least recently used entries go first.
class SoupCache {
 public:
  std::shared_ptr<const TriangleSoup> Get(const std::string& path, const MeshLimits& limits) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return nullptr;
    const auto mtime = std::filesystem::last_write_time(path, ec);
    if (ec) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    for (Entry& e : entries_) {
      if (e.path == path && e.size == size && e.mtime == mtime && e.limits == limits) {
        e.last_use = ++clock_;
        return e.soup;
      }
    }
    return nullptr;
  }
  void Put(const std::string& path, const MeshLimits& limits,
           std::shared_ptr<const TriangleSoup> soup) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return;
    const auto mtime = std::filesystem::last_write_time(path, ec);
    if (ec) return;
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_back(Entry{path, size, mtime, limits, std::move(soup), ++clock_});
    size_t total = 0;
    for (const Entry& e : entries_) total += e.soup->vertices.size();
    while (entries_.size() > 1 && (entries_.size() > kMaxEntries || total > kMaxVertices)) {
      auto oldest =
          std::min_element(entries_.begin(), entries_.end(),
                           [](const Entry& a, const Entry& b) { return a.last_use < b.last_use; });
      total -= oldest->soup->vertices.size();
      entries_.erase(oldest);
    }
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
  }

 private:
  static constexpr size_t kMaxEntries = 64;
  static constexpr size_t kMaxVertices = 4'000'000;
  struct Entry {
    std::string path;
    std::uintmax_t size;
    std::filesystem::file_time_type mtime;
    MeshLimits limits;
    std::shared_ptr<const TriangleSoup> soup;
    uint64_t last_use;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

// Hulls already built from a cached file at a given scale (the soup's identity stands for the
// file's content: the soup cache hands out the same object while the file is unchanged, and the
// entry holds it, so its address is not reused). Bounded, oldest first out.
class HullCache {
 public:
  std::shared_ptr<const ConvexHull> Get(const std::shared_ptr<const TriangleSoup>& soup,
                                        const Vec3& scale) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Entry& e : entries_) {
      if (e.soup == soup && e.scale == scale) return e.hull;
    }
    return nullptr;
  }
  void Put(std::shared_ptr<const TriangleSoup> soup, const Vec3& scale,
           std::shared_ptr<const ConvexHull> hull) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_back(Entry{std::move(soup), scale, std::move(hull)});
    if (entries_.size() > kMaxEntries) entries_.erase(entries_.begin());
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
  }

 private:
  static constexpr size_t kMaxEntries = 64;
  struct Entry {
    std::shared_ptr<const TriangleSoup> soup;
    Vec3 scale;
    std::shared_ptr<const ConvexHull> hull;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

HullCache& Hulls() {
  static HullCache cache;
  return cache;
}

SoupCache& Cache() {
  static SoupCache cache;
  return cache;
}

}  // namespace

std::shared_ptr<ConvexHull> MakeConvexHull(const std::vector<Vec3>& points) {
  auto hull = BuildHull(points, "convex hull");
  for (const auto& face : hull->faces) {
    for (size_t k = 1; k + 1 < face.size(); ++k) {
      hull->render_triangles.insert(hull->render_triangles.end(),
                                    {face[0], face[k], face[k + 1]});
    }
  }
  hull->render_vertices = hull->vertices;
  return hull;
}

void ClearMeshCache() {
  Cache().Clear();
  Hulls().Clear();
}

std::shared_ptr<const TriangleSoup> ReadMeshCached(const std::string& path,
                                                   const MeshLimits& limits) {
  if (auto soup = Cache().Get(path, limits)) return soup;
  auto soup = std::make_shared<const TriangleSoup>(
      limits.isolate ? ReadMeshIsolated(path, limits) : ReadMeshInProcessFromFile(path, limits));
  Cache().Put(path, limits, soup);
  return soup;
}

std::shared_ptr<ConvexHull> LoadConvexMesh(const std::string& path, const Vec3& scale,
                                           const MeshLimits& limits) {
  if (!scale.allFinite() || !(scale.minCoeff() > 0)) {
    throw MeshError(MeshErrorKind::kBadNumber, path + ": scale must be finite and positive");
  }
  std::shared_ptr<const TriangleSoup> soup = ReadMeshCached(path, limits);
  if (auto cached = Hulls().Get(soup, scale)) {
    auto copy = std::make_shared<ConvexHull>(*cached);
    copy->source = path;
    return copy;
  }
  if (soup->triangles.empty()) {
    throw MeshError(MeshErrorKind::kNoVolume, path + ": mesh has no triangles");
  }
  std::vector<Vec3> vertices;
  vertices.reserve(soup->vertices.size());
  for (const Vec3& v : soup->vertices) {
    const Vec3 w = v.cwiseProduct(scale);
    if (!(w.cwiseAbs().maxCoeff() <= limits.max_scaled_coordinate)) {
      std::ostringstream msg;
      msg << path << ": vertex (" << v.x() << ", " << v.y() << ", " << v.z() << ") scaled by ("
          << scale.x() << ", " << scale.y() << ", " << scale.z() << ") lies beyond ±"
          << limits.max_scaled_coordinate << " m (the mesh extent limit)";
      throw MeshError(MeshErrorKind::kLimit, msg.str());
    }
    vertices.push_back(w);
  }
  // Only vertices used by triangles go into the hull.
  std::vector<bool> used(vertices.size(), false);
  for (int i : soup->triangles) used[i] = true;
  std::vector<Vec3> points;
  for (size_t i = 0; i < vertices.size(); ++i) {
    if (used[i]) points.push_back(vertices[i]);
  }
  std::shared_ptr<ConvexHull> hull;
  try {
    hull = BuildHull(points, path);
  } catch (const MeshError&) {
    throw;
  } catch (const std::exception& e) {
    throw MeshError(MeshErrorKind::kNoVolume, e.what());
  }
  // The hull's faces are oriented by Qhull, so the file's triangle winding does not enter the
  // volume; a hull whose volume is not positive and finite (round-off on a sliver) is refused.
  const double volume = HullVolume(*hull);
  if (!(volume > 0) || !std::isfinite(volume)) {
    std::ostringstream msg;
    msg << path << ": convex hull has volume " << volume << " m^3 (must be positive and finite)";
    throw MeshError(MeshErrorKind::kNoVolume, msg.str());
  }
  hull->render_vertices = std::move(vertices);
  hull->render_triangles = soup->triangles;
  hull->source = path;
  Hulls().Put(soup, scale, std::make_shared<const ConvexHull>(*hull));
  return hull;
}

}  // namespace contactlab
