// Tests of the fast SAP paths against the dense reference: the tree-supernodal block Cholesky
// (LinearSolver::kBlockSparse with islands off) must reproduce the dense path's Newton sequence,
// the island decomposition must reach the same solution as the monolithic solve, and repeated
// solves of a problem of unchanged size must not allocate.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/contact/contact_problem.h"
#include "engine/solvers/sap/sap_solver.h"
#include "engine/solvers/common/sap_supernodal.h"
#include "engine/sim/simulator.h"
#include "tests/random_problem.h"

// Counting allocator: every malloc in this process (operator new and Eigen's dynamic matrices
// both end there) increments the counter. glibc lets the executable define malloc and forward
// to __libc_malloc; under AddressSanitizer, which owns malloc, only operator new is counted.
namespace {
std::atomic<long> g_allocations{0};
}  // namespace

#if defined(__SANITIZE_ADDRESS__)
void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
#else
extern "C" void* __libc_malloc(std::size_t n);
extern "C" void* malloc(std::size_t n) {
  ++g_allocations;
  return __libc_malloc(n);
}
void* operator new(std::size_t n) {
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
#endif
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace contactlab {
namespace {

using test_problems::RandomMatrix;
using test_problems::Uniform;

// Random problem (tests/random_problem.h): two-tree constraints only couple trees within groups
// of `group` consecutive trees, so the problem has several islands when group < num_trees.
ContactProblem RandomProblem(std::mt19937& rng, int num_trees, int num_constraints, int group) {
  return test_problems::RandomProblem(rng, num_trees, num_constraints, {group});
}

SapParameters Params(SapParameters::LinearSolver ls, bool islands, double rel_tol = 1e-6) {
  SapParameters prm;
  prm.linear_solver = ls;
  prm.islands = islands;
  prm.rel_tolerance = rel_tol;
  return prm;
}

double RelativeDifference(const VecX& a, const VecX& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

// Pairs of a side x side grid of trees (right and lower neighbours).
std::vector<std::pair<int, int>> GridPairs(int side) {
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < side; ++i) {
    for (int j = 0; j < side; ++j) {
      const int t = i * side + j;
      if (j + 1 < side) pairs.emplace_back(t, t + 1);
      if (i + 1 < side) pairs.emplace_back(t, t + side);
    }
  }
  return pairs;
}

// Random SPD H (cond ~ 10, diagonally dominant) with blocks on the diagonal and at the pairs;
// `start` receives each tree's first row.
MatX RandomDominantH(std::mt19937& rng, const std::vector<int>& nv,
                     const std::vector<std::pair<int, int>>& pairs, std::vector<int>* start) {
  int n = 0;
  start->clear();
  for (int k : nv) {
    start->push_back(n);
    n += k;
  }
  const std::vector<int>& st = *start;
  MatX H = MatX::Zero(n, n);
  for (size_t t = 0; t < nv.size(); ++t) {
    const MatX B = RandomMatrix(rng, nv[t], nv[t]);
    H.block(st[t], st[t], nv[t], nv[t]) = B * B.transpose() + 12 * MatX::Identity(nv[t], nv[t]);
  }
  for (const auto& [a, b] : pairs) {
    const MatX C = 0.3 * RandomMatrix(rng, nv[a], nv[b]);
    H.block(st[a], st[b], nv[a], nv[b]) += C;
    H.block(st[b], st[a], nv[b], nv[a]) += C.transpose();
  }
  return H;
}

// Loads every block of the pattern from H (fill blocks are zero there), factorizes and solves a
// random right-hand side: relative difference to a dense LLT solve (infinity if not SPD).
double FactorSolveDifference(std::mt19937& rng, const MatX& H, const std::vector<int>& nv,
                             const std::vector<int>& start, BlockSparseCholesky* chol) {
  chol->SetZero();
  for (int b = 0; b < chol->num_blocks(); ++b) {
    const int ti = chol->BlockRowTree(b), tj = chol->BlockColTree(b);
    Eigen::Map<MatX>(chol->BlockData(b), nv[ti], nv[tj]) =
        H.block(start[ti], start[tj], nv[ti], nv[tj]);
  }
  if (!chol->Factor()) return std::numeric_limits<double>::infinity();
  const VecX rhs = RandomMatrix(rng, H.rows(), 1).col(0);
  VecX x;
  chol->Solve(rhs, &x);
  return RelativeDifference(x, H.llt().solve(rhs));
}

// Components of the tree graph: constraints on two trees join them, one-block constraints join
// nothing; each tree's root is the smallest index of its component, also when a union links a
// larger root under a smaller one late (4-1, then 1-3, then 5-0).
TEST(ContactProblem, TreeComponentRootsAreTheSmallestTreeOfEachComponent) {
  ContactProblem p;
  p.tree_nv.assign(6, 6);
  auto add = [&](int a, int b) {
    ConstraintData c;
    c.num_blocks = b < 0 ? 1 : 2;
    c.blocks[0].tree = a;
    c.blocks[1].tree = b;
    p.constraints.push_back(c);
  };
  add(4, 1);
  add(2, -1);
  add(1, 3);
  add(5, 0);
  add(3, 4);
  std::vector<int> root = {7, 7};  // old contents and size are replaced
  p.TreeComponentRoots(&root);
  EXPECT_EQ(root, (std::vector<int>{0, 1, 2, 1, 1, 0}));
  p.constraints.clear();
  p.TreeComponentRoots(&root);
  EXPECT_EQ(root, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

// The free-body factor L⁻¹ (M = L Lᵀ) used by the explicit free motion and the Delassus
// estimates: lower triangular, Liᵀ Li = M⁻¹, on random SPD matrices (a rigid body's M with a
// centre-of-mass offset couples all six dofs) with condition numbers up to ~1e6; the tolerance is
// 1e-10 relative to ‖M⁻¹‖ (round-off of a 6 x 6 factorization times the condition number).
// A matrix that is not positive definite gives a NaN factor, which the solver's input check
// then reports, instead of a finite wrong one.
TEST(InverseCholesky6, InvertsTheFactorOfSpdMatricesAndFlagsIndefiniteOnes) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    const MatX B = RandomMatrix(rng, 6, 6);
    const double shift = std::pow(10.0, -(trial % 7));
    const MatX M = B.transpose() * B + shift * MatX::Identity(6, 6);
    MatX Li(6, 6);
    InverseCholesky6(M.data(), Li.data());
    for (int j = 0; j < 6; ++j) {
      for (int i = 0; i < j; ++i) EXPECT_EQ(Li(i, j), 0.0);
    }
    const MatX Minv = M.inverse();
    EXPECT_LT((Li.transpose() * Li - Minv).norm(), 1e-10 * Minv.norm()) << "trial " << trial;
  }
  MatX M = MatX::Identity(6, 6);
  M(4, 4) = -1;
  MatX Li(6, 6);
  InverseCholesky6(M.data(), Li.data());
  EXPECT_FALSE(Li.allFinite());
}

TEST(BlockSparseCholesky, SolvesLikeDenseLltAndReusesTheAnalysis) {
  std::mt19937 rng(3);
  const std::vector<int> nv = {6, 3, 6, 1, 6, 2};
  const std::vector<std::pair<int, int>> pairs = {{0, 2}, {2, 4}, {4, 0}, {1, 3}, {5, 0}};
  BlockSparseCholesky chol;
  EXPECT_TRUE(chol.SetPattern(nv, pairs));
  int n = 0;
  std::vector<int> start;
  for (int k : nv) {
    start.push_back(n);
    n += k;
  }
  for (int trial = 0; trial < 3; ++trial) {
    // Random SPD H with the block pattern.
    MatX H = MatX::Zero(n, n);
    for (int t = 0; t < 6; ++t) {
      const MatX B = RandomMatrix(rng, nv[t], nv[t]);
      H.block(start[t], start[t], nv[t], nv[t]) = B * B.transpose() + 10 * MatX::Identity(nv[t], nv[t]);
    }
    for (const auto& [a, b] : pairs) {
      const MatX C = 0.3 * RandomMatrix(rng, nv[a], nv[b]);
      H.block(start[a], start[b], nv[a], nv[b]) = C;
      H.block(start[b], start[a], nv[b], nv[a]) = C.transpose();
    }
    // Reversed and duplicated pairs describe the same pattern: no new analysis.
    EXPECT_FALSE(chol.SetPattern(nv, {{2, 0}, {4, 2}, {0, 4}, {3, 1}, {0, 5}, {0, 2}}));
    chol.SetZero();
    for (int b = 0; b < chol.num_blocks(); ++b) {
      const int ti = chol.BlockRowTree(b), tj = chol.BlockColTree(b);
      bool transposed;
      if (chol.BlockIndex(ti, tj, &transposed) != b) continue;  // fill block: stays zero
      Eigen::Map<MatX>(chol.BlockData(b), nv[ti], nv[tj]) =
          H.block(start[ti], start[tj], nv[ti], nv[tj]);
    }
    ASSERT_TRUE(chol.Factor());
    const VecX rhs = RandomMatrix(rng, n, 1).col(0);
    VecX x;
    chol.Solve(rhs, &x);
    const VecX x_ref = H.llt().solve(rhs);
    // Both are backward-stable Cholesky solves of a matrix with cond ~ 10: agreement to a few
    // hundred ulps.
    EXPECT_LT(RelativeDifference(x, x_ref), 1e-12);
  }
  EXPECT_EQ(chol.num_analyses(), 1);
  EXPECT_EQ(chol.num_components(), 2);  // {0, 2, 4, 5} and {1, 3}
}

// Larger graphs with much fill (a 2-D grid of trees plus random long-range pairs): the
// minimum-degree order and the scattered Schur-update targets must give the factor of H.
TEST(BlockSparseCholesky, SolvesLikeDenseLltOnGridsWithFill) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 4; ++trial) {
    const int side = 5 + trial;  // 25 .. 64 trees
    const int nt = side * side;
    std::vector<int> nv(nt);
    for (int& k : nv) k = Uniform(rng, 0, 1) < 0.7 ? 6 : std::uniform_int_distribution<int>(1, 5)(rng);
    std::vector<std::pair<int, int>> pairs = GridPairs(side);
    for (int k = 0; k < side; ++k) {
      const int a = rng() % nt, b = rng() % nt;
      if (a != b) pairs.emplace_back(a, b);
    }
    std::vector<int> start;
    const MatX H = RandomDominantH(rng, nv, pairs, &start);
    BlockSparseCholesky chol;
    chol.SetPattern(nv, pairs);
    chol.SetZero();
    int fill_blocks = 0;
    for (int b = 0; b < chol.num_blocks(); ++b) {
      const int ti = chol.BlockRowTree(b), tj = chol.BlockColTree(b);
      if (ti != tj && H.block(start[ti], start[tj], nv[ti], nv[tj]).isZero(0)) ++fill_blocks;
    }
    EXPECT_GT(fill_blocks, 0) << "the grid must produce fill for the test to mean anything";
    // Diagonally dominant H (cond ~ 10): both backward-stable solves agree to round-off.
    EXPECT_LT(FactorSolveDifference(rng, H, nv, start, &chol), 1e-12) << "trial " << trial;
  }
}

// Pairs of a 3-D grid of trees with the 26-neighbourhood (boxes in a pile touch faces, edges and
// corners), nx fastest.
std::vector<std::pair<int, int>> Grid3dPairs(int nx, int ny, int nz) {
  std::vector<std::pair<int, int>> pairs;
  auto id = [&](int x, int y, int z) { return x + nx * (y + ny * z); };
  for (int z = 0; z < nz; ++z) {
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        for (int dz = -1; dz <= 1; ++dz) {
          for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
              const int X = x + dx, Y = y + dy, Z = z + dz;
              if (X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= ny || Z >= nz) continue;
              if (id(X, Y, Z) > id(x, y, z)) pairs.emplace_back(id(x, y, z), id(X, Y, Z));
            }
          }
        }
      }
    }
  }
  return pairs;
}

