// The contact model of a step: which law turns a constraint velocity v_c into an impulse γ.
// Every model is a convex per-constraint cost ℓ_i(v_c) with γ_i = −∂ℓ_i/∂v_c and
// G_i = ∂²ℓ_i/∂v_c² ⪰ 0 (seed 004, §II); a solver minimizes ½‖v − v*‖²_A + Σ ℓ_i without
// knowing which law it is.
//
//   linear              SAP's law (seed 000, eqs. 27-30): linear spring k and damper k τ_d,
//                       friction regularized by R_t = σ w; the near-rigid clamp β.
//   lagged              Hunt–Crossley normal impulse n(v_n) = δt (f₀ − δt k v_n)₊ (1 − d v_n)₊,
//                       friction μ γ_n0 ‖v_t‖_s from the normal impulse at the step's start
//                       (seed 004, §VI-B), stiction tolerance ε_s = v_s.
//   lagged_regularized  lagged with ε_s = max(v_s, σ w μ γ_n0) per contact and step (§VIII).
//   similar             γ_n = n(z), z = v_n − μ‖v_t‖_s, γ_t = −μ n(z) t̂_s (§VI-C).
//   The three Hunt–Crossley models clamp k at the near-rigid stiffness 4π²/(β_HC² w δt²) (the
//   analogue of the linear law's eq. 29, with its own β_HC = contact.near_rigid_beta).
//
// Joint limits always use the linear law (a unilateral spring-damper with β = limit_beta).
#pragma once

#include <cstdint>
#include <string>

namespace contactlab {

enum class ContactModelType : std::uint8_t {
  kLinear = 0,
  kLagged = 1,
  kLaggedRegularized = 2,
  kSimilar = 3,
};
constexpr int kNumContactModelTypes = 4;

// State of one constraint at a constraint velocity, as its law reports it. kNoContact means that
// the constraint is inactive there: γ_i = 0 and G_i = 0 (a solver may drop it from H).
// kStiction / kSliding: the law's friction regimes (linear law: the regions of SAP's projection,
// paper Appendix C; Hunt–Crossley laws: ‖v_t‖ below / above ε_s). Joint limits: kStiction when
// the limit pushes, else kNoContact.
enum class Regime : std::uint8_t { kStiction = 0, kSliding = 1, kNoContact = 2 };
const char* RegimeName(Regime r);  // "stiction", "sliding", "no_contact" (engine/solvers/common/solver.cc)

// "linear", "lagged", "lagged_regularized", "similar" (the scene file's spelling).
const char* ContactModelName(ContactModelType type);
// Inverse of ContactModelName; false for an unknown name.
bool ParseContactModel(const std::string& name, ContactModelType* type);

// Parameters of the contact model that are not per pair of materials (per pair: k, τ_d, d, μ
// in ConstraintData). σ and β of the linear law are SapParameters::sigma / beta / limit_beta.
// Default β_HC of ContactModelParameters::near_rigid_beta: the clamp acts where δt² k w exceeds
// 4π²/β_HC² ≈ 4.4e4, above the seed 004 experiments at their δt of Figs. 2, 5, 8-11 (k = 1e7
// N/m) and far below the stiffness at which Newton stalls (docs/contact_models.md).
constexpr double kDefaultHuntCrossleyBeta = 0.03;

struct ContactModelParameters {
  ContactModelType model = ContactModelType::kLinear;
  // v_s [m/s]: regularization velocity of the Hunt–Crossley models' friction, ‖v_t‖_s =
  // √(‖v_t‖² + v_s²) − v_s (seed 004, eq. 45; the paper uses 1e-4 throughout). Range (0, 1].
  double stiction_tolerance = 1e-4;
  // β_HC [-]: near-rigid regime of the Hunt–Crossley models, k̃ = min(k, 4π²/(β_HC² w δt²)): a
  // contact whose period 2π/√(k w) is shorter than β_HC δt gets the stiffness of that period
  // (engine/contact/hunt_crossley.h). 0: k as given (the paper's law). Range [0, 1].
  double near_rigid_beta = kDefaultHuntCrossleyBeta;
};

}  // namespace contactlab
