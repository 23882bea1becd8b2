#include "engine/multibody/load.h"

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

void AddLoadForces(const Multibody& multibody, const KinematicsCache& kin, double t,
                   VecX* generalized_force) {
  for (const Load& load : multibody.model().loads) {
    const LoadForce lf = EvaluateLoad(kin, load, t);
    multibody.AddPointForce(kin, load.body, lf.point_W, lf.force_W, generalized_force);
  }
}

}  // namespace contactlab
