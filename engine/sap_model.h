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
#include "engine/sap_solver.h"

namespace contactlab {

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
