// SAP's regularization (R, v̂, near-rigid flags) as the linear laws hold it, for the tests that
// check eqs. 29-30 and the cost's derivatives row by row. The solver itself reads only the
// prepared laws (engine/contact/constraint_bundle.h).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/contact/constraint_bundle.h"
#include "engine/solvers/sap/sap_model.h"
#include "engine/solvers/sap/sap_solver.h"

namespace contactlab {

struct SapRegularization {
  ConstraintBundle laws;
  VecX R;      // num_rows [1/kg]
  VecX v_hat;  // num_rows [m/s]
  std::vector<std::uint8_t> near_rigid;  // per constraint
};

inline SapRegularization RegularizationOf(const ConstraintBundle& laws) {
  SapRegularization reg;
  reg.laws = laws;
  laws.LinearRows(&reg.R, &reg.v_hat);
  for (int i = 0; i < laws.num_constraints(); ++i) {
    reg.near_rigid.push_back(laws.Constant(i, "near_rigid") != 0 ? 1 : 0);
  }
  return reg;
}
inline SapRegularization RegularizationOf(const SolverResult& r) { return RegularizationOf(r.laws); }

inline SapRegularization ComputeSapRegularization(const ContactProblem& p,
                                                  const SapParameters& prm) {
  return RegularizationOf(PrepareSapLaws(p, prm));
}

inline double SapConstraintCost(const ContactProblem& p, const SapRegularization& reg,
                                const VecX& vc, VecX* gamma, std::vector<Mat3>* G,
                                std::vector<Regime>* regime) {
  return SapConstraintCost(p, reg.laws, vc, gamma, G, regime);
}
inline double SapCost(const ContactProblem& p, const SapRegularization& reg, const VecX& v,
                      VecX* gradient, VecX* gamma) {
  return SapCost(p, reg.laws, v, gradient, gamma);
}
inline MatX SapDenseHessian(const ContactProblem& p, const SapRegularization& reg,
                            const VecX& v) {
  return SapDenseHessian(p, reg.laws, v);
}

}  // namespace contactlab
