// One point-contact constraint per contact-surface face (Masterjohn et al., arXiv 2110.04157;
// SAP paper §VI-D): each face e is a compliant point contact at its centroid C_e, normal n̂_e,
// with
//   g   = 1 / (1/g_M + 1/g_N)   (1/∞ = 0: a rigid side leaves g = the compliant side's gradient)
//   k   = A_e g                 [N/m]
//   φ0  = −p0 / g               [m]   (so x0 = −φ0 = p0/g and k x0 = A_e p0)
//   f0  = A_e p0                [N]   (the face's elastic force at the current configuration)
// where g_M, g_N are the two bodies' pressure gradients along the normal, each positive into its
// body (ContactFace::g_b and g_a). A face with g_M or g_N below 1e-14 Pa/m is skipped (its k
// would vanish while f0 need not; the linear model cannot represent it).
// Damping (τ_d, Hunt–Crossley d) and friction μ come from the pair's materials, as for point
// contact; the simulator fills them.
#pragma once

#include <vector>

#include "engine/geometry/contact.h"
#include "engine/geometry/hydroelastic/contact_surface.h"

namespace contactlab {

constexpr double kMinFaceGradient = 1e-14;  // [Pa/m]

struct HydroFaceConstraint {
  int surface = -1;              // index of the contact surface (patch) in the input list
  int face = -1;                 // face index within that surface
  int geom_a = -1, geom_b = -1;  // the surface's geometries
  Vec3 point = Vec3::Zero();     // C_e, world [m]
  Vec3 normal = Vec3::UnitZ();   // n̂_e, world, from A into B
  double phi = 0;                // φ0 = −p0/g [m]
  double stiffness = 0;          // k = A_e g [N/m]
  double area = 0;               // A_e [m²]
  double p0 = 0;                 // [Pa]
  double g = 0;                  // effective gradient [Pa/m]
  double f0 = 0;                 // A_e p0 [N]
};

// Effective gradient of a face, 1/(1/g_a + 1/g_b) with an infinite side contributing 0.
double EffectiveGradient(double g_a, double g_b);

// One entry per kept face of every surface, in order (surface, then face).
std::vector<HydroFaceConstraint> MakeFaceConstraints(const std::vector<ContactSurface>& surfaces);

// The point contact of a face constraint: geometries, point, normal, φ and k. Bodies and the
// pair's damping and friction are left for the simulator to fill.
Contact ToPointContact(const HydroFaceConstraint& c);

}  // namespace contactlab
