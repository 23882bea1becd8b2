// The first-order constraint solver of Drumwright, "An Unconditionally Stable First-Order
// Constraint Solver for Multibody Systems" (seed 002; digest
// shared/research/seed_002_drumwright.md, whose corrected equations are used). Symbols follow the
// paper and the digest.
//
// Every constraint row is a spring–damper, λ = −Kφ − Bφ̇ (eq. 15/23), with K = k and B = k τ_d
// from the problem's ConstraintData (k = ∞, or k <= 0 as PhysicalNormalLaw reads it, is "rigid":
// K = rigid_stiffness). Its force over the step is predicted by implicit Euler in constraint space
// (φ₁ = φ₀ + h φ̇₁, linearized at t₀, one collision query) and applied explicitly over the step.
// In ContactProblem terms, with the impulse γ = h λ [N s] as the unknown:
//
//   v = v* + A⁻¹Jᵀγ,   W̃ = J A⁻¹ Jᵀ (dense n_r x n_r; per-tree Cholesky of A),
//   ψ = J v* + b       (constraint rates at γ = 0; the problem has no Ġv term, so the paper's
//                       M̂Ġv and hĠv₀ terms are absent),
//   κ = hK + B,  S = hκ = h²K + hB,
//   h σ(γ) = −hKφ − S(ψ + W̃γ)   (the spring–damper impulse predicted at t + h; in the digest's
//                                 force units σ(λ) = q̄ − S W̃ λ, q̄ = −Kφ − κψ, step §6.3).
//
// Rows: n (contact normal) and u (joint limit) are unilateral spring–dampers; r, s (contact
// tangents) are memoryless Coulomb dampers, K_t = 0, B_t = friction_damping / h, so S_t =
// friction_damping [kg] and h σ_t = −S_t v_t. The per-step problem (digest §6.4, eqs. 176-186,
// multiplied by h², which does not move its minimizer) is the strictly convex SOCP
//
//   min  (ζ/2)(‖γ_n‖² + ‖γ_u‖²) + ½(‖γ_r‖² + ‖γ_s‖²) + ½‖γ_r − hσ_r‖² + ½‖γ_s − hσ_s‖²
//   s.t. γ_x ≥ hσ_x(γ), γ_x ≥ 0 (x = n, u),   ‖(γ_r, γ_s)‖ ≤ μ γ_n per contact,
//
// ζ = normal_weight / h (the paper's 1/h), solved by the dense interior-point method of socp.h.
// Contacts with μ = 0 have no tangential rows at all (γ_t = 0; their damper law is not put in
// the objective, where it would only bias the normal impulses).
//
// Measured limitation of the paper's program (digest §9 item 4; tests/test_first_order.cc,
// FirstOrderBox): the normal rows are inequalities γ_n >= hσ_n, so the optimizer may raise γ_n
// above the spring law whenever that shrinks the friction slack, at the price (ζ/2)γ_n². With
// S_t = 1e6 kg the slack's weight (μ S_t w)² ~ 1e10 dwarfs ζ = 1/h = 100: E7's box on the 15°
// ramp is thrown off it (μ = 0.125: normal impulse 3x the weight's, 5.9 m of lift, 0.1 mm of
// slide instead of 0.684 m), and a box at rest under a sub-limit push hops and hovers ~0.8 mm up,
// held by "friction" across the gap of its speculative contacts. A ζ h near S_t² restores the
// spring law but then ζγ_n² swamps the friction terms at the IPM's relative precision. The
// complementarity variant has neither problem (Coulomb distances to 3e-4 m).
//
// Zero impulses: the paper's objective has no gradient at γ = 0, so the interior point reaches an
// inactive constraint only as √gap; impulses below 10√ε_gap of the problem's impulse scale are
// set to 0 (regime no contact), and v is computed from the corrected γ.
//
// Formulation::kComplementarity (the digest's §4 "LCP variant", extended to friction): the
// symmetric cone program min ½γᵀ(W̃ + S⁻¹)γ + γᵀ(ψ − v̂) s.t. γ ∈ F, v̂ = −Kφ/κ on normal rows,
// whose optimality conditions are γ_x = max(0, hσ_x(γ)) row by row (exact implicit Euler of the
// piecewise spring–damper) and, with friction, SAP's law with R = S⁻¹ (seed 000 eq. 27). It is
// the problem SAP solves with R_n = 1/S_n (no near-rigid clamp) and R_t = 1/friction_damping.
//
// φ convention (PhiConvention): kSigned uses the problem's signed φ0 (a speculative contact with
// a gap, φ0 > 0, is loaded only when the predicted φ₁ = φ0 + h v_n < 0, as in SAP's v̂);
// kClampNonPositive is the paper's φ_n = min(φ0, 0) (bodies apart sit at the spring's rest
// length, so a speculative contact resists any approach at once, even across a gap).
//
// Time stepping: the simulator's free motion (v*, A) and position update are used as given.
// With symplectic Euler (A = M, q₁ = q₀ + δt v₁) a step is the paper's scheme (eqs. 36-37): λ₁
// from the implicit-Euler prediction, applied explicitly over the whole step, one collision query.
// With the other θ-method integrators the constraint impulse is the same prediction, but the
// other forces enter A and v* per θ (implicit Euler: A = M + δt D + δt² K, as given) and q
// advances with the θ_vq velocity, so the φ₁ = φ₀ + δt φ̇₁ predicted here is where the position
// update puts the constraint only for θ_vq = 1.
//
// Accepted contact models: linear only (K, B from k, τ_d); the Hunt–Crossley models give
// kUnsupportedContactModel. Joint limits are unilateral rows under every accepted model.
// Bilateral rows: ContactProblem has none today; the bilateral case is BilateralStep
// (bilateral_step.h), to be used for rows flagged bilateral when the problem gets them.
//
// Contracts: A blocks SPD (a block that is not gives kNumericalFailure); non-finite input gives
// kNonFiniteInput without iterating; Solve never throws on numerical trouble.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/contact/constraint_bundle.h"
#include "engine/solvers/common/solver.h"
#include "engine/solvers/first_order/socp.h"

