// Mouse perturbation: a spring-damper pulling a point of one body towards a world target, as in
// a viewer's "drag a body with the mouse". The simulator applies it explicitly (evaluated once per
// step at the step's start state q0, v0) as the generalized force J_pᵀ f in the free-motion stage;
// see Simulator::SetPerturbation.
#pragma once

#include "engine/common/math.h"
#include "engine/multibody/model.h"
#include "engine/multibody/multibody.h"

namespace contactlab {

struct Perturbation {
  int body = -1;                     // grabbed body; must have a kinematic tree
  Vec3 point_B = Vec3::Zero();       // grabbed point, body frame [m]
  Vec3 target_W = Vec3::Zero();      // where the point is pulled to, world frame [m]
  double stiffness = 0;              // k [N/m], >= 0
  double damping = 0;                // c [N s/m], >= 0
};

// Natural frequency of MakeMouseSpring's spring-mass system [Hz].
constexpr double kMouseSpringFrequency = 3.0;

// A spring for dragging `body` by `point_B` towards `target_W`, scaled to the body's own mass m
// [kg] so that every body follows the mouse alike: with ω = 2π·kMouseSpringFrequency [rad/s],
//   stiffness = m ω² [N/m],  damping = 2 m ω [N s/m],
// i.e. a critically damped oscillator of period 1/3 s for a point mass m grabbed at its COM.
// Grabbed off the COM, or on a jointed body, the effective mass at the point differs from m and
// the response is correspondingly faster or slower. The force is explicit in the step, which is
// stable for ω δt well below 1 (δt below ~0.05 s for these values). Throws
// std::invalid_argument if `body` is not a dynamic body (see ValidatePerturbation).
Perturbation MakeMouseSpring(const Model& model, int body, const Vec3& point_B,
                             const Vec3& target_W);

// Throws std::invalid_argument, naming the field and its valid range, unless `p.body` indexes a
// body with a kinematic tree (not static, prescribed or welded to the world), point_B and
// target_W are finite and stiffness and damping are finite and >= 0.
void ValidatePerturbation(const Model& model, const Perturbation& p);

// The perturbation evaluated at a configuration (kin) and velocities v:
//   p_W = X_WB p_B,  v_p = J_p v,  f = k (target_W − p_W) − c v_p,
// and its generalized force J_pᵀ f, added to *generalized_force (size nv; only the body's tree
// changes). `p` must be valid for the model (ValidatePerturbation).
struct PerturbationForce {
  Vec3 point_W = Vec3::Zero();     // grabbed point p_W [m]
  Vec3 velocity_W = Vec3::Zero();  // its velocity v_p [m/s]
  Vec3 force_W = Vec3::Zero();     // spring-damper force f on the body at p_W [N]
};
PerturbationForce EvaluatePerturbation(const Multibody& multibody, const KinematicsCache& kin,
                                       const VecX& v, const Perturbation& p,
                                       VecX* generalized_force);

}  // namespace contactlab
