#include "engine/solvers/common/impulse_memory.h"

#include <algorithm>
#include <limits>

namespace contactlab {

void ImpulseMemory::Store(const ContactProblem& problem, const VecX& gamma) {
  entries_.clear();
  if (gamma.size() != problem.num_rows || !gamma.allFinite()) return;
  for (const ConstraintData& c : problem.constraints) {
    if (c.key == 0) continue;
    Entry e{c.key, c.num_rows, c.anchor, Vec3::Zero()};
    if (c.num_rows == 3) {
      e.impulse = ContactFrame(c.normal).transpose() * gamma.segment<3>(c.first_row);
    } else if (c.num_rows == 1) {
      e.impulse.x() = gamma(c.first_row);
    } else {
      continue;
    }
    entries_.push_back(e);
  }
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.key < b.key; });
}

int ImpulseMemory::Recall(const ContactProblem& problem, VecX* gamma0,
                          std::vector<char>* matched_flags) const {
  gamma0->setZero(problem.num_rows);
  const int nc = static_cast<int>(problem.constraints.size());
  if (matched_flags != nullptr) matched_flags->assign(nc, 0);
  if (entries_.empty()) return 0;
  order_.clear();
  for (int i = 0; i < nc; ++i) {
    if (problem.constraints[i].key != 0) order_.push_back(i);
  }
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
    return problem.constraints[a].key < problem.constraints[b].key;
  });
  taken_.assign(entries_.size(), 0);
  int matched = 0;
  const int ne = static_cast<int>(entries_.size());
  int e_begin = 0;
  for (size_t g = 0; g < order_.size();) {
    const std::uint64_t key = problem.constraints[order_[g]].key;
    size_t g_end = g;
    while (g_end < order_.size() && problem.constraints[order_[g_end]].key == key) ++g_end;
    while (e_begin < ne && entries_[e_begin].key < key) ++e_begin;
    int e_end = e_begin;
    while (e_end < ne && entries_[e_end].key == key) ++e_end;
    const int e_last = std::min(e_end, e_begin + kMaxGroup);
    const size_t g_last = std::min(g_end, g + kMaxGroup);
    for (size_t k = g; k < g_last && e_begin < e_last; ++k) {
      const ConstraintData& c = problem.constraints[order_[k]];
      int best = -1;
      double best_d2 = std::numeric_limits<double>::infinity();
      for (int e = e_begin; e < e_last; ++e) {
        if (taken_[e] || entries_[e].num_rows != c.num_rows) continue;
        const double d2 = (entries_[e].anchor - c.anchor).squaredNorm();
        if (d2 < best_d2) {
          best_d2 = d2;
          best = e;
        }
      }
      if (best < 0) continue;
      taken_[best] = 1;
      ++matched;
      if (matched_flags != nullptr) (*matched_flags)[order_[k]] = 1;
      if (c.num_rows == 3) {
        gamma0->segment<3>(c.first_row) = ContactFrame(c.normal) * entries_[best].impulse;
      } else {
        (*gamma0)(c.first_row) = entries_[best].impulse.x();
      }
    }
    g = g_end;
    e_begin = e_end;
  }
  return matched;
}

namespace {
bool HasKeys(const ContactProblem& problem) {
  for (const ConstraintData& c : problem.constraints) {
    if (c.key != 0) return true;
  }
  return false;
}
}  // namespace

int DualWarmStart::Recall(const ContactProblem& problem, VecX* gamma0,
                          std::vector<char>* matched) const {
  if (HasKeys(problem)) {
    return (parent_ != nullptr ? parent_->keyed_ : keyed_).Recall(problem, gamma0, matched);
  }
  const int nc = static_cast<int>(problem.constraints.size());
  if (have_last_ && last_.size() == problem.num_rows && last_.allFinite()) {
    *gamma0 = last_;
    if (matched != nullptr) matched->assign(nc, 1);
    return nc;
  }
  gamma0->setZero(problem.num_rows);
  if (matched != nullptr) matched->assign(nc, 0);
  return 0;
}

void DualWarmStart::Store(const ContactProblem& problem, const VecX& gamma) {
  if (parent_ == nullptr) keyed_.Store(problem, gamma);
  last_ = gamma;
  have_last_ = true;
}

void DualWarmStart::Clear() {
  keyed_.Clear();
  last_.resize(0);
  have_last_ = false;
}

}  // namespace contactlab
