#include "app/mesh_loader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

namespace contactlab {
namespace {

std::string Asset(const std::string& name) {
  return std::string(CONTACTLAB_SOURCE_DIR) + "/assets/meshes/" + name;
}

std::string TempFile(const std::string& name, const std::string& contents) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "contactlab_mesh_test";
  std::filesystem::create_directories(dir);
  std::filesystem::path p = dir / name;
  std::ofstream(p) << contents;
  return p.string();
}

// Message of the std::runtime_error thrown by f, or "" if none was thrown.
template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// Structural checks every hull must pass: unit outward normals, faces CCW seen from outside,
// every face planar, every vertex on the inner side of every face plane.
void ExpectValidHull(const ConvexHull& h) {
  // Round-off of float mesh coordinates (~1e-7 relative on 0.1-1 m sizes) and of Qhull's
  // normals bounds how far a vertex can sit outside a face plane.
  const double kTol = 1e-6;
  ASSERT_EQ(h.faces.size(), h.face_normals.size());
  Vec3 centroid = Vec3::Zero();
  for (const Vec3& v : h.vertices) centroid += v;
  centroid /= static_cast<double>(h.vertices.size());
  for (size_t f = 0; f < h.faces.size(); ++f) {
    const auto& face = h.faces[f];
    const Vec3& n = h.face_normals[f];
    ASSERT_GE(face.size(), 3u);
    EXPECT_NEAR(n.norm(), 1.0, 1e-12);  // normalized in double precision
    const Vec3& p0 = h.vertices[face[0]];
    EXPECT_GT(n.dot(p0 - centroid), 0.0) << "normal points inward on face " << f;
    // Newell normal of the polygon follows the vertex order: CCW from outside means it agrees
    // with the outward normal.
    Vec3 newell = Vec3::Zero();
    for (size_t k = 0; k < face.size(); ++k) {
      newell += h.vertices[face[k]].cross(h.vertices[face[(k + 1) % face.size()]]);
    }
    EXPECT_GT(newell.dot(n), 0.0) << "face " << f << " is not CCW from outside";
    for (int i : face) EXPECT_NEAR(n.dot(h.vertices[i] - p0), 0.0, kTol);
    for (const Vec3& v : h.vertices) EXPECT_LE(n.dot(v - p0), kTol);
  }
}

TEST(MeshLoader, ObjCubeHasSixQuadFaces) {
  auto h = LoadConvexMesh(Asset("cube.obj"), Vec3::Ones());
  ASSERT_TRUE(h);
  EXPECT_EQ(h->vertices.size(), 8u);
  ASSERT_EQ(h->faces.size(), 6u);  // coplanar triangle pairs merged into squares
  for (const auto& f : h->faces) EXPECT_EQ(f.size(), 4u);
  for (const Vec3& n : h->face_normals) {
    // Axis-aligned: the largest component is 1 up to float-to-double round-off.
    EXPECT_NEAR(n.cwiseAbs().maxCoeff(), 1.0, 1e-9);
  }
  for (const Vec3& v : h->vertices) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(std::abs(v[k]), 0.5, 1e-9);  // exact in float
  }
  EXPECT_EQ(h->render_triangles.size(), 36u);  // 6 quads -> 12 triangles
  EXPECT_EQ(h->source, Asset("cube.obj"));
  ExpectValidHull(*h);
}

TEST(MeshLoader, ScaleIsPerAxis) {
  auto h = LoadConvexMesh(Asset("cube.obj"), Vec3(0.2, 0.4, 0.6));
  Vec3 mx = Vec3::Constant(-1e9);
  for (const Vec3& v : h->vertices) mx = mx.cwiseMax(v);
  // 0.5 * scale, exact up to float storage of the file's coordinates.
  EXPECT_NEAR(mx.x(), 0.1, 1e-9);
  EXPECT_NEAR(mx.y(), 0.2, 1e-9);
  EXPECT_NEAR(mx.z(), 0.3, 1e-9);
  for (const Vec3& v : h->render_vertices) EXPECT_LE(v.z(), 0.3 + 1e-9);
}