// The Delassus estimates of free-body contacts: w = ‖Σ_k X_k X_kᵀ‖_F / 3 with X_k = J_k L_k⁻ᵀ, to
// the bit as Eigen's fixed-size products give it (the estimate's kernel skips the zeros of L⁻ᵀ).
TEST(ContactProblem, DelassusEstimatesOfFreeBodiesAreEigensProductsToTheBit) {
  std::mt19937 rng(11);
  ContactProblem p;
  const int nt = 5;
  p.tree_nv.assign(nt, 6);
  for (int t = 0; t < nt; ++t) {
    p.tree_v_start.push_back(6 * t);
    const MatX B = RandomMatrix(rng, 6, 6);
    p.M.push_back(B * B.transpose() + 0.5 * MatX::Identity(6, 6));
    p.A.push_back(p.M.back());
  }
  p.nv = 6 * nt;
  for (int i = 0; i < 40; ++i) {
    ConstraintData c;
    c.num_rows = 3;
    c.first_row = 3 * i;
    c.num_blocks = 1 + i % 2;
    for (int k = 0; k < c.num_blocks; ++k) {
      c.blocks[k].tree = (i + 2 * k) % nt;
      c.blocks[k].J = RandomMatrix(rng, 3, 6);
    }
    p.constraints.push_back(c);
  }
  p.num_rows = 3 * 40;
  p.ComputeDelassusEstimates();
  for (const ConstraintData& c : p.constraints) {
    Eigen::Matrix3d W = Eigen::Matrix3d::Zero();
    for (int k = 0; k < c.num_blocks; ++k) {
      MatX Li(6, 6);
      InverseCholesky6(p.M[c.blocks[k].tree].data(), Li.data());
      const Eigen::Map<const Eigen::Matrix<double, 3, 6>> J(c.blocks[k].J.data());
      const Eigen::Matrix<double, 3, 6> X =
          J * Eigen::Map<const Eigen::Matrix<double, 6, 6>>(Li.data()).transpose();
      W.noalias() += X * X.transpose();
    }
    EXPECT_EQ(c.w, W.topLeftCorner(c.num_rows, c.num_rows).norm() / c.num_rows);
  }
}

// Elimination order of the current pattern: the trees of the diagonal blocks in block order
// (each column of the factor starts with its diagonal block).
std::vector<int> EliminationOrder(const BlockSparseCholesky& chol) {
  std::vector<int> order;
  for (int b = 0; b < chol.num_blocks(); ++b) {
    if (chol.BlockRowTree(b) == chol.BlockColTree(b)) order.push_back(chol.BlockRowTree(b));
  }
  return order;
}

// Minimum degree as its definition reads: repeatedly eliminate the tree of least weight (the
// dofs of its neighbours; ties by the smaller index), its neighbours becoming a clique.
std::vector<int> ReferenceMinimumDegreeOrder(const std::vector<int>& nv,
                                             const std::vector<std::pair<int, int>>& pairs) {
  const int nt = static_cast<int>(nv.size());
  std::vector<std::vector<char>> adj(nt, std::vector<char>(nt, 0));
  for (const auto& [a, b] : pairs) {
    if (a == b) continue;
    adj[a][b] = adj[b][a] = 1;
  }
  std::vector<char> done(nt, 0);
  std::vector<int> order;
  for (int step = 0; step < nt; ++step) {
    int best = -1;
    long best_w = 0;
    for (int t = 0; t < nt; ++t) {
      if (done[t]) continue;
      long w = 0;
      for (int u = 0; u < nt; ++u) w += adj[t][u] ? nv[u] : 0;
      if (best < 0 || w < best_w) {
        best = t;
        best_w = w;
      }
    }
    done[best] = 1;
    order.push_back(best);
    std::vector<int> nbrs;
    for (int u = 0; u < nt; ++u) {
      if (adj[best][u]) nbrs.push_back(u);
      adj[best][u] = adj[u][best] = 0;
    }
    for (int a : nbrs) {
      for (int b : nbrs) {
        if (a != b) adj[a][b] = 1;
      }
    }
  }
  return order;
}

