#include "engine/inspect/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace contactlab {
namespace {

// One constraint's share of the natural-map residual: the normal row γ_n − T_n(γ − g) and, for a
// cone, the tangential rows γ_t − T_t(γ − g), with T_n = max(γ_n − g_n, 0) and T_t the
// projection of γ_t − v_t on the disk of radius μ T_n. Adds their squares to *sum_sq and keeps
// the largest |row| in *max_row.
void AddNcpConstraint(double gamma_n, double g_n, bool cone, const Eigen::Vector2d& gamma_t,
                      const Eigen::Vector2d& v_t, double mu, double* sum_sq, double* max_row) {
  // T_n = max(γ_n − g_n, 0); g_n = +∞ (an impulse the law cannot produce) gives T_n = 0.
  const double t_n = std::max(gamma_n - g_n, 0.0);
  const double d_n = gamma_n - t_n;
  *sum_sq += d_n * d_n;
  *max_row = std::max(*max_row, std::abs(d_n));
  if (!cone) return;
  Eigen::Vector2d x_t = gamma_t - v_t;
  const double radius = mu * t_n;
  const double norm = x_t.norm();
  if (norm > radius) x_t *= norm > 0 ? radius / norm : 0.0;
  const Eigen::Vector2d d_t = gamma_t - x_t;
  *sum_sq += d_t.squaredNorm();
  *max_row = std::max(*max_row, d_t.cwiseAbs().maxCoeff());
}

}  // namespace

NcpResidual RigidNcpResidualOfContacts(const std::vector<ContactFrameSample>& contacts,
                                       double dt) {
  NcpResidual out;
  out.num_constraints = static_cast<int>(contacts.size());
  if (contacts.empty()) return out;
  double sum_sq = 0;
  for (const ContactFrameSample& c : contacts) {
    const double g_n = c.v_n - (-c.phi0 / dt);  // as PhysicalNormalLaw::Rigid's Gap
    AddNcpConstraint(c.gamma_n, g_n, c.frictional, c.gamma_t, c.v_t, c.mu, &sum_sq,
                     &out.max_row);
  }
  out.residual = std::sqrt(sum_sq) / out.num_constraints;
  return out;
}

NcpResidual ComputeNcpResidual(const ContactProblem& problem, const SolverResult& result,
                               NcpModel model) {
  const ContactModelType contact_model =
      result.laws.empty() ? ContactModelType::kLinear : result.laws.model();
  return ComputeNcpResidual(problem, result.gamma, contact_model, model);
}

