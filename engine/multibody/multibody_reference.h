// Test-only reference implementations of the multibody dynamics terms, kept to check the
// recursive algorithms in Multibody against them. They build the mass matrix and the bias forces
// from per-body point and angular Jacobians (O(n²)–O(n³) per tree); the simulator does not use
// them.
#pragma once

#include "engine/multibody/multibody.h"

namespace contactlab::internal {

// M = Σ_bodies J_comᵀ m J_com + J_ωᵀ I_W J_ω for one tree, nv_t x nv_t.
void ReferenceMassMatrix(const Multibody& mb, const KinematicsCache& kin, int tree, MatX* M);

// k2 = gravity − C(q, v) v, size nv: per-body Newton-Euler forces with v̇ = 0 projected through
// the COM and angular Jacobians.
void ReferenceBiasForces(const Multibody& mb, const KinematicsCache& kin, const VecX& v,
                         const Vec3& gravity, VecX* k2);

}  // namespace contactlab::internal
