#include "engine/load.h"

namespace contactlab {

LoadForce EvaluateLoad(const KinematicsCache& kin, const Load& load, double t) {
  const Vec3 p_B(load.point[0].Evaluate(t), load.point[1].Evaluate(t), load.point[2].Evaluate(t));
  const Vec3 f(load.force[0].Evaluate(t), load.force[1].Evaluate(t), load.force[2].Evaluate(t));
  const Pose& X_WB = kin.X_WB[load.body];
  LoadForce out;
  out.point_W = X_WB.Apply(p_B);
  out.force_W = load.force_in_body ? Vec3(X_WB.q * f) : f;
  return out;
}

bool LoadGeneralizedForce(const Multibody& multibody, const KinematicsCache& kin, double t,
                          VecX* generalized_force) {
  const Model& model = multibody.model();
  generalized_force->setZero(model.nv);
  if (model.loads.empty()) return false;
  MatX J;
  for (const Load& load : model.loads) {
    const Tree& tree = model.trees[model.bodies[load.body].tree];
    const LoadForce lf = EvaluateLoad(kin, load, t);
    multibody.PointJacobian(kin, load.body, lf.point_W, &J);  // 3 x nv_tree
    generalized_force->segment(tree.v_start, tree.nv) += J.transpose() * lf.force_W;
  }
  return true;
}

}  // namespace contactlab
