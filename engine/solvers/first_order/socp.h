// A small dense primal-dual interior-point method for convex quadratic cone programs
//
//   min_x  ½ xᵀP x + qᵀx + r      s.t.  G x + s = h,   s ∈ K,
//   K = ℝ₊^l × Q^{m_1} × … × Q^{m_N},   Q^m = {u ∈ ℝ^m : u_0 ≥ ‖(u_1, …, u_{m−1})‖},
//
// with P ⪰ 0 (n x n), G (m x n), and its dual variable z ∈ K (K is self-dual). It is the
// per-step solver of the first-order solver (Drumwright's QP/SOCP, seed 002 §6), written here
// because Debian packages no QP/SOCP solver; nothing in it is specific to contact.
//
// Method (after the CVXOPT `coneqp` and ECOS papers: Vandenberghe, "The CVXOPT linear and
// quadratic cone program solvers", 2010; Domahidi, Chu, Boyd, ECC 2013):
//   * infeasible start: x minimizes ½xᵀPx + qᵀx + ½‖Gx − h‖², s = h − Gx and z = −s, each
//     shifted into the interior of K by a multiple of the identity e (no feasible point needed:
//     the "λ = ∞" start of the paper can be infeasible, digest §4);
//   * Nesterov–Todd scaling W (per block: w_i = √(s_i/z_i) on the orthant; on a cone
//     W = β(2vvᵀ − J), J = diag(1, −I)), so that W⁻¹s = W z = λ;
//   * Mehrotra predictor–corrector: an affine direction (d_s = −λ∘λ), the centering
//     σ = (1 − α_aff)³, a combined direction with the second-order correction
//     d_s = −λ∘λ − (W⁻¹Δs_a)∘(WΔz_a) + σμe, and a step α = min(1, step_fraction · α_max);
//   * each direction from the KKT system in scaled variables dz̃ = W dz, [P, Gsᵀ; Gs, −I],
//     Gs = W⁻¹G: by its dual Schur complement I + Gs P̂⁻¹ Gsᵀ when P is numerically definite
//     (P̂ = P + 1e-13 max P_ii; the contact programs), else by the normal equations P + GsᵀGs
//     (dense Cholesky factorizations, Eigen LLT, pivoted LDLT where round-off makes them
//     indefinite), then ds = b_z − G dx, and iterative refinement on the unreduced system;
//   * equilibration before the iterations: variables scaled by D = diag(P)^(-1/2) (the column
//     norm of G where P_jj = 0), the rows of G and h scaled by one positive factor per cone
//     block (which preserves K); tolerances apply to the scaled problem.
//
// Stopping test on the scaled problem, at every iterate (row 0 = the start), each measure relative
// to the largest term of its sum (as OSQP does), so that round-off is its floor:
//   primal:  ‖Gx + s − h‖ / max(1, ‖Gx‖, ‖s‖, ‖h‖)        <= feasibility_tolerance,
//   dual:    ‖Px + q + Gᵀz‖ / max(1, ‖Px‖, ‖Gᵀz‖, ‖q‖)    <= feasibility_tolerance,
//   gap:     sᵀz / max(1, |f|, ½xᵀPx, |qᵀx|, |r|)          <= gap_tolerance,
// with f = ½xᵀPx + qᵀx + r.
// Certificates: primal infeasibility (z ∈ K, ‖Gᵀz‖ ≤ ε (−hᵀz)) and dual infeasibility
// (‖Px‖ ≤ ε (−qᵀx), ‖Gx + s‖ ≤ ε (−qᵀx)), with ε = infeasibility_tolerance.
// Failures are statuses, never exceptions: when round-off stops the iterations (a singular KKT
// system, a non-finite direction, a step that stalls, 8 iterations in which neither μ nor a
// residual fell by 10 %) or at the iteration cap, the best iterate so far is returned, as
// kReducedAccuracy when it meets reduced_tolerance, else as kNumericalFailure (kMaxIterations at
// the cap).
// Deterministic: dense Eigen kernels in a fixed order.
#pragma once

