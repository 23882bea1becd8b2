// Islands of a contact problem: split into connected components, merge the islands' results.
// See islands.h for the contracts.
#include "engine/solvers/common/islands.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace contactlab {

int IslandSplitter::Split(const ContactProblem& problem, const VecX& v_guess) {
  const int nt = problem.num_trees();
  const int nc = static_cast<int>(problem.constraints.size());
  num_islands_ = 0;
  problem.TreeComponentRoots(&tree_root_);
  const std::vector<int>& root = tree_root_;
  // Island ids in order of first tree; constraint-free trees share the last id.
  island_of_root_.assign(nt, -1);
  tree_island_.assign(nt, -1);
  std::vector<int>& has_constraint = constraint_island_;  // reused as a per-tree flag first
  has_constraint.assign(nt, 0);
  for (const ConstraintData& c : problem.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) has_constraint[root[c.blocks[k].tree]] = 1;
  }
  int num = 0;
  bool any_free = false;
  for (int t = 0; t < nt; ++t) {
    const int r = root[t];
    if (!has_constraint[r]) {
      any_free = true;
      continue;
    }
    if (island_of_root_[r] < 0) island_of_root_[r] = num++;
    tree_island_[t] = island_of_root_[r];
  }
  const int free_island = any_free ? num++ : -1;
  if (num < 2) return num;
  for (int t = 0; t < nt; ++t) {
    if (tree_island_[t] < 0) tree_island_[t] = free_island;
  }
  constraint_island_.resize(nc);
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    constraint_island_[i] = c.num_blocks > 0 ? tree_island_[c.blocks[0].tree] : -1;
  }
  num_islands_ = num;
  // Constraints with no blocks act on no tree: they go with island 0 (γ from the bias only).
  for (int i = 0; i < nc; ++i) {
    if (constraint_island_[i] < 0) constraint_island_[i] = 0;
  }
  // Key per island (sizes, first tree), then a slot per island: the slot of the same key, else
  // one of the same sizes (in slot-key order), else a free slot, else a new one.
  island_sizes_.assign(num, IslandSizes{0, 0, 0, 0, -1});
  for (int t = 0; t < nt; ++t) {
    IslandSizes& z = island_sizes_[tree_island_[t]];
    if (z[0]++ == 0) z[4] = t;
    z[1] += problem.tree_nv[t];
  }
  for (int i = 0; i < nc; ++i) {
    IslandSizes& z = island_sizes_[constraint_island_[i]];
    ++z[2];
    z[3] += problem.constraints[i].num_rows;
  }
  const int num_slots = static_cast<int>(slots_.size());
  slot_keys_.clear();
  for (int j = 0; j < num_slots; ++j) slot_keys_.emplace_back(slot_sizes_[j], j);
  std::sort(slot_keys_.begin(), slot_keys_.end());
  slot_cursor_.resize(num_slots);
  for (int j = 0; j < num_slots; ++j) slot_cursor_[j] = j;
  slot_taken_.assign(num_slots, 0);
  slot_of_.assign(num, -1);
  auto take = [&](int k, int j) {
    slot_of_[k] = j;
    slot_taken_[j] = 1;
  };
  for (int k = 0; k < num; ++k) {  // same key
    const auto e = std::lower_bound(slot_keys_.begin(), slot_keys_.end(),
                                    std::make_pair(island_sizes_[k], -1));
    if (e != slot_keys_.end() && e->first == island_sizes_[k] && !slot_taken_[e->second]) {
      take(k, e->second);
    }
  }
  auto same_sizes = [](const IslandSizes& a, const IslandSizes& b) {
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
  };
  for (int k = 0; k < num; ++k) {  // same sizes
    if (slot_of_[k] >= 0) continue;
    IslandSizes lo = island_sizes_[k];
    lo[4] = -2;
    const auto g = std::lower_bound(slot_keys_.begin(), slot_keys_.end(), std::make_pair(lo, -1));
    if (g == slot_keys_.end()) continue;
    int& next = slot_cursor_[g - slot_keys_.begin()];
    while (next < num_slots && same_sizes(slot_keys_[next].first, lo) &&
           slot_taken_[slot_keys_[next].second]) {
      ++next;
    }
    if (next < num_slots && same_sizes(slot_keys_[next].first, lo)) {
      take(k, slot_keys_[next].second);
    }
  }
  int free_slot = 0;
  for (int k = 0; k < num; ++k) {
    if (slot_of_[k] >= 0) continue;
    while (free_slot < num_slots && slot_taken_[free_slot]) ++free_slot;
    if (free_slot < num_slots) {
      slot_of_[k] = free_slot++;
    } else {
      slot_of_[k] = static_cast<int>(slots_.size());
      slots_.emplace_back();
      slot_sizes_.emplace_back();
    }
  }
  for (int k = 0; k < num; ++k) {
    slot_sizes_[slot_of_[k]] = island_sizes_[k];
    Island& isl = slots_[slot_of_[k]];
    isl.trees.clear();
    isl.constraints.clear();
  }
  for (int t = 0; t < nt; ++t) slots_[slot_of_[tree_island_[t]]].trees.push_back(t);
  for (int i = 0; i < nc; ++i) slots_[slot_of_[constraint_island_[i]]].constraints.push_back(i);

  // Sub-problems. Local tree index = rank in isl.trees (tree_local reuses tree_root_).
  std::vector<int>& tree_local = tree_root_;
  for (int k = 0; k < num; ++k) {
    Island& isl = slots_[slot_of_[k]];
    ContactProblem& sub = isl.problem;
    const int snt = static_cast<int>(isl.trees.size());
    sub.time_step = problem.time_step;
    sub.tree_v_start.resize(snt);
    sub.tree_nv.resize(snt);
    sub.A.resize(snt);
    const bool have_M = static_cast<int>(problem.M.size()) == nt;
    sub.M.resize(have_M ? snt : 0);
    const bool have_motion = static_cast<int>(problem.tree_motion.size()) == nt;
    sub.tree_motion.resize(have_motion ? snt : 0);
    int nv = 0;
    for (int j = 0; j < snt; ++j) {
      const int t = isl.trees[j];
      tree_local[t] = j;
      sub.tree_v_start[j] = nv;
      sub.tree_nv[j] = problem.tree_nv[t];
      sub.A[j] = problem.A[t];
      if (have_M) sub.M[j] = problem.M[t];
      if (have_motion) sub.tree_motion[j] = problem.tree_motion[t];
      nv += problem.tree_nv[t];
    }
    sub.nv = nv;
    sub.v_star.resize(nv);
    sub.v0.resize(nv);
    isl.guess.resize(nv);
    const bool have_v0 = problem.v0.size() == problem.nv;
    for (int j = 0; j < snt; ++j) {
      const int t = isl.trees[j];
      const int n = problem.tree_nv[t], st = problem.tree_v_start[t], ss = sub.tree_v_start[j];
      sub.v_star.segment(ss, n) = problem.v_star.segment(st, n);
      sub.v0.segment(ss, n) = have_v0 ? problem.v0.segment(st, n) : problem.v_star.segment(st, n);
      isl.guess.segment(ss, n) = v_guess.segment(st, n);
    }
    const int snc = static_cast<int>(isl.constraints.size());
    sub.constraints.resize(snc);
    int rows = 0;
    for (int j = 0; j < snc; ++j) {
      const ConstraintData& c = problem.constraints[isl.constraints[j]];
      ConstraintData& d = sub.constraints[j];
      // Field by field, so that a Jacobian block past num_blocks keeps its storage for the
      // next constraint that fills this slot (it is never read: every use is under num_blocks).
      // The binding names every field: one added to ConstraintData stops the build here.
      const auto& [kind, first_row, num_rows, num_blocks, blocks, bias, stiffness, dissipation_time,
                   friction, hunt_crossley_dissipation, phi0, g0, w, beta, source, key, anchor,
                   normal] = c;
      static_cast<void>(first_row);  // renumbered
      d.kind = kind;
      d.first_row = rows;
      d.num_rows = num_rows;
      d.num_blocks = num_blocks;
      for (int b = 0; b < num_blocks; ++b) {
        d.blocks[b].tree = tree_local[blocks[b].tree];
        d.blocks[b].J = blocks[b].J;
        d.blocks[b].leaf = blocks[b].leaf;
        // The spatial form means something only with a leaf (TreeJacobianBlock).
        if (blocks[b].leaf >= 0) d.blocks[b].W = blocks[b].W;
      }
      for (int b = num_blocks; b < 2; ++b) d.blocks[b].tree = -1;
      d.bias = bias;
      d.stiffness = stiffness;
      d.dissipation_time = dissipation_time;
      d.friction = friction;
      d.hunt_crossley_dissipation = hunt_crossley_dissipation;
      d.phi0 = phi0;
      d.g0 = g0;
      d.w = w;
      d.beta = beta;
      d.source = source;
      d.key = key;
      d.anchor = anchor;
      d.normal = normal;
      rows += c.num_rows;
    }
    sub.num_rows = rows;
  }
  return num;
}

