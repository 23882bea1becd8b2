// The impulses of the last solve, remembered per constraint identity, to start the next time
// step's solve from (the dual warm start of CANAL, SubADMM and PGS).
//
// Constraints are not in the same order from one step to the next: contacts appear and vanish,
// islands renumber, a pair's manifold gains or loses a point. Each ConstraintData carries an
// identity instead (contact_problem.h): `key`, what it acts between (a geometry pair, or a joint
// limit's joint and side), `anchor`, where (the contact point in world [m]), and `normal`, its
// frame (ContactFrame(normal)). A new constraint takes the impulse of the remembered one with
// the same key and row count whose anchor is nearest, each remembered one used at most once
// (greedy, in the new constraints' order within a key). A cone's impulse is carried in world
// coordinates, Cᵀγ, and projected onto the new frame, so a normal that turned (or a tangent basis
// that switched axes in AnyOrthogonal) keeps the force it had, not its frame coordinates. A
// constraint with key 0 or no match starts from 0: a wrong or missing start only costs
// iterations, never accuracy.
//
// Keys with more than kMaxGroup constraints (a large pressure-field patch: one constraint per
// face) match only the first kMaxGroup of each side, to keep the cost linear in the pair count.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/common/math.h"
#include "engine/contact/contact_problem.h"

namespace contactlab {

class ImpulseMemory {
 public:
  static constexpr int kMaxGroup = 256;

  // Remembers γ (problem.num_rows) for every constraint of `problem` with a key.
  void Store(const ContactProblem& problem, const VecX& gamma);
  // γ0 (resized to problem.num_rows): the remembered impulse of each matched constraint, 0 for
  // the others; `matched` (optional, one flag per constraint) says which. Returns the number of
  // constraints matched.
  int Recall(const ContactProblem& problem, VecX* gamma0,
             std::vector<char>* matched = nullptr) const;
  void Clear() { entries_.clear(); }
  bool empty() const { return entries_.empty(); }
  int size() const { return static_cast<int>(entries_.size()); }

 private:
  struct Entry {
    std::uint64_t key;
    int num_rows;
    Vec3 anchor;
    Vec3 impulse;  // cones: Cᵀγ in world [N s]; unilateral rows: (γ, 0, 0)
  };
  std::vector<Entry> entries_;  // sorted by key
  // Recall's scratch: the new constraints' indices sorted by key, and the entries taken.
  mutable std::vector<int> order_;
  mutable std::vector<char> taken_;
};

// A solver's dual warm start: the impulses of its last solve for the next one.
//  - Problems whose constraints carry keys (the simulator's) recall through ImpulseMemory.
//  - Problems without keys (built by hand, or read from an export) get the last γ when the row
//    count matches (the same problem solved again), else 0.
//  - An island's child solver recalls keyed problems from its parent's memory (set_parent), which
//    holds the whole problem's last impulses: an island that was numbered or split differently at
//    the last step still finds its constraints. The parent stores them after merging; a child
//    keeps only its own last γ, for the row-count rule on unkeyed islands.
class DualWarmStart {
 public:
  // γ0 (num_rows) for `problem`, and optionally which constraints were recalled (one flag per
  // constraint; the others get 0). Returns the number recalled.
  int Recall(const ContactProblem& problem, VecX* gamma0,
             std::vector<char>* matched = nullptr) const;
  void Store(const ContactProblem& problem, const VecX& gamma);
  void Clear();
  void set_parent(const DualWarmStart* parent) { parent_ = parent; }

 private:
  const DualWarmStart* parent_ = nullptr;
  ImpulseMemory keyed_;
  VecX last_;  // the last γ (unkeyed problems)
  bool have_last_ = false;
};

}  // namespace contactlab
