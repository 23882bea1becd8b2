// PGS: projected block Gauss–Seidel on the dual of SAP's convex problem, the baseline of the
// augmented-Lagrangian paper (seed 001 §VII; MuJoCo's mj_solPGS is the classic instance).
//
// Problem (the one SAP minimizes, seed 000 eq. 24, with the laws of the step's contact model):
//   min_v ℓ_p(v) = ½‖v − v*‖²_A + Σ_i ℓ_i(J_i v + b_i),   γ_i(x) = −∂ℓ_i/∂x, G_i = ∂²ℓ_i/∂x².
// With h_i(γ) = ℓ_i*(−γ) (the conjugate; h_i(0) = 0 because ℓ_i >= 0 with ℓ_i = 0 somewhere) its
// dual is
//   min_γ D(γ) = ½γᵀWγ + γᵀ(J v* + b) + Σ_i h_i(γ_i),   W = J A⁻¹ Jᵀ,   v(γ) = v* + A⁻¹Jᵀγ,
// and ℓ_p(v(γ)) + D(γ) = Σ_i [ℓ_i(v_c,i) + h_i(γ_i) + γ_iᵀv_c,i] >= 0 is the duality gap (zero
// exactly at the solution, where γ_i = γ_i(v_c,i)).
//
// One sweep visits the constraints in order (and back, for the symmetric sweep). For constraint
// i with its current velocity v_c,i = J_i v + b_i and impulse γ_i, c = v_c,i − W_ii γ_i is its
// velocity without its own impulse, and the exact block update is
//   x = argmin_x ½(x − c)ᵀW_ii⁻¹(x − c) + ℓ_i(x),   γ_i ← γ_i(x)   (so that x = c + W_ii γ_i),
// the block minimization of D over γ_i (for the linear law: the exact projection onto the
// friction cone in the metric W_ii + R_i). It is solved by a damped Newton method in 3-D (1-D
// for a joint limit): gradient W_ii⁻¹(x − c) − γ_i(x), Hessian W_ii⁻¹ + G_i(x), the full step
// when it passes Armijo's test, else an exact line search on the objective, from x = v_c,i, to
// round-off (at most 100 steps; 15 at worst on the tests' blocks). Then v += Σ_t A_t⁻¹J_itᵀΔγ_i.
// A singular W_ii (a Jacobian of rank < 3, e.g. a contact on a tree of fewer than 3 dofs) is
// replaced by W_ii + ε_i I, ε_i = 1e-8 λ_max(W_ii): the update is then the proximal block step
// min D + ½ε_i‖γ_i − γ_i^old‖², which still decreases D and has the same fixed point (x = v_c,i);
// J_i = 0 (W_ii = 0) gives x = v_c,i = b_i exactly.
//
// Because only the laws' γ_i(x), G_i(x) and ℓ_i(x) are used, PGS accepts every contact model the
// bundle provides: linear, lagged, lagged_regularized and similar (joint limits: the linear
// unilateral law). The linear law is prepared exactly as SAP prepares it (σ, β, limit_beta with
// SAP's defaults), so PGS and SAP with the same σ, β converge to the same solution.
//
// Residual: v = v* + A⁻¹Jᵀγ holds by construction, so SAP's e_m at (v, γ) is round-off. The
// stopping residual is instead SAP's e_m at PGS's velocities with the laws' impulses,
// ‖D∇ℓ_p(v)‖ / max(‖D M v‖, ‖D Jᵀγ(v_c(v))‖), ∇ℓ_p = A(v − v*) − Jᵀγ(v_c(v)) (eq. 32): SAP's own
// residual at PGS's iterate, so the two plot on one axis. Stopping, after each sweep (the e_m
// test also at the guess): e_m <= momentum_tolerance, or ‖Δγ‖∞/‖γ‖∞ < tolerance, or (off by
// default) the dual decrease of the sweep at round-off (<= improvement_tolerance times the size
// of its terms).
//
// Result: v and PGS's γ (they balance momentum exactly), v_c = J v + b, the laws' regimes at v_c;
// at the sweep cap (kMaxIterations) the last iterate, the one of lowest dual cost; after a block
// update that fails (kNumericalFailure, not observed on the tests' problems) the previous one.
// SolverStats::momentum_error is the e_m above (the last kPgsMomentumResidual), not e_m at
// (v, γ); complementarity_error the laws' e_μ at PGS's (v_c, γ); cost ℓ_p(v).
//
// Warm start (PgsParameters::warm_start): each constraint's γ from the previous solve, matched
// by its identity (key and anchor: engine/solvers/common/impulse_memory.h), and the laws'
// impulses at the guess, γ_i(J_i v_guess + b_i), for a constraint without a match. A wrong
// start is as valid as any other γ: it only costs sweeps.
#pragma once

#include <memory>
#include <string>

#include "engine/contact/constraint_bundle.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

