// The constraint function g(q) of Model::equalities evaluated from body poses, independently of
// the simulator's Jacobians (tests of equality constraints).
#pragma once

#include <algorithm>
#include <vector>

#include "engine/multibody/model.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"

namespace contactlab {

// g(q) as the model defines it, evaluated from body poses (independently of the simulator's
// Jacobians): connect p_B − p_A; weld position p_FB − p_FA and rotation 2 s vec(q_FA⁻¹ q_FB);
// coupling q_a − offset − gear q_b.
inline std::vector<Vec3> EqualityResiduals(const Model& m, const Multibody& mb, const VecX& q) {
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0.0, &kin);
  auto pose = [&](int b) { return b < 0 ? Pose{} : kin.X_WB[b]; };
  std::vector<Vec3> out;
  for (const Equality& e : m.equalities) {
    if (e.type == EqualityType::kJointCoupling) {
      double g = q(m.joints[e.joint_a].q_start) - e.offset;
      if (e.joint_b >= 0) g -= e.gear * q(m.joints[e.joint_b].q_start);
      out.push_back(Vec3(g, 0, 0));
      continue;
    }
    const Pose a = pose(e.body_a) * e.a_from_anchor, b = pose(e.body_b) * e.b_from_anchor;
    out.push_back(b.p - a.p);
    if (e.type == EqualityType::kWeld) {
      const Quat r = (a.q.conjugate() * b.q).normalized();
      out.push_back(2.0 * (r.w() < 0 ? -1.0 : 1.0) * r.vec());
    }
  }
  return out;
}

// Max over constraints of |g| (each row group's norm), at the simulator's current state.
inline double MaxResidual(const Simulator& sim) {
  double worst = 0;
  for (const Vec3& g : EqualityResiduals(sim.model(), sim.multibody(), sim.state().q)) {
    worst = std::max(worst, g.norm());
  }
  return worst;
}

}  // namespace contactlab
