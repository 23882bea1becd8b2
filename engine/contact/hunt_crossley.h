// The Hunt–Crossley contact laws of seed 004 (Castro et al., "A theory of irrotational contact
// fields"): lagged (§VI-B), regularized lagged (§VIII, eq. 44) and similar (§VI-C). Each is a
// convex per-constraint cost ℓ(v_c) of the contact velocity v_c = (v_t1, v_t2, v_n) [m/s]
// (v_n > 0 separating) with impulse γ = −∂ℓ/∂v_c [N s] and Hessian G = ∂²ℓ/∂v_c² ⪰ 0.
//
// Normal impulse (eqs. 6, 13), with x0 = −φ0 the penetration at the step's start:
//   n(v) = δt (f0 − δt k v)₊ (1 − d v)₊,    f0 = k x0,
//   n(v) = 0 for v >= v̂ = min(x0/δt, 1/d),  −n'(v) = δt [δt k (1 − d v) + d (f0 − δt k v)] >= 0.
// Its antiderivative N⁺ (eq. 15, the f0 form, Δf = −δt k v) is clamped at v̂ (eq. 16). The cost
// used here is ℓ_n(v) = N⁺(v̂) − N⁺(min(v, v̂)) = ∫_v^v̂ n: eq. 16's −N plus the constant N⁺(v̂),
// so that ℓ_n = 0 without contact (as SAP's ½γᵀRγ) and ℓ >= 0. It is evaluated in
// s = v̂ − min(v, v̂) >= 0 as a sum of non-negative terms (no cancellation):
//   ℓ_n = δt s [a b + s (a d + b δt k)/2 + s² δt k d/3],  a = (f0 − δt k v̂)₊, b = (1 − d v̂)₊,
//   n = δt (a + δt k s)(b + d s),  −n' = δt [δt k (b + d s) + d (a + δt k s)].
// Both forms are finite and continuous as k → 0 with f0 finite.
//
// Soft norm (App. A, eqs. 45-47), ε = ε_s > 0:
//   ‖v_t‖_s = √(‖v_t‖² + ε²) − ε,  t̂_s = v_t / (‖v_t‖_s + ε),  ∂²‖v_t‖_s = (I − t̂_s t̂_sᵀ)/(‖v_t‖_s + ε).
//
//   lagged:    ℓ = ℓ_n(v_n) + μ γ_n0 ‖v_t‖_s,  γ_t = −μ γ_n0 t̂_s,  γ_n = n(v_n),
//              G = blockdiag(μ γ_n0 (I − t̂_s t̂_sᵀ)/(‖v_t‖_s + ε), −n'(v_n))           (31)-(33)
//   similar:   z = v_n − μ ‖v_t‖_s,  ℓ = ℓ_n(z),  γ_n = n(z),  γ_t = −μ n(z) t̂_s,     (34)-(39)
//              G = −n'(z) u uᵀ + μ n(z) blockdiag((I − t̂_s t̂_sᵀ)/(‖v_t‖_s + ε), 0),
//              u = ∂z/∂v_c = (−μ t̂_s, 1). (Eq. 40 prints only the tt block, with μ where μ² is
//              due; this is the full Hessian.)
// γ_n0 = δt (f0)₊ (1 − d v_n0)₊ is the impulse of the force at the step's start (eq. 29).
// ε_s = v_s, or max(v_s, σ w μ γ_n0) for lagged_regularized (eq. 44, "σ ≤" in the print is σ w).
//
// Regime: no contact when the law is inactive, γ = 0 and G = 0 (γ_n = 0, and for the lagged
// laws also μ γ_n0 = 0: their friction acts on a contact that separates during the step);
// otherwise stiction when ‖v_t‖ < ε_s, sliding when not.
//
// Preconditions (the parameter tables enforce them): δt > 0, k >= 0, d >= 0, μ >= 0, v_s > 0,
// σ >= 0, w >= 0, all finite. No branch divides by a quantity that can be zero: 1/d is formed only
// for d > 0 and the soft norm divides by √(‖v_t‖² + ε²) >= ε > 0.
#pragma once

#include <Eigen/Core>

#include "engine/contact/contact_model.h"
#include "engine/common/math.h"