TEST(MeshLoader, AsciiStlTetrahedron) {
  auto h = LoadConvexMesh(Asset("tetrahedron.stl"), Vec3::Ones());
  EXPECT_EQ(h->vertices.size(), 4u);
  EXPECT_EQ(h->faces.size(), 4u);
  ExpectValidHull(*h);
}

TEST(MeshLoader, AsciiPlyOctahedron) {
  auto h = LoadConvexMesh(Asset("octahedron.ply"), Vec3::Ones());
  EXPECT_EQ(h->vertices.size(), 6u);
  EXPECT_EQ(h->faces.size(), 8u);
  ExpectValidHull(*h);
}

TEST(MeshLoader, GltfPyramidWithEmbeddedBuffer) {
  auto h = LoadConvexMesh(Asset("pyramid.gltf"), Vec3::Ones());
  EXPECT_EQ(h->vertices.size(), 5u);
  ASSERT_EQ(h->faces.size(), 5u);  // square base (two triangles merged) + 4 sides
  int quads = 0;
  for (const auto& f : h->faces) quads += f.size() == 4 ? 1 : 0;
  EXPECT_EQ(quads, 1);
  EXPECT_EQ(h->render_triangles.size(), 18u);
  ExpectValidHull(*h);
}

TEST(MeshLoader, MissingFileNamesTheFile) {
  std::string path = Asset("does_not_exist.obj");
  std::string msg = ErrorOf([&] { LoadConvexMesh(path, Vec3::Ones()); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("not found"), std::string::npos) << msg;
}

TEST(MeshLoader, InvalidFileNamesTheFile) {
  std::string path = TempFile("garbage.stl", "this is not a mesh \x01\x02\x03\n");
  std::string msg = ErrorOf([&] { LoadConvexMesh(path, Vec3::Ones()); });
  EXPECT_FALSE(msg.empty());
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
}

TEST(MeshLoader, FileWithoutTrianglesIsRejected) {
  std::string path = TempFile("points.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n");
  std::string msg = ErrorOf([&] { LoadConvexMesh(path, Vec3::Ones()); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
}

TEST(MeshLoader, FlatMeshIsDegenerate) {
  std::string path = TempFile("flat.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n");
  std::string msg = ErrorOf([&] { LoadConvexMesh(path, Vec3::Ones()); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("degenerate"), std::string::npos) << msg;
}

TEST(MakeConvexHull, InteriorPointsAreDropped) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.99, 0.99);
  std::vector<Vec3> pts;
  for (int i = 0; i < 200; ++i) pts.emplace_back(u(rng), u(rng), u(rng));
  for (int i = 0; i < 8; ++i) {
    pts.emplace_back((i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1);
  }
  auto h = MakeConvexHull(pts);
  EXPECT_EQ(h->vertices.size(), 8u);
  EXPECT_EQ(h->faces.size(), 6u);
  ExpectValidHull(*h);
}

TEST(MakeConvexHull, PointsOnSphereAreAllEnclosed) {
  std::mt19937 rng(11);
  std::normal_distribution<double> g;
  std::vector<Vec3> pts;
  for (int i = 0; i < 300; ++i) pts.push_back(Vec3(g(rng), g(rng), g(rng)).normalized() * 0.2);
  auto h = MakeConvexHull(pts);
  ExpectValidHull(*h);
  for (const Vec3& p : pts) {
    for (size_t f = 0; f < h->faces.size(); ++f) {
      // Qhull's merge tolerance is at round-off level for 0.2 m coordinates.
      EXPECT_LE(h->face_normals[f].dot(p - h->vertices[h->faces[f][0]]), 1e-9);
    }
  }
}

TEST(MakeConvexHull, CollinearPointsThrow) {
  std::vector<Vec3> pts;
  for (int i = 0; i < 10; ++i) pts.emplace_back(0.1 * i, 0.2 * i, 0);
  EXPECT_THROW(MakeConvexHull(pts), std::runtime_error);
}

}  // namespace
}  // namespace contactlab
