// SubADMM: the subsystem-based ADMM of Lee et al., "Variations of Augmented Lagrangian for Robotic
// Multi-Contact Simulation" (seed 001, §VI, Alg. 2; digest shared/research/seed_001_al.md §3).
// Symbols follow the paper; equation numbers are the paper's.
//
// Problem (eq. 29, compliant): A_t v_t = A_t v*_t + Σ_i J_itᵀ λ_i for every tree t, and per
// constraint i the compliant Signorini–Coulomb condition (SCC, eq. 5) on (ṽ_i, λ_i) with
//   ṽ_i = v_c,i − v̂_i + R_i λ_i,   v_c,i = Σ_t J_it v_t + b_i,
//   R_i = diag(R_t, R_t, R_n),  R_n = 1/(δt k (δt + τ_d)),  R_t = σ w,
//   v̂_i = (0, 0, −φ0/(δt + τ_d)),
//   0 ≤ λ_n ⊥ ṽ_n ≥ 0,  ‖λ_t‖ ≤ μ λ_n,  ṽ_t = 0 inside the disk,  ṽ_t = −δ λ_t (δ ≥ 0) on its rim.
// A rigid contact (k = +∞) has R_n = 0 and v̂_n = −φ0/δt (the velocity-level Signorini condition of
// seed 001, the NCP residual's rigid law). σ = 0 (the default) is exact Coulomb friction; the
// near-rigid clamp R_n ≥ β²w/(4π²) (SAP eq. 29) acts only when near_rigid_beta > 0. Joint limits
// are the 1-row unilateral version (0 ≤ λ ⊥ v_c − v̂ + R λ ≥ 0).
//
// Splitting (eqs. 31-33): the subsystems are the problem's trees; constraint i has one slack z_it
// per tree it acts on (|Z_i| = num_blocks: 1 against the world or a static body, 2 between two
// trees), z_it = J_it v_t, and the bias b_i enters only the constraint's relation (v_c,i =
// Σ_t z_it + b_i). With u_it = −λ_i (eq. 39) one iteration is:
//   v-step (eq. 34), per tree:  (A_t + β Σ_i J_itᵀJ_it) v_t = A_t v*_t + Σ_i J_itᵀ(β z_it + λ_i),
//     one dense Cholesky (LLT) per tree with constraints, factored when β changes only;
//   z/λ-step (eqs. 35-38), per constraint: y_it = β J_it v_t − λ_i,
//     λ*_i = −(Σ_t y_it + β (b_i − v̂_i)),  λ_i = Π_Q(λ*_i) with the diagonal metric
//     Q_i = |Z_i| I + β R_i (the strict operator, eq. 38, extended to compliance:
//     SubAdmmStrictCone), z_it = (y_it + λ_i)/β.
// ContactProblem keeps A dense per tree, so A_t + β Σ J_itᵀJ_it has the tree's dense block pattern
// whatever the contacts. The paper's body-level row stacking (eq. 31, App. A) is what keeps a
// tree-sparse mass matrix tree-sparse (a CRBA with H_b = M_b + β Σ J_ibᵀJ_ib); with dense blocks it
// would change nothing, so here J_it is the tree's Jacobian block as assembled.
//
// Residuals (eq. 42): θ_p = max_{i,t} ‖J_it v_t − z_it‖ [m/s] (= ‖λ_i − λ_i⁻‖/β by eq. 35) and
// θ_d = max_t ‖D_t (A_t (v_t − v*_t) − Σ_i J_itᵀλ_i)‖ / √m_t [m/s], D_t = diag(M_t)^(-1/2) (A's
// diagonal when M is absent). The paper's θ_d is a momentum [N s]; D_t makes it √(kinetic energy)
// of the imbalance (for a free body |Δp|²/m + |ΔL|²/I), and 1/√m_t a velocity: the translational
// error plus the angular error times the radius of gyration √(I/m), comparable with the contact
// velocities of θ_p (diag(M)⁻¹ would weigh an angular error by 1 m instead of by the radius of
// gyration, 4 cm for a 10 cm box). Both residuals are unchanged when every mass is scaled, so the
// stopping test θ_p + θ_d < tolerance and the ratio of eq. 43 do not depend on the unit of mass.
// Adaptive β (eq. 43): β ← β √(θ_p/θ_d) when one exceeds balance_ratio times the other (factor
// clamped to [1/100, 100], β to [10⁻⁸, 10⁸] β₀), tested every beta_update_interval iterations;
// every tree is then refactored.
// Tree mass m_t: the mean over the constraints on tree t of 1/λ_min(J_it A_t⁻¹ J_itᵀ) (smallest
// positive eigenvalue), the largest mass a constraint sees: for a point on a free body exactly the
// body's mass (the direction through the centre of mass does not turn it); for a joint limit the
// dof's effective inertia.
// Initial β (§VI-D): beta_scale × the geometric mean over trees with constraints of the
// pseudo-density m_t/n_t, n_t the number of constraints on tree t.
//
// Row 0 of the iteration log is the guess: v = v_guess (v* on trees without constraints) and one
// z/λ-step from the starting λ (the previous solve's, with its final β, when warm_start and
// num_rows match; else λ = 0, β = β₀), so a guess that is the solution with its own λ stops with 0
// iterations and no factorization. At the iteration cap the iterate with the smallest θ_p + θ_d
// is returned. There is no objective (SCC with friction is not the optimality condition of a
// cost): SolverStats::cost is NaN. SolverStats::complementarity_error is the complementarity of the
// De Saxcé form of SCC (see SccComplementarityError in the .cc), not SAP's e_μ.
#pragma once