struct PgsParameters {
  // Sweep cap (one sweep = one pass over the constraints, or forward and back for the symmetric
  // sweep). The AL paper runs PGS for fixed counts of 100. Range [1, 1e6].
  int max_iterations = 100;
  // τ_γ [-]: stop when ‖γ_k − γ_{k−1}‖∞ / ‖γ_k‖∞ < τ_γ. Range [0, 1) (0: never by this test).
  // PGS contracts slowly (rate 1 − O(R/W)), so a small change is not a small error: on a box
  // stack with SAP's σ = 1e-3, τ_γ = 1e-8 stopped at e_m ≈ 7e-5 and 1e-12 at e_m ≈ 1e-8.
  double tolerance = 1e-12;
  // ε_r [-]: stop when SAP's e_m at the iterate (eq. 32, see above) is at most ε_r; also tested
  // at the guess, so an exact guess costs 0 sweeps. SAP's default. Range [0, 1) (0: off).
  double momentum_tolerance = 1e-6;
  // [-]: stop when the sweep's dual decrease D(γ_{k−1}) − D(γ_k) is at most this times the sum
  // of the magnitudes of its terms (round-off: no measurable progress). Range [0, 1e-3] (0: off,
  // the default: D is flat to round-off long before the iterate stops improving; on that box
  // stack 1e-15 stopped at e_m ≈ 6e-5).
  double improvement_tolerance = 0;
  // The linear law's regularization, as SAP's (SapParameters): R_t = σ w (eq. 30), R_n >=
  // β² w/(4π²) (eq. 29), β of joint limits. Ranges (0, 1], (0, 10], (0, 10].
  double sigma = 1e-3;
  double beta = 1.0;
  double limit_beta = 0.1;
  // kForward: constraints 0..n−1 each sweep; kSymmetric: 0..n−1 then n−1..0 (symmetric
  // Gauss–Seidel, two passes per sweep).
  enum class Sweep { kForward, kSymmetric };
  Sweep sweep = Sweep::kForward;
  // kImpulses: the previous solve's γ when it has this problem's num_rows, else as kGuess;
  // kGuess: γ_i(J_i v_guess + b_i); kZero: γ = 0 (v = v*), the cold start of the AL paper's PGS.
  enum class WarmStart { kImpulses, kGuess, kZero };
  WarmStart warm_start = WarmStart::kImpulses;

  // Throws std::invalid_argument naming the field and its valid range (PgsParameterTable).
  void Validate() const;
};

// The laws of a step for PGS: the contact model and v_s from `contact`, σ, β and limit_beta from
// `params` (the same as SapLawParameters for equal σ, β, limit_beta).
LawParameters PgsLawParameters(const PgsParameters& params,
                               const ContactModelParameters& contact = {});

// PGS's per-iteration series, one row per sweep, row 0 at the start (kSeriesPerStep series hold
// 0 there). The indices of PgsSeriesTable().
enum PgsSeries : int {
  kPgsMomentumResidual = 0,   // SAP's e_m at v with γ(v_c(v)) (eq. 32) [-]; the stopping residual
  kPgsCost,                   // ℓ_p(v) [J], the primal convex cost at the iterate
  kPgsDualityGap,             // ℓ_p(v) + D(γ) [J] >= 0 (NaN until every h_i is known)
  kPgsCostImprovement,        // D(γ_{k−1}) − D(γ_k) [J], the sweep's dual decrease
  kPgsImpulseChange,          // ‖γ_k − γ_{k−1}‖∞ [N s]
  kPgsRelativeImpulseChange,  // ‖γ_k − γ_{k−1}‖∞ / ‖γ_k‖∞ [-], the tolerance test
  kPgsNumActive,              // constraints with γ_n > 0 (PGS's impulses)
  kPgsNumChanged,             // constraints whose regime changed during the sweep
  kPgsNumStiction,            // regimes of the laws at v_c(v)
  kPgsNumSliding,
  kPgsNumNoContact,
  kPgsNewtonSteps,  // Newton iterations of the sweep's block updates
  kNumPgsSeries
};
SeriesTable PgsSeriesTable();

// The exact block update of constraint i of `laws` (a reference for the tests; the solver runs
// the same kernel): x = argmin ½(x − c)ᵀW⁻¹(x − c) + ℓ_i(x) from x0 by damped Newton, with W the
// (regularized) Delassus block (rows x rows in the top-left corner; a 1-row law uses entry
// (0,0) of W, c and x0).
struct PgsBlockResult {
  Vec3 x = Vec3::Zero();      // the minimizer [m/s]
  Vec3 gamma = Vec3::Zero();  // γ_i(x) [N s]
  double ell = 0;             // ℓ_i(x) [J]
  Regime regime = Regime::kNoContact;
  int iterations = 0;  // Newton iterations
  bool converged = false;
};
PgsBlockResult PgsBlockUpdate(const ConstraintBundle& laws, int i, const Mat3& W, const Vec3& c,
                              const Vec3& x0);
// The block objective f(x) = ½(x − c)ᵀW⁻¹(x − c) + ℓ_i(x) [J] with its gradient W⁻¹(x − c) −
// γ_i(x) and Hessian W⁻¹ + G_i(x) (when non-null; rows x rows in the top-left corner, zeros
// elsewhere), given W⁻¹.
double PgsBlockObjective(const ConstraintBundle& laws, int i, const Mat3& W_inv, const Vec3& c,
                         const Vec3& x, Vec3* gradient, Mat3* hessian);

class PgsSolver final : public ContactSolver {
 public:
  explicit PgsSolver(const PgsParameters& params = {}, const ContactModelParameters& contact = {});
  ~PgsSolver() override;
  const char* name() const override { return "PGS"; }
  SeriesTable series() const override { return PgsSeriesTable(); }
  SolverStatus Solve(const ContactProblem& problem, const VecX& v_guess,
                     SolverResult* result) override;
  const PgsParameters& parameters() const { return params_; }
  void set_parameters(const PgsParameters& p);  // validates
  // The contact model whose laws the next solves minimize. Stored as is; a model PGS cannot
  // solve is reported by Solve (kUnsupportedContactModel).
  const ContactModelParameters& contact_model() const { return contact_; }
  void set_contact_model(const ContactModelParameters& contact) { contact_ = contact; }

 private:
  PgsParameters params_;
  ContactModelParameters contact_;
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;  // reused between solves (and the warm-start γ)
};

}  // namespace contactlab
