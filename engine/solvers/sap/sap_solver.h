// SAP: the Semi-Analytic Primal solver of Castro et al., "An Unconstrained Convex Formulation of
// Compliant Contact" (seed 000). Symbols follow the paper.
//
// Per step it minimizes the strongly convex cost (eq. 24; seed 004 eq. 2)
//   ℓ_p(v) = ½‖v − v*‖²_A + Σ_i ℓ_i(v_c,i),   v_c = J v + b,
// by Newton's method with H = A + JᵀGJ (§IV-A) and an exact (rtsafe) or backtracking line
// search (§IV-B,C). The per-constraint laws ℓ_i, γ_i = −∂ℓ_i/∂v_c, G_i come from the contact
// model (engine/contact/constraint_bundle.h, prepared once per step): the linear model is SAP's
// law ℓ_i = ½‖P_F(y_i)‖²_{R_i} with R, v̂ from σ, β (§V-B); the Hunt–Crossley models are seed
// 004's. The solver only evaluates the laws; it never sees R or v̂.
// Stopping criterion (eq. 26): ‖D∇ℓ‖ < ε_a + ε_r max(‖Dp‖, ‖DJᵀγ‖), D = diag(M)^(-1/2), p = M v,
// checked before factorizing, so an exact guess costs 0 iterations. A cost-stagnation test stops
// at round-off. Joint limits use the linear unilateral law γ = max(0, y) under every model.
//
// Contracts: the problem's A blocks are SPD; rows of J are finite. Non-finite input gives
// kNonFiniteInput without iterating. The cost decreases monotonically (up to round-off slop).
#pragma once

#include <memory>
#include <string>

#include "engine/contact/constraint_bundle.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

struct SapParameters {
  double sigma = 1e-3;          // σ [-], friction regularization R_t = σ w (eq. 30); smaller:
                                // less stiction slip, worse conditioning. Range (0, 1].
  double beta = 1.0;            // β [-], near-rigid clamp R_n >= β²w/(4π²) (eq. 29). Range (0, 10].
  double limit_beta = 0.1;      // β for joint-limit constraints [-]
  double rel_tolerance = 1e-6;  // ε_r [-] (eq. 26). Range (0, 1).
  double abs_tolerance = 1e-16; // ε_a [√J] (eq. 26). Range [0, 1).
  int max_iterations = 100;     // Newton iteration cap. Range [1, 10000].
  enum class LineSearch { kExact, kBacktracking };
  LineSearch line_search = LineSearch::kExact;
  double ls_alpha_max = 1.5;    // largest step tried by the exact search [-]
  double ls_rho = 0.8;          // backtracking factor [-]
  double ls_c = 1e-4;           // Armijo constant [-]
  double ls_backtracking_alpha_max = 1.25;
  int ls_max_iterations = 100;
  double cost_abs_tolerance = 1e-30;  // stagnation test |Δℓ| < abs + rel ℓ̄ (when α > 0.5)
  double cost_rel_tolerance = 1e-15;
  // Newton direction H Δv = −∇ℓ: kDense, the reference dense LLT; kBlockSparse, the block
  // Cholesky over the tree graph (BlockSparseCholesky); kPcg, preconditioned conjugate gradients
  // on the blocks of H (no fill), stopped at ‖D r‖ <= η ‖D∇ℓ‖ with the Eisenstat–Walker forcing
  // term η (inexact Newton); kAuto, the block Cholesky unless its factorization's work beyond the
  // diagonal tree blocks exceeds pcg_auto_gflop or its work the work budget, then PCG for the
  // rest of the solve. PCG (kPcg or chosen by kAuto) is refused (kWorkBudgetExceeded) when its
  // bound per direction, the preconditioner plus pcg_max_iterations CG iterations (about 4
  // multiply-adds per stored value each), exceeds the work budget; a factor over the memory
  // budget is refused on every path.
  enum class LinearSolver { kDense, kBlockSparse, kPcg, kAuto };
  LinearSolver linear_solver = LinearSolver::kAuto;
  // kAuto: the switch to PCG [10⁹ multiply-adds per factorization, beyond the Cholesky of the
  // diagonal tree blocks]. Range (0, 1e9].
  double pcg_auto_gflop = 1.0;
  // Largest forcing term η_max [-] of the inexact Newton direction (Eisenstat–Walker choice 2:
  // η_0 = η_max, η_k = min(η_max, max(0.9 (‖D∇ℓ_k‖/‖D∇ℓ_{k−1}‖)², 0.9 η_{k−1}² if > 0.1,
  // ½ τ/‖D∇ℓ_k‖)) with τ the threshold of eq. 26). Range (0, 1).
  double pcg_forcing_max = 0.1;
  // CG iteration cap per Newton direction; a solve that reaches it without the forcing
  // tolerance fails with kLinearSolverFailure. Range [1, 1e6].
  int pcg_max_iterations = 2000;
  // Preconditioner of PCG: block incomplete Cholesky IC(0) on the tree graph (block Jacobi if
  // IC(0) breaks down) or block Jacobi (each tree's dense block of H factored).
  enum class Preconditioner { kIncompleteCholesky, kBlockJacobi };
  Preconditioner pcg_preconditioner = Preconditioner::kIncompleteCholesky;
  bool compute_condition_number = false;  // cond₂(H), cond₂(DHD) per iteration (eigen-solves)
  // Block path only: solve each connected component of the tree/constraint graph (an island) with
  // its own Newton loop, stopping criterion and line search. Ignored by kDense and when
  // compute_condition_number is set (cond₂ is defined for the whole H). If an island hits the
  // iteration cap or fails, the whole problem is re-solved monolithically and that is reported.
  bool islands = true;
  // Block path: the first Newton pattern of a solve keeps the elimination order of the last
  // analysis of the same factor (the previous solve's, or the same island slot's) when the tree
  // sizes are unchanged, and only the symbolic factorization is redone; a new order is computed
  // when the kept one needs more than 5/4 of the Schur updates it needed when computed (as within
  // a solve). Any order factors H exactly; the results then differ from an ordered-anew solve by
  // round-off, and a solve depends on the solves before it. Off (default): every solve orders
  // its first pattern anew.
  bool keep_order = false;
  // Memory budget of the Newton system [MiB]: the estimated storage of the factor of H (block
  // path: its blocks including fill; dense path: the nv x nv matrices) is checked against it
  // before anything of that size is allocated, and a step that would exceed it fails with
  // SolverStatus::kMemoryBudgetExceeded. 0: the default, DefaultMemoryBudgetBytes() (the
  // environment variable CONTACTLAB_MEMORY_BUDGET_MB, else half of the physical memory).
  // Range [0, 1e9].
  double memory_budget_mb = 0;
  // Work budget of the Newton system [10⁹ multiply-adds per factorization of H] (block path): the
  // symbolic factorization counts the multiply-adds of the factor with its fill
  // (FactorLayoutSize::flops) before the factor is allocated, and a step whose factorization
  // would need more fails with SolverStatus::kWorkBudgetExceeded (the state is not advanced)
  // instead of running for hours: a coupled pile of 10⁵ touching spheres needs ~6.5e10 per Newton
  // iteration. 0: the default, the environment variable CONTACTLAB_WORK_BUDGET_GFLOP if set,
  // else 100 (10-100 s per factorization at 1-10 GFlop/s), and at most 0.5 per second of the
  // process's CPU-time limit (ulimit -t). Range [0, 1e9].
  double work_budget_gflop = 0;