#include <Eigen/Cholesky>
#include <string>
#include <vector>

#include "engine/common/math.h"

namespace contactlab {

struct SocpProblem {
  MatX P;                       // n x n, symmetric positive semidefinite
  VecX q;                       // n
  double r = 0;                 // constant of the objective (only in the costs and the gap's scale)
  MatX G;                       // m x n
  VecX h;                       // m
  int num_linear = 0;           // l: rows [0, l) are the orthant
  std::vector<int> cone_sizes;  // second-order cones after the orthant rows, each of size >= 2
  int num_vars() const { return static_cast<int>(q.size()); }
  int num_rows() const { return static_cast<int>(h.size()); }
  // Empty when the sizes agree (P n x n, G m x n, l + Σ m_k = m, m_k >= 2), else what is wrong.
  std::string Check() const;
};

struct SocpSettings {
  double gap_tolerance = 1e-10;           // on the relative duality gap (above) [-]
  double feasibility_tolerance = 1e-10;   // on the relative primal and dual residuals [-]
  double infeasibility_tolerance = 1e-9;  // of the infeasibility certificates [-]
  int max_iterations = 100;
  double step_fraction = 0.99;  // fraction of the step to the boundary of K taken
  int refinement_steps = 2;     // iterative refinement passes per direction
  bool equilibrate = true;
  // Accepted (kReducedAccuracy) when round-off stops the iterations: gap and residuals below it.
  double reduced_tolerance = 1e-6;
};

enum class SocpStatus {
  kOptimal = 0,
  kPrimalInfeasible,
  kDualInfeasible,
  kMaxIterations,
  kNumericalFailure,
  // Round-off stopped the iterations before the tolerances were met, and the best iterate meets
  // reduced_tolerance on the gap and both residuals (as ECOS's "optimal, inaccurate").
  kReducedAccuracy,
};
const char* SocpStatusName(SocpStatus s);

// Nesterov–Todd scaling of one second-order cone block of size m from s, z ∈ int Q^m: β and the
// J-unit vector v (m entries) of W = β(2vvᵀ − J), so that W z = W⁻¹ s. False when s or z is not
// in the interior.
bool SocNtScaling(const double* s, const double* z, int m, double* beta, double* v);
// The largest α >= 0 with u + α du ∈ Q^m for u ∈ int Q^m (+∞ when du ∈ Q^m).
double SocMaxStep(const double* u, const double* du, int m);

// One row of the log: the iterate after `step` (row 0: the starting point, step = NaN).
struct SocpIterate {
  double gap = 0;         // sᵀz / max(1, |pcost|) (scaled problem)
  double primal_res = 0;  // ‖Gx + s − h‖ / max(1, ‖h‖) (scaled problem)
  double dual_res = 0;    // ‖Px + q + Gᵀz‖ / max(1, ‖q‖) (scaled problem)
  double step = 0;        // α of the step that produced the iterate
  double sigma = 0;       // centering σ of that step
  double mu = 0;          // sᵀz / (l + N), the barrier parameter (scaled problem)
  double pcost = 0;       // ½xᵀPx + qᵀx + r (original problem)
};

// A primal-dual point (x, s, z) of the original (unscaled) problem.
struct SocpPoint {
  VecX x, s, z;
};

struct SocpResult {
  SocpStatus status = SocpStatus::kNumericalFailure;
  SocpPoint point;  // the last iterate, original problem
  int iterations = 0;
  double pcost = 0;               // ½xᵀPx + qᵀx + r at the last iterate
  bool started_at_guess = false;  // the guess passed the stopping test (0 iterations)
  std::vector<SocpIterate> log;   // iterations + 1 rows
  std::string message;            // detail for a status other than kOptimal
};

class SocpSolver {
 public:
  // Solves `problem`. `guess` (may be null): a point of a previous solve; when it has the
  // problem's sizes, is interior (s, z ∈ int K) and passes the stopping test, it is returned with
  // 0 iterations (kOptimal), or, with `guess_reduced_ok` (the caller knows it is the same
  // program's previous answer), when it meets reduced_tolerance (kReducedAccuracy). Otherwise
  // the cold infeasible start is used (interior-point iterations do not profit from a start
  // near the boundary).
  SocpStatus Solve(const SocpProblem& problem, const SocpSettings& settings, SocpResult* result,
                   const SocpPoint* guess = nullptr, bool guess_reduced_ok = false);