namespace contactlab {

struct HuntCrossleyConstants {  // per constraint, per step
  double mu = 0;                // μ [-]
  double dt = 0;                // δt [s]
  double k = 0;                 // k̃ [N/m]: the stiffness the law uses, min(k, k_nr) (below)
  double k_nr = 0;              // k_nr = 4π²/(β² w δt²) [N/m], +∞ without the clamp (β = 0)
  bool near_rigid = false;      // k̃ = k_nr < k: the near-rigid clamp is active
  double d = 0;                 // d [s/m]
  double f0 = 0;                // k x0 [N], x0 = −φ0 (negative for a gap)
  double v_hat = 0;             // min(x0/δt, 1/d) [m/s]: n(v) = 0 for v >= v_hat
  double gamma_n0 = 0;          // n₀ = δt (f0)₊ (1 − d v_n0)₊ [N s] (lagged friction)
  double eps_s = 0;             // ε_s [m/s]: v_s, or max(v_s, σ w μ γ_n0) for lagged_regularized
};

// Constants of one contact for one step. type: kLagged, kLaggedRegularized or kSimilar (the
// regularized ε_s is used only for kLaggedRegularized). φ0 [m] signed distance at the step's start,
// v_n0 [m/s] normal velocity at the step's start, v_s [m/s] stiction tolerance, σ [-] friction
// regularization, w [1/kg] Delassus estimate of the contact (as SAP's R_t = σ w).
//
// Near-rigid regime (β > 0): the analogue of the linear model's clamp R_n ≥ β² w/(4π²) (seed 000,
// eq. 29). A mass 1/w on a spring k oscillates with period T = 2π/√(k w); a contact whose period
// is shorter than β δt is not resolved by the step, and its stiffness only makes the Newton
// system stiffer (G_n ≈ δt² k against a mass 1/w). The law then uses
//   k̃ = min(k, k_nr),   k_nr = 4π² / (β² w δt²)          [N/m]
// in place of k everywhere (f₀ = k̃ x0, n(v), G, γ_n0), so that δt² k̃ w ≤ 4π²/β² as for the
// linear law's 1/R_n. d, μ, v̂ = min(x0/δt, 1/d) and v_s are unchanged. w = 0 (J_i = 0) uses
// w = 1 as the linear law does. β = 0: no clamp (the paper's law, k̃ = k).
HuntCrossleyConstants PrepareHuntCrossley(ContactModelType type, double mu, double dt, double k,
                                          double d, double phi0, double vn0, double v_s,
                                          double sigma, double w, double beta = 0);

// k_nr = 4π² / (β² w δt²) [N/m] of the near-rigid regime (+∞ for β = 0); w = 0 counts as 1.
double HuntCrossleyNearRigidStiffness(double dt, double w, double beta);

// ℓ_i at v_c = (v_t1, v_t2, v_n) [m/s]; writes γ (3, [N s]) and, when G != nullptr,
// G = ∂²ℓ/∂v_c² (3x3, PSD, [N s²/m]) and the regime (when regime != nullptr). Returns ℓ [J].
double HuntCrossleyCost(ContactModelType type, const HuntCrossleyConstants& c, const double* vc,
                        double* gamma, Mat3* G, Regime* regime);

// The normal law alone at v (v_n for lagged, z for similar).
struct HuntCrossleyNormalTerms {
  double cost = 0;     // ℓ_n(v) = ∫_v^v̂ n [J]
  double impulse = 0;  // n(v) [N s]
  double hessian = 0;  // −n'(v) [N s²/m] (0 for v >= v̂)
};
HuntCrossleyNormalTerms HuntCrossleyNormal(const HuntCrossleyConstants& c, double v);

// Inverse of the normal law: the v <= v̂ with n(v) = γ [m/s], for γ >= 0. With s = v̂ − v,
// δt (a + δt k s)(b + d s) = γ is the quadratic δt k d s² + (a d + b δt k) s + a b − γ/δt = 0,
// solved for its root s >= 0 in the form 2q / (B + √(B² + 4 A q)) (q = γ/δt − a b; no
// cancellation). γ <= δt a b (a b is 0 up to rounding) gives v̂. A law that cannot produce γ
// (k = 0 and d f0 = 0: n ≡ 0) gives −∞: no velocity makes that impulse.
double HuntCrossleyNormalInverse(const HuntCrossleyConstants& c, double gamma);

// N⁺(v; f0) of eq. 15 (unclamped): δt [v (f0 + Δf/2) − d v²/2 (f0 + 2Δf/3)], Δf = −δt k v [J].
// Reference form for tests and docs; HuntCrossleyNormal is the evaluation the laws use.
double HuntCrossleyAntiderivative(const HuntCrossleyConstants& c, double v);

// Soft norm of v_t with regularization ε > 0 (eqs. 45-47), free of cancellation for ‖v_t‖ ≪ ε and
// of overflow for ‖v_t‖ large.
struct SoftNorm {
  double magnitude = 0;                       // ‖v_t‖ [m/s]
  double norm = 0;                            // ‖v_t‖_s [m/s]
  double root = 0;                            // ‖v_t‖_s + ε = √(‖v_t‖² + ε²) [m/s]
  Eigen::Vector2d t_hat = Eigen::Vector2d::Zero();  // t̂_s = v_t / root (‖t̂_s‖ < 1)
};
SoftNorm ComputeSoftNorm(double vt1, double vt2, double eps);

}  // namespace contactlab