NcpResidual ComputeNcpResidual(const ContactProblem& problem, const VecX& gamma,
                               ContactModelType contact_model, NcpModel model) {
  NcpResidual out;
  out.num_constraints = 0;
  for (const ConstraintData& c : problem.constraints) {
    out.num_constraints += c.kind != ConstraintKind::kBilateral;
  }
  if (out.num_constraints == 0) return out;
  if (gamma.size() != problem.num_rows || problem.v_star.size() != problem.nv) {
    throw std::invalid_argument("ComputeNcpResidual: gamma has " + std::to_string(gamma.size()) +
                                " rows, problem has " + std::to_string(problem.num_rows));
  }
  // Velocities that satisfy momentum balance exactly for these impulses: v = v* + A⁻¹ Jᵀ γ.
  VecX jt_gamma = VecX::Zero(problem.nv);
  problem.AddJacobianTransposeTimes(gamma, &jt_gamma);
  VecX v = problem.v_star;
  for (int t = 0; t < problem.num_trees(); ++t) {
    const int n = problem.tree_nv[t];
    if (n == 0) continue;
    Eigen::LLT<MatX> llt(problem.A[t]);
    if (llt.info() != Eigen::Success) {
      throw std::invalid_argument("ComputeNcpResidual: A block " + std::to_string(t) +
                                  " is not SPD");
    }
    v.segment(problem.tree_v_start[t], n) +=
        llt.solve(jt_gamma.segment(problem.tree_v_start[t], n));
  }
  VecX vc;
  problem.ConstraintVelocities(v, &vc);

  const double dt = problem.time_step;
  double sum_sq = 0;
  for (const ConstraintData& c : problem.constraints) {
    // Bilateral constraints have no complementarity: their law is an equation the solvers meet
    // up to their tolerance; they are left out of the NCP residual.
    if (c.kind == ConstraintKind::kBilateral) continue;
    const int r = c.first_row;
    const bool cone = c.kind == ConstraintKind::kFrictionCone;
    const int rows = cone ? 3 : 1;
    const int n_row = r + rows - 1;
    const double gamma_n = gamma(n_row);
    // g_n = ζ − n⁻¹(γ_n) of the model's physical law (one code path for every model).
    const PhysicalNormalLaw law = model == NcpModel::kRigid ? PhysicalNormalLaw::Rigid(c, dt)
                                                            : PhysicalLawOf(contact_model, c, dt);
    const double g_n = law.Gap(law.Argument(vc.data() + r, rows), gamma_n);
    const Eigen::Vector2d gamma_t =
        cone ? Eigen::Vector2d(gamma.segment<2>(r)) : Eigen::Vector2d::Zero();
    const Eigen::Vector2d v_t = cone ? Eigen::Vector2d(vc.segment<2>(r)) : Eigen::Vector2d::Zero();
    AddNcpConstraint(gamma_n, g_n, cone, gamma_t, v_t, c.friction, &sum_sq, &out.max_row);
  }
  out.residual = std::sqrt(sum_sq) / out.num_constraints;
  return out;
}

VecX InterpolateTrajectory(const Trajectory& ref, double t) {
  if (ref.t.empty()) throw std::invalid_argument("InterpolateTrajectory: empty reference");
  if (t <= ref.t.front()) return ref.x.front();
  if (t >= ref.t.back()) return ref.x.back();
  const auto it = std::upper_bound(ref.t.begin(), ref.t.end(), t);
  const size_t k = static_cast<size_t>(it - ref.t.begin());
  const double t0 = ref.t[k - 1], t1 = ref.t[k];
  const double s = t1 > t0 ? (t - t0) / (t1 - t0) : 0.0;
  return (1 - s) * ref.x[k - 1] + s * ref.x[k];
}

double PositionErrorRms(const Trajectory& x, const Trajectory& ref) {
  if (x.t.size() < 2 || x.t.size() != x.x.size() || ref.t.size() != ref.x.size() || ref.t.empty()) {
    throw std::invalid_argument("PositionErrorRms: need >= 2 samples and a reference");
  }
  double integral = 0;
  double prev = (x.x[0] - InterpolateTrajectory(ref, x.t[0])).squaredNorm();
  for (size_t k = 1; k < x.t.size(); ++k) {
    const VecX& ref_k = InterpolateTrajectory(ref, x.t[k]);
    if (ref_k.size() != x.x[k].size()) {
      throw std::invalid_argument("PositionErrorRms: sample sizes differ");
    }
    const double cur = (x.x[k] - ref_k).squaredNorm();
    integral += 0.5 * (prev + cur) * (x.t[k] - x.t[k - 1]);
    prev = cur;
  }
  const double span = x.t.back() - x.t.front();
  return span > 0 ? std::sqrt(integral / span) : std::sqrt(prev);
}

double LinearSlope(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = std::min(x.size(), y.size());
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  return sxx > 0 ? sxy / sxx : std::numeric_limits<double>::quiet_NaN();
}

double LogLogSlope(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> lx, ly;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (x[i] > 0 && y[i] > 0 && std::isfinite(x[i]) && std::isfinite(y[i])) {
      lx.push_back(std::log(x[i]));
      ly.push_back(std::log(y[i]));
    }
  }
  return LinearSlope(lx, ly);
}

}  // namespace contactlab
