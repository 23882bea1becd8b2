// CANAL: the Cascaded Newton-based Augmented Lagrangian solver of Lee et al., "Variations of
// Augmented Lagrangian for Robotic Multi-Contact Simulation" (seed 001, §V, Alg. 1; digest
// shared/research/seed_001_al.md §2). Symbols follow the paper and the digest.
//
// The problem (exact compliant Signorini–Coulomb, no convex relaxation of friction):
//   A(v − v*) = Jᵀλ,   v_c = J v + b,
// and per friction cone i, with the physical regularization R_i = diag(R_t, R_t, R_n) and
// v̂_i = (0, 0, v̂_n), the compliant velocity ṽ_i = v_c,i − v̂_i + R_i λ_i satisfies the
// Signorini–Coulomb conditions with λ_i in De Saxcé form (eq. 20):
//   F ∋ λ_i ⊥ ṽ_i + p_i ∈ F*,   p_i = (0, 0, μ_i ‖ṽ_i,t‖),   F = {‖λ_t‖ <= μ λ_n}.
// Constants (prepared once per solve from the problem's physical data):
//   compliant: R_n = 1/(δt k (δt + τ_d)), v̂_n = −φ0/(δt + τ_d) (SAP paper eq. 3 over δt + τ_d);
//   rigid (k = ∞ or k <= 0): R_n = 0, v̂_n = −φ0/δt (seed 001's hard SCC, eq. 5, e_n = φ0/δt);
//   R_t = σ w (σ = 0 by default: exact Coulomb friction, as the AL paper).
// These are PhysicalNormalLaw::Linear (engine/contact/constraint_laws.h), the law that the NCP
// residual of engine/inspect/metrics.h measures: the fixed point of CANAL makes that residual 0.
// Optional near-rigid clamp (near_rigid_beta > 0): R_n = max(β² w/(4π²), R_n) with SAP's
// v̂_n = −φ0/(δt + τ_d) where the clamp acts (SAP eq. 29); the solution is then SAP's normal law.
// Joint limits (unilateral rows): 0 <= λ ⊥ v_c − v̂ + Rλ >= 0 with the same R, v̂ (no friction).
//
// AL iteration l (u^l = −λ^l, digest identity 2.8), from (v^l, λ^l, ṽ^l) and the penalty β:
//   the surrogate (eq. 21) with the De Saxcé term frozen at p^l = (0, 0, μ‖ṽ^l_t‖) is
//     λ(v) = argmin_{λ∈F} ½λᵀ(R + I/β)λ + λᵀ(v_c − v̂ + p^l − λ^l/β),
//     v^{l+1} = argmin_v h(v),  h = ½‖v − v*‖²_A + Σ_i ½λ_i(v)ᵀ(R_i + I/β)λ_i(v)   (eq. 22),
//   i.e. SAP's convex problem with the linear law R' = R + I/β and the biases shifted by
//   p^l − λ^l/β. It is minimized by SAP's own Newton method (SapSolver::SolveWithLaws: exact
//   Newton on H = A + JᵀG'J, eq. 23-25, block Cholesky, rtsafe exact line search, eq. 26) from
//   v^l, to the relative tolerance newton_tolerance (SAP eq. 26; SAP's cost-stagnation stop is
//   off for the surrogates, whose cost can hide a light body's momentum error in the heavy
//   bodies' round-off; a line search without descent at e_m <= √newton_tolerance is accepted as
//   the round-off floor).
//   Then λ^{l+1} = λ(v^{l+1}), z^{l+1} = v_c + (λ^{l+1} − λ^l)/β (the slack, eq. 13),
//   slack residual ‖J v − z‖ = ‖λ^{l+1} − λ^l‖/β (2-norm over all rows; the paper's AL residual),
//   ṽ^{l+1} = z^{l+1} − v̂ + Rλ^{l+1} for the next p.
//   p^{l+1} = (0, 0, μ‖ṽ^{l+1}_t‖); cascade residual: the exact law's normal-velocity error at
//   (z, λ^{l+1}), |p^{l+1} − p^l| for a loaded contact (ṽ_n = p^{l+1} − p^l when sliding, −p^l
//   when sticking) and max(0, −ṽ_n) <= |p^{l+1} − p^l| for one out of contact (λ = 0 meets the
//   exact law whenever ṽ_n >= 0, whatever p); 2-norm over cones.
//   Stop when √(‖J v − z‖² + cascade²) < al_tolerance (and the surrogate's Newton converged);
//   else, if ‖J v − z‖ > ζ × its previous value and > the cascade residual, β ← min(κβ, β_max)
//   (eq. 27; the second condition is ours: a slack residual that only follows the cascade's lag
//   falls at the cascade's rate whatever β). With beta_revert (ours, default), a raise after
//   which ‖J v − z‖ did not fall by ζ is taken back and β stays for the rest of the solve.
// At a fixed point λ^{l+1} = λ^l, z = v_c and p^l = p(ṽ): the surrogate's optimality conditions
// are the problem's exactly. Near it, (v, λ^{l+1}) balances momentum (to newton_tolerance) and
// meets the complementarity with a velocity argument off by (λ^{l+1} − λ^l)/β in ṽ and by
// p^{l+1} − p^l in p: both parts of the stopping residual are needed. The paper stops on
// ‖J v − z‖ alone (Alg. 1); that does not bound the NCP residual while contacts slide: the
// frozen p lags by μ times the change of the slip velocity, which is W β ‖J v − z‖ (W the
// Delassus operator), so with β W ≫ 1 ‖J v − z‖ can be tiny while p is still far off.
//
// The cascade's rate (docs/canal_cascade.md). For one sliding contact with Delassus block W
// (slip direction t, normal n) and the AL converged, raising p by δ lowers λ_n by δ/D, D = W_nn −
// 2μW_nt + μ²W_tt, which raises the slip speed by μ(μW_tt − W_tn)δ/D: the map p → μ‖ṽ_t‖ has the
// derivative c = μ(μW_tt − W_tn)/D. With W_nt = 0 it is x/(1 + x), x = μ²W_tt/W_nn: below 1 but
// close to it (0.78 for a solid sphere on a plane at μ = 1, x = 3.5; measured 0.82-0.95 on the
// sliding contacts of scenes/clutter_40_walls.yaml). It exceeds 1 only when μW_nt > W_nn
// (Painlevé-like coupling). Damping (ω < 1) slows 0 < c < 1 further and cannot fix c > 1.
// cascade = kAnderson (default) accelerates the map x = (λ^l/β, p^l) ↦ F(x) = (λ^{l+1}/β, p^{l+1})
// [m/s], ‖F(x) − x‖ being the AL residual, by Anderson acceleration (anderson.h, memory
// anderson_memory): for fixed regimes the map is nearly affine and the extrapolation solves its
// fixed point like GMRES, whatever c (a single contact in two iterations). Safeguards: the
// extrapolation moves x at most `reach` plain steps (2 at first, doubled after each success,
// quartered after a failure, never below 1); an extrapolation whose AL residual does not beat the
// best so far is rejected: the plain step it replaced is taken instead, the history is cleared
// and the plain iteration runs 1, 2, 4, ... 64 steps before the next extrapolation (a regime
// change or a cycling cascade then costs a few surrogates, not the plain iteration's
// convergence); a new β clears the history (it rescales λ/β). cascade = kPlain is the paper's
// Alg. 1 (the reference for `reproduce`).
//
// cascade = kTresca freezes the friction bound instead of the De Saxcé term: the surrogate's
// cones become fixed disks ‖λ_t‖ <= r_i = μ_i max(0, λ^l_i,n) (LinearConeLaw's friction_bound:
// γ_n = max(0, y_n), γ_t = y_t clamped to the disk, y = −R'⁻¹(v_c − v̂) with the shifted
// biases b_i − λ^l_i/β and p = 0), still a convex problem for SAP's Newton. At a fixed point
// λ^{l+1} = λ^l the disk radius is μλ_n and the conditions are the exact law's. At (z, λ^{l+1})
// the normal law holds exactly (no spurious normal velocity for a sticking contact); the
// cascade residual is the friction's error, μ|λ^{l+1}_n − λ^l_n| for a contact sliding on its disk
// and max(0, ‖λ^{l+1}_t‖ − μλ^{l+1}_n) for a sticking one, times the Delassus estimate w_i
// (a velocity). Its rate on one sliding contact is μW_nt/W_nn (0 for a sphere on a plane: the
// sliding sphere converges in 3 AL iterations against the plain De Saxcé cascade's 70). Where
// redundant near-rigid contacts determine λ_n only through R (docs/canal_cascade.md, mechanism
// 2), λ_n moves by about βR_n of the way per iteration and the bounds follow it: the friction
// error stalls there, which the De Saxcé cascade (whose cone uses the surrogate's own λ_n) does
// not see. kTrescaAnderson applies the Anderson acceleration above to x = λ^l/β (p stays 0).
// kHybrid runs kTrescaAnderson until its AL residual has not halved in kHybridStall = 3
// iterations, then continues with kAnderson from the last surrogate's iterate (p = μ‖ṽ_t‖
// there, a fresh history and a fresh best residual).
//
// Warm start: v^0 = v_guess; λ^0 = the previous solve's λ of the same constraint, matched by its
// identity (key, anchor; engine/solvers/common/impulse_memory.h; for problems without keys: the
// previous λ when the row count matches), and λ^0_i = 0 for a new constraint, which makes the
// first surrogate a soft contact with penalty β there (the paper's remark).
// Row 0 of the log is the guess (v_guess, λ^0): the first surrogate evaluated there. If λ^0 is
// already a fixed point there (AL residual < al_tolerance) and momentum holds at (v_guess, λ^0)
// (SAP eq. 26 with newton_tolerance), the solve stops with 0 iterations and returns them as is.
//
// Result: v, v_c = J v + b, γ = λ, regimes as the last surrogate's law reports them (stiction,
// sliding, no contact of the R'-projection); laws: the linear law with the last surrogate's
// R' = R + I/β and the physical v̂ (the surrogate's shift p^l − λ^l/β is in its biases, so
// R = R' − 1/β); cost: the last surrogate's h (eq. 22); complementarity error: e_μ with the
// exact law's own gap, Σ_i |(ṽ_i + p_i)ᵀγ_i| / (n_c ℓ), ℓ = ½‖v − v*‖²_A + ½γᵀRγ (the De Saxcé
// complementarity, 0 at a solution; SAP's slack v_c − v̂ + Rγ is not, for a sliding contact).
// Accepted contact models: linear only (the AL needs the linear law's R, v̂); the Hunt–Crossley
// models are refused with kUnsupportedContactModel.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/contact/constraint_bundle.h"
#include "engine/solvers/common/islands.h"
#include "engine/solvers/common/solver.h"
#include "engine/solvers/sap/sap_solver.h"

