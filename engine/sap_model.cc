// SAP cost, gradient and Hessian on a ContactProblem (paper eq. 24, §IV-A, App. D).
#include "engine/sap_model.h"

#include "engine/sap_cone.h"
#include "engine/small_kernels.h"

namespace contactlab {

namespace {

// SapProjectCone (engine/sap_cone.h) for μ > 0 with the reciprocals inv_t = 1/R_t and
// inv_n = 1/R_n given, so that the common regimes need no division: the same regions and
// formulas; G in stiction is diag(inv_t, inv_t, inv_n) (bitwise the same as 1/R).
inline Regime ProjectConeWithInverses(const Vec3& y, double mu, double Rt, double Rn,
                                      double inv_t, double inv_n, Vec3* gamma, Mat3* G) {
  const double yr = y.head<2>().norm();
  const double yn = y(2);
  if (yr <= mu * yn) {
    *gamma = y;
    if (G) *G = Vec3(inv_t, inv_t, inv_n).asDiagonal();
    return Regime::kStiction;
  }
  if (Rn * yn + mu * Rt * yr < 0) {
    gamma->setZero();
    if (G) G->setZero();
    return Regime::kNoContact;
  }
  return SapProjectCone(y, mu, Rt, Rn, gamma, G);  // sliding
}

}  // namespace

double SapConstraintCost(const ContactProblem& problem, const SapRegularization& reg,
                         const VecX& vc, VecX* gamma, std::vector<Mat3>* G,
                         std::vector<Regime>* regime) {
  gamma->resize(problem.num_rows);
  const int nc = static_cast<int>(problem.constraints.size());
  if (G) G->resize(nc);
  if (regime) regime->resize(nc);
  double cost = 0;
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    const int r = c.first_row;
    Regime reg_i;
    if (c.kind == ConstraintKind::kFrictionCone) {
      const Vec3 R = reg.R.segment<3>(r);
      Vec3 g;
      if (c.friction > 0 && R(0) == R(1)) {
        // y = −R⁻¹(v_c − v̂), elementwise since R is diagonal, with R⁻¹ formed once.
        const double inv_t = 1.0 / R(0), inv_n = 1.0 / R(2);
        const Vec3 y = -(vc.segment<3>(r) - reg.v_hat.segment<3>(r))
                            .cwiseProduct(Vec3(inv_t, inv_t, inv_n));
        reg_i = ProjectConeWithInverses(y, c.friction, R(0), R(2), inv_t, inv_n, &g,
                                        G ? &(*G)[i] : nullptr);
      } else {
        const Vec3 y = -(vc.segment<3>(r) - reg.v_hat.segment<3>(r)).cwiseQuotient(R);
        reg_i = SapProjectCone(y, c.friction, R(0), R(2), &g, G ? &(*G)[i] : nullptr);
      }
      gamma->segment<3>(r) = g;
      cost += 0.5 * (R(0) * g(0) * g(0) + R(1) * g(1) * g(1) + R(2) * g(2) * g(2));
    } else {
      const double R = reg.R(r);
      const double y = -(vc(r) - reg.v_hat(r)) / R;
      double g, dg;
      reg_i = SapProjectUnilateral(y, R, &g, &dg);
      (*gamma)(r) = g;
      if (G) {
        (*G)[i].setZero();
        (*G)[i](0, 0) = dg;
      }
      cost += 0.5 * R * g * g;
    }
    if (regime) (*regime)[i] = reg_i;
  }
  return cost;
}

void SapMultiplyA(const ContactProblem& problem, const VecX& x, VecX* y) {
  y->resize(problem.nv);
  for (int t = 0; t < problem.num_trees(); ++t) {
    const int s = problem.tree_v_start[t], n = problem.tree_nv[t];
    kernels::SetAx(problem.A[t].data(), n, x.data() + s, y->data() + s);
  }
}

void SapMultiplyJ(const ContactProblem& problem, const VecX& x, VecX* y) {
  y->setZero(problem.num_rows);
  for (const ConstraintData& c : problem.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      kernels::AddJx(b.J.data(), c.num_rows, problem.tree_nv[b.tree],
                     x.data() + problem.tree_v_start[b.tree], y->data() + c.first_row);
    }
  }
}

double SapCost(const ContactProblem& problem, const SapRegularization& reg, const VecX& v,
               VecX* gradient, VecX* gamma) {
  VecX vc, g, dv = v - problem.v_star, Adv;
  problem.ConstraintVelocities(v, &vc);
  const double cost_R = SapConstraintCost(problem, reg, vc, &g, nullptr, nullptr);
  SapMultiplyA(problem, dv, &Adv);
  if (gradient) {
    *gradient = Adv;
    problem.AddJacobianTransposeTimes(-g, gradient);
  }
  if (gamma) *gamma = g;
  return 0.5 * dv.dot(Adv) + cost_R;
}

MatX SapDenseHessian(const ContactProblem& problem, const SapRegularization& reg,
                     const VecX& v) {
  VecX vc, g;
  std::vector<Mat3> G;
  problem.ConstraintVelocities(v, &vc);
  SapConstraintCost(problem, reg, vc, &g, &G, nullptr);
  const MatX J = problem.DenseJ();
  MatX GJ(J.rows(), J.cols());
  for (size_t i = 0; i < problem.constraints.size(); ++i) {
    const ConstraintData& c = problem.constraints[i];
    GJ.middleRows(c.first_row, c.num_rows).noalias() =
        G[i].topLeftCorner(c.num_rows, c.num_rows) * J.middleRows(c.first_row, c.num_rows);
  }
  MatX H = problem.DenseA();
  H.noalias() += J.transpose() * GJ;
  return H;
}

}  // namespace contactlab