// The heap-based minimum degree picks the trees the definition picks, on grids with long-range
// pairs and mixed tree sizes (ties included: uniform sizes on a grid have many), and BlockIndex
// finds every stored block from either side and nothing else.
TEST(BlockSparseCholesky, MinimumDegreeOrderIsTheDefinitionsAndBlockIndexFindsEveryBlock) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    const int side = 4 + trial;  // 16 .. 81 trees
    const int nt = side * side;
    std::vector<int> nv(nt, 6);
    if (trial % 2 == 1) {
      for (int& k : nv) k = std::uniform_int_distribution<int>(1, 7)(rng);
    }
    std::vector<std::pair<int, int>> pairs = GridPairs(side);
    for (int k = 0; k < side; ++k) pairs.emplace_back(rng() % nt, rng() % nt);
    BlockSparseCholesky chol;
    chol.set_amd_min_flops(-1);  // minimum degree only
    chol.SetPattern(nv, pairs);
    EXPECT_EQ(EliminationOrder(chol), ReferenceMinimumDegreeOrder(nv, pairs)) << "trial " << trial;
    std::vector<std::vector<char>> stored(nt, std::vector<char>(nt, 0));
    for (int b = 0; b < chol.num_blocks(); ++b) {
      const int r = chol.BlockRowTree(b), c = chol.BlockColTree(b);
      stored[r][c] = stored[c][r] = 1;
      bool transposed = true;
      EXPECT_EQ(chol.BlockIndex(r, c, &transposed), b);
      EXPECT_FALSE(transposed);
      if (r != c) {
        EXPECT_EQ(chol.BlockIndex(c, r, &transposed), b);
        EXPECT_TRUE(transposed);
      }
    }
    for (int a = 0; a < nt; ++a) {
      for (int b = 0; b < nt; ++b) {
        bool transposed;
        if (!stored[a][b]) {
          EXPECT_EQ(chol.BlockIndex(a, b, &transposed), -1);
        }
      }
    }
  }
}

// The 256-bit 6 x 6 Schur-update kernel (used where the processor has AVX) gives the factor and
// the solution of the 128-bit kernel to the bit.
TEST(BlockSparseCholesky, WideKernelsGiveTheSameFactorToTheBit) {
  std::mt19937 rng(17);
  const int side = 7;
  const std::vector<int> nv(side * side, 6);
  std::vector<std::pair<int, int>> pairs = GridPairs(side);
  for (int k = 0; k < side; ++k) pairs.emplace_back(rng() % (side * side), rng() % (side * side));
  std::vector<int> start;
  const MatX H = RandomDominantH(rng, nv, pairs, &start);
  const VecX rhs = RandomMatrix(rng, H.rows(), 1).col(0);
  std::vector<std::vector<double>> factors;
  std::vector<VecX> solutions;
  for (const bool wide : {false, true}) {
    BlockSparseCholesky chol;
    chol.set_wide_kernels(wide);
    chol.SetPattern(nv, pairs);
    chol.SetZero();
    for (int b = 0; b < chol.num_blocks(); ++b) {
      const int ti = chol.BlockRowTree(b), tj = chol.BlockColTree(b);
      Eigen::Map<MatX>(chol.BlockData(b), 6, 6) = H.block(start[ti], start[tj], 6, 6);
    }
    ASSERT_TRUE(chol.Factor());
    std::vector<double> values;
    for (int b = 0; b < chol.num_blocks(); ++b) {
      values.insert(values.end(), chol.BlockData(b), chol.BlockData(b) + 36);
    }
    factors.push_back(values);
    VecX x;
    chol.Solve(rhs, &x);
    solutions.push_back(x);
  }
  ASSERT_EQ(factors[0].size(), factors[1].size());
  EXPECT_TRUE(factors[0] == factors[1]);
  EXPECT_TRUE(solutions[0] == solutions[1]);
  EXPECT_LT(RelativeDifference(solutions[1], H.llt().solve(rhs)), 1e-12);
}

// A 3-D pile's contact graph: the AMD order is kept where it needs fewer multiply-adds than
// minimum degree, and its factor solves like a dense LLT (2-dof trees keep the dense reference
// small: 8 x 8 x 8 trees, 1024 dofs, plus long-range pairs and one isolated tree).
TEST(BlockSparseCholesky, AmdOrderSolvesLikeDenseLltOnA3dPile) {
  std::mt19937 rng(31);
  const int side = 8, nt = side * side * side + 1;
  std::vector<int> nv(nt, 2);
  nv[5] = 6;
  std::vector<std::pair<int, int>> pairs = Grid3dPairs(side, side, side);
  for (int k = 0; k < 6; ++k) pairs.emplace_back(rng() % (nt - 1), rng() % (nt - 1));
  std::vector<int> start;
  const MatX H = RandomDominantH(rng, nv, pairs, &start);
  BlockSparseCholesky md, amd;
  md.set_amd_min_flops(-1);  // minimum degree only
  amd.set_amd_min_flops(0);  // always compare with AMD
  md.SetPattern(nv, pairs);
  amd.SetPattern(nv, pairs);
  EXPECT_EQ(md.num_amd_orderings(), 0);
  EXPECT_EQ(amd.num_amd_orderings(), 1) << "AMD must win here for the test to mean anything";
  EXPECT_LT(amd.layout().flops, md.layout().flops);
  // Diagonally dominant H (cond ~ 10): backward-stable solves agree to round-off.
  EXPECT_LT(FactorSolveDifference(rng, H, nv, start, &amd), 1e-12);
  EXPECT_LT(FactorSolveDifference(rng, H, nv, start, &md), 1e-12);
  // A pattern change with the kept (AMD) order still gives the factor of the new H.
  pairs.emplace_back(0, nt - 2);
  const MatX H2 = RandomDominantH(rng, nv, pairs, &start);
  amd.SetPattern(nv, pairs, /*keep_order=*/true);
  EXPECT_LT(FactorSolveDifference(rng, H2, nv, start, &amd), 1e-12);
}

// The order a 10 000-body pile needs: on a 12 x 12 x 12 grid of 6-dof trees (26-neighbourhood)
// AMD needs fewer multiply-adds per factorization than minimum degree (counted by the symbolic
// pass; nothing of the factor's size is allocated: budget 1 byte).
TEST(BlockSparseCholesky, AmdOrderReducesTheWorkOfA3dPile) {
  const int side = 12, nt = side * side * side;
  const std::vector<int> nv(nt, 6);
  const std::vector<std::pair<int, int>> pairs = Grid3dPairs(side, side, side);
  BlockSparseCholesky md, amd;
  md.set_memory_budget(1);
  amd.set_memory_budget(1);
  md.set_amd_min_flops(-1);
  md.SetPattern(nv, pairs);
  amd.SetPattern(nv, pairs);
  EXPECT_TRUE(amd.over_budget());
  EXPECT_EQ(amd.num_amd_orderings(), 1);
  EXPECT_LT(amd.layout().flops, md.layout().flops)
      << "AMD " << amd.layout().flops << ", minimum degree " << md.layout().flops;
  std::printf("12^3 pile, multiply-adds per factorization: minimum degree %.3g, AMD %.3g\n",
              static_cast<double>(md.layout().flops), static_cast<double>(amd.layout().flops));
}

// A pattern change with keep_order keeps the elimination order and redoes only the symbolic
// factorization (elimination tree, column structures, update targets): the factor must still be
// that of the new H, including pairs whose blocks the old pattern did not have.
TEST(BlockSparseCholesky, KeptOrderSolvesLikeDenseLltAfterThePatternChanges) {
  std::mt19937 rng(22);
  int kept = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const int side = 6 + trial;
    const int nt = side * side;
    std::vector<int> nv(nt);
    for (int& k : nv) k = Uniform(rng, 0, 1) < 0.7 ? 6 : std::uniform_int_distribution<int>(1, 5)(rng);
    std::vector<std::pair<int, int>> pairs = GridPairs(side);
    BlockSparseCholesky chol;
    ASSERT_TRUE(chol.SetPattern(nv, pairs));
    // The next Newton iteration: a few pairs leave contact, a few new ones (diagonals) come in.
    for (int k = 0; k < 3; ++k) pairs.erase(pairs.begin() + rng() % pairs.size());
    for (int k = 0; k < 3; ++k) {
      const int t = rng() % (nt - side - 1);
      pairs.emplace_back(t, t + side + 1);
    }
    ASSERT_TRUE(chol.SetPattern(nv, pairs, /*keep_order=*/true));
    EXPECT_EQ(chol.num_analyses(), 2);
    if (chol.num_orderings() == 1) ++kept;
    std::vector<int> start;
    const MatX H = RandomDominantH(rng, nv, pairs, &start);
    chol.SetZero();
    for (const auto& [a, b] : pairs) {
      bool transposed;
      ASSERT_GE(chol.BlockIndex(a, b, &transposed), 0) << "pair missing from the kept-order pattern";
    }
    // Diagonally dominant H (cond ~ 10): both backward-stable solves agree to round-off.
    EXPECT_LT(FactorSolveDifference(rng, H, nv, start, &chol), 1e-12) << "trial " << trial;
  }
  EXPECT_GT(kept, 0) << "no trial kept its order: the symbolic-only path was not exercised";
}