namespace contactlab {

struct CanalParameters {
  // β₀ [kg]: initial AL penalty of each solve (paper: 1e4, "moderate"). Larger: faster AL
  // convergence, stiffer surrogates (more Newton steps). Range (0, 1e12].
  double beta0 = 1e4;
  // κ [-]: penalty growth factor when ‖J v − z‖ stalls (eq. 27). Range (1, 1e4].
  double kappa = 10;
  // β_max [kg]: penalty cap. The surrogate's impulse λ(v) carries a round-off of about
  // β ε ‖v_c‖ (it is β times a difference of velocities): 1e6 keeps it near the default Newton
  // tolerance (1e-10 relative for a 1 kg body at 1 m/s). Range (0, 1e16].
  double beta_max = 1e6;
  // ζ [-]: β grows when ‖J v − z‖ is above ζ times its previous value and above the cascade
  // residual (Alg. 1; see the stopping test above). Range (0, 1).
  double zeta = 0.5;
  // θ_AL [m/s]: stopping tolerance on the AL residual √(‖J v − z‖² + cascade²) (2-norm over the
  // rows). 1e-7: see the table's help (the NCP residual it reaches, and why 1e-9 stalls on
  // redundant near-rigid contacts). Range (0, 1).
  double al_tolerance = 1e-7;
  // ε_r [-]: relative tolerance of each surrogate's Newton solve (SAP eq. 26). Range (0, 1).
  double newton_tolerance = 1e-10;
  // AL iteration cap. Range [1, 10000].
  int max_iterations = 100;
  // Newton iteration cap per surrogate. Range [1, 10000].
  int max_newton_iterations = 100;
  // σ [-]: friction regularization R_t = σ w; 0 is exact Coulomb friction. Range [0, 1].
  double sigma = 0;
  // β_nr [-]: SAP's near-rigid clamp R_n >= β_nr² w/(4π²) (SAP eq. 29); 0 (default) turns it
  // off (the exact compliant or rigid law). A constraint's own beta (> 0) overrides it when on.
  // Range [0, 10].
  double near_rigid_beta = 0;
  // Solve each island (connected component of trees and constraints) with its own CANAL.
  bool islands = true;
  // How the next AL iteration's data (λ^l, p^l) follow from the last surrogate's result:
  // kPlain is the paper's cascade (Alg. 1): λ^{l+1} and p^{l+1} = μ‖ṽ^{l+1}_t‖ as they come.
  // kAnderson extrapolates them from the last anderson_memory iterations (see the top of this
  // file).
  // kTresca freezes the friction bound μλ_n^l instead of the De Saxcé term (see the top of this
  // file); kTrescaAnderson accelerates that map the same way.
  // kHybrid runs kTrescaAnderson until it stalls, then kAnderson from its iterate.
  enum class Cascade { kPlain, kAnderson, kTresca, kTrescaAnderson, kHybrid };
  Cascade cascade = Cascade::kAnderson;
  // Iterations that Anderson acceleration combines (its memory m). Range [1, 50].
  int anderson_memory = 5;
  // How β applies to the rows: kAbsolute is the paper's one β [kg] for all rows; kDelassus
  // gives constraint i the penalty β/w_i (w_i its Delassus estimate; β then dimensionless, the
  // same β_i w_i for every constraint, whatever the bodies' masses).
  enum class PenaltyScaling { kAbsolute, kDelassus };
  PenaltyScaling penalty_scaling = PenaltyScaling::kAbsolute;
  // Take back a β raise that did not shrink ‖J v − z‖ by ζ at the next iteration, and raise no
  // more in this solve (ours; false: Alg. 1's schedule as above).
  bool beta_revert = true;

