// Random contact problems for the solver tests (test_speed_paths, test_pcg, test_islands): trees
// of 1-6 dofs (6 is the free-body fast path) with SPD blocks A = M, friction cones (80 %) and
// unilateral rows on one or two trees, compliant (k = 1e4 N/m) or rigid (30 %), with or without
// dissipation and friction, φ0 in ±1 cm, and the Delassus estimates computed.
#pragma once

#include <limits>
#include <random>
#include <set>

#include "engine/contact/contact_problem.h"

namespace contactlab::test_problems {

inline double Uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

inline MatX RandomMatrix(std::mt19937& rng, int rows, int cols) {
  MatX m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = Uniform(rng, -1, 1);
  return m;
}

struct RandomProblemOptions {
  // Two-tree constraints couple trees only within groups of `group` consecutive trees (so the
  // problem has several islands when group < num_trees); 0: any pair of trees.
  int group = 0;
  // Probability that a constraint acts on two trees (when its group has two).
  double two_tree_probability = 0.6;
  // Trees that get no constraint (they form the island of constraint-free trees).
  std::set<int> free_trees;
};

inline ContactProblem RandomProblem(std::mt19937& rng, int num_trees, int num_constraints,
                                    const RandomProblemOptions& o) {
  ContactProblem p;
  p.time_step = 1e-2;
  for (int t = 0; t < num_trees; ++t) {
    const int n = Uniform(rng, 0, 1) < 0.5 ? 6 : std::uniform_int_distribution<int>(1, 5)(rng);
    p.tree_v_start.push_back(p.nv);
    p.tree_nv.push_back(n);
    const MatX B = RandomMatrix(rng, n, n);
    p.A.push_back(B.transpose() * B + 0.5 * n * MatX::Identity(n, n));
    p.M.push_back(p.A.back());
    p.nv += n;
  }
  p.v_star = RandomMatrix(rng, p.nv, 1).col(0);
  p.v0 = RandomMatrix(rng, p.nv, 1).col(0);
  const int group = o.group > 0 ? o.group : num_trees;
  for (int i = 0; i < num_constraints; ++i) {
    ConstraintData c;
    c.kind = Uniform(rng, 0, 1) < 0.8 ? ConstraintKind::kFrictionCone : ConstraintKind::kUnilateral;
    c.num_rows = c.kind == ConstraintKind::kFrictionCone ? 3 : 1;
    c.first_row = p.num_rows;
    int t0 = std::uniform_int_distribution<int>(0, num_trees - 1)(rng);
    while (o.free_trees.count(t0)) t0 = (t0 + 1) % num_trees;
    const int g0 = t0 / group * group;
    const int gsize = std::min(group, num_trees - g0);
    c.blocks[0].tree = t0;
    c.num_blocks = 1;
    if (gsize > 1 && Uniform(rng, 0, 1) < o.two_tree_probability) {
      const int t1 = g0 + (t0 - g0 + 1 + static_cast<int>(rng() % (gsize - 1))) % gsize;
      if (!o.free_trees.count(t1)) {
        c.num_blocks = 2;
        c.blocks[1].tree = t1;
      }
    }
    for (int k = 0; k < c.num_blocks; ++k) {
      c.blocks[k].J = RandomMatrix(rng, c.num_rows, p.tree_nv[c.blocks[k].tree]);
    }
    c.bias = Vec3(Uniform(rng, -0.1, 0.1), Uniform(rng, -0.1, 0.1), Uniform(rng, -0.1, 0.1));
    c.stiffness = Uniform(rng, 0, 1) < 0.3 ? std::numeric_limits<double>::infinity() : 1e4;
    c.dissipation_time = Uniform(rng, 0, 1) < 0.5 ? 0.0 : p.time_step;
    c.friction = Uniform(rng, 0, 1) < 0.15 ? 0.0 : Uniform(rng, 0.1, 1.5);
    c.phi0 = Uniform(rng, -0.01, 0.01);
    p.num_rows += c.num_rows;
    p.constraints.push_back(c);
  }
  p.ComputeDelassusEstimates();
  return p;
}

}  // namespace contactlab::test_problems
