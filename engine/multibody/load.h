// External loads (Model::loads): forces on points of bodies, given as signals of time. The
// simulator applies them like the mouse perturbation: explicitly, evaluated once per step at the
// step's start (time t^n, configuration q0), as the generalized force J_pᵀ f added to k(q, v) in
// the free-motion stage (Simulator::Step). They do not enter the linearization A.
#pragma once

#include <vector>

#include "engine/common/math.h"
#include "engine/multibody/model.h"
#include "engine/multibody/multibody.h"

namespace contactlab {

// One load evaluated at time t and configuration kin:
//   p_B = point(t), p_W = X_WB p_B,  f_W = force(t) (world) or R_WB force(t) (force_in_body).
struct LoadForce {
  Vec3 point_W = Vec3::Zero();  // point of application [m]
  Vec3 force_W = Vec3::Zero();  // force on the body at point_W [N]
};
LoadForce EvaluateLoad(const KinematicsCache& kin, const Load& load, double t);

// Adds J_pᵀ f of every one of the model's loads at (kin, t) to *generalized_force (size nv).
// The model must be finalized (Model::Finalize validates the loads).
void AddLoadForces(const Multibody& multibody, const KinematicsCache& kin, double t,
                   VecX* generalized_force);

}  // namespace contactlab
