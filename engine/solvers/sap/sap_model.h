// Evaluation of the cost, gradient and Hessian SAP's Newton method minimizes (paper eqs. 24,
// §IV-A, App. D) on a ContactProblem with prepared constraint laws (engine/contact/
// constraint_bundle.h; the linear law is SAP's ℓ_i = ½ γ_iᵀ R_i γ_i). Used by the tests that check
// the derivatives with finite differences and by the conditioning tools.
//
//   ℓ_p(v) = ½‖v − v*‖²_A + ℓ_c(v_c),   ℓ_c = Σ_i ℓ_i(v_c,i),   v_c = J v + b
//   ∇ℓ_p   = A(v − v*) − Jᵀγ
//   ∇²ℓ_p  = H = A + JᵀGJ,   G = blockdiag(G_i),  G_i = −∂γ_i/∂v_c,i
#pragma once

#include <vector>

#include "engine/contact/contact_problem.h"
#include "engine/contact/constraint_bundle.h"

namespace contactlab {

// ℓ_c = Σ_i ℓ_i at the constraint velocities `vc` (num_rows, [m/s]) under the prepared laws.
// Fills γ (num_rows, [N s]); when non-null, G (per constraint, 3x3; a unilateral row uses the
// (0,0) entry) and the regime per constraint. Returns ℓ_c [J].
double SapConstraintCost(const ContactProblem& problem, const ConstraintBundle& laws,
                         const VecX& vc, VecX* gamma, std::vector<Mat3>* G,
                         std::vector<Regime>* regime);

// y = A x with the per-tree blocks (x, y: nv).
void SapMultiplyA(const ContactProblem& problem, const VecX& x, VecX* y);

// y = J x without the bias (x: nv, y: num_rows).
void SapMultiplyJ(const ContactProblem& problem, const VecX& x, VecX* y);

// ℓ_p(v) [J]; fills ∇ℓ_p (nv, [N s]) and γ (num_rows) when non-null.
double SapCost(const ContactProblem& problem, const ConstraintBundle& laws, const VecX& v,
               VecX* gradient, VecX* gamma);

// Dense H = A + JᵀGJ at v (nv x nv, [kg]).
MatX SapDenseHessian(const ContactProblem& problem, const ConstraintBundle& laws,
                     const VecX& v);

}  // namespace contactlab