 private:
  void Setup(const SocpProblem& p, const SocpSettings& st);
  bool ComputeScaling();                      // from s_, z_: W, λ; false when a point left int K
  void ApplyW(const VecX& x, VecX* y) const;  // y = W x
  void ApplyWinv(const VecX& x, VecX* y) const;                      // y = W⁻¹ x
  void JordanProduct(const VecX& a, const VecX& b, VecX* y) const;   // y = a ∘ b
  void JordanDivide(const VecX& lam, const VecX& b, VecX* y) const;  // λ ∘ y = b
  double MaxStep(const VecX& u, const VecX& du) const;               // sup α: u + α du ∈ K
  bool FactorP();  // P̂ = P + δI = L Lᵀ once per solve; picks dual Schur or normal equations
  bool Factor();   // per iteration: I + Gs P̂⁻¹ Gsᵀ or P + GsᵀGs, Gs = W⁻¹G
  // Solves P dx + Gᵀdz = bx, G dx + ds = bz, λ∘(W dz + W⁻¹ ds) = bs (with refinement).
  void SolveNewton(const VecX& bx, const VecX& bz, const VecX& bs, VecX* dx, VecX* dz, VecX* ds);
  void SolveReduced(const VecX& bx, const VecX& bz, const VecX& bs, VecX* dx, VecX* dz, VecX* ds);
  void Residuals();  // rx_, rz_, gap measures at (x_, s_, z_)
  void Unscale(SocpPoint* out) const;

  // Scaled problem.
  MatX P_, G_;
  VecX q_, h_;
  double r_ = 0;
  VecX col_scale_, row_scale_;  // x = D x̃, s̃ = E s, z = E z̃
  int n_ = 0, m_ = 0, l_ = 0, degree_ = 0;
  std::vector<int> cone_offset_, cone_size_;
  // Iterate and scaling.
  VecX x_, s_, z_, lambda_;
  VecX w_;                    // orthant: w_i = √(s_i/z_i)
  std::vector<double> beta_;  // per cone
  VecX v_;                    // per cone, the hyperbolic unit vector v (stored at the cone's rows)
  // Residuals.
  VecX rx_, rz_;
  double pres_ = 0, dres_ = 0, gap_ = 0, gap_rel_ = 0, pcost_ = 0, mu_ = 0;
  VecX px_, gtz_, gx_;  // P x, Gᵀz, G x
  // Linear algebra.
  MatX Ph_, Gs_, X_, Sd_;
  Eigen::LLT<MatX> lp_, lsd_;
  Eigen::LDLT<MatX> ldsd_;
  bool use_ldlt_ = false;
  bool dual_schur_ = true;  // P numerically definite: directions from I + Gs P̂⁻¹ Gsᵀ
  VecX xb_, sb_, zb_;       // the best iterate
  VecX y_;
  std::vector<double> lambda_det_;  // per cone, det λ = √(det s det z)
  VecX t1_, t2_, t3_, t4_, ex_, ez_, es_, cx_, cz_, cs_;
  VecX dxa_, dza_, dsa_, dx_, dz_, ds_, bx_, bz_, bs_, tmp_m_, tmp_n_, xs_, ss_, zs_;
  int refinement_steps_ = 2;
};

}  // namespace contactlab
