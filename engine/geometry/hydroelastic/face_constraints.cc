#include "engine/geometry/hydroelastic/face_constraints.h"

#include <cmath>

namespace contactlab {

double EffectiveGradient(double g_a, double g_b) {
  const double inv = (std::isinf(g_a) ? 0.0 : 1.0 / g_a) + (std::isinf(g_b) ? 0.0 : 1.0 / g_b);
  return 1.0 / inv;  // +∞ when both sides are rigid
}

std::vector<HydroFaceConstraint> MakeFaceConstraints(const std::vector<ContactSurface>& surfaces) {
  std::vector<HydroFaceConstraint> out;
  for (size_t s = 0; s < surfaces.size(); ++s) {
    const ContactSurface& surface = surfaces[s];
    for (size_t e = 0; e < surface.faces.size(); ++e) {
      const ContactFace& f = surface.faces[e];
      if (!(f.g_a >= kMinFaceGradient) || !(f.g_b >= kMinFaceGradient)) continue;
      const double g = EffectiveGradient(f.g_a, f.g_b);
      if (!std::isfinite(g)) continue;  // two rigid sides: no compliance to model
      HydroFaceConstraint c;
      c.surface = static_cast<int>(s);
      c.face = static_cast<int>(e);
      c.geom_a = surface.geom_a;
      c.geom_b = surface.geom_b;
      c.point = f.centroid;
      c.normal = f.normal;
      c.area = f.area;
      c.p0 = f.p0;
      c.g = g;
      c.stiffness = f.area * g;
      c.phi = -f.p0 / g;
      c.f0 = f.area * f.p0;
      out.push_back(c);
    }
  }
  return out;
}

Contact ToPointContact(const HydroFaceConstraint& c) {
  Contact k;
  k.geom_a = c.geom_a;
  k.geom_b = c.geom_b;
  k.point = c.point;
  k.normal = c.normal;
  k.phi = c.phi;
  k.stiffness = c.stiffness;
  return k;
}

}  // namespace contactlab
