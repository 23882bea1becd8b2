#include "app/mesh_loader.h"

#include <Eigen/Eigenvalues>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
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

void CollectTriangles(const aiScene* scene, const aiNode* node, const aiMatrix4x4& parent,
                      const Vec3& scale, std::vector<Vec3>* vertices, std::vector<int>* tris) {
  aiMatrix4x4 m = parent * node->mTransformation;
  for (unsigned k = 0; k < node->mNumMeshes; ++k) {
    const aiMesh* mesh = scene->mMeshes[node->mMeshes[k]];
    int base = static_cast<int>(vertices->size());
    for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
      aiVector3D p = m * mesh->mVertices[i];
      vertices->push_back(Vec3(p.x, p.y, p.z).cwiseProduct(scale));
    }
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines
      for (int j = 0; j < 3; ++j) tris->push_back(base + static_cast<int>(face.mIndices[j]));
    }
  }
  for (unsigned c = 0; c < node->mNumChildren; ++c) {
    CollectTriangles(scene, node->mChildren[c], m, scale, vertices, tris);
  }
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

std::shared_ptr<ConvexHull> LoadConvexMesh(const std::string& path, const Vec3& scale) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw std::runtime_error(path + ": mesh file not found");
  }
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_SortByPType);
  if (scene == nullptr || scene->mRootNode == nullptr) {
    throw std::runtime_error(path + ": cannot read mesh (" + importer.GetErrorString() + ")");
  }
  std::vector<Vec3> vertices;
  std::vector<int> tris;
  CollectTriangles(scene, scene->mRootNode, aiMatrix4x4(), scale, &vertices, &tris);
  if (tris.empty()) throw std::runtime_error(path + ": mesh has no triangles");
  // Only vertices used by triangles go into the hull.
  std::vector<bool> used(vertices.size(), false);
  for (int i : tris) used[i] = true;
  std::vector<Vec3> points;
  for (size_t i = 0; i < vertices.size(); ++i) {
    if (used[i]) points.push_back(vertices[i]);
  }
  auto hull = BuildHull(points, path);
  hull->render_vertices = std::move(vertices);
  hull->render_triangles = std::move(tris);
  hull->source = path;
  return hull;
}

}  // namespace contactlab