TEST(SpeedPaths, BlockSparseMatchesDenseOnRandomProblems) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const ContactProblem p = RandomProblem(rng, 2 + trial % 9, 3 + trial % 20, 100);
    SapSolver dense(Params(SapParameters::LinearSolver::kDense, false));
    SapSolver block(Params(SapParameters::LinearSolver::kBlockSparse, false));
    SolverResult rd, rb;
    const SolverStatus sd = dense.Solve(p, p.v0, &rd);
    const SolverStatus sb = block.Solve(p, p.v0, &rb);
    EXPECT_EQ(sd, sb) << "trial " << trial;
    EXPECT_EQ(rd.stats.iterations, rb.stats.iterations) << "trial " << trial;
    // The two factorizations differ only in elimination order and summation order (round-off
    // ~1e-15 relative per Newton step); 1e-9 leaves room for the amplification by cond(H) ~ 1e4
    // of these random problems over a few iterations.
    EXPECT_LT(RelativeDifference(rb.v, rd.v), 1e-9) << "trial " << trial;
  }
}

TEST(SpeedPaths, IslandsReachTheMonolithicSolution) {
  std::mt19937 rng(17);
  int multi_island = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const ContactProblem p = RandomProblem(rng, 4 + trial % 12, 4 + trial % 25, 3);
    // A tight tolerance so that both solutions are close to the unique minimizer; islands and
    // the monolithic solve stop by different (per-island vs global) tests.
    SapSolver mono(Params(SapParameters::LinearSolver::kBlockSparse, false, 1e-12));
    SapSolver isl(Params(SapParameters::LinearSolver::kBlockSparse, true, 1e-12));
    SolverResult rm, ri;
    ASSERT_EQ(mono.Solve(p, p.v0, &rm), SolverStatus::kConverged);
    ASSERT_EQ(isl.Solve(p, p.v0, &ri), SolverStatus::kConverged);
    // Relative gradient 1e-12 times cond(H) up to ~1e4 on these problems bounds the distance to
    // the minimizer by ~1e-8 relative.
    EXPECT_LT(RelativeDifference(ri.v, rm.v), 1e-7) << "trial " << trial;
    EXPECT_LT(RelativeDifference(ri.gamma, rm.gamma), 1e-6) << "trial " << trial;
    EXPECT_EQ(ri.stats.iteration_log.num_rows(), ri.stats.iterations + 1);
    // Each island's own log sits in island_log (rows of its own Newton iterations, 0 .. its
    // iterations), and the merged rows sum the islands' costs at min(m, iterations_island).
    const IterationLog& il = ri.stats.island_log;
    int rows = 0;
    for (const IslandSummary& s : ri.stats.islands) {
      EXPECT_EQ(s.log_first_row, rows) << "trial " << trial;
      EXPECT_EQ(s.log_rows, s.iterations + 1) << "trial " << trial;
      rows += s.log_rows;
    }
    EXPECT_EQ(il.num_rows(), rows) << "trial " << trial;
    for (int m = 0; m <= ri.stats.iterations && !ri.stats.islands.empty(); ++m) {
      double cost = 0;
      for (const IslandSummary& s : ri.stats.islands) {
        cost += il(s.log_first_row + std::min(m, s.log_rows - 1), kSapCost);
      }
      EXPECT_EQ(ri.stats.iteration_log(m, kSapCost), cost) << "trial " << trial << " row " << m;
    }
    for (size_t i = 0; i < p.constraints.size(); ++i) {
      EXPECT_EQ(ri.regime[i], rm.regime[i]) << "trial " << trial << " constraint " << i;
    }
    // Islands are at least as strict as the global test here, so the merged record is converged.
    EXPECT_NEAR(ri.stats.cost, rm.stats.cost, 1e-9 * std::abs(rm.stats.cost) + 1e-15);
    BlockSparseCholesky probe;
    std::vector<std::pair<int, int>> pairs;
    for (const ConstraintData& c : p.constraints) {
      if (c.num_blocks == 2) pairs.emplace_back(c.blocks[0].tree, c.blocks[1].tree);
    }
    probe.SetPattern(p.tree_nv, pairs);
    if (probe.num_components() > 1) ++multi_island;
  }
  EXPECT_GT(multi_island, 30);  // the generator does produce several islands
}

TEST(SpeedPaths, SettledIslandTakesZeroIterations) {
  std::mt19937 rng(23);
  ContactProblem p = RandomProblem(rng, 6, 12, 3);
  SapSolver mono(Params(SapParameters::LinearSolver::kBlockSparse, false, 1e-10));
  SolverResult r0;
  ASSERT_EQ(mono.Solve(p, p.v0, &r0), SolverStatus::kConverged);
  // Perturb v* of tree 0 only: its island is in a transient, the others start at their solution.
  p.v_star.segment(p.tree_v_start[0], p.tree_nv[0]).array() += 0.5;
  SapSolver isl(Params(SapParameters::LinearSolver::kBlockSparse, true, 1e-10));
  SolverResult r1;
  ASSERT_EQ(isl.Solve(p, r0.v, &r1), SolverStatus::kConverged);
  EXPECT_GT(r1.stats.iterations, 0);
  // Trees outside tree 0's island keep the guess exactly (0 iterations there).
  std::vector<std::pair<int, int>> pairs;
  for (const ConstraintData& c : p.constraints) {
    if (c.num_blocks == 2) pairs.emplace_back(c.blocks[0].tree, c.blocks[1].tree);
  }
  BlockSparseCholesky probe;
  probe.SetPattern(p.tree_nv, pairs);
  int untouched = 0;
  for (int t = 0; t < p.num_trees(); ++t) {
    bool constrained = false;
    for (const ConstraintData& c : p.constraints)
      for (int k = 0; k < c.num_blocks; ++k) constrained |= c.blocks[k].tree == t;
    if (!constrained || probe.component()[t] == probe.component()[0]) continue;
    EXPECT_EQ(r1.v.segment(p.tree_v_start[t], p.tree_nv[t]),
              r0.v.segment(p.tree_v_start[t], p.tree_nv[t]));
    ++untouched;
  }
  EXPECT_GT(untouched, 0);
}

TEST(SpeedPaths, RepeatedSolvesDoNotAllocate) {
  std::mt19937 rng(29);
  const ContactProblem p = RandomProblem(rng, 12, 30, 4);
  for (bool islands : {false, true}) {
    SapSolver solver(Params(SapParameters::LinearSolver::kBlockSparse, islands));
    SolverResult r;
    const long first = g_allocations.load();
    solver.Solve(p, p.v0, &r);  // warm-up: sizes the scratch
    EXPECT_GT(g_allocations.load(), first);  // the counter does see the solver's allocations
    solver.Solve(p, p.v0, &r);
    const long before = g_allocations.load();
    for (int i = 0; i < 3; ++i) solver.Solve(p, p.v0, &r);
    EXPECT_EQ(g_allocations.load() - before, 0) << "islands " << islands;
    EXPECT_EQ(r.stats.status, SolverStatus::kConverged);
  }
}

