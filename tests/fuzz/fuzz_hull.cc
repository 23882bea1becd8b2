// libFuzzer target: MakeConvexHull (app/mesh_loader.h) on point sets decoded from the input, 24
// bytes (three doubles) per point: our flatness check, Qhull and the face ordering after it.
// Contract: a point set that does not span a volume is a std::runtime_error; a returned hull has
// finite vertices taken from the input and outward unit face normals; the fan triangulation
// indexes its vertices.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "app/mesh_loader.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_hull: hull violates its contract: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<contactlab::Vec3> points;
  for (size_t off = 0; off + 24 <= size && points.size() < 20000; off += 24) {
    double xyz[3];
    std::memcpy(xyz, data + off, sizeof(xyz));
    points.emplace_back(xyz[0], xyz[1], xyz[2]);
  }
  try {
    auto hull = contactlab::MakeConvexHull(points);
    Check(hull->vertices.size() >= 4, "fewer than 4 vertices");
    for (const auto& v : hull->vertices) Check(v.allFinite(), "non-finite vertex");
    for (const auto& n : hull->face_normals) {
      Check(n.allFinite() && std::abs(n.norm() - 1.0) < 1e-6, "normal not a unit vector");
    }
    for (int i : hull->render_triangles) {
      Check(i >= 0 && i < static_cast<int>(hull->render_vertices.size()), "bad triangle index");
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
