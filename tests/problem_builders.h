// Hand-built contact problems shared by the solver tests (test_sap, test_canal, test_pgs,
// test_subadmm): a point mass on the ground and free box trees with point contacts. Each test file
// adds its own arrangements (ramps, stacks, piles) on top of these.
#pragma once

#include <cmath>
#include <random>

#include "engine/contact/contact_problem.h"

namespace contactlab::test_problems {

// Log-uniform sample in [lo, hi] (lo > 0).
inline double LogUniform(std::mt19937& rng, double lo, double hi) {
  return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
}

// A point mass m (one tree of 3 dofs, A = M = m I) with free-motion velocity v_star and one
// contact whose frame is the world frame (J = I, normal +z), with stiffness k, dissipation time
// tau_d, friction mu and signed distance phi0. Delassus estimates computed.
inline ContactProblem PointMassContact(double m, double dt, const Vec3& v_star, double k,
                                       double tau_d, double mu, double phi0) {
  ContactProblem p;
  p.time_step = dt;
  p.nv = 3;
  p.tree_v_start = {0};
  p.tree_nv = {3};
  p.A = {m * MatX::Identity(3, 3)};
  p.M = p.A;
  p.v_star = v_star;
  p.v0 = VecX::Zero(3);
  ConstraintData c;
  c.num_blocks = 1;
  c.blocks[0].tree = 0;
  c.blocks[0].J = MatX::Identity(3, 3);
  c.stiffness = k;
  c.dissipation_time = tau_d;
  c.friction = mu;
  c.phi0 = phi0;
  p.constraints.push_back(c);
  p.num_rows = 3;
  p.ComputeDelassusEstimates();
  return p;
}

// The world velocity of the point at offset r from a free body's centre, v + ω × r =
// [I, −[r]×] (v; ω), as a 3 x 6 Jacobian.
inline MatX PointJacobian(const Vec3& r) {
  MatX J(3, 6);
  J << Mat3::Identity(), -Skew(r);
  return J;
}

// Appends a free box tree (6 dofs: world linear then angular velocity) of mass m and half size a,
// A = M = diag(m, m, m, I, I, I) with I = m (2a)² / 6; v_star grows by (v_star_lin, 0) and v0 is
// reset to zeros of the new size. Returns the tree's index.
inline int AddFreeBoxTree(ContactProblem* p, double m, double a,
                          const Vec3& v_star_lin = Vec3::Zero()) {
  const int t = p->num_trees();
  const double I = m * (2 * a) * (2 * a) / 6;
  VecX d(6);
  d << m, m, m, I, I, I;
  p->tree_v_start.push_back(p->nv);
  p->tree_nv.push_back(6);
  p->A.push_back(MatX(d.asDiagonal()));
  p->M.push_back(p->A.back());
  p->nv += 6;
  const VecX old = p->v_star;
  p->v_star = VecX::Zero(p->nv);
  p->v_star.head(old.size()) = old;
  p->v_star.segment<3>(p->nv - 6) = v_star_lin;
  p->v0 = VecX::Zero(p->nv);
  return t;
}

}  // namespace contactlab::test_problems