// The per-island summaries describe the split: one per connected component of the tree graph
// (trees without constraints share one), in order of first tree, with the component's trees and
// constraints; the solve's iteration count is the largest island's. Islands off: no summaries.
TEST(SpeedPaths, IslandSummariesDescribeTheSplit) {
  std::mt19937 rng(77);
  const int num_trees = 15;
  const ContactProblem p = RandomProblem(rng, num_trees, 20, 3);
  std::vector<int> parent(num_trees);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x];
    return x;
  };
  std::vector<int> has_constraint(num_trees, 0);
  for (const ConstraintData& c : p.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) has_constraint[c.blocks[k].tree] = 1;
    if (c.num_blocks == 2) parent[find(c.blocks[0].tree)] = find(c.blocks[1].tree);
  }
  // Expected: per root with a constraint, its size and first tree; the free trees together.
  std::vector<int> size(num_trees, 0), first(num_trees, -1), cons(num_trees, 0);
  int free_trees = 0;
  for (int t = 0; t < num_trees; ++t) {
    const int r = find(t);
    if (!has_constraint[r] && !has_constraint[t]) {
      ++free_trees;
      continue;
    }
    ++size[r];
    if (first[r] < 0) first[r] = t;
  }
  for (const ConstraintData& c : p.constraints) ++cons[find(c.blocks[0].tree)];
  std::vector<std::pair<int, int>> expected;  // (first tree, trees) of constrained islands
  for (int r = 0; r < num_trees; ++r) {
    if (size[r] > 0) expected.emplace_back(first[r], size[r]);
  }
  std::sort(expected.begin(), expected.end());
  ASSERT_GE(expected.size(), 2u) << "the seed gives several islands";

  SapSolver solver(Params(SapParameters::LinearSolver::kBlockSparse, true));
  SolverResult r;
  ASSERT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged);
  const std::vector<IslandSummary>& isl = r.stats.islands;
  ASSERT_EQ(isl.size(), expected.size() + (free_trees > 0 ? 1 : 0));
  int trees = 0, constraints = 0, max_iterations = 0;
  for (size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(isl[k].first_tree, expected[k].first) << "island " << k;
    EXPECT_EQ(isl[k].trees, expected[k].second) << "island " << k;
    EXPECT_EQ(isl[k].constraints, cons[find(expected[k].first)]) << "island " << k;
  }
  if (free_trees > 0) {
    EXPECT_EQ(isl.back().trees, free_trees);
    EXPECT_EQ(isl.back().constraints, 0);
  }
  for (const IslandSummary& s : isl) {
    trees += s.trees;
    constraints += s.constraints;
    max_iterations = std::max(max_iterations, s.iterations);
    EXPECT_EQ(s.status, SolverStatus::kConverged);
    EXPECT_GE(s.solve_ms, 0);
  }
  EXPECT_EQ(trees, num_trees);
  EXPECT_EQ(constraints, static_cast<int>(p.constraints.size()));
  EXPECT_EQ(max_iterations, r.stats.iterations);

  SapSolver whole(Params(SapParameters::LinearSolver::kBlockSparse, false));
  ASSERT_EQ(whole.Solve(p, p.v0, &r), SolverStatus::kConverged);
  EXPECT_TRUE(r.stats.islands.empty());
}

// Island storage follows the islands, not their ids: the same islands numbered in another order
// (ids go by first tree) reuse their sub-problems, results and child solvers, so alternating
// between the two numberings allocates nothing once both have been seen, and each island's
// solve is bitwise the same as before the renumbering.
TEST(SpeedPaths, IslandStorageFollowsRenumberedIslands) {
  std::mt19937 rng(2024);
  const int group = 3, num_trees = 12;
  const ContactProblem p = RandomProblem(rng, num_trees, 30, group);
  // Renumber: the last group of trees first, the others after it, order kept within a group,
  // so that every island keeps its local tree order but changes id.
  std::vector<int> new_index(num_trees);
  for (int t = 0; t < num_trees; ++t) new_index[t] = (t + group) % num_trees;
  ContactProblem q = p;
  q.nv = p.nv;
  std::vector<int> old_of(num_trees);
  for (int t = 0; t < num_trees; ++t) old_of[new_index[t]] = t;
  int nv = 0;
  for (int u = 0; u < num_trees; ++u) {
    const int t = old_of[u];
    q.tree_nv[u] = p.tree_nv[t];
    q.tree_v_start[u] = nv;
    q.A[u] = p.A[t];
    q.M[u] = p.M[t];
    q.v_star.segment(nv, p.tree_nv[t]) = p.v_star.segment(p.tree_v_start[t], p.tree_nv[t]);
    q.v0.segment(nv, p.tree_nv[t]) = p.v0.segment(p.tree_v_start[t], p.tree_nv[t]);
    nv += p.tree_nv[t];
  }
  for (ConstraintData& c : q.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) c.blocks[k].tree = new_index[c.blocks[k].tree];
  }
  SapSolver solver(Params(SapParameters::LinearSolver::kBlockSparse, true));
  SolverResult rp, rq;
  ASSERT_EQ(solver.Solve(p, p.v0, &rp), SolverStatus::kConverged);
  ASSERT_EQ(solver.Solve(q, q.v0, &rq), SolverStatus::kConverged);
  const long before = g_allocations.load();
  for (int round = 0; round < 3; ++round) {
    solver.Solve(p, p.v0, &rp);
    solver.Solve(q, q.v0, &rq);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  // Same islands, same arithmetic: the velocities and impulses agree bit for bit.
  for (int t = 0; t < num_trees; ++t) {
    const int u = new_index[t];
    EXPECT_EQ(rq.v.segment(q.tree_v_start[u], q.tree_nv[u]),
              rp.v.segment(p.tree_v_start[t], p.tree_nv[t]))
        << "tree " << t;
  }
  EXPECT_EQ(rq.gamma, rp.gamma);
  EXPECT_EQ(rq.stats.iterations, rp.stats.iterations);
  // And as a fresh solver gives.
  SapSolver fresh(Params(SapParameters::LinearSolver::kBlockSparse, true));
  SolverResult rf;
  fresh.Solve(q, q.v0, &rf);
  EXPECT_EQ(rf.v, rq.v);
}

// Islands of equal sizes whose first trees change (a constraint-free tree moved from the end to
// the front): no island finds the slot keyed by its first tree, so the equal-size pass hands out
// the slots. The sub-problems have the same shapes, so alternating the two numberings allocates
// nothing, and the pairs' velocities are bitwise those of a fresh solver.
TEST(SpeedPaths, EqualSizeIslandsShareSlotsWithoutAllocating) {
  std::mt19937 rng(5);
  // Three pairs of 6-dof trees, each pair with a cone between its trees and one on the ground,
  // and one constraint-free tree, first or last.
  ContactProblem p;
  p.time_step = 1e-2;
  for (int t = 0; t < 7; ++t) {
    p.tree_v_start.push_back(p.nv);
    p.tree_nv.push_back(6);
    const MatX B = RandomMatrix(rng, 6, 6);
    p.A.push_back(B.transpose() * B + 3.0 * MatX::Identity(6, 6));
    p.M.push_back(p.A.back());
    p.nv += 6;
  }
  p.v_star = RandomMatrix(rng, p.nv, 1).col(0);
  p.v0 = RandomMatrix(rng, p.nv, 1).col(0);
  for (int pair = 0; pair < 3; ++pair) {
    for (int k = 0; k < 2; ++k) {
      ConstraintData c;
      c.first_row = p.num_rows;
      c.num_blocks = k == 0 ? 2 : 1;
      c.blocks[0].tree = 2 * pair;
      c.blocks[1].tree = 2 * pair + 1;
      for (int b = 0; b < c.num_blocks; ++b) c.blocks[b].J = RandomMatrix(rng, 3, 6);
      c.bias = Vec3(0.01, -0.02, -0.05);
      c.stiffness = 1e4;
      c.dissipation_time = p.time_step;
      c.friction = 0.5;
      c.phi0 = -0.001;
      p.num_rows += 3;
      p.constraints.push_back(c);
    }
  }
  p.ComputeDelassusEstimates();
  // q: tree 6 (free) moved to the front, the others shifted by one.
  ContactProblem q = p;
  for (int t = 0; t < 7; ++t) {
    const int u = (t + 1) % 7;
    q.A[u] = p.A[t];
    q.M[u] = p.M[t];
    q.v_star.segment(6 * u, 6) = p.v_star.segment(6 * t, 6);
    q.v0.segment(6 * u, 6) = p.v0.segment(6 * t, 6);
  }
  for (ConstraintData& c : q.constraints) {
    for (int b = 0; b < c.num_blocks; ++b) c.blocks[b].tree = (c.blocks[b].tree + 1) % 7;
  }
  SapSolver solver(Params(SapParameters::LinearSolver::kBlockSparse, true));
  SolverResult rp, rq;
  ASSERT_EQ(solver.Solve(p, p.v0, &rp), SolverStatus::kConverged);
  ASSERT_EQ(solver.Solve(q, q.v0, &rq), SolverStatus::kConverged);
  ASSERT_EQ(rp.stats.islands.size(), 4u);  // the three pairs and the free tree
  ASSERT_EQ(rq.stats.islands.size(), 4u);
  EXPECT_EQ(rp.stats.islands[1].first_tree, 2);
  EXPECT_EQ(rq.stats.islands[1].first_tree, 3);
  const long before = g_allocations.load();
  for (int round = 0; round < 3; ++round) {
    solver.Solve(p, p.v0, &rp);
    solver.Solve(q, q.v0, &rq);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_EQ(rq.v.tail(36), rp.v.head(36)) << "the pairs' velocities, shifted by the free tree";
  SapSolver fresh(Params(SapParameters::LinearSolver::kBlockSparse, true));
  SolverResult rf;
  fresh.Solve(q, q.v0, &rf);
  EXPECT_EQ(rf.v, rq.v);
}

// The step loop (kinematics, broad and narrow phase incl. box-box clipping, free motion of free
// and articulated trees, assembly with Jacobian blocks of varying tree sizes, SAP, metrics)
// allocates nothing once the contact graph has settled.
TEST(SpeedPaths, SteadyStateStepsDoNotAllocate) {
  struct Case {
    const char* scene;
    int warm_up;  // steps until the contact set is steady (settled stack, cube lifted and held)
  };
  // Also: convex meshes of four shapes (hull topologies), and an implicit (midpoint) free motion.
  for (const Case& c : {Case{"bench/box_stack_10.yaml", 150}, Case{"bench/box_on_ramp_hold.yaml", 150},
                        Case{"bench/gripper.yaml", 1100}, Case{"mesh_pile.yaml", 200},
                        Case{"spring_cylinder_friction.yaml", 200}}) {
    Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + c.scene);
    Simulator sim(scene.model, scene.settings);
    const long first = g_allocations.load();
    for (int i = 0; i < c.warm_up; ++i) sim.Step();
    EXPECT_GT(g_allocations.load(), first);  // the counter sees the step's first allocations
    const long before = g_allocations.load();
    int contacts = 0;
    for (int i = 0; i < 50; ++i) contacts += static_cast<int>(sim.Step().contacts.size());
    EXPECT_EQ(g_allocations.load() - before, 0) << c.scene;
    EXPECT_GT(contacts, 0) << c.scene;  // the narrow phase did run
  }
}

