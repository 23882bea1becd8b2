// Accuracy metrics for comparing ContactLab's runs with published experiments.
//
//   NCP residual (seed 001, §VII preamble; digest seed_001_al.md §4): the natural-map residual
//     of the Signorini-Coulomb conditions at the solver's impulses, with the velocities
//     recomputed from the impulses so that momentum balance holds exactly:
//       v̂ = v* + A⁻¹ Jᵀ γ,   v_c = J v̂ + b,
//       r = ‖γ − T(γ − g)‖₂ / (number of constraints),
//     where T is the "strict" operator: T_n(x) = max(x_n, 0), T_t(x) = x_t clamped to the disk of
//     radius μ T_n(x), and g = (v_t, g_n). Rows mix impulse [N s] and velocity [m/s] units with
//     unit weight, as in the paper. The normal gap g_n measures the contact model's own physical
//     law, unregularized (PhysicalNormalLaw in engine/contact/constraint_laws.h): with the law's
//     argument ζ and the inverse n⁻¹ of its normal impulse n(ζ),
//       g_n = ζ − n⁻¹(γ_n),      so that 0 ≤ γ_n ⊥ g_n ≥ 0  ⇔  γ_n = n(ζ) (or γ_n = 0, ζ ≥ ζ̂):
//       linear:              ζ = v_n, n⁻¹(γ) = −φ0/(δt + τ_d) − γ/(δt k (δt + τ_d))
//                            (SAP paper eq. 3 divided by δt + τ_d);
//       lagged, lagged_regularized:  ζ = v_n, n(ζ) = δt (f₀ − δt k ζ)₊ (1 − d ζ)₊ (seed 004);
//       similar:             ζ = v_n − μ‖v_t‖ (the exact norm), the same n;
//       rigid (NcpModel::kRigid, or k = ∞): g_n = v_n + φ0/δt (the velocity-level NCP of seed 001).
//     Friction is exact Coulomb (maximum dissipation) for every model, so regularized friction
//     (SAP's R_t, the Hunt–Crossley soft norm ε_s), lagged friction (μ γ_n0 instead of μ γ_n) and
//     a near-rigid clamp on R_n show up as a non-zero residual. Joint limits (unilateral rows) use
//     the normal row alone with the linear law (rigid for k = ∞).
//
//   Position error e_q (SAP paper §VI-B; digest seed_000_sap.md §5):
//       e_q = ( (1/T) ∫_0^T ‖x(t) − x_ref(t)‖² dt )^{1/2},
//     trapezoidal over the samples of x, with x_ref linearly interpolated in time.
//
//   Log-log slope: least-squares fit of log y against log x (order of convergence of e_q in δt,
//     cond(H) against σ, time against body count).
#pragma once

#include <vector>

#include "engine/contact/contact_problem.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

enum class NcpModel { kCompliant, kRigid };

struct NcpResidual {
  double residual = 0;  // r above [mixed units: N s and m/s]
  double max_row = 0;   // largest |γ − T(γ − g)| over rows
  int num_constraints = 0;
};

// Residual of `result.gamma` for `problem` under the contact model the solve used
// (result.laws.model(); linear when result.laws is empty) or, with kRigid, the rigid NCP.
// A problem with no constraints has residual 0. Throws std::invalid_argument when sizes
// disagree or an A block is not SPD.
NcpResidual ComputeNcpResidual(const ContactProblem& problem, const SolverResult& result,
                               NcpModel model = NcpModel::kCompliant);
// The same for impulses `gamma` (num_rows) measured against the physical law of `contact_model`
// (e.g. a solve under one model measured against another's law).
NcpResidual ComputeNcpResidual(const ContactProblem& problem, const VecX& gamma,
                               ContactModelType contact_model,
                               NcpModel model = NcpModel::kCompliant);

// One frictional contact as another engine reports it (e.g. MuJoCo's contact rows, app/mujoco_peer.h),
// in its own frame: normal n (pointing so that v_n > 0 separates) and two tangents.
struct ContactFrameSample {
  double mu = 0;                                   // Coulomb coefficient (0: frictionless)
  bool frictional = true;                          // false: the normal row only
  double phi0 = 0;                                 // signed distance at the start of the step [m]
  double gamma_n = 0;                              // normal impulse [N s]
  Eigen::Vector2d gamma_t = Eigen::Vector2d::Zero();  // friction impulse [N s]
  double v_n = 0;                                  // normal velocity after the step [m/s]
  Eigen::Vector2d v_t = Eigen::Vector2d::Zero();   // tangential velocity after the step [m/s]
};

// The rigid-law residual above (g_n = v_n + φ0/δt, exact Coulomb friction, the same strict
// operator T and normalization by the number of contacts) of contacts given by their impulses
// and post-step velocities. The velocities are taken as given (no momentum-balance
// recomputation: the engine that produced them owns its dynamics). No contacts: residual 0.
NcpResidual RigidNcpResidualOfContacts(const std::vector<ContactFrameSample>& contacts, double dt);

// Samples x(t_k) of a vector-valued trajectory (all samples the same size).
struct Trajectory {
  std::vector<double> t;  // strictly increasing [s]
  std::vector<VecX> x;
  void Add(double time, const VecX& value) {
    t.push_back(time);
    x.push_back(value);
  }
};

// Linear interpolation of `ref` at time `t`, held constant outside its time range.
VecX InterpolateTrajectory(const Trajectory& ref, double t);

// e_q of `x` against `ref` over the time span of `x`. Throws std::invalid_argument for fewer than
// two samples or mismatched sizes.
double PositionErrorRms(const Trajectory& x, const Trajectory& ref);

// Least-squares slope of log(y) against log(x). Needs >= 2 points with x, y > 0 (others are
// skipped); returns NaN otherwise.
double LogLogSlope(const std::vector<double>& x, const std::vector<double>& y);

// Least-squares slope of y against x (NaN with fewer than 2 distinct x).
double LinearSlope(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace contactlab
