// Timing of hydroelastic contact-surface computation (engine/geometry/hydroelastic/).
//
//   contactlab_hydro_bench [--repeats N]
//
// Cases (sphere radius R = 0.1 m, E = 1e5 Pa, overlap d = 0.02 m):
//   sphere/plane   compliant sphere pressed d into a rigid half-space
//   sphere/sphere  two compliant spheres whose centres are 2R − d apart (tilted line of centres)
// at resolutions R/4 and R/8. Printed per case: tets per sphere, the time to build the mesh, its
// field and its hierarchy (once), the median time of one contact-surface computation over the
// repeats, the number of faces, and the number of faces the per-face recipe keeps. Nothing is
// asserted; the program prints.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "engine/geometry/hydroelastic/contact_surface.h"
#include "engine/geometry/hydroelastic/face_constraints.h"

using namespace contactlab;

namespace {

double Seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 21;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::max(1, std::atoi(argv[i + 1]));
  const double R = 0.1, E = 1e5, d = 0.02;
  std::printf("%-14s %-6s %8s %10s %12s %7s %7s\n", "case", "res", "tets", "build_ms", "surface_ms",
              "faces", "kept");
  for (int k : {4, 8}) {
    const double res = R / k;
    std::shared_ptr<CompliantGeometry> sphere;
    const double build = Seconds(
        [&] { sphere = std::make_shared<CompliantGeometry>(MakeSphereVolumeMesh(R, res), E); });
    const int tets = sphere->field.mesh().num_tets();
    char label[16];
    std::snprintf(label, sizeof label, "R/%d", k);

    Pose X_WA;
    X_WA.p = Vec3(0, 0, R - d);
    ContactSurface s;
    std::vector<double> t;
    for (int r = 0; r < repeats; ++r)
      t.push_back(Seconds([&] { s = ComputeContactSurfaceHalfSpace(*sphere, X_WA, Pose{}); }));
    std::printf("%-14s %-6s %8d %10.1f %12.3f %7zu %7zu\n", "sphere/plane", label, tets,
                1e3 * build, 1e3 * Median(t), s.faces.size(), MakeFaceConstraints({s}).size());

    Pose X_WB;
    X_WB.p = X_WA.p + (2 * R - d) * Vec3(0.3, -0.2, 1.0).normalized();
    X_WB.q = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()));
    t.clear();
    for (int r = 0; r < repeats; ++r)
      t.push_back(
          Seconds([&] { s = ComputeContactSurfaceCompliant(*sphere, X_WA, *sphere, X_WB); }));
    std::printf("%-14s %-6s %8d %10.1f %12.3f %7zu %7zu\n", "sphere/sphere", label, tets,
                1e3 * build, 1e3 * Median(t), s.faces.size(), MakeFaceConstraints({s}).size());
  }
  return 0;
}
