// libFuzzer target: the mesh loader's public entry point (app/mesh_loader.h) on arbitrary file
// contents. The first input byte picks the file extension (so one corpus covers every format the
// scenes ship), the rest is written to a per-process temporary file and loaded.
// Contract: a bad file is a std::runtime_error naming it; a loaded hull is finite, has at least 4
// vertices and outward unit face normals. Whatever parses the bytes (in-process today, a child
// process if the importer is isolated), the checks after it are ours and are exercised here.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "app/mesh_loader.h"

namespace {

const char* const kExtensions[] = {".obj", ".ply", ".stl", ".gltf", ".glb", ".off"};

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_mesh: loaded hull violates its contract: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const char* ext = kExtensions[data[0] % (sizeof(kExtensions) / sizeof(kExtensions[0]))];
  const std::string path = "/tmp/contactlab_fuzz_mesh_" + std::to_string(getpid()) + ext;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  if (size > 1) std::fwrite(data + 1, 1, size - 1, f);
  std::fclose(f);
  try {
    auto hull = contactlab::LoadConvexMesh(path, contactlab::Vec3(0.1, 0.2, 0.3));
    Check(hull != nullptr, "null hull");
    Check(hull->vertices.size() >= 4, "fewer than 4 vertices");
    Check(hull->faces.size() == hull->face_normals.size(), "faces and normals differ in count");
    for (const auto& v : hull->vertices) Check(v.allFinite(), "non-finite vertex");
    for (const auto& n : hull->face_normals) {
      Check(n.allFinite() && std::abs(n.norm() - 1.0) < 1e-6, "normal not a unit vector");
    }
    for (const auto& face : hull->faces) {
      Check(face.size() >= 3, "face with fewer than 3 vertices");
      for (int i : face) Check(i >= 0 && i < static_cast<int>(hull->vertices.size()), "bad index");
    }
  } catch (const std::runtime_error&) {
  }
  std::remove(path.c_str());
  return 0;
}
