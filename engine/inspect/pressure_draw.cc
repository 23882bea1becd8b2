#include "engine/inspect/pressure_draw.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/sim/simulator.h"

namespace contactlab {

double PressureFraction(double p, double p_min, double p_max) {
  if (!(p == p)) return 0;
  if (!(p_max > p_min)) return p > p_min ? 1.0 : 0.0;
  return std::clamp((p - p_min) / (p_max - p_min), 0.0, 1.0);
}

Color PressureColor(double p, const PressureDrawOptions& o) {
  return PressureMapColor(o.color_map, PressureFraction(p, o.p_min, o.p_max));
}

Vec3 FaceOffsetDirection(const ContactFace& face) {
  return std::isinf(face.g_b) && !std::isinf(face.g_a) ? Vec3(-face.normal) : face.normal;
}

PatchResultant PatchResultantOf(const StepRecord& record, int surface) {
  PatchResultant r;
  if (surface < 0 || surface >= static_cast<int>(record.surfaces.size())) return r;
  const ContactSurface& s = record.surfaces[surface];
  r.point = s.CentreOfPressure();
  const double dt = record.after.time - record.before.time;
  if (!(dt > 0)) return r;
  bool any = false;
  for (const ConstraintData& cd : record.problem.constraints) {
    if (cd.kind != ConstraintKind::kFrictionCone || cd.source < 0 ||
        cd.source >= static_cast<int>(record.contacts.size()) ||
        cd.first_row + 3 > record.result.gamma.size()) {
      continue;
    }
    const Contact& c = record.contacts[cd.source];
    if (c.surface != surface) continue;
    const Vec3 f = ContactFrame(c.normal).transpose() *
                   record.result.gamma.segment<3>(cd.first_row) / dt;
    r.force += f;
    r.moment += (c.point - r.point).cross(f);
    any = true;
  }
  r.solved = any;
  return r;
}

namespace {

// Patch size [m]: the square root of its area.
double PatchSize(const ContactSurface& s) {
  double area = 0;
  for (const ContactFace& f : s.faces) {
    if (std::isfinite(f.area)) area += f.area;
  }
  return std::sqrt(area);
}

}  // namespace

double PatchArrowRadius(const ContactSurface& s, const PressureDrawOptions& o) {
  if (!o.view.valid() || s.faces.empty()) return 0;
  const double ppm = o.view.PixelsPerMetre(s.CentreOfPressure());
  if (!(ppm > 0)) return 0;
  return std::clamp(0.08 * PatchSize(s) * ppm, 0.7, 1.8) / ppm;
}

double PatchMarkerSize(const ContactSurface& s, const PressureDrawOptions& o) {
  if (!o.view.valid() || s.faces.empty()) return o.marker_size;
  const double ppm = o.view.PixelsPerMetre(s.CentreOfPressure());
  const double lo = std::min(3.0, o.marker_size);
  return std::clamp(0.5 * PatchSize(s) * ppm, lo, o.marker_size);
}

void DrawPressureSurfaces(const StepRecord& record, const PressureDrawOptions& options,
                          DebugDraw* out) {
  DrawPressureSurfaces(record.surfaces, options, out);
  if (!options.moment_arrows) return;
  for (int i = 0; i < static_cast<int>(record.surfaces.size()); ++i) {
    if (!SurfaceShown(options, i)) continue;
    const PatchResultant r = PatchResultantOf(record, i);
    if (!r.solved || !(r.moment.norm() > 0)) continue;
    out->Arrow(r.point, r.point + options.moment_scale * r.moment, kPatchMomentColor,
               PatchArrowRadius(record.surfaces[i], options));
  }
}

void DrawPressureSurfaces(const std::vector<ContactSurface>& surfaces,
                          const PressureDrawOptions& o, DebugDraw* out) {
  std::vector<Vec3> shifted;
  std::vector<Color> colors;
  for (int si = 0; si < static_cast<int>(surfaces.size()); ++si) {
    if (!SurfaceShown(o, si)) continue;
    const ContactSurface& s = surfaces[si];
    for (const ContactFace& f : s.faces) {
      const int n = static_cast<int>(f.polygon.size());
      if (n < 3) continue;
      const Vec3 shift = o.offset * FaceOffsetDirection(f);
      shifted.resize(n);
      colors.resize(n);
      for (int i = 0; i < n; ++i) {
        shifted[i] = f.polygon[i] + shift;
        colors[i] = PressureColor(i < static_cast<int>(f.pressure.size()) ? f.pressure[i] : f.p0, o);
      }
      if (o.surfaces) {
        for (int i = 1; i + 1 < n; ++i) {
          out->Triangle(shifted[0], shifted[i], shifted[i + 1], colors[0], colors[i],
                        colors[i + 1]);
        }
      }
      if (o.outlines) {
        for (int i = 0; i < n; ++i) out->Line(shifted[i], shifted[(i + 1) % n], kFaceOutlineColor);
      }
    }
    if (s.faces.empty()) continue;
    const Vec3 cop = s.CentreOfPressure();
    if (o.force_arrows) {
      out->Arrow(cop, cop + o.force_scale * s.Force(), kPatchForceColor, PatchArrowRadius(s, o));
    }
    if (o.centre_of_pressure) out->Point(cop, PatchMarkerSize(s, o), kCentreOfPressureColor);
  }
}

double MaxSurfacePressure(const std::vector<ContactSurface>& surfaces) {
  double largest = 0;
  for (const ContactSurface& s : surfaces) {
    for (const ContactFace& f : s.faces) {
      if (std::isfinite(f.p0)) largest = std::max(largest, f.p0);
      for (double p : f.pressure) {
        if (std::isfinite(p)) largest = std::max(largest, p);
      }
    }
  }
  return largest;
}

std::optional<PressurePick> PickPressure(const std::vector<ContactSurface>& surfaces,
                                         const Vec3& origin, const Vec3& direction) {
  std::optional<PressurePick> best;
  for (int si = 0; si < static_cast<int>(surfaces.size()); ++si) {
    const auto& faces = surfaces[si].faces;
    for (int fi = 0; fi < static_cast<int>(faces.size()); ++fi) {
      const ContactFace& f = faces[fi];
      const int n = static_cast<int>(f.polygon.size());
      if (n < 3 || static_cast<int>(f.pressure.size()) != n) continue;
      for (int i = 1; i + 1 < n; ++i) {
        // Möller–Trumbore, both sides.
        const Vec3& a = f.polygon[0];
        const Vec3 e1 = f.polygon[i] - a, e2 = f.polygon[i + 1] - a;
        const Vec3 pv = direction.cross(e2);
        const double det = e1.dot(pv);
        if (!(std::abs(det) > 1e-300)) continue;
        const double inv = 1.0 / det;
        const Vec3 tv = origin - a;
        const double u = tv.dot(pv) * inv;
        if (u < 0 || u > 1) continue;
        const Vec3 qv = tv.cross(e1);
        const double v = direction.dot(qv) * inv;
        if (v < 0 || u + v > 1) continue;
        const double t = e2.dot(qv) * inv;
        if (!(t >= 0) || (best && t >= best->distance)) continue;
        PressurePick pick;
        pick.surface = si;
        pick.face = fi;
        pick.distance = t;
        pick.point = origin + t * direction;
        pick.pressure = (1 - u - v) * f.pressure[0] + u * f.pressure[i] + v * f.pressure[i + 1];
        best = pick;
      }
    }
  }
  return best;
}

double NicePressureCeiling(double p) {
  if (!(p > 0) || !std::isfinite(p)) return 1.0;
  const double decade = std::pow(10.0, std::floor(std::log10(p)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    // A relative slack so that 500.0000001 (round-off of an exact 500) stays 500.
    if (p <= m * decade * (1 + 1e-9)) return m * decade;
  }
  return 10 * decade;
}

PressureRangeState UpdatePressureRange(const PressureRangeState& state, double step_max_pressure,
                                       int step, double noise_floor) {
  PressureRangeState s = state;
  if (s.mode != PressureRangeMode::kHold) return s;
  if ((!s.held || s.refit_requested) && step_max_pressure > std::max(0.0, noise_floor) &&
      std::isfinite(step_max_pressure)) {
    s.held = true;
    s.held_min = 0;
    s.held_max = NicePressureCeiling(step_max_pressure);
    s.held_step = step;
    s.refit_requested = false;
  } else if (s.held && std::isfinite(step_max_pressure) && step_max_pressure > s.held_max &&
             step_max_pressure > std::max(0.0, noise_floor)) {
    // A pressure above the held range would saturate: the range grows to its 1-2-5 ceiling
    // (and never shrinks), so it changes a few times in a run, not every frame.
    s.held_max = NicePressureCeiling(step_max_pressure);
    s.held_step = step;
  }
  return s;
}

std::array<double, 2> PressureRangeOf(const PressureRangeState& s) {
  if (s.mode == PressureRangeMode::kFixed) {
    const double lo = std::isfinite(s.fixed_min) ? s.fixed_min : 0.0;
    double hi = std::isfinite(s.fixed_max) ? s.fixed_max : lo + 1;
    if (!(hi > lo)) hi = lo + std::max(1.0, std::abs(lo));
    return {lo, hi};
  }
  if (!s.held) return {0.0, 1.0};
  return {s.held_min, s.held_max};
}

std::string FormatPressure(double pa) {
  char buf[48];
  if (!std::isfinite(pa)) {
    std::snprintf(buf, sizeof(buf), "%g Pa", pa);
    return buf;
  }
  if (pa != 0 && std::abs(pa) < 0.01) {
    std::snprintf(buf, sizeof(buf), "%.3g Pa", pa);
    return buf;
  }
  static const char* kUnits[] = {"Pa", "kPa", "MPa", "GPa"};
  double v = pa;
  int u = 0;
  while (u < 3 && std::abs(v) >= 1000) {
    v /= 1000;
    ++u;
  }
  if (v == 0) v = 0;  // no "-0"
  // Three significant digits, no trailing zeros ("%.3g" gives 1e+03 for 999.6: round first).
  const double a = std::abs(v);
  const int decimals = a >= 100 ? 0 : (a >= 10 ? 1 : 2);
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  if (s == "1000" && u < 3) {  // 999.6 rounded up: the next unit
    s = "1";
    ++u;
  } else if (s == "-1000" && u < 3) {
    s = "-1";
    ++u;
  }
  return s + " " + kUnits[u];
}

std::vector<std::array<int, 2>> TetMeshEdges(const VolumeMesh& mesh, bool boundary_only) {
  std::vector<std::array<int, 2>> edges;
  auto add = [&](int a, int b) { edges.push_back({std::min(a, b), std::max(a, b)}); };
  if (boundary_only) {
    for (const auto& f : mesh.BoundaryFaces()) {
      add(f[0], f[1]);
      add(f[1], f[2]);
      add(f[2], f[0]);
    }
  } else {
    edges.reserve(6 * mesh.tets.size());
    for (const auto& t : mesh.tets) {
      for (int i = 0; i < 4; ++i) {
        for (int j = i + 1; j < 4; ++j) add(t[i], t[j]);
      }
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

void DrawTetMeshEdges(const std::vector<Vec3>& vertices,
                      const std::vector<std::array<int, 2>>& edges, const Pose& X_WG,
                      const Color& color, DebugDraw* out) {
  const int nv = static_cast<int>(vertices.size());
  for (const auto& e : edges) {
    if (e[0] < 0 || e[1] < 0 || e[0] >= nv || e[1] >= nv) continue;
    out->Line(X_WG.Apply(vertices[e[0]]), X_WG.Apply(vertices[e[1]]), color);
  }
}

}  // namespace contactlab