// Real steps: every step of the clutter transient is re-solved from its warm start by the three
// paths.
TEST(SpeedPaths, ClutterStepsAgreeAcrossPaths) {
  Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/clutter_40_walls.yaml");
  Simulator sim(scene.model, scene.settings);
  int compared = 0, max_iterations = 0;
  for (int n = 0; n < 120; ++n) {
    const StepRecord& rec = sim.Step();
    if (n % 4 != 0) continue;
    SapParameters base = scene.settings.sap;
    SapParameters pd = base, pb = base, pi = base;
    pd.linear_solver = SapParameters::LinearSolver::kDense;
    pb.linear_solver = SapParameters::LinearSolver::kBlockSparse;
    pb.islands = false;
    pi.linear_solver = SapParameters::LinearSolver::kBlockSparse;
    pi.islands = true;
    SapSolver sd(pd), sb(pb), si(pi);
    SolverResult rd, rb, ri;
    sd.Solve(rec.problem, rec.before.v, &rd);
    sb.Solve(rec.problem, rec.before.v, &rb);
    si.Solve(rec.problem, rec.before.v, &ri);
    EXPECT_EQ(rd.stats.iterations, rb.stats.iterations) << "step " << n;
    // Same Newton sequence up to round-off (see BlockSparseMatchesDenseOnRandomProblems).
    EXPECT_LT(RelativeDifference(rb.v, rd.v), 1e-9) << "step " << n;
    // Islands stop by per-island tests at ε_r = 1e-5: both are within the solver tolerance of
    // the minimizer; velocities of order 1 m/s agree to 1e-4 relative (ε_r times a cond(H)-type
    // amplification of ~10 for these well-conditioned near-rigid problems).
    EXPECT_LT(RelativeDifference(ri.v, rd.v), 1e-4) << "step " << n;
    EXPECT_EQ(ri.stats.status, SolverStatus::kConverged);
    max_iterations = std::max(max_iterations, rd.stats.iterations);
    ++compared;
  }
  EXPECT_EQ(compared, 30);
  EXPECT_GT(max_iterations, 3);  // the transient is exercised
}

// keep_order: the first pattern of each solve keeps the last solve's elimination order. The same
// solver solving one step after another gives the same Newton sequence as one that orders every
// solve anew, up to the round-off of another elimination order.
TEST(SpeedPaths, KeptOrderAcrossSolvesGivesTheSameNewtonSequence) {
  Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/clutter_40_walls.yaml");
  Simulator sim(scene.model, scene.settings);
  SapParameters fresh = scene.settings.sap, kept = scene.settings.sap;
  fresh.linear_solver = kept.linear_solver = SapParameters::LinearSolver::kBlockSparse;
  fresh.islands = kept.islands = false;
  kept.keep_order = true;
  SapSolver sf(fresh), sk(kept);
  int compared = 0, max_iterations = 0;
  for (int n = 0; n < 120; ++n) {
    const StepRecord& rec = sim.Step();
    if (n % 2 != 0) continue;
    SolverResult rf, rk;
    sf.Solve(rec.problem, rec.before.v, &rf);
    sk.Solve(rec.problem, rec.before.v, &rk);
    EXPECT_EQ(rk.stats.status, rf.stats.status) << "step " << n;
    EXPECT_EQ(rk.stats.iterations, rf.stats.iterations) << "step " << n;
    EXPECT_LT(RelativeDifference(rk.v, rf.v), 1e-9) << "step " << n;
    max_iterations = std::max(max_iterations, rf.stats.iterations);
    ++compared;
  }
  EXPECT_EQ(compared, 60);
  EXPECT_GT(max_iterations, 3);
}

// Trees larger than the blocked-kernel threshold (64 dofs: long chains) are factorized by the
// blocked Cholesky, their coupling blocks by a blocked triangular solve, and the forward solve
// runs by columns; a mix of large and small trees coupled in a ring must still give H⁻¹ b.
TEST(BlockSparseCholesky, LargeTreesSolveLikeDenseLlt) {
  std::mt19937 rng(31);
  const std::vector<int> nv = {150, 6, 80, 3, 65, 64, 200};
  const std::vector<std::pair<int, int>> pairs = {{0, 1}, {1, 2}, {2, 3}, {3, 4},
                                                  {4, 5}, {5, 6}, {6, 0}};
  std::vector<int> start;
  const MatX H = RandomDominantH(rng, nv, pairs, &start);
  BlockSparseCholesky chol;
  chol.SetPattern(nv, pairs);
  // Diagonally dominant H (cond ~ 10): both backward-stable solves agree to round-off.
  EXPECT_LT(FactorSolveDifference(rng, H, nv, start, &chol), 1e-12);
  // A large diagonal block that is not positive definite is reported, not factorized.
  MatX bad = H;
  bad(start[6] + 100, start[6] + 100) = -1e3;
  EXPECT_EQ(FactorSolveDifference(rng, bad, nv, start, &chol),
            std::numeric_limits<double>::infinity());
}

// The factor's sizes are counted in 64-bit integers: a single column of 60 000 dofs with
// 70 000 six-dof row blocks has 3.6e9 + 2.52e10 values and 2.45e9 block updates, all past
// 2³¹ − 1 (the old int offsets and update counts wrapped to negative sizes on such products).
TEST(BlockSparseCholesky, LayoutSizesDoNotOverflowInt) {
  const std::int64_t col = 60000, rows = 70000;
  const std::vector<std::int64_t> row_nv(rows, 6);
  FactorLayoutSize z;
  AddFactorColumn(col, row_nv.data(), rows, &z);
  EXPECT_EQ(z.blocks, rows + 1);
  EXPECT_EQ(z.values, col * col + 6 * rows * col);  // 2.88e10
  EXPECT_EQ(z.updates, rows * (rows + 1) / 2);      // 2.45e9
  EXPECT_GT(z.values, std::int64_t{1} << 31);
  EXPECT_GT(z.updates, std::int64_t{1} << 31);
  EXPECT_EQ(z.bytes, 8 * z.values + 40 * (rows + 1) + 16 * col);
  // Multiply-adds: n³/6 + Σr n²/2 + n ((Σr)² + Σr²)/2.
  const std::int64_t sr = 6 * rows, sr2 = 36 * rows;
  EXPECT_EQ(z.flops, col * col * col / 6 + sr * col * col / 2 + col * ((sr * sr + sr2) / 2));
  EXPECT_GT(z.flops, 0);
}