void IslandSplitter::Merge(const ContactProblem& problem, SolverResult* result) const {
  const int num = num_islands_;
  const int nc = static_cast<int>(problem.constraints.size());
  SolverStats& stats = result->stats;
  result->v.resize(problem.nv);
  result->vc.resize(problem.num_rows);
  result->gamma.resize(problem.num_rows);
  result->regime.resize(nc);
  stats.status = SolverStatus::kConverged;
  stats.iterations = 0;
  stats.cost = 0;
  stats.message.clear();
  stats.islands.resize(num);
  // The islands' own logs, one after the other (the islands' solvers are of one type, so their
  // logs share a table).
  stats.island_log.Reset(num > 0 ? island(0).result.stats.iteration_log.table() : SeriesTable{});
  for (int k = 0; k < num; ++k) {
    const Island& isl = island(k);
    const SolverStats& st = isl.result.stats;
    IslandSummary& summary = stats.islands[k];
    summary.first_tree = isl.trees.empty() ? -1 : isl.trees.front();
    summary.trees = static_cast<int>(isl.trees.size());
    summary.constraints = static_cast<int>(isl.constraints.size());
    summary.iterations = st.iterations;
    summary.solve_ms = st.solve_ms;
    summary.status = st.status;
    summary.log_first_row = stats.island_log.num_rows();
    summary.log_rows = st.iteration_log.num_rows();
    if (st.iteration_log.table() == stats.island_log.table()) {
      stats.island_log.AppendRows(st.iteration_log);
    } else {
      summary.log_rows = 0;
    }
    if (st.status != SolverStatus::kConverged && stats.status == SolverStatus::kConverged) {
      stats.status = st.status;
      std::ostringstream os;
      os << "island " << k << ": " << st.message;
      stats.message = os.str();
    }
    stats.iterations = std::max(stats.iterations, st.iterations);
    stats.cost += st.cost;
    for (size_t j = 0; j < isl.trees.size(); ++j) {
      const int t = isl.trees[j];
      result->v.segment(problem.tree_v_start[t], problem.tree_nv[t]) =
          isl.result.v.segment(isl.problem.tree_v_start[j], problem.tree_nv[t]);
    }
    for (size_t j = 0; j < isl.constraints.size(); ++j) {
      const ConstraintData& c = problem.constraints[isl.constraints[j]];
      const int r0 = isl.problem.constraints[j].first_row;
      result->vc.segment(c.first_row, c.num_rows) = isl.result.vc.segment(r0, c.num_rows);
      result->gamma.segment(c.first_row, c.num_rows) = isl.result.gamma.segment(r0, c.num_rows);
      result->regime[isl.constraints[j]] = isl.result.regime[j];
    }
  }
}