  // Throws std::invalid_argument naming the field and its valid range.
  void Validate() const;
};

// The laws of a step for the SAP solver: the contact model and v_s from `contact`, σ, β and
// limit_beta from `params`.
LawParameters SapLawParameters(const SapParameters& params,
                               const ContactModelParameters& contact = {});
// The prepared laws of `problem` (for the tests, the inspector and the conditioning tools).
ConstraintBundle PrepareSapLaws(const ContactProblem& problem, const SapParameters& params,
                                const ContactModelParameters& contact = {});

// SAP's per-iteration series (SolverStats::iteration_log), the indices of SapSeriesTable(). Row 0
// is the guess (α, line-search counts 0 there). A new series: an entry here, its row in
// SapSeriesTable() (sap_solver.cc, same order) and one store in the Newton loop.
enum SapSeries : int {
  kSapCost = 0,               // ℓ_p(v_m) [J]
  kSapMomentumResidual,       // e_m = ‖D∇ℓ‖ / max(‖Dp‖, ‖DJᵀγ‖) (eq. 32) [-]
  kSapGradientNorm,           // ‖D∇ℓ‖ [√J]
  kSapAlpha,                  // line-search step that produced this iterate [-]
  kSapLineSearchEvaluations,  // cost/derivative evaluations spent to find α
  kSapNumStiction,            // constraints in each regime at this iterate
  kSapNumSliding,
  kSapNumNoContact,
  kSapConditionNumber,       // cond₂(H), NaN unless SapParameters::compute_condition_number
  kSapLineSearchIterations,  // inner iterations of the line search (rtsafe or backtracking)
  // The Newton direction computed at this iterate by PCG (linear_solver pcg, or auto when it
  // chose PCG): CG iterations (0 for a direct solve and for the last iterate), the relative
  // residual ‖D(HΔv + ∇ℓ)‖/‖D∇ℓ‖ reached and the forcing term η it had to reach (NaN when not
  // computed).
  kSapLinearIterations,
  kSapLinearResidual,
  kSapForcingTerm,
  // cond₂(D H D) with D = diag(H)^(-1/2), the Jacobi-scaled H: the conditioning left once the
  // units (masses against inertias) are divided out. NaN unless compute_condition_number.
  kSapScaledConditionNumber,
  kNumSapSeries
};
SeriesTable SapSeriesTable();

class SapSolver final : public ContactSolver {
 public:
  explicit SapSolver(const SapParameters& params = {},
                     const ContactModelParameters& contact = {});
  ~SapSolver() override;
  const char* name() const override { return "SAP"; }
  SeriesTable series() const override { return SapSeriesTable(); }
  SolverStatus Solve(const ContactProblem& problem, const VecX& v_guess,
                     SolverResult* result) override;
  // Solve with laws the caller prepared (e.g. the linear law with another R and v̂, as CANAL's
  // surrogate problems are) instead of the ones Prepare would make from the problem's physical
  // data and this solver's σ, β; `laws` must be prepared for `problem`. Islands are not split on
  // this path (each island's child would prepare its own laws).
  SolverStatus SolveWithLaws(const ContactProblem& problem, const ConstraintBundle& laws,
                             const VecX& v_guess, SolverResult* result);
  const SapParameters& parameters() const { return params_; }
  void set_parameters(const SapParameters& p);  // validates
  // The contact model whose laws the next solves minimize (joint limits: the linear law).
  const ContactModelParameters& contact_model() const { return contact_; }
  void set_contact_model(const ContactModelParameters& contact);  // validates

 private:
  // The island path of Solve on a validated problem: one child solve per island, merged into
  // `result`. Returns false (and does nothing) when the problem has fewer than two islands.
  bool SolveIslands(const ContactProblem& problem, const VecX& v_guess, SolverResult* result);

  SapParameters params_;
  ContactModelParameters contact_;
  const ConstraintBundle* given_laws_ = nullptr;  // set during SolveWithLaws
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;  // reused between solves
};

}  // namespace contactlab
