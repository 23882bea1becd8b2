// The LᵀDL factorization of matrices with branch-induced sparsity (engine/common/tree_ltdl.h)
// against dense Eigen factorizations of the same matrices, on random trees (chains, stars,
// forests, random parent arrays) of 1 to 40 dofs; its refusals (not positive definite, NaN,
// parents not numbered first) and its storage contract (entries outside the ancestor pattern
// are neither read nor written).
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/common/math.h"
#include "engine/common/tree_ltdl.h"

namespace contactlab {
namespace {

enum class Shape { kChain, kStar, kForest, kRandom };

std::vector<int> MakeParents(Shape shape, int n, std::mt19937* rng) {
  std::vector<int> p(n, -1);
  for (int j = 1; j < n; ++j) {
    switch (shape) {
      case Shape::kChain:
        p[j] = j - 1;
        break;
      case Shape::kStar:
        p[j] = 0;
        break;
      case Shape::kForest:
        // Several roots: about one dof in five starts a new tree.
        p[j] = std::uniform_int_distribution<int>(0, 4)(*rng) == 0
                   ? -1
                   : std::uniform_int_distribution<int>(0, j - 1)(*rng);
        break;
      case Shape::kRandom:
        p[j] = std::uniform_int_distribution<int>(-1, j - 1)(*rng);
        break;
    }
  }
  return p;
}

// anc(k, i): i is k or an ancestor of k.
std::vector<char> AncestorPattern(const std::vector<int>& p) {
  const int n = static_cast<int>(p.size());
  std::vector<char> a(static_cast<size_t>(n) * n, 0);
  for (int k = 0; k < n; ++k) {
    for (int i = k; i >= 0; i = p[i]) a[k + static_cast<size_t>(i) * n] = 1;
  }
  return a;
}

// In the pattern of a tree matrix: (i, j) with one of them the other or an ancestor of it.
bool InPattern(const std::vector<char>& anc, int n, int i, int j) {
  return anc[i + static_cast<size_t>(j) * n] || anc[j + static_cast<size_t>(i) * n];
}

// A random SPD tree matrix H = Lᵀ D L from a unit lower L with entries at ancestor positions only
// (off-diagonal entries in ±0.5 / √depth, so that L stays well conditioned down a 40-dof chain)
// and D in [0.5, 2]. Returns H; *L_true, *D_true: the generating factor.
MatX MakeFromFactor(const std::vector<int>& p, std::mt19937* rng, MatX* L_true, VecX* D_true) {
  const int n = static_cast<int>(p.size());
  std::uniform_real_distribution<double> u(-1, 1), ud(0.5, 2);
  MatX L = MatX::Identity(n, n);
  for (int k = 0; k < n; ++k) {
    int depth = 0;
    for (int i = p[k]; i >= 0; i = p[i]) ++depth;
    for (int i = p[k]; i >= 0; i = p[i]) L(k, i) = 0.5 * u(*rng) / std::sqrt(depth);
  }
  VecX D(n);
  for (int k = 0; k < n; ++k) D(k) = ud(*rng);
  *L_true = L;
  *D_true = D;
  return L.transpose() * D.asDiagonal() * L;
}

// A mass-matrix-like SPD tree matrix: Σ_k m_k a_k a_kᵀ + diag(armature), with a_k nonzero only on
// dof k's path to its root (a body moving with the dofs of its ancestors).
MatX MakeFromBodies(const std::vector<int>& p, std::mt19937* rng) {
  const int n = static_cast<int>(p.size());
  std::uniform_real_distribution<double> u(-1, 1), um(0.1, 3);
  MatX H = MatX::Zero(n, n);
  for (int k = 0; k < n; ++k) {
    for (int rep = 0; rep < 3; ++rep) {  // three "directions" per body, as a rigid body's rows
      VecX a = VecX::Zero(n);
      for (int i = k; i >= 0; i = p[i]) a(i) = u(*rng);
      H += um(*rng) * a * a.transpose();
    }
    H(k, k) += 0.01;  // armature
  }
  return H;
}

double Cond(const MatX& H) {
  Eigen::SelfAdjointEigenSolver<MatX> es(H);
  return es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff();
}

// The factor's L as a dense unit lower matrix (entries at ancestor positions, zero elsewhere).
MatX DenseL(const MatX& F, const std::vector<int>& p) {
  const int n = static_cast<int>(p.size());
  MatX L = MatX::Identity(n, n);
  for (int k = 0; k < n; ++k) {
    for (int i = p[k]; i >= 0; i = p[i]) L(k, i) = F(k, i);
  }
  return L;
}

double RelErr(const VecX& a, const VecX& b) { return (a - b).norm() / b.norm(); }

const char* Name(Shape s) {
  switch (s) {
    case Shape::kChain:
      return "chain";
    case Shape::kStar:
      return "star";
    case Shape::kForest:
      return "forest";
    case Shape::kRandom:
      return "random";
  }
  return "?";
}

// Factor then Solve equals Eigen's LLT solution; SolveLt and SolveL equal the dense triangular
// solves with the factor's L; the factor is the generating (L, D) (the LᵀDL factorization of an
// SPD matrix is unique). Tolerance 1e-12 relative: the matrices here have condition numbers below
// ~1e4 (asserted), so two backward-stable solves agree to ~cond · n · 1e-16 ≈ 1e-11 in the worst
// case and ~1e-14 in practice; the triangular solves use the same entries in another order.
TEST(TreeLtdl, FactorAndSolvesEqualDenseFactorizations) {
  std::mt19937 rng(20261127);
  std::uniform_real_distribution<double> u(-1, 1);
  double worst_solve = 0, worst_tri = 0, worst_factor = 0, worst_cond = 0;
  int cases = 0;
  for (const Shape shape : {Shape::kChain, Shape::kStar, Shape::kForest, Shape::kRandom}) {
    for (int n = 1; n <= 40; ++n) {
      for (int gen = 0; gen < 2; ++gen) {
        SCOPED_TRACE(std::string(Name(shape)) + " n=" + std::to_string(n) +
                     (gen ? " bodies" : " factor"));
        const std::vector<int> p = MakeParents(shape, n, &rng);
        ASSERT_TRUE(tree_ltdl::ParentsPrecede(p.data(), n));
        MatX L_true;
        VecX D_true;
        const MatX H =
            gen == 0 ? MakeFromFactor(p, &rng, &L_true, &D_true) : MakeFromBodies(p, &rng);
        const double cond = Cond(H);
        ASSERT_LT(cond, 1e4);
        worst_cond = std::max(worst_cond, cond);

        MatX F = H;
        ASSERT_TRUE(tree_ltdl::Factor(F.data(), n, p.data()));
        const MatX L = DenseL(F, p);
        const VecX D = F.diagonal();
        // Lᵀ D L reproduces H (backward error of the factorization).
        const double back = (L.transpose() * D.asDiagonal() * L - H).norm() / H.norm();
        EXPECT_LT(back, 1e-14);
        if (gen == 0) {
          const double fe =
              std::max((L - L_true).norm() / L_true.norm(), (D - D_true).norm() / D_true.norm());
          EXPECT_LT(fe, 1e-12);
          worst_factor = std::max(worst_factor, fe);
        }

        for (int rhs = 0; rhs < 3; ++rhs) {
          VecX b(n);
          for (int i = 0; i < n; ++i) b(i) = u(rng);
          const VecX x_ref = Eigen::LLT<MatX>(H).solve(b);
          VecX x = b;
          tree_ltdl::Solve(F.data(), n, p.data(), x.data());
          const double e = RelErr(x, x_ref);
          EXPECT_LT(e, 1e-12);
          worst_solve = std::max(worst_solve, e);

          VecX y = b;
          tree_ltdl::SolveLt(F.data(), n, p.data(), y.data());
          const VecX y_ref = L.transpose().triangularView<Eigen::UnitUpper>().solve(b);
          VecX z = b;
          tree_ltdl::SolveL(F.data(), n, p.data(), z.data());
          const VecX z_ref = L.triangularView<Eigen::UnitLower>().solve(b);
          const double et = std::max(RelErr(y, y_ref), RelErr(z, z_ref));
          EXPECT_LT(et, 1e-12);
          worst_tri = std::max(worst_tri, et);
        }
        ++cases;
      }
    }
  }
  std::printf("%d matrices, cond <= %.3g: solve %.3g, triangular solves %.3g, factor %.3g\n", cases,
              worst_cond, worst_solve, worst_tri, worst_factor);
}

// A right-hand side that is zero outside one dof's path stays zero outside it under L⁻ᵀ (the
// property the Delassus estimates rely on): exactly zero, not merely small.
TEST(TreeLtdl, SolveLtKeepsAPathSupportedVectorOnThePath) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const int n = 30;
  const std::vector<int> p = MakeParents(Shape::kRandom, n, &rng);
  const std::vector<char> anc = AncestorPattern(p);
  MatX H = MakeFromBodies(p, &rng);
  ASSERT_TRUE(tree_ltdl::Factor(H.data(), n, p.data()));
  for (int k = 0; k < n; ++k) {
    VecX x = VecX::Zero(n);
    for (int i = k; i >= 0; i = p[i]) x(i) = u(rng);
    tree_ltdl::SolveLt(H.data(), n, p.data(), x.data());
    for (int i = 0; i < n; ++i) {
      if (!anc[k + static_cast<size_t>(i) * n]) {
        EXPECT_EQ(x(i), 0.0) << "k=" << k << " i=" << i;
      }
    }
  }
}

// Entries outside the ancestor pattern are neither read nor written: with NaN there the factor
// and the solutions are the same bits, and the NaN entries are still NaN.
TEST(TreeLtdl, EntriesOutsideThePatternAreNeverRead) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  int checked = 0;
  for (const Shape shape : {Shape::kStar, Shape::kForest, Shape::kRandom}) {
    for (int n : {2, 5, 17, 40}) {
      SCOPED_TRACE(std::string(Name(shape)) + " n=" + std::to_string(n));
      const std::vector<int> p = MakeParents(shape, n, &rng);
      const std::vector<char> anc = AncestorPattern(p);
      const MatX H = MakeFromBodies(p, &rng);
      MatX F = H, G = H;
      int outside = 0;
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
          if (!InPattern(anc, n, i, j)) {
            G(i, j) = nan;
            ++outside;
          }
        }
      }
      ASSERT_TRUE(tree_ltdl::Factor(F.data(), n, p.data()));
      ASSERT_TRUE(tree_ltdl::Factor(G.data(), n, p.data()));
      VecX b(n);
      for (int i = 0; i < n; ++i) b(i) = u(rng);
      VecX x = b, y = b;
      tree_ltdl::Solve(F.data(), n, p.data(), x.data());
      tree_ltdl::Solve(G.data(), n, p.data(), y.data());
      ASSERT_TRUE(y.allFinite());
      EXPECT_EQ(std::memcmp(x.data(), y.data(), sizeof(double) * n), 0);
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
          if (InPattern(anc, n, i, j)) {
            EXPECT_EQ(std::memcmp(&F(i, j), &G(i, j), sizeof(double)), 0) << i << "," << j;
          } else {
            EXPECT_TRUE(std::isnan(G(i, j))) << "written at " << i << "," << j;
          }
        }
      }
      checked += outside > 0;
    }
  }
  EXPECT_GT(checked, 0);  // the star and forest shapes have entries outside the pattern
}

