// SAP cost, gradient and Hessian on a ContactProblem (paper eq. 24, §IV-A, App. D).
#include "engine/solvers/sap/sap_model.h"

#include "engine/common/small_kernels.h"

namespace contactlab {

double SapConstraintCost(const ContactProblem& problem, const ConstraintBundle& laws,
                         const VecX& vc, VecX* gamma, std::vector<Mat3>* G,
                         std::vector<Regime>* regime) {
  static_cast<void>(problem);
  return laws.Evaluate(vc, gamma, G, regime);
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

double SapCost(const ContactProblem& problem, const ConstraintBundle& laws, const VecX& v,
               VecX* gradient, VecX* gamma) {
  VecX vc, g, dv = v - problem.v_star, Adv;
  problem.ConstraintVelocities(v, &vc);
  const double cost_R = SapConstraintCost(problem, laws, vc, &g, nullptr, nullptr);
  SapMultiplyA(problem, dv, &Adv);
  if (gradient) {
    *gradient = Adv;
    problem.AddJacobianTransposeTimes(-g, gradient);
  }
  if (gamma) *gamma = g;
  return 0.5 * dv.dot(Adv) + cost_R;
}

MatX SapDenseHessian(const ContactProblem& problem, const ConstraintBundle& laws,
                     const VecX& v) {
  VecX vc, g;
  std::vector<Mat3> G;
  problem.ConstraintVelocities(v, &vc);
  SapConstraintCost(problem, laws, vc, &g, &G, nullptr);
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