void MergeIslandLogs(const IslandSplitter& islands, int iterations, const SeriesTable& table,
                     const std::vector<IslandMergeRule>& rules, IterationLog* log) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double nan = IterationLog::kNotRecorded;
  log->Reset(table);
  log->Reserve(iterations + 1);
  for (int m = 0; m <= iterations; ++m) {
    double* rec = log->AddRow();
    for (const IslandMergeRule& rule : rules) {
      const int c = rule.series;
      double acc = 0, scale2 = 0, g2 = 0;
      bool any = false;
      if (rule.how == IslandMerge::kMinStepping) acc = kInf;
      if (rule.how == IslandMerge::kMax) acc = -kInf;
      for (int k = 0; k < islands.num_islands(); ++k) {
        const IterationLog& il = islands.island(k).result.stats.iteration_log;
        if (il.empty()) continue;
        const int last = il.num_rows() - 1;
        const double* r = il.row(std::min(m, last));
        const double x = r[c];
        const bool stepping = m > 0 && m <= last, directing = m < last;
        switch (rule.how) {
          case IslandMerge::kSum: acc += x; break;
          case IslandMerge::kRootSumSquare: acc += x * x; break;
          case IslandMerge::kMax: acc = std::max(acc, x); any = true; break;
          case IslandMerge::kSumStepping: if (stepping) acc += x; break;
          case IslandMerge::kMinStepping: if (stepping) acc = std::min(acc, x); break;
          case IslandMerge::kSumDirecting: if (directing) acc += x; break;
          case IslandMerge::kMaxDirecting:
            if (directing && !std::isnan(x)) {
              acc = any ? std::max(acc, x) : x;
              any = true;
            }
            break;
          case IslandMerge::kMomentumResidual: {
            const double g = r[rule.gradient];
            g2 += g * g;
            if (x > 0 && std::isfinite(x)) {
              const double sc = g / x;
              scale2 += sc * sc;
            }
            break;
          }
        }
      }
      switch (rule.how) {
        case IslandMerge::kRootSumSquare: rec[c] = std::sqrt(acc); break;
        case IslandMerge::kMax: rec[c] = any ? acc : nan; break;
        case IslandMerge::kMinStepping: rec[c] = std::isfinite(acc) ? acc : 0.0; break;
        case IslandMerge::kMaxDirecting: rec[c] = any ? acc : nan; break;
        case IslandMerge::kMomentumResidual: {
          const double g = std::sqrt(g2);
          rec[c] = g == 0 ? 0.0 : scale2 > 0 ? g / std::sqrt(scale2) : kInf;
          break;
        }
        default: rec[c] = acc; break;
      }
    }
  }
}

}  // namespace contactlab