namespace contactlab {

struct FirstOrderParameters {
  // kPaper: Drumwright's min-norm SOCP (digest §6 step 4). kComplementarity: the symmetric
  // "LCP variant" (digest §4), exact complementarity of the spring law.
  enum class Formulation { kPaper, kComplementarity };
  Formulation formulation = Formulation::kPaper;
  // kSigned: φ = φ0 (default). kClampNonPositive: φ = min(φ0, 0), the paper's convention.
  enum class PhiConvention { kSigned, kClampNonPositive };
  PhiConvention phi_convention = PhiConvention::kSigned;
  double rigid_stiffness = 1e15;  // K [N/m] of rigid rows (k = ∞). Range (0, 1e20].
  double friction_damping = 1e6;  // S_t = h B_t [kg] (paper: B_t = 10⁶/h). Range (0, 1e12].
  double normal_weight = 1.0;     // ζ h [-], the weight ζ = normal_weight/h. Range (0, 1e12].
  double gap_tolerance = 1e-10;   // IPM: relative duality gap (socp.h). Range (0, 1).
  double feasibility_tolerance = 1e-10;  // IPM: relative primal/dual residuals. Range (0, 1).
  int max_iterations = 100;              // IPM iteration cap. Range [1, 10000].
  double step_fraction = 0.99;           // IPM: fraction of the step to the cone boundary. (0, 1).
  int refinement_steps = 3;  // IPM: iterative refinement passes per direction. Range [0, 10].
  // IPM: when round-off stops the iterations short of the tolerances (the paper's program with
  // rigid rows and h B_t = 1e6 has cond(P) up to 1e14), the best iterate is accepted (converged,
  // with a message giving the accuracy reached) if its gap and residuals are below this.
  // Range [0, 1).
  double reduced_tolerance = 1e-6;

  // Throws std::invalid_argument naming the field and its valid range.
  void Validate() const;
};

// The per-iteration series (one row per interior-point iteration; row 0 at the starting point).
// A new series: an entry here, its row in FirstOrderSeriesTable() (same order), one store.
enum FirstOrderSeries : int {
  // The interior point's stopping measures (socp.h), each relative to its largest term.
  kFirstOrderDualityGap = 0,       // sᵀz / max(1, |f|, ½xᵀPx, |qᵀx|, |r|) [-]
  kFirstOrderPrimalInfeasibility,  // ‖Gx + s − h‖ / max(1, ‖Gx‖, ‖s‖, ‖h‖) [-]
  kFirstOrderDualInfeasibility,  // ‖Px + q + Gᵀz‖ / max(1, ‖Px‖, ‖Gᵀz‖, ‖q‖) [-]
  kFirstOrderStepLength,         // α of the step that produced the iterate (per step)
  kFirstOrderObjective,          // the SOCP objective at the iterate
  kFirstOrderBarrier,            // μ = sᵀz / ν
  kFirstOrderCentering,          // σ of the step (per step)
  kNumFirstOrderSeries
};
SeriesTable FirstOrderSeriesTable();

// The per-row constants the solver derives from the problem (exposed for tests and the
// inspector): per row of the problem, K [N/m], B [N s/m], S = h²K + hB [kg], φ [m] (after the
// convention), and hσ(0) = −hKφ − Sψ [N s]; tangential rows: K = 0, S = friction_damping.
struct FirstOrderRowConstants {
  VecX K, B, S, phi, sigma0;
};

class FirstOrderSolver final : public ContactSolver {
 public:
  explicit FirstOrderSolver(const FirstOrderParameters& params = {},
                            const ContactModelParameters& contact = {});
  ~FirstOrderSolver() override;
  const char* name() const override { return "First-order"; }
  SeriesTable series() const override { return FirstOrderSeriesTable(); }
  // Warm start: none from v_guess (the solution does not depend on it). The previous solve's
  // primal-dual point is kept and, when the new problem has the same number of rows (and the
  // same cone layout), tested against the stopping criterion: if it passes (the same problem
  // solved again), or the program is bitwise the previous one and the point met the reduced
  // tolerance, the solve takes 0 iterations; otherwise the cold infeasible start is used
  // (constraint order is not matched between steps; a wrong point costs one residual test).
  SolverStatus Solve(const ContactProblem& problem, const VecX& v_guess,
                     SolverResult* result) override;
  const FirstOrderParameters& parameters() const { return params_; }
  void set_parameters(const FirstOrderParameters& p);  // validates
  const ContactModelParameters& contact_model() const { return contact_; }
  // Stores the model; an unsupported one is reported by Solve (kUnsupportedContactModel).
  void set_contact_model(const ContactModelParameters& c) { contact_ = c; }
  // The row constants of the last successful setup (empty before).
  const FirstOrderRowConstants& row_constants() const;
  // The cone program of the last solve that got as far as assembling it, in the variables γ_x of
  // the rows listed by program_rows() (problem row per variable), and its interior-point result.
  const SocpProblem& last_program() const;
  const std::vector<int>& program_rows() const;
  const SocpResult& last_ipm_result() const;

 private:
  FirstOrderParameters params_;
  ContactModelParameters contact_;
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;  // reused between solves
};

}  // namespace contactlab
