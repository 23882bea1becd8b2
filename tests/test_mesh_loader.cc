#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

#include "app/mesh_loader.h"
#include "app/scene.h"

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

// Writes raw bytes (binary mode) to a fresh file in the test directory.
std::string TempBytes(const std::string& name, const std::string& bytes) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "contactlab_mesh_test";
  std::filesystem::create_directories(dir);
  std::filesystem::path p = dir / name;
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ClearMeshCache();  // a rewritten file of the same size and time stamp must not hit the cache
  return p.string();
}

struct Refusal {
  bool thrown = false;
  MeshErrorKind kind = MeshErrorKind::kNotFound;
  std::string message;
};

// The MeshError thrown by loading `path` (kind and message); thrown = false if it loaded.
Refusal RefusalOf(const std::string& path, const MeshLimits& limits = MeshLimits(),
                  const Vec3& scale = Vec3::Ones()) {
  Refusal r;
  try {
    LoadConvexMesh(path, scale, limits);
  } catch (const MeshError& e) {
    r.thrown = true;
    r.kind = e.kind();
    r.message = e.what();
  }
  return r;
}

// Asserts a refusal of the given kind whose message names the file (and `fragment`, if given).
void ExpectRefused(const std::string& path, MeshErrorKind kind, const std::string& fragment = "",
                   const MeshLimits& limits = MeshLimits(), const Vec3& scale = Vec3::Ones()) {
  Refusal r = RefusalOf(path, limits, scale);
  ASSERT_TRUE(r.thrown) << path << " was accepted";
  EXPECT_EQ(MeshErrorKindName(r.kind), std::string(MeshErrorKindName(kind))) << r.message;
  EXPECT_NE(r.message.find(path), std::string::npos) << r.message;
  if (!fragment.empty()) {
    EXPECT_NE(r.message.find(fragment), std::string::npos) << r.message;
  }
}

// A 2 m cube (vertices at ±1) in OBJ with one vertex line replaced by `bad` (line 1 is the first
// vertex) and faces wound outward; `flip` reverses the winding of the faces listed.
std::string CubeObj(const std::string& bad = "", int bad_line = 0, std::set<int> flip = {}) {
  std::string s;
  int line = 1;
  for (int i = 0; i < 8; ++i, ++line) {
    if (line == bad_line) {
      s += bad + "\n";
      continue;
    }
    s += "v " + std::to_string((i & 1) ? 1 : -1) + " " + std::to_string((i & 2) ? 1 : -1) + " " +
         std::to_string((i & 4) ? 1 : -1) + "\n";
  }
  // Quads CCW from outside (1-based indices).
  const int quads[6][4] = {{1, 5, 7, 3}, {2, 4, 8, 6}, {1, 2, 6, 5},
                           {3, 7, 8, 4}, {1, 3, 4, 2}, {5, 6, 8, 7}};
  for (int f = 0; f < 6; ++f) {
    std::vector<int> q(quads[f], quads[f] + 4);
    if (flip.count(f)) std::reverse(q.begin(), q.end());
    s += "f " + std::to_string(q[0]) + " " + std::to_string(q[1]) + " " + std::to_string(q[2]) +
         " " + std::to_string(q[3]) + "\n";
  }
  return s;
}

double HullVolumeOf(const ConvexHull& h) {
  Vec3 o = Vec3::Zero();
  for (const Vec3& v : h.vertices) o += v;
  o /= static_cast<double>(h.vertices.size());
  double vol = 0;
  for (const auto& f : h.faces) {
    for (size_t k = 1; k + 1 < f.size(); ++k) {
      vol += (h.vertices[f[0]] - o).cross(h.vertices[f[k]] - o).dot(h.vertices[f[k + 1]] - o) / 6;
    }
  }
  return vol;
}

std::string Le32(uint32_t x) {
  std::string s(4, '\0');
  for (int k = 0; k < 4; ++k) s[k] = static_cast<char>((x >> (8 * k)) & 0xff);
  return s;
}
std::string LeFloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return Le32(u);
}

// Binary little-endian PLY header for `nv` float vertices and `nf` uchar/int faces.
std::string BinaryPlyHeader(const std::string& nv, const std::string& nf) {
  return "ply\nformat binary_little_endian 1.0\nelement vertex " + nv +
         "\nproperty float x\nproperty float y\nproperty float z\nelement face " + nf +
         "\nproperty list uchar int vertex_indices\nend_header\n";
}

