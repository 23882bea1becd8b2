// The linear (SAP) law's analytic projection (SAP paper eq. 27, Appendix C) and its derivative
// G = −∂γ/∂v_c (§IV-A, Appendix D), per constraint.
//
// Friction cone F = {‖γ_t‖ <= μ γ_n}, R = diag(R_t, R_t, R_n), y = −R⁻¹(v_c − v̂).
// γ = P_F(y) = argmin_{γ∈F} ½(γ − y)ᵀR(γ − y), with y_r = ‖y_t‖, t̂ = y_t / y_r,
// μ̂ = μ R_t / R_n, μ̃² = μ μ̂:
//   I   stiction   y_r <= μ y_n              γ = y                                G = R⁻¹
//   III no contact R_n y_n + μ R_t y_r < 0   γ = 0                                G = 0
//   II  sliding    otherwise                 γ_n = (y_n + μ̂ y_r)/(1 + μ̃²),
//                                            γ_t = μ γ_n t̂,
//       G = a aᵀ / (R_n (1 + μ̃²)) + [μ γ_n / (R_t y_r) (I₂ − t̂t̂ᵀ), 0; 0, 0],  a = [μ t̂; 1].
// Regions are tested with products so that μ = 0 is valid; μ = 0 is handled separately
// (γ_t = 0, G_t = 0, γ_n = max(0, y_n)). Boundary convention: ∂F uses the stiction formula
// (tested first), ∂F° the sliding formula (the no-contact test is strict).
// Unilateral rows (K = ℝ⁺): γ = max(0, y), G = 1/R for y > 0 else 0.
#pragma once

#include <cmath>

#include "engine/contact/contact_model.h"
#include "engine/common/math.h"

namespace contactlab {

// Region of y for μ > 0, from y_r = ‖y_t‖ and y_n: the tests of the table above, in that order
// (so that ∂F counts as stiction and only the strict interior of F° as no contact).
inline Regime SapConeRegion(double yr, double yn, double mu, double Rt, double Rn) {
  if (yr <= mu * yn) return Regime::kStiction;
  if (Rn * yn + mu * Rt * yr < 0) return Regime::kNoContact;
  return Regime::kSliding;
}

// Projects y (3, [N s]) onto the friction cone in the R-norm. Writes γ (3, [N s]) and, when
// G != nullptr, G = −∂γ/∂v_c (3x3, [N s²/m]... i.e. 1/R units). Returns the region.
inline Regime SapProjectCone(const Vec3& y, double mu, double Rt, double Rn, Vec3* gamma,
                             Mat3* G) {
  const double yr = y.head<2>().norm();
  const double yn = y(2);
  if (mu == 0) {
    // Frictionless: the cone degenerates to the normal ray.
    if (G) G->setZero();
    if (yn > 0) {
      *gamma << 0, 0, yn;
      if (G) (*G)(2, 2) = 1 / Rn;
      return yr == 0 ? Regime::kStiction : Regime::kSliding;
    }
    gamma->setZero();
    return Regime::kNoContact;
  }
  const Regime region = SapConeRegion(yr, yn, mu, Rt, Rn);
  if (region == Regime::kStiction) {
    *gamma = y;
    if (G) *G = Vec3(1 / Rt, 1 / Rt, 1 / Rn).asDiagonal();
    return Regime::kStiction;
  }
  if (region == Regime::kNoContact) {
    gamma->setZero();
    if (G) G->setZero();
    return Regime::kNoContact;
  }
  // Sliding: yr > 0 here (yr = 0 falls in stiction for yn >= 0 and in no contact for yn < 0).
  const double mu_hat = mu * Rt / Rn;
  const double mu_tilde2 = mu * mu_hat;
  const Eigen::Vector2d t_hat = y.head<2>() / yr;
  const double gn = (yn + mu_hat * yr) / (1 + mu_tilde2);
  gamma->head<2>() = mu * gn * t_hat;
  (*gamma)(2) = gn;
  if (G) {
    const Vec3 a(mu * t_hat(0), mu * t_hat(1), 1.0);
    G->noalias() = a * a.transpose() / (Rn * (1 + mu_tilde2));
    const Eigen::Matrix2d P_perp = Eigen::Matrix2d::Identity() - t_hat * t_hat.transpose();
    G->topLeftCorner<2, 2>() += (mu * gn / (Rt * yr)) * P_perp;
  }
  return Regime::kSliding;
}

// Unilateral row: γ = max(0, y); G = −∂γ/∂v_c = 1/R when y > 0, else 0.
inline Regime SapProjectUnilateral(double y, double R, double* gamma, double* G) {
  if (y > 0) {
    *gamma = y;
    if (G) *G = 1 / R;
    return Regime::kStiction;
  }
  *gamma = 0;
  if (G) *G = 0;
  return Regime::kNoContact;
}

// SapProjectCone for μ > 0 with the reciprocals inv_t = 1/R_t and inv_n = 1/R_n given, so that
// the common regimes need no division: the same regions and formulas; G in stiction is
// diag(inv_t, inv_t, inv_n) (bitwise the same as 1/R).
inline Regime ProjectConeWithInverses(const Vec3& y, double mu, double Rt, double Rn,
                                      double inv_t, double inv_n, Vec3* gamma, Mat3* G) {
  const Regime region = SapConeRegion(y.head<2>().norm(), y(2), mu, Rt, Rn);
  if (region == Regime::kStiction) {
    *gamma = y;
    if (G) *G = Vec3(inv_t, inv_t, inv_n).asDiagonal();
    return Regime::kStiction;
  }
  if (region == Regime::kNoContact) {
    gamma->setZero();
    if (G) G->setZero();
    return Regime::kNoContact;
  }
  return SapProjectCone(y, mu, Rt, Rn, gamma, G);  // sliding
}

}  // namespace contactlab
