// Sparse LᵀDL factorization of a matrix with branch-induced sparsity (Featherstone, Rigid Body
// Dynamics Algorithms, §6.5): the joint-space inertia of a kinematic tree, M(i, j) ≠ 0 only when
// dof i is dof j, an ancestor or a descendant of it. With the dofs numbered so that each dof's
// parent precedes it (parent[j] < j, −1 for a root dof), H = Lᵀ D L with L unit lower triangular
// and the same sparsity as H's lower triangle: no fill. The factorization costs Σ_k depth(k)²
// multiply-adds and a solve 2 Σ_k depth(k), against n³/6 and n² for a dense Cholesky factor
// (depth(k): the dofs on k's path to the root), and a Jacobian row that is zero outside a body's
// path stays so under L⁻ᵀ.
//
// Storage: column-major n x n; the factor overwrites H's lower triangle (L(k, i) at (k, i) for
// each ancestor i of k, D_k on the diagonal). Entries of H outside the ancestor pattern are
// neither read nor written. A matrix with an entry outside the pattern (e.g. A with a coupling
// that is not a tree's) is not a tree matrix: the caller keeps the dense path for it.
#pragma once

#include <cmath>
#include <vector>

namespace contactlab {
namespace tree_ltdl {

// True when parent[j] < j for every dof (the numbering the factorization needs).
inline bool ParentsPrecede(const int* parent, int n) {
  for (int j = 0; j < n; ++j) {
    if (parent[j] >= j) return false;
  }
  return true;
}

// In place: H (n x n, column-major, leading dimension n) becomes its factor. Returns false when a
// pivot D_k is not positive and finite (H not positive definite to working precision); H is then
// partly overwritten.
inline bool Factor(double* H, int n, const int* parent) {
  for (int k = n - 1; k >= 0; --k) {
    const double d = H[k + k * n];
    if (!(d > 0) || !std::isfinite(d)) return false;
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      const double a = H[k + i * n] / d;
      for (int j = i; j >= 0; j = parent[j]) H[i + j * n] -= a * H[k + j * n];
      H[k + i * n] = a;
    }
  }
  return true;
}

// x := L⁻ᵀ x (back-substitution from the leaves: each dof's value moves to its ancestors). A
// vector that is zero outside a body's path stays so.
inline void SolveLt(const double* L, int n, const int* parent, double* x) {
  for (int i = n - 1; i >= 0; --i) {
    const double xi = x[i];
    if (xi == 0) continue;
    for (int j = parent[i]; j >= 0; j = parent[j]) x[j] -= L[i + j * n] * xi;
  }
}

// x := L⁻¹ x (forward: each dof takes its ancestors' values).
inline void SolveL(const double* L, int n, const int* parent, double* x) {
  for (int i = 0; i < n; ++i) {
    double s = x[i];
    for (int j = parent[i]; j >= 0; j = parent[j]) s -= L[i + j * n] * x[j];
    x[i] = s;
  }
}

// x := H⁻¹ x = L⁻¹ D⁻¹ L⁻ᵀ x.
inline void Solve(const double* L, int n, const int* parent, double* x) {
  SolveLt(L, n, parent, x);
  for (int i = 0; i < n; ++i) x[i] /= L[i + i * n];
  SolveL(L, n, parent, x);
}

// Each dof's ancestors as one contiguous list (parent first, root last): the loops below then
// read independent indices instead of chasing parent[] one load after another, which made the
// parent-array form latency-bound. Σ_k depth(k) ints.
struct Ancestors {
  std::vector<int> begin;  // n + 1 offsets into list
  std::vector<int> list;
  int n = 0;
  // False (and empty) unless parent[j] < j for every dof.
  bool Build(const int* parent, int num) {
    begin.clear();
    list.clear();
    n = 0;
    if (!ParentsPrecede(parent, num)) return false;
    begin.assign(num + 1, 0);
    for (int k = 0; k < num; ++k) {
      begin[k] = static_cast<int>(list.size());
      for (int i = parent[k]; i >= 0; i = parent[i]) list.push_back(i);
    }
    begin[num] = static_cast<int>(list.size());
    n = num;
    return true;
  }
};

// Factor with the ancestor lists: the ancestors of the i-th entry of k's list are the entries
// after it, so both loops run over one contiguous array. Same arithmetic, same order.
inline bool Factor(double* H, const Ancestors& anc) {
  const int n = anc.n;
  for (int k = n - 1; k >= 0; --k) {
    const double d = H[k + k * n];
    if (!(d > 0) || !std::isfinite(d)) return false;
    const int* a = anc.list.data() + anc.begin[k];
    const int m = anc.begin[k + 1] - anc.begin[k];
    for (int p = 0; p < m; ++p) {
      const int i = a[p];
      const double f = H[k + i * n] / d;
      for (int q = p; q < m; ++q) {
        const int j = a[q];
        H[i + j * n] -= f * H[k + j * n];
      }
      H[k + i * n] = f;
    }
  }
  return true;
}

inline void SolveLt(const double* L, const Ancestors& anc, double* x) {
  const int n = anc.n;
  for (int i = n - 1; i >= 0; --i) {
    const double xi = x[i];
    if (xi == 0) continue;
    for (int p = anc.begin[i]; p < anc.begin[i + 1]; ++p) {
      const int j = anc.list[p];
      x[j] -= L[i + j * n] * xi;
    }
  }
}

inline void SolveL(const double* L, const Ancestors& anc, double* x) {
  const int n = anc.n;
  for (int i = 0; i < n; ++i) {
    double s = x[i];
    for (int p = anc.begin[i]; p < anc.begin[i + 1]; ++p) {
      const int j = anc.list[p];
      s -= L[i + j * n] * x[j];
    }
    x[i] = s;
  }
}

inline void Solve(const double* L, const Ancestors& anc, double* x) {
  SolveLt(L, anc, x);
  for (int i = 0; i < anc.n; ++i) x[i] /= L[i + i * anc.n];
  SolveL(L, anc, x);
}

}  // namespace tree_ltdl
}  // namespace contactlab