  // Throws std::invalid_argument naming the field and its valid range (through the table).
  void Validate() const;
};

// The exact law's constants of a problem (see the top of this file): per row R [1/kg] (cones:
// R_t, R_t, R_n) and v̂ [m/s] (cones: 0, 0, v̂_n); per constraint μ and whether SAP's near-rigid
// clamp set R_n.
struct CanalLawConstants {
  VecX R, v_hat;                 // num_rows
  // Per constraint, 1/β_i = penalty_unit_i/β: 1 [1/kg] (absolute) or w_i [1/kg] (delassus).
  std::vector<double> penalty_unit;
  std::vector<double> mu;        // per constraint (0 for unilateral rows)
  std::vector<char> near_rigid;  // per constraint
};
// Fills `out` for `problem` under σ and near_rigid_beta of `params`. Returns an error naming the
// first constraint whose physical data is unusable (k NaN, τ_d, φ0, w or μ not finite, μ < 0,
// δt + τ_d <= 0), else "". Needs a well-formed problem (CheckProblemStructure).
std::string PrepareCanalLaw(const ContactProblem& problem, const CanalParameters& params,
                            CanalLawConstants* out);
// The AL surrogate of eq. 21 for penalty β, multipliers λ^l and compliant velocities ṽ^l (all
// num_rows), as CANAL hands it to SAP's Newton: `laws` (prepared for `problem` with the linear
// model) get R' = R + I/β, their inverses and v̂; `work` (a copy of `problem`) gets the biases
// b_i + p^l_i − λ^l_i/β, p^l_i = (0, 0, μ_i ‖ṽ^l_i,t‖) on cones. SAP's cost on (work, laws) is
// then h(v) of eq. 22 up to a constant, and its γ(v) is the surrogate's λ(v).
void SetCanalSurrogateLaws(const ContactProblem& problem, const CanalLawConstants& law, double beta,
                           ConstraintBundle* laws);
void SetCanalSurrogateBiases(const ContactProblem& problem, const CanalLawConstants& law,
                             const VecX& lambda, const VecX& v_tilde, double beta,
                             ContactProblem* work);
// The same with the De Saxcé term given per constraint: b'_i = b_i + p_i e_n − λ_i/β_i (p_i is
// ignored for unilateral rows). `p` has one entry per constraint.
void SetCanalSurrogateShift(const ContactProblem& problem, const CanalLawConstants& law,
                            const VecX& lambda, const VecX& p, double beta, ContactProblem* work);
// β_i = β/penalty_unit_i per row (num_rows) for the scalar β.
void CanalRowPenalties(const ContactProblem& problem, const CanalLawConstants& law, double beta,
                       VecX* beta_row);
// The Tresca surrogate's friction disks: r_i = μ_i max(0, λ_i,n) on every cone of `laws`
// (prepared for `problem` with the linear model), from the impulses `lambda` (num_rows).
void SetCanalTrescaBounds(const ContactProblem& problem, const CanalLawConstants& law,
                          const VecX& lambda, ConstraintBundle* laws);
// Turns the Tresca disks of `laws` off (SAP's cone law again).
void ClearCanalTrescaBounds(const ContactProblem& problem, ConstraintBundle* laws);
// p_i = μ_i ‖ṽ_i,t‖ per constraint (0 for unilateral rows), `v_tilde` num_rows.
void CanalDeSaxceTerm(const ContactProblem& problem, const CanalLawConstants& law,
                      const VecX& v_tilde, VecX* p);

// CANAL's per-iteration series (SolverStats::iteration_log), the indices of CanalSeriesTable().
// One row per AL iteration; row 0 is the guess (v_guess, λ^0) with the first surrogate's law.
enum CanalSeries : int {
  // The stopping residual [m/s]: √(‖J v − z‖² + ‖p^{l+1} − p^l‖²), the change of the surrogate's
  // data (slack z, frozen De Saxcé term p) over the iteration; below al_tolerance the iterate
  // satisfies the problem's conditions to that velocity error (see kCanalCascadeResidual).
  kCanalAlResidual = 0,
  kCanalSlackResidual,  // ‖J v − z‖ = ‖λ^{l+1} − λ^l‖/β [m/s] (the paper's θ_AL test)
  kCanalCascadeResidual,   // the cascade's lag over the cones (see the top of this file) [m/s]
  kCanalBeta,              // β of the surrogate that produced the iterate [kg]
  kCanalNewtonIterations,  // Newton steps of that surrogate (per step; 0 at the guess)
  kCanalNewtonTotal,       // Newton steps since the start of the solve
  kCanalGradientNorm,  // ‖D(A(v − v*) − Jᵀλ)‖ at the iterate [√J], D = diag(M)^(-1/2)
  kCanalMomentumResidual,      // e_m (SAP eq. 32) at the iterate [-]
  kCanalLineSearchIterations,  // rtsafe iterations of the surrogate's line searches (per step)
  kCanalNumStiction,           // constraints in each regime of the surrogate's law
  kCanalNumSliding,
  kCanalNumNoContact,
  kNumCanalSeries
};
SeriesTable CanalSeriesTable();

class CanalSolver final : public ContactSolver {
 public:
  explicit CanalSolver(const CanalParameters& params = {},
                       const ContactModelParameters& contact = {});
  ~CanalSolver() override;
  const char* name() const override { return "CANAL"; }
  SeriesTable series() const override { return CanalSeriesTable(); }
  // Never throws on numerical trouble. Statuses: kConverged; kMaxIterations (AL cap, the iterate
  // with the smallest AL residual returned); kNonFiniteInput (malformed or non-finite input,
  // including a constraint's k, τ_d, μ, φ0); kUnsupportedContactModel (a Hunt–Crossley model);
  // kNumericalFailure (a surrogate's Newton broke down: the message names the AL iteration and
  // SAP's status); kMemoryBudgetExceeded / kWorkBudgetExceeded (passed on from the Newton system).
  SolverStatus Solve(const ContactProblem& problem, const VecX& v_guess,
                     SolverResult* result) override;
  const CanalParameters& parameters() const { return params_; }
  void set_parameters(const CanalParameters& p);  // validates
  const ContactModelParameters& contact_model() const { return contact_; }
  // Stores the model; an unsupported one is reported by Solve (kUnsupportedContactModel).
  void set_contact_model(const ContactModelParameters& contact) { contact_ = contact; }
  // Forgets the previous solve's impulses (the next solve starts from λ^0 = 0).
  void ClearWarmStart();

 private:
  SolverStatus SolveMonolithic(const ContactProblem& problem, const VecX& v_guess,
                               SolverResult* result);
  // The island path: false when the problem has fewer than two islands.
  bool SolveIslands(const ContactProblem& problem, const VecX& v_guess, SolverResult* result);

  CanalParameters params_;
  ContactModelParameters contact_;
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;  // reused between solves, with the warm-start λ
};

}  // namespace contactlab
