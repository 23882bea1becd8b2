// The bilateral case of Drumwright's first-order solver (seed 002 §4.2, digest §3): every row a
// spring–damper λ = −Kφ − Bφ̇ − M̂Ġv, integrated by implicit Euler in constraint space and
// applied explicitly in a semi-implicit Euler step of the multibody state:
//
//   φ̇₁ = G v₁ + hĠv₀,  φ₁ = φ₀ + hφ̇₁,  λ₁ = −Kφ₁ − Bφ̇₁ − M̂Ġv₀   (eqs. 53, 61-62),
//   v₁ = v₀ + hM⁻¹(Gᵀλ₁ + f),  q₁ = q₀ + hN v₁ (the caller's)          (eqs. 36-37).
//
// Velocity form (digest §3, "linearly implicit Euler" on the spring–damper forces), SPD for any
// rank of G, so redundant rows cost nothing:
//   (M + GᵀSG) v₁ = M v₀ + h f + h Gᵀ[−Kφ₀ − hκĠv₀ − M̂Ġv₀],   S = h²K + hB, κ = hK + B.
// Force form (eq. 158-161 without other rows): (I + S W) λ₁ = −Kφ₀ − κ(Gv₀ + hGM⁻¹f + hĠv₀)
//   − M̂Ġv₀, W = GM⁻¹Gᵀ, solved as the SPD system (S⁻¹ + W) λ₁ = S⁻¹(…) (rows with S = 0 have
//   λ₁ = its right-hand side directly), better conditioned than the velocity form for stiff K
//   when W is nonsingular.
// M̂ = W⁻¹ does not exist for redundant rows (digest §9 item 8): the M̂Ġv₀ term is dropped then
// (and when the caller turns it off), which only perturbs soft constraints.
//
// ContactProblem has no bilateral rows today (joints are minimal coordinates); when a row is
// flagged bilateral in the future, the first-order solver eliminates such rows with this step:
// M̃ = A + G_bᵀS_bG_b replaces A and v* becomes this step's v₁ (digest §6 step 2).
#pragma once

#include <string>

#include "engine/common/math.h"

namespace contactlab {

struct BilateralStepInput {
  double h = 0;  // time step [s]
  MatX M;        // n x n, SPD generalized inertia at q₀ [kg]
  VecX v0;       // n, velocities at t₀
  VecX f;        // n, non-constraint generalized forces at (q₀, v₀) [N], applied explicitly
  MatX G;        // n_b x n, constraint Jacobian ∂φ/∂q N at q₀
  VecX phi0;     // n_b, constraint deformation φ(q₀) [m]
  VecX K;        // n_b, stiffness [N/m] (>= 0)
  VecX B;        // n_b, damping [N s/m] (>= 0)
  VecX Gdot_v0;  // n_b, Ġv₀ [m/s²]; empty: zero
  bool include_mhat_gdot = true;  // the M̂Ġv₀ term of eq. 53
};

struct BilateralStepResult {
  VecX v1;                      // n
  VecX lambda;                  // n_b, λ₁ [N]
  VecX phi1;                    // n_b, predicted φ₁
  VecX phi_dot1;                // n_b, predicted φ̇₁
  bool mhat_term_used = false;  // M̂Ġv₀ included (W invertible and requested)
  std::string message;          // why the step failed (empty on success)
};

// The velocity form. False (with a message) on sizes that disagree or a factorization failure.
bool BilateralStep(const BilateralStepInput& in, BilateralStepResult* out);
// The force form, for comparison and for stiff K with nonsingular W.
bool BilateralStepForceForm(const BilateralStepInput& in, BilateralStepResult* out);

}  // namespace contactlab