#include <memory>
#include <string>

#include "engine/contact/constraint_bundle.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

struct SubAdmmParameters {
  int max_iterations = 100;     // iteration cap (the paper's fixed count). Range [1, 100000].
  double tolerance = 1e-6;      // θ_th [m/s]: stop when θ_p + θ_d < tolerance. Range (0, 1).
  double beta_scale = 1.0;      // [-] factor on the pseudo-density β₀. Range (0, 1e6].
  bool adaptive_beta = true;    // residual balancing of β (eq. 43)
  double balance_ratio = 10.0;  // γ [-] of eq. 43. Range (1, 1e6].
  // Iterations between two tests of eq. 43. The residuals oscillate for a few iterations after
  // a change of β; testing every iteration (the paper's Alg. 2) reacts to that transient.
  int beta_update_interval = 10;  // Range [1, 10000].
  double sigma = 0.0;             // σ [-], R_t = σ w; 0: exact Coulomb. Range [0, 1].
  double near_rigid_beta = 0.0;  // β [-] of the clamp R_n ≥ β²w/(4π²); 0: off. Range [0, 10].
  // Start λ from the previous solve's, matched per constraint (impulse_memory.h; 0 for a new
  // one), and β from the previous solve's final β when any constraint was matched.
  bool warm_start = true;

  // Throws std::invalid_argument naming the field and its valid range (SubAdmmParameterTable).
  void Validate() const;
};

// SubADMM's per-iteration series (SolverStats::iteration_log), the indices of SubAdmmSeriesTable().
// Row 0 is the guess (after one z/λ-step, see above).
enum SubAdmmSeries : int {
  kSubAdmmPrimalResidual = 0,  // θ_p = max ‖J_it v_t − z_it‖ [m/s] (eq. 42)
  kSubAdmmDualResidual,  // θ_d = max_t ‖D_t(A_t(v_t − v*_t) − Σ J_itᵀλ_i)‖/√m_t [m/s]
  kSubAdmmResidual,      // θ_p + θ_d [m/s], the stopping residual
  kSubAdmmBeta,          // β used by the iteration that produced the row [kg]
  kSubAdmmFactorizations,  // tree factorizations so far (cumulative)
  kSubAdmmNumStiction,     // constraints in each regime at the row's λ
  kSubAdmmNumSliding,
  kSubAdmmNumNoContact,
  kNumSubAdmmSeries
};
SeriesTable SubAdmmSeriesTable();

