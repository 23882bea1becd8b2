#include "engine/solvers/canal/anderson.h"

#include <Eigen/QR>
#include <algorithm>

namespace contactlab {

void AndersonAccelerator::Reset(int size, int memory) {
  size_ = size;
  memory_ = std::max(memory, 1);
  dX_.resize(size_, memory_);
  dG_.resize(size_, memory_);
  x_prev_.resize(size_);
  g_prev_.resize(size_);
  g_.resize(size_);
  Clear();
}

void AndersonAccelerator::Clear() {
  count_ = 0;
  head_ = 0;
  have_prev_ = false;
}

void AndersonAccelerator::Next(const VecX& x, const VecX& f, VecX* x_next) {
  g_ = f - x;
  if (have_prev_) {
    dX_.col(head_) = x - x_prev_;
    dG_.col(head_) = g_ - g_prev_;
    head_ = (head_ + 1) % memory_;
    count_ = std::min(count_ + 1, memory_);
  }
  x_prev_ = x;
  g_prev_ = g_;
  have_prev_ = true;
  *x_next = f;
  if (count_ == 0) return;
  // γ = argmin ‖g − ΔG γ‖ over the valid columns (their order does not matter).
  // Column-pivoted QR, truncated at the first pivot below kRankTolerance times the largest.
  Eigen::ColPivHouseholderQR<MatX> qr(dG_.leftCols(count_));
  qr.setThreshold(kRankTolerance);
  const int rank = static_cast<int>(qr.rank());
  if (rank == 0) return;
  VecX c = g_;
  c.applyOnTheLeft(qr.householderQ().setLength(qr.nonzeroPivots()).adjoint());
  const VecX y =
      qr.matrixQR().topLeftCorner(rank, rank).triangularView<Eigen::Upper>().solve(c.head(rank));
  VecX gamma = VecX::Zero(count_);
  for (int i = 0; i < rank; ++i) gamma(qr.colsPermutation().indices()(i)) = y(i);
  if (!gamma.allFinite()) return;
  x_next->noalias() -= dX_.leftCols(count_) * gamma;
  x_next->noalias() -= dG_.leftCols(count_) * gamma;
}

}  // namespace contactlab
