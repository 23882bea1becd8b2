// Dense views and per-tree products of the contact problem of one time step (SAP paper §II-III,
// §IV-D). J is stored per constraint as one or two per-tree blocks; A and M are stored per tree
// (block diagonal). The Delassus estimate w_i = ‖W_ii‖_rms = ‖W_ii‖_F / num_rows (eq. 29's
// "rms": the root mean square of the num_rows² entries of W_ii) with W_ii = Σ_t J_it M_t⁻¹ J_itᵀ
// over the (at most two) trees the constraint touches (§V-B); because M is block diagonal by tree
// this diagonal block of W = J M⁻¹ Jᵀ is exact. For a point mass W_ii = I/m and w = 1/(√3 m): the
// paper's estimates that assume w = 1/m (rest penetration β²gδt²/(4π²), slip σμgδt) come out
// smaller by 1/√3 with the formula as printed, which is the one implemented here.
#include "engine/contact_problem.h"

#include <cmath>

#include <Eigen/Cholesky>

namespace contactlab {

namespace {

MatX DenseBlockDiagonal(const ContactProblem& p, const std::vector<MatX>& blocks) {
  MatX out = MatX::Zero(p.nv, p.nv);
  for (int t = 0; t < p.num_trees() && t < static_cast<int>(blocks.size()); ++t) {
    const int n = p.tree_nv[t];
    out.block(p.tree_v_start[t], p.tree_v_start[t], n, n) = blocks[t];
  }
  return out;
}

}  // namespace

MatX ContactProblem::DenseA() const { return DenseBlockDiagonal(*this, A); }

MatX ContactProblem::DenseM() const { return DenseBlockDiagonal(*this, M); }

MatX ContactProblem::DenseJ() const {
  MatX J = MatX::Zero(num_rows, nv);
  for (const ConstraintData& c : constraints) {
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      J.block(c.first_row, tree_v_start[b.tree], c.num_rows, tree_nv[b.tree]) += b.J;
    }
  }
  return J;
}

VecX ContactProblem::StackedBias() const {
  VecX b = VecX::Zero(num_rows);
  for (const ConstraintData& c : constraints) {
    b.segment(c.first_row, c.num_rows) = c.bias.head(c.num_rows);
  }
  return b;
}

void ContactProblem::ConstraintVelocities(const VecX& v, VecX* vc) const {
  vc->resize(num_rows);
  for (const ConstraintData& c : constraints) {
    auto vc_i = vc->segment(c.first_row, c.num_rows);
    vc_i = c.bias.head(c.num_rows);
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      vc_i.noalias() += b.J * v.segment(tree_v_start[b.tree], tree_nv[b.tree]);
    }
  }
}

void ContactProblem::AddJacobianTransposeTimes(const VecX& gamma, VecX* out) const {
  for (const ConstraintData& c : constraints) {
    const auto gamma_i = gamma.segment(c.first_row, c.num_rows);
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      out->segment(tree_v_start[b.tree], tree_nv[b.tree]).noalias() += b.J.transpose() * gamma_i;
    }
  }
}

void ContactProblem::ComputeDelassusEstimates() {
  // One Cholesky factorization of M_t per tree, reused by every constraint on that tree.
  std::vector<Eigen::LLT<MatX>> llt(num_trees());
  std::vector<bool> factored(num_trees(), false);
  for (ConstraintData& c : constraints) {
    MatX W = MatX::Zero(c.num_rows, c.num_rows);  // W_ii, num_rows x num_rows [1/kg]
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      if (!factored[b.tree]) {
        llt[b.tree].compute(M[b.tree]);
        factored[b.tree] = true;
      }
      const MatX MinvJt = llt[b.tree].solve(b.J.transpose());  // nv_t x num_rows
      W.noalias() += b.J * MinvJt;
    }
    c.w = W.norm() / c.num_rows;
  }
}

}  // namespace contactlab