// The strict operator of eq. 38 with the diagonal metric Q = (Q_t, Q_t, Q_n) > 0: the unique λ
// with (ṽ, λ) in SCC for ṽ = (Q λ − λ*)/β (any β > 0):
//   λ_n = max(λ*_n, 0)/Q_n,  λ_t = λ*_t/Q_t clamped to the disk of radius μ λ_n.
// Returns kNoContact (λ_n = 0), kStiction (inside the disk) or kSliding (clamped). Q_t = 0 gives
// λ_t on the rim along λ*_t (the limit); Q_n = 0 (a rigid constraint on no dofs) gives λ_n = 0.
Regime SubAdmmStrictCone(const Vec3& lambda_star, double Qt, double Qn, double mu, Vec3* lambda);
// The unilateral row: λ = max(λ*, 0)/Q (0 when Q = 0).
Regime SubAdmmStrictUnilateral(double lambda_star, double Q, double* lambda);

// The laws SubADMM solves, as a bundle for the inspector: the linear law with R_t = σ w, R_n from
// k, τ_d and the clamp of near_rigid_beta (0 = none), and v̂_n = −φ0/δt for rigid constraints
// (k = +∞). With σ = 0 (or a rigid constraint without clamp) R is 0 there: the constants are shown
// as solved, but the bundle's SAP cost (Evaluate, Check) is not defined for them.
ConstraintBundle PrepareSubAdmmLaws(const ContactProblem& problem, const SubAdmmParameters& params);

// The reference path of one v-step (eq. 34) on the whole problem with dense matrices: v minimizes
// the augmented Lagrangian in v,
//   L(v) = ½‖v − v*‖²_A + Σ_{i,t} [−λ_iᵀ(J_it v_t − z_it) + β/2 ‖J_it v_t − z_it‖²],
// i.e. (A + β Σ Ĵ_itᵀĴ_it) v = A v* + Σ Ĵ_itᵀ(β z_it + λ_i) with Ĵ_it the block in full columns.
// z: 2 num_rows, slack of block k of constraint i at rows 2 first_row + k num_rows (the solver's
// layout); λ: num_rows. Returns false when the matrix is not positive definite.
bool SubAdmmDenseVStep(const ContactProblem& problem, double beta, const VecX& z,
                       const VecX& lambda, VecX* v);
// L(v) above [J].
double SubAdmmAugmentedLagrangian(const ContactProblem& problem, double beta, const VecX& z,
                                  const VecX& lambda, const VecX& v);

class SubAdmmSolver final : public ContactSolver {
 public:
  explicit SubAdmmSolver(const SubAdmmParameters& params = {},
                         const ContactModelParameters& contact = {});
  ~SubAdmmSolver() override;
  const char* name() const override { return "SubADMM"; }
  SeriesTable series() const override { return SubAdmmSeriesTable(); }
  SolverStatus Solve(const ContactProblem& problem, const VecX& v_guess,
                     SolverResult* result) override;
  const SubAdmmParameters& parameters() const { return params_; }
  void set_parameters(const SubAdmmParameters& p);  // validates
  // Stored as given; Solve reports a model other than linear (kUnsupportedContactModel).
  const ContactModelParameters& contact_model() const { return contact_; }
  void set_contact_model(const ContactModelParameters& contact) { contact_ = contact; }
  // Forgets the impulses and β kept for the warm start.
  void ResetWarmStart();

 private:
  SubAdmmParameters params_;
  ContactModelParameters contact_;
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;  // reused between solves; holds the warm-start λ, β
};

}  // namespace contactlab