// Body of a binary PLY tetrahedron (4 vertices, 4 faces).
std::string BinaryPlyTetraBody() {
  std::string s;
  const float v[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (const auto& p : v) {
    for (float x : p) s += LeFloat(x);
  }
  const int f[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  for (const auto& t : f) {
    s += '\3';
    for (int i : t) s += Le32(static_cast<uint32_t>(i));
  }
  return s;
}

// Binary STL with `declared` in the count field and the given triangles.
std::string BinaryStl(uint32_t declared, const std::vector<std::array<float, 9>>& tris) {
  std::string s(80, ' ');
  s += Le32(declared);
  for (const auto& t : tris) {
    for (int k = 0; k < 3; ++k) s += LeFloat(0);
    for (float x : t) s += LeFloat(x);
    s += std::string(2, '\0');
  }
  return s;
}

// glTF whose node i has node i + 1 as its only child, `depth` nodes deep, without meshes.
std::string DeepGltf(int depth) {
  std::string s =
      "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
      "\"nodes\":[";
  for (int i = 0; i < depth; ++i) {
    if (i > 0) s += ",";
    s += i + 1 < depth ? "{\"children\":[" + std::to_string(i + 1) + "]}" : "{}";
  }
  return s + "]}";
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

// ---------------------------------------------------------------- hostile files

TEST(MeshRefusal, ObjNanVertexNamesFileAndLine) {
  // Read as the origin before, which made a 2 m cube's hull lose a corner (8 -> 6.667 m^3).
  std::string path = TempBytes("nan_vertex.obj", CubeObj("v nan nan nan", 3));
  ExpectRefused(path, MeshErrorKind::kBadNumber, path + ":3: v: 'nan' is not a finite number");
}

TEST(MeshRefusal, ObjInfiniteHugeAndLongCoordinates) {
  ExpectRefused(TempBytes("inf.obj", CubeObj("v 1 inf 1", 8)), MeshErrorKind::kBadNumber, ":8: v:");
  ExpectRefused(TempBytes("overflow.obj", CubeObj("v 1 1 1e400", 2)), MeshErrorKind::kBadNumber,
                "beyond the range of a double");
  // 1e300 is a double, but beyond the coordinate limit (its inertia would overflow).
  ExpectRefused(TempBytes("huge.obj", CubeObj("v 1e300 1 1", 2)), MeshErrorKind::kBadNumber,
                "beyond the limit");
  // A 300-digit coordinate (parsers disagree on such digit strings).
  ExpectRefused(TempBytes("long.obj", CubeObj("v 1." + std::string(300, '3') + " 1 1", 2)),
                MeshErrorKind::kBadNumber, ":2: v:");
  ExpectRefused(TempBytes("word.obj", CubeObj("v 1 one 1", 5)), MeshErrorKind::kBadNumber,
                ":5: v: 'one' is not a number");
  ExpectRefused(TempBytes("short_v.obj", CubeObj("v 1 1", 5)), MeshErrorKind::kMalformed, ":5:");
}

TEST(MeshRefusal, ObjFaceIndexOutOfRange) {
  ExpectRefused(TempBytes("index.obj", CubeObj() + "f 1 2 99\n"), MeshErrorKind::kMalformed,
                ":15: vertex index 99 is out of range (the file has 8)");
  ExpectRefused(TempBytes("relative.obj", CubeObj() + "f -1 -2 -9\n"), MeshErrorKind::kMalformed,
                ":15: f: relative vertex index -9");
  ExpectRefused(TempBytes("zero.obj", CubeObj() + "f 0 1 2\n"), MeshErrorKind::kMalformed,
                ":15: f: vertex index '0' is not a nonzero integer");
  ExpectRefused(TempBytes("normal.obj", CubeObj() + "f 1//4 2//4 3//4\n"),
                MeshErrorKind::kMalformed, "normal index 4 is out of range (the file has 0)");
}

TEST(MeshRefusal, EmptyFilesOfEveryFormat) {
  for (const char* ext : {"obj", "stl", "ply", "gltf", "glb", "off"}) {
    ExpectRefused(TempBytes(std::string("empty.") + ext, ""), MeshErrorKind::kMalformed,
                  "mesh file is empty");
  }
}

TEST(MeshRefusal, BinaryGarbageWithMeshExtensions) {
  std::mt19937 rng(5);
  std::string garbage(4096, '\0');
  for (char& c : garbage) c = static_cast<char>(rng() & 0xff);
  for (const char* ext : {"obj", "stl", "ply", "gltf", "glb", "dae", "3ds"}) {
    std::string path = TempBytes(std::string("garbage.") + ext, garbage);
    Refusal r = RefusalOf(path);
    ASSERT_TRUE(r.thrown) << path;
    // Refused cleanly (by a check or by the reader), never by a crash of the reader.
    EXPECT_NE(r.kind, MeshErrorKind::kReaderCrashed) << r.message;
    EXPECT_NE(r.message.find(path), std::string::npos) << r.message;
  }
}

TEST(MeshRefusal, BinaryPlyThatLoads) {
  // The well-formed file the hostile variants below are made from.
  std::string path =
      TempBytes("tetra_binary.ply", BinaryPlyHeader("4", "4") + BinaryPlyTetraBody());
  auto h = LoadConvexMesh(path);
  EXPECT_EQ(h->vertices.size(), 4u);
  EXPECT_NEAR(HullVolumeOf(*h), 1.0 / 6.0, 1e-12);  // unit corner tetrahedron, exact in float
}

TEST(MeshRefusal, BinaryPlyTruncatedOrLyingCounts) {
  const std::string body = BinaryPlyTetraBody();
  // Binary errors name the byte offset of the value at fault ("FILE: byte N: ..."), which a hex
  // dump of the file shows; the header is text and names its line.
  const size_t header = BinaryPlyHeader("4", "4").size();
  // Truncated in the middle of the faces: the location is the end of the file.
  ExpectRefused(
      TempBytes("truncated.ply", BinaryPlyHeader("4", "4") + body.substr(0, 60)),
      MeshErrorKind::kMalformed,
      "truncated.ply: byte " + std::to_string(header + 60) + ": PLY file ends inside face record");
  // Header promises 100000 vertices; the file holds 4 (this crashed in Assimp's
  // post-processing before).
  ExpectRefused(TempBytes("lying.ply", BinaryPlyHeader("100000", "4") + body),
                MeshErrorKind::kMalformed, "100000 its header declares");
  // A face list longer than the file: the last face claims 255 indices.
  std::string long_list = body;
  long_list[48 + 3 * 13] = '\xff';
  ExpectRefused(TempBytes("long_list.ply", BinaryPlyHeader("4", "4") + long_list),
                MeshErrorKind::kMalformed, "ends inside face record 3");
  // An index past the vertices.
  std::string bad_index = body;
  bad_index[49] = '\x09';
  // Face 0 starts at body byte 48 (4 vertices of 12 bytes): its uchar count, then the first int.
  ExpectRefused(TempBytes("bad_index.ply", BinaryPlyHeader("4", "4") + bad_index),
                MeshErrorKind::kMalformed,
                "bad_index.ply: byte " + std::to_string(header + 49) +
                    ": face 0: vertex index 9 is out of range");
  // Counts beyond the limits, refused with the limit's value.
  ExpectRefused(TempBytes("count.ply", BinaryPlyHeader("900000000000", "4") + body),
                MeshErrorKind::kLimit, "exceeds the limit of 2000000");
  // NaN coordinate in binary.
  std::string nan_body = body;
  const std::string nan = LeFloat(std::nanf(""));
  nan_body.replace(16, 4, nan);  // vertex 1, y
  ExpectRefused(TempBytes("nan.ply", BinaryPlyHeader("4", "4") + nan_body),
                MeshErrorKind::kBadNumber,
                "nan.ply: byte " + std::to_string(header + 16) + ": vertex 1: y = nan");
  ExpectRefused(TempBytes("no_end.ply", "ply\nformat ascii 1.0\nelement vertex 3\n"),
                MeshErrorKind::kMalformed, "no end_header");
}

TEST(MeshRefusal, AsciiPlyNamesTheLine) {
  const std::string header =
      "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
      "property float z\nelement face 4\nproperty list uchar int vertex_indices\nend_header\n";
  const std::string faces = "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
  EXPECT_NO_THROW(
      LoadConvexMesh(TempBytes("ok_ascii.ply", header + "0 0 0\n1 0 0\n0 1 0\n0 0 1\n" + faces)));
  ExpectRefused(TempBytes("nan_ascii.ply", header + "0 0 0\n1 nan 0\n0 1 0\n0 0 1\n" + faces),
                MeshErrorKind::kBadNumber, ".ply:11: vertex record 1: 'nan'");
  ExpectRefused(
      TempBytes("index_ascii.ply",
                header + "0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 7\n3 0 3 2\n3 1 2 3\n"),
      MeshErrorKind::kMalformed, ".ply:15: face 1: vertex index 7 is out of range");
  ExpectRefused(TempBytes("short_ascii.ply", header + "0 0 0\n1 0 0\n"), MeshErrorKind::kMalformed,
                "ends after 2 of the 4 vertex records");
}

TEST(MeshRefusal, StlWithLyingTriangleCount) {
  const std::vector<std::array<float, 9>> tet = {{0, 0, 0, 0, 1, 0, 1, 0, 0},
                                                 {0, 0, 0, 1, 0, 0, 0, 0, 1},
                                                 {0, 0, 0, 0, 0, 1, 0, 1, 0},
                                                 {1, 0, 0, 0, 1, 0, 0, 0, 1}};
  auto h = LoadConvexMesh(TempBytes("tet.stl", BinaryStl(4, tet)));
  EXPECT_NEAR(HullVolumeOf(*h), 1.0 / 6.0, 1e-12);
  ExpectRefused(
      TempBytes("lying.stl", BinaryStl(1000, tet)), MeshErrorKind::kMalformed,
      "lying.stl: byte 80: triangle count: binary STL header declares 1000 triangles (84 + 50 * "
      "1000 = 50084 bytes) but the file has 284 bytes");
  ExpectRefused(TempBytes("huge_count.stl", BinaryStl(0xffffffffu, tet)), MeshErrorKind::kLimit,
                "more than the limit of 4000000");
  ExpectRefused(TempBytes("header_only.stl", std::string(50, 'x')), MeshErrorKind::kMalformed,
                "shorter than its 84-byte header");
  auto nan_tet = tet;
  nan_tet[2][4] = std::nanf("");
  // Triangle 2 starts at 84 + 2 · 50 = 184; its vertices at +12 (after the normal), 12 bytes
  // each: vertex 1's y is at 184 + 12 + 12 + 4 = 212.
  ExpectRefused(TempBytes("nan.stl", BinaryStl(4, nan_tet)), MeshErrorKind::kBadNumber,
                "nan.stl: byte 212: triangle 2 vertex 1: y = nan");
  ExpectRefused(TempBytes("nan_ascii.stl",
                          "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 nan\n"
                          "vertex 0 1 0\nendloop\nendfacet\nendsolid t\n"),
                MeshErrorKind::kBadNumber, "nan_ascii.stl:5: vertex:");
}

TEST(MeshRefusal, DeepGltfNodeHierarchy) {
  // 100 000 nested nodes overflowed the stack of Assimp's glTF importer before; the node graph
  // is now walked here, iteratively, and refused at the depth limit.
  ExpectRefused(TempBytes("deep.gltf", DeepGltf(100000)), MeshErrorKind::kLimit,
                "node hierarchy deeper than 256 levels");
  // Deep JSON nesting (in "extras", which any glTF may carry).
  std::string nested = "{\"asset\":{\"version\":\"2.0\"},\"extras\":" + std::string(100000, '[') +
                       std::string(100000, ']') + "}";
  ExpectRefused(TempBytes("nested.gltf", nested), MeshErrorKind::kLimit,
                "JSON nesting deeper than 128 levels");
  // A cycle and a shared child.
  ExpectRefused(TempBytes("cycle.gltf",
                          "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},"
                          "{\"children\":[0]}]}"),
                MeshErrorKind::kMalformed, "cycle");
  ExpectRefused(TempBytes("child_range.gltf",
                          "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[5]}]}"),
                MeshErrorKind::kMalformed, "node index 5 is out of range (1 nodes)");
  ExpectRefused(TempBytes("bad.gltf", "{\"asset\": [}"), MeshErrorKind::kMalformed, "invalid JSON");
  // Buffers the reader would open outside the file's directory.
  for (const char* uri : {"/dev/zero", "../../etc/passwd", "http://example.com/b.bin", "C:x.bin"}) {
    ExpectRefused(TempBytes("uri.gltf", std::string("{\"asset\":{\"version\":\"2.0\"},") +
                                            "\"buffers\":[{\"uri\":\"" + uri +
                                            "\",\"byteLength\":1000000000}]}"),
                  MeshErrorKind::kMalformed, "buffers[0].uri");
  }
  ExpectRefused(
      TempBytes("bad.glb", "glTF" + Le32(2) + Le32(9999) + Le32(4) + Le32(0x4E4F534A) + "{}  "),
      MeshErrorKind::kMalformed, "bad.glb: byte 8: length: binary glTF header declares 9999 bytes");
  // A second chunk whose length runs past the end: named by the byte its header starts at (20 +
  // the 4-byte JSON chunk).
  const std::string json = "{}  ";
  const std::string glb_body = Le32(4) + Le32(0x4E4F534A) + json + Le32(1000) + Le32(0x004E4942);
  ExpectRefused(TempBytes("chunk.glb", "glTF" + Le32(2) + Le32(12 + glb_body.size()) + glb_body),
                MeshErrorKind::kMalformed,
                "chunk.glb: byte 24: chunk 1: binary glTF: the chunk runs past");
}

TEST(MeshRefusal, ReaderCrashIsContainedAndNamesTheFile) {
  // With the depth checks relaxed, the 100 000-deep glTF reaches Assimp, whose recursive importer
  // overflows its stack: the child process dies and the error names the file.
  MeshLimits relaxed;
  relaxed.max_node_depth = 1 << 30;
  relaxed.max_nodes = 1 << 30;
  std::string path = TempBytes("deep_crash.gltf", DeepGltf(100000));
  Refusal r = RefusalOf(path, relaxed);
  ASSERT_TRUE(r.thrown);
  EXPECT_EQ(MeshErrorKindName(r.kind),
            std::string(MeshErrorKindName(MeshErrorKind::kReaderCrashed)))
      << r.message;
  EXPECT_NE(r.message.find("mesh reader crashed on " + path), std::string::npos) << r.message;
  // This process is still here, and the loader still works.
  EXPECT_NO_THROW(LoadConvexMesh(Asset("cube.obj")));
}

TEST(MeshRefusal, SizeAndCountLimitsGiveTheirValues) {
  std::string path = TempBytes("limits_cube.obj", CubeObj());
  MeshLimits small_file;
  small_file.max_file_bytes = 100;
  ExpectRefused(path, MeshErrorKind::kLimit, "exceeds the mesh file limit of 100 bytes",
                small_file);
  MeshLimits few_vertices;
  few_vertices.max_vertices = 5;
  ExpectRefused(path, MeshErrorKind::kLimit, ":6: v: more than 5 vertices (the vertex limit)",
                few_vertices);
  MeshLimits few_triangles;
  few_triangles.max_triangles = 3;
  ExpectRefused(path, MeshErrorKind::kLimit, "more than 3 triangles (the triangle limit)",
                few_triangles);
  // A scale that puts the mesh beyond 10 km.
  ExpectRefused(path, MeshErrorKind::kLimit, "(the mesh extent limit)", MeshLimits(),
                Vec3(1, 1, 2e4));
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST(MeshRefusal, ReaderMemoryLimit) {
  // The reader's address space is capped below what the forked process already maps: its first
  // large allocation fails, and the parent reports the limit (or the reader's death), naming the
  // file. (A sanitizer's shadow memory rules out an address-space limit, so this test is off
  // under one.)
  MeshLimits tiny;
  tiny.reader_memory_bytes = 1 << 20;
  Refusal r = RefusalOf(TempBytes("memory.obj", CubeObj()), tiny);
  ASSERT_TRUE(r.thrown);
  EXPECT_TRUE(r.kind == MeshErrorKind::kLimit || r.kind == MeshErrorKind::kReaderCrashed)
      << r.message;
  if (r.kind == MeshErrorKind::kLimit) {
    EXPECT_NE(r.message.find("out of memory (limit 1 MiB)"), std::string::npos) << r.message;
  }
  EXPECT_NE(r.message.find("memory.obj"), std::string::npos) << r.message;
}
#endif

// ---------------------------------------------------------------- values and volume

TEST(MeshVolume, WindingDoesNotChangeTheHull) {
  // Mass properties come from the convex hull, whose faces Qhull orients: all faces inverted,
  // or half of them, give the same 8 m^3 cube (exact in binary floating point).
  for (std::set<int> flip :
       {std::set<int>{}, std::set<int>{0, 1, 2, 3, 4, 5}, std::set<int>{1, 4}}) {
    auto h = LoadConvexMesh(TempBytes("wound.obj", CubeObj("", 0, flip)));
    EXPECT_NEAR(HullVolumeOf(*h), 8.0, 1e-12);
    ExpectValidHull(*h);
  }
}

TEST(MeshVolume, NanCubeInASceneNamesSceneAndMeshLines) {
  std::string mesh = TempBytes("scene_nan.obj", CubeObj("v nan nan nan", 3));
  std::string scene =
      "time_step: 0.01\nmaterials:\n  - {name: m, stiffness: 1e6, dissipation_time: 0.01, "
      "friction: 0.5}\nbodies:\n  - name: cube\n    density: 1\n    geoms:\n"
      "      - {shape: mesh, file: " +
      mesh + ", material: m}\n";
  std::string msg;
  try {
    ParseScene(scene, "nan_cube.yaml");
  } catch (const SceneError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("nan_cube.yaml:8"), std::string::npos) << msg;
  EXPECT_NE(msg.find(mesh + ":3: v: 'nan'"), std::string::npos) << msg;
}

TEST(MeshVolume, FlatAndSliverMeshesHaveNoVolume) {
  ExpectRefused(TempBytes("flat2.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n"),
                MeshErrorKind::kNoVolume, "degenerate");
  ExpectRefused(TempBytes("lines.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 1\nl 1 2\nl 3 4\n"),
                MeshErrorKind::kNoVolume, "no triangles");
}

// ---------------------------------------------------------------- reader paths and cache

TEST(MeshReader, IsolatedInProcessAndMemoryReadsAgree) {
  for (const char* name : {"cube.obj", "tetrahedron.stl", "octahedron.ply", "pyramid.gltf"}) {
    MeshLimits in_process;
    in_process.isolate = false;
    TriangleSoup a = ReadMeshIsolated(Asset(name), MeshLimits());
    TriangleSoup b = ReadMeshInProcessFromFile(Asset(name), in_process);
    std::ifstream f(Asset(name), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    TriangleSoup c = ReadMeshFromMemory(bytes, name, in_process);
    ASSERT_FALSE(a.triangles.empty()) << name;
    EXPECT_EQ(a.triangles, b.triangles) << name;
    EXPECT_EQ(a.triangles, c.triangles) << name;
    ASSERT_EQ(a.vertices.size(), b.vertices.size()) << name;
    ASSERT_EQ(a.vertices.size(), c.vertices.size()) << name;
    for (size_t i = 0; i < a.vertices.size(); ++i) {
      EXPECT_EQ(a.vertices[i], b.vertices[i]) << name;  // the pipe carries the doubles bit-exact
      EXPECT_EQ(a.vertices[i], c.vertices[i]) << name;
    }
  }
}

TEST(MeshReader, CacheSeesARewrittenFile) {
  std::string path = TempBytes("rewritten.obj", CubeObj());
  EXPECT_NEAR(HullVolumeOf(*LoadConvexMesh(path)), 8.0, 1e-12);
  EXPECT_NEAR(HullVolumeOf(*LoadConvexMesh(path)), 8.0, 1e-12);  // from the cache
  // The cached file at another scale: a hull of its own (2 m cube scaled by 2: 64 m^3).
  EXPECT_NEAR(HullVolumeOf(*LoadConvexMesh(path, Vec3::Constant(2))), 64.0, 1e-12);
  EXPECT_NEAR(HullVolumeOf(*LoadConvexMesh(path)), 8.0, 1e-12);
  // Same path, new content (a different size): parsed again.
  std::ofstream(path, std::ios::trunc) << CubeObj() << "v 3 0 0\nf 2 9 4\n";
  auto h = LoadConvexMesh(path);
  EXPECT_GT(HullVolumeOf(*h), 8.0);
}

}  // namespace
}  // namespace contactlab