// A pattern whose factor would exceed the memory budget is refused before the factor is
// allocated: no blocks, no lookups, the sizes reported; raising the budget accepts the same
// pattern, whose factor then solves like a dense LLT.
TEST(BlockSparseCholesky, PatternOverTheMemoryBudgetIsRefusedBeforeAllocating) {
  std::mt19937 rng(32);
  const int side = 8;
  const std::vector<int> nv(side * side, 6);
  const std::vector<std::pair<int, int>> pairs = GridPairs(side);
  BlockSparseCholesky probe;
  probe.set_memory_budget(0);  // no limit: measures the pattern
  probe.SetPattern(nv, pairs);
  const FactorLayoutSize need = probe.layout();
  EXPECT_FALSE(probe.over_budget());
  EXPECT_EQ(probe.num_blocks(), need.blocks);
  // Stored values: 64 diagonal 6 x 6 blocks plus 36 per off-diagonal block (fill included).
  EXPECT_EQ(need.values, 36 * need.blocks);

  BlockSparseCholesky chol;
  chol.set_memory_budget(need.bytes - 1);
  chol.SetPattern(nv, pairs);
  EXPECT_TRUE(chol.over_budget());
  EXPECT_EQ(chol.layout().bytes, need.bytes);
  EXPECT_EQ(chol.num_blocks(), 0);
  bool tr;
  EXPECT_EQ(chol.BlockIndex(0, 0, &tr), -1);
  EXPECT_EQ(chol.BlockIndex(0, 1, &tr), -1);

  chol.set_memory_budget(need.bytes);
  EXPECT_TRUE(chol.SetPattern(nv, pairs));  // the refused pattern is analysed again
  EXPECT_FALSE(chol.over_budget());
  EXPECT_EQ(chol.num_blocks(), need.blocks);
  std::vector<int> start;
  const MatX H = RandomDominantH(rng, nv, pairs, &start);
  EXPECT_LT(FactorSolveDifference(rng, H, nv, start, &chol), 1e-12);
}

