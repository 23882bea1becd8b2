// Evaluation of the SAP cost, gradient and Hessian (paper eqs. 24, §IV-A, App. D) on a
// ContactProblem with a given regularization. Used by SapSolver and by the tests that check the
// derivatives with finite differences.
//
//   ℓ_p(v) = ½‖v − v*‖²_A + ℓ_R(v_c),   ℓ_R = Σ_i ½ γ_iᵀ R_i γ_i,   v_c = J v + b
//   ∇ℓ_p   = A(v − v*) − Jᵀγ
//   ∇²ℓ_p  = H = A + JᵀGJ,   G = blockdiag(G_i),  G_i = −∂γ_i/∂v_c,i
#pragma once

#include <vector>

#include "engine/contact_problem.h"
#include "engine/sap_cone.h"
#include "engine/sap_solver.h"

namespace contactlab {

// ℓ_R,i = ½ γ_iᵀ R_i γ_i of one constraint from its rows of R, v̂ and v_c (c.num_rows entries
// each). Writes γ_i and, when non-null, G_i (a unilateral row uses the (0,0) entry) and the
// regime (never null).
inline double SapConstraintCostOne(const ConstraintData& c, const double* R, const double* v_hat,
                                   const double* vc, double* gamma, Mat3* G, Regime* regime) {
  if (c.kind == ConstraintKind::kFrictionCone) {
    const Eigen::Map<const Vec3> Rv(R), vh(v_hat), v(vc);
    Eigen::Map<Vec3> g_out(gamma);
    Vec3 g;
    if (c.friction > 0 && Rv(0) == Rv(1)) {
      // y = −R⁻¹(v_c − v̂), elementwise since R is diagonal, with R⁻¹ formed once.
      const double inv_t = 1.0 / Rv(0), inv_n = 1.0 / Rv(2);
      const Vec3 y = -(v - vh).cwiseProduct(Vec3(inv_t, inv_t, inv_n));
      *regime = ProjectConeWithInverses(y, c.friction, Rv(0), Rv(2), inv_t, inv_n, &g, G);
    } else {
      const Vec3 y = -(v - vh).cwiseQuotient(Rv);
      *regime = SapProjectCone(y, c.friction, Rv(0), Rv(2), &g, G);
    }
    g_out = g;
    return 0.5 * (Rv(0) * g(0) * g(0) + Rv(1) * g(1) * g(1) + Rv(2) * g(2) * g(2));
  }
  const double y = -(vc[0] - v_hat[0]) / R[0];
  double dg;
  *regime = SapProjectUnilateral(y, R[0], gamma, &dg);
  if (G) {
    G->setZero();
    (*G)(0, 0) = dg;
  }
  return 0.5 * R[0] * gamma[0] * gamma[0];
}

// ℓ_R at the constraint velocities `vc` (num_rows, [m/s]). Fills γ (num_rows, [N s]); when
// non-null, G (per constraint, 3x3; a unilateral row uses the (0,0) entry, [s/kg]) and the regime
// per constraint. Returns ℓ_R [J].
double SapConstraintCost(const ContactProblem& problem, const SapRegularization& reg,
                         const VecX& vc, VecX* gamma, std::vector<Mat3>* G,
                         std::vector<Regime>* regime);

// y = A x with the per-tree blocks (x, y: nv).
void SapMultiplyA(const ContactProblem& problem, const VecX& x, VecX* y);

// y = J x without the bias (x: nv, y: num_rows).
void SapMultiplyJ(const ContactProblem& problem, const VecX& x, VecX* y);

// ℓ_p(v) [J]; fills ∇ℓ_p (nv, [N s]) and γ (num_rows) when non-null.
double SapCost(const ContactProblem& problem, const SapRegularization& reg, const VecX& v,
               VecX* gradient, VecX* gamma);

// Dense H = A + JᵀGJ at v (nv x nv, [kg]).
MatX SapDenseHessian(const ContactProblem& problem, const SapRegularization& reg,
                     const VecX& v);

}  // namespace contactlab