// Factor refuses a matrix that is not positive definite (a zero or a negative pivot, also one
// that appears only after elimination), and NaN or infinite entries.
TEST(TreeLtdl, FactorRefusesNonPositiveAndNonFinite) {
  const std::vector<int> chain = {-1, 0, 1};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto factor = [&](MatX H) { return tree_ltdl::Factor(H.data(), 3, chain.data()); };
  const MatX good = (MatX(3, 3) << 4, 1, 0.5, 1, 3, 1, 0.5, 1, 2).finished();
  EXPECT_TRUE(factor(good));
  for (int k = 0; k < 3; ++k) {
    MatX H = good;
    H(k, k) = 0;  // the last dof's pivot is its diagonal (0); the others' become negative
    EXPECT_FALSE(factor(H)) << "zero diagonal at " << k;
    H(k, k) = -1;
    EXPECT_FALSE(factor(H)) << "negative diagonal at " << k;
    H(k, k) = nan;
    EXPECT_FALSE(factor(H)) << "NaN diagonal at " << k;
    H(k, k) = inf;
    EXPECT_FALSE(factor(H)) << "inf diagonal at " << k;
  }
  // Indefinite with a positive diagonal: [[1, 2], [2, 1]] (eigenvalues 3, −1): the root's pivot
  // after eliminating dof 1 is 1 − 4 = −3.
  {
    const std::vector<int> p = {-1, 0};
    MatX H = (MatX(2, 2) << 1, 2, 2, 1).finished();
    EXPECT_FALSE(tree_ltdl::Factor(H.data(), 2, p.data()));
    // Singular: [[1, 1], [1, 1]]: the root's pivot is exactly 0.
    H << 1, 1, 1, 1;
    EXPECT_FALSE(tree_ltdl::Factor(H.data(), 2, p.data()));
  }
  // NaN in an off-diagonal entry of the pattern (reaches the root's pivot).
  {
    MatX H = good;
    H(2, 0) = nan;
    EXPECT_FALSE(factor(H));
    H = good;
    H(1, 0) = nan;
    EXPECT_FALSE(factor(H));
  }
}

TEST(TreeLtdl, ParentsPrecedeRefusesParentsAtOrAfterTheirChild) {
  EXPECT_TRUE(tree_ltdl::ParentsPrecede(nullptr, 0));
  const std::vector<int> ok = {-1, 0, 0, -1, 3, 1};
  EXPECT_TRUE(tree_ltdl::ParentsPrecede(ok.data(), 6));
  const std::vector<int> self = {-1, 1};
  EXPECT_FALSE(tree_ltdl::ParentsPrecede(self.data(), 2));
  const std::vector<int> after = {-1, 2, 0};
  EXPECT_FALSE(tree_ltdl::ParentsPrecede(after.data(), 3));
  const std::vector<int> root_self = {0};
  EXPECT_FALSE(tree_ltdl::ParentsPrecede(root_self.data(), 1));
}

}  // namespace
}  // namespace contactlab