// A step whose Newton system would exceed the memory budget fails with a named status and a
// message giving the problem's size, and keeps the state (time, q, v) for inspection.
TEST(SpeedPaths, StepOverTheMemoryBudgetKeepsTheState) {
  Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/clutter_40_walls.yaml");
  Simulator sim(scene.model, scene.settings);
  // In the transient the bodies touch each other and the warm start is not optimal, so the step
  // needs a Newton iteration (a factorization).
  for (int i = 0; i < 30; ++i) sim.Step();
  StepSettings tiny = sim.settings();
  tiny.sap.memory_budget_mb = 1e-3;  // 1 kB: less than a 6 x 6 block pair's factor needs
  tiny.sap.islands = false;
  sim.set_settings(tiny);
  const State before = sim.state();
  const StepRecord& rec = sim.Step();
  EXPECT_EQ(rec.result.stats.status, SolverStatus::kMemoryBudgetExceeded);
  const std::string& msg = rec.result.stats.message;
  EXPECT_NE(msg.find(std::to_string(rec.problem.num_trees()) + " trees"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(rec.problem.constraints.size()) + " constraints"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("memory budget of 1.05 kB"), std::string::npos) << msg;
  EXPECT_EQ(sim.state().time, before.time);
  EXPECT_EQ(sim.state().q, before.q);
  EXPECT_EQ(sim.state().v, before.v);
  // The island path reports the same status (its islands and the monolithic re-solve are refused).
  tiny.sap.islands = true;
  sim.set_settings(tiny);
  EXPECT_EQ(sim.Step().result.stats.status, SolverStatus::kMemoryBudgetExceeded);
  EXPECT_EQ(sim.state().time, before.time);
  // With the default budget the same step runs.
  tiny.sap.memory_budget_mb = 0;
  sim.set_settings(tiny);
  EXPECT_EQ(sim.Step().result.stats.status, SolverStatus::kConverged);
  EXPECT_GT(sim.state().time, before.time);
}

// A tree of 90 revolute links with a branch (links 0..59 a chain, 60..89 a branch from link 20),
// axes alternating y and z, lying on the floor: a tree large enough for TreeMotion.
std::string BranchedChainScene(bool with_free_base) {
  std::string y = "time_step: 0.002\nintegrator: symplectic_euler\n"
                  "materials: [{name: m, stiffness: 1e8, dissipation_time: 0.002, friction: 0.4}]\n"
                  "templates:\n  - {name: link, mass: 0.05, geoms: [{shape: capsule, radius: 0.01, "
                  "length: 0.05, material: m, rotation: {axis_angle: [0, 1, 0, 90]}}]}\n"
                  "bodies:\n  - {name: floor, static: true, geoms: [{shape: half_space, material: m}]}\n";
  char buf[400];
  for (int i = 0; i < 90; ++i) {
    const bool branch = i >= 60;
    const int k = branch ? i - 60 : i;
    const double x = branch ? 0.05 * 20.5 : (k + 0.5) * 0.05;
    const double yy = branch ? (k + 1) * 0.05 : 0.0;
    std::string parent;
    if (i == 0) {
      parent = "";
    } else if (i == 60) {
      parent = "parent: l20, ";
    } else {
      parent = "parent: l" + std::to_string(i - 1) + ", ";
    }
    const char* axis = i % 2 == 0 ? "[0, 1, 0]" : "[0, 0, 1]";
    if (i == 0 && with_free_base) {
      std::snprintf(buf, sizeof(buf), "  - {name: l0, template: link, position: [%g, 0, 0.0099]}\n", x);
    } else {
      std::snprintf(buf, sizeof(buf),
                    "  - {name: l%d, template: link, position: [%g, %g, 0.0099], joint: {type: "
                    "revolute, %saxis: %s, child_frame: {position: [%g, %g, 0]}, damping: 0.001}}\n",
                    i, x, yy, parent.c_str(), axis, branch ? 0.0 : -0.025, branch ? -0.025 : 0.0);
    }
    y += buf;
  }
  return y;
}

// The simulator's spatial form of a large tree's contact Jacobians (TreeMotion, W, leaf) gives
// J exactly: W Φ on the path from the leaf to the root, zero elsewhere (round-off of the two
// ways of forming a point's velocity; 1e-12 relative to ‖J‖ ~ 1 m).
TEST(SpeedPaths, TreeMotionReproducesContactJacobians) {
  for (const bool free_base : {false, true}) {
    Scene scene = ParseScene(BranchedChainScene(free_base), "branched.yaml");
    Simulator sim(scene.model, scene.settings);
    const StepRecord& rec = sim.Step();
    const ContactProblem& p = rec.problem;
    ASSERT_EQ(p.num_trees(), 1);
    const TreeMotion& tm = p.tree_motion[0];
    ASSERT_FALSE(tm.empty());
    ASSERT_EQ(tm.Phi.cols(), p.tree_nv[0]);
    int checked = 0;
    for (const ConstraintData& c : p.constraints) {
      const TreeJacobianBlock& B = c.blocks[0];
      if (c.kind != ConstraintKind::kFrictionCone) continue;
      ASSERT_GE(B.leaf, 0);
      MatX J = MatX::Zero(3, p.tree_nv[0]);
      for (int k = B.leaf; k >= 0; k = tm.parent[k]) J.col(k) = B.W * tm.Phi.col(k);
      EXPECT_LT((J - B.J).norm(), 1e-12 * (1 + B.J.norm()));
      ++checked;
    }
    EXPECT_GT(checked, 100);  // ~2 floor contacts per link
  }
}

// The Hessian of a large tree assembled along the tree (composite stiffness) and the dense
// reference (JᵀGJ of the dense J) give the same Newton sequence and the same velocities.
TEST(SpeedPaths, TreeMotionAssemblyMatchesTheDensePath) {
  Scene scene = ParseScene(BranchedChainScene(true), "branched.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int i = 0; i < 3; ++i) sim.Step();
  const ContactProblem p = sim.Step().problem;
  SapParameters dense_prm = scene.settings.sap, sparse_prm = scene.settings.sap;
  dense_prm.linear_solver = SapParameters::LinearSolver::kDense;
  sparse_prm.linear_solver = SapParameters::LinearSolver::kBlockSparse;
  dense_prm.rel_tolerance = sparse_prm.rel_tolerance = 1e-9;
  SapSolver dense(dense_prm), sparse(sparse_prm);
  SolverResult rd, rs;
  ASSERT_EQ(dense.Solve(p, p.v0, &rd), SolverStatus::kConverged) << rd.stats.message;
  ASSERT_EQ(sparse.Solve(p, p.v0, &rs), SolverStatus::kConverged) << rs.stats.message;
  EXPECT_GT(rd.stats.iterations, 0);
  EXPECT_EQ(rd.stats.iterations, rs.stats.iterations);
  // Both stop at a relative gradient of 1e-9; the Hessians differ by round-off only.
  EXPECT_LT((rd.v - rs.v).norm(), 1e-7 * (1 + rd.v.norm()));
  // Without the spatial form (a problem loaded from an export has none) the same solve.
  ContactProblem q = p;
  q.tree_motion.clear();
  SolverResult rq;
  ASSERT_EQ(sparse.Solve(q, q.v0, &rq), SolverStatus::kConverged);
  EXPECT_EQ(rq.stats.iterations, rs.stats.iterations);
  EXPECT_LT((rq.v - rs.v).norm(), 1e-7 * (1 + rd.v.norm()));
}

// A step whose factorization would need more multiply-adds than the work budget fails with
// work_budget_exceeded before anything of the factor's size is allocated, names the problem's
// size and the estimate, and keeps the state; with the default budget the same step runs.
TEST(SpeedPaths, StepOverTheWorkBudgetKeepsTheState) {
  Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/clutter_40_walls.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int i = 0; i < 30; ++i) sim.Step();
  StepSettings tiny = sim.settings();
  tiny.sap.work_budget_gflop = 1e-9;  // one multiply-add: less than any factorization needs
  tiny.sap.islands = false;
  sim.set_settings(tiny);
  const State before = sim.state();
  const StepRecord& rec = sim.Step();
  EXPECT_EQ(rec.result.stats.status, SolverStatus::kWorkBudgetExceeded);
  const std::string& msg = rec.result.stats.message;
  EXPECT_NE(msg.find(std::to_string(rec.problem.num_trees()) + " trees"), std::string::npos) << msg;
  EXPECT_NE(msg.find("multiply-adds per factorization"), std::string::npos) << msg;
  EXPECT_NE(msg.find("work budget of 1 "), std::string::npos) << msg;
  EXPECT_EQ(sim.state().time, before.time);
  EXPECT_EQ(sim.state().q, before.q);
  EXPECT_EQ(sim.state().v, before.v);
  // The island path reports the same status without a monolithic re-solve.
  tiny.sap.islands = true;
  sim.set_settings(tiny);
  EXPECT_EQ(sim.Step().result.stats.status, SolverStatus::kWorkBudgetExceeded);
  EXPECT_EQ(sim.state().time, before.time);
  tiny.sap.work_budget_gflop = 0;
  sim.set_settings(tiny);
  EXPECT_EQ(sim.Step().result.stats.status, SolverStatus::kConverged);
  EXPECT_GT(sim.state().time, before.time);
}

// A problem with one large tree (a 120-dof "chain": A = M random SPD) and small trees; the
// constraints on the large tree have Jacobians that vanish past a random column (a contact on
// link k moves with the dofs of its ancestors only), some of them coupled to a small tree.
ContactProblem MakeLargeTreeProblem(std::mt19937& rng, int large_nv, int num_constraints) {
  ContactProblem p;
  p.time_step = 1e-2;
  const std::vector<int> nv = {large_nv, 6, 3, 6};
  for (int n : nv) {
    p.tree_v_start.push_back(p.nv);
    p.tree_nv.push_back(n);
    const MatX B = RandomMatrix(rng, n, n);
    p.A.push_back(B.transpose() * B / n + MatX::Identity(n, n));
    p.M.push_back(p.A.back());
    p.nv += n;
  }
  for (int i = 0; i < num_constraints; ++i) {
    ConstraintData c;
    c.kind = ConstraintKind::kFrictionCone;
    c.num_rows = 3;
    c.first_row = p.num_rows;
    c.num_blocks = Uniform(rng, 0, 1) < 0.3 ? 2 : 1;
    c.blocks[0].tree = 0;
    const int support = std::uniform_int_distribution<int>(1, large_nv)(rng);
    c.blocks[0].J = MatX::Zero(3, large_nv);
    c.blocks[0].J.leftCols(support) = RandomMatrix(rng, 3, support);
    if (c.num_blocks == 2) {
      c.blocks[1].tree = 1 + static_cast<int>(rng() % 3);
      c.blocks[1].J = RandomMatrix(rng, 3, nv[c.blocks[1].tree]);
    }
    c.bias = Vec3(Uniform(rng, -0.1, 0.1), Uniform(rng, -0.1, 0.1), Uniform(rng, -0.1, 0.1));
    c.stiffness = 1e5;
    c.dissipation_time = p.time_step;
    c.friction = Uniform(rng, 0.2, 1.0);
    c.phi0 = Uniform(rng, -0.01, 0.002);
    p.num_rows += 3;
    p.constraints.push_back(c);
  }
  p.v_star = RandomMatrix(rng, p.nv, 1).col(0);
  p.v0 = RandomMatrix(rng, p.nv, 1).col(0);
  p.ComputeDelassusEstimates();
  return p;
}

// Delassus estimates on a large tree (factor M = U Uᵀ, chunked triangular solves over the
// support of each J) agree with the definition w_i = ‖J_i M⁻¹ J_iᵀ‖_F / 3 evaluated densely;
// 1e-10 relative: round-off of two Cholesky-based solves of matrices with cond ~ 100.
TEST(SpeedPaths, LargeTreeDelassusEstimatesMatchTheDefinition) {
  std::mt19937 rng(41);
  // 500 constraints: several chunks of 192 rows, with chunk widths from the sorted supports.
  const ContactProblem p = MakeLargeTreeProblem(rng, 120, 500);
  const MatX Minv = p.DenseM().inverse();
  const MatX J = p.DenseJ();
  for (const ConstraintData& c : p.constraints) {
    const MatX Ji = J.middleRows(c.first_row, 3);
    const double w = (Ji * Minv * Ji.transpose()).norm() / 3;
    EXPECT_NEAR(c.w, w, 1e-10 * w);
  }
}

// The SAP solve of a problem with a large tree (stacked Hessian assembly over the supports,
// blocked factorization) follows the dense reference path: same iterations, same velocities.
TEST(SpeedPaths, LargeTreeSolvesAgreeWithTheDensePath) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 3; ++trial) {
    const ContactProblem p = MakeLargeTreeProblem(rng, 100 + 40 * trial, 150);
    SapParameters pd = Params(SapParameters::LinearSolver::kDense, false, 1e-10);
    SapParameters pb = Params(SapParameters::LinearSolver::kBlockSparse, false, 1e-10);
    SapSolver sd(pd), sb(pb);
    SolverResult rd, rb;
    ASSERT_EQ(sd.Solve(p, p.v0, &rd), SolverStatus::kConverged) << rd.stats.message;
    ASSERT_EQ(sb.Solve(p, p.v0, &rb), SolverStatus::kConverged) << rb.stats.message;
    EXPECT_GT(rd.stats.iterations, 1);  // Newton steps with changing regimes are compared
    EXPECT_EQ(rd.stats.iterations, rb.stats.iterations) << "trial " << trial;
    // Same Newton sequence up to the round-off of the two factorizations (cond(H) ≲ 1e6 here).
    EXPECT_LT(RelativeDifference(rb.v, rd.v), 1e-9) << "trial " << trial;
  }
}

}  // namespace
}  // namespace contactlab
