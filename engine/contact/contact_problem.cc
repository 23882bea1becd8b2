// Dense views and per-tree products of the contact problem of one time step (SAP paper §II-III,
// §IV-D). J is stored per constraint as one or two per-tree blocks; A and M are stored per tree
// (block diagonal). The Delassus estimate w_i = ‖W_ii‖_rms = ‖W_ii‖_F / num_rows (eq. 29's
// "rms": the root mean square of the num_rows² entries of W_ii) with W_ii = Σ_t J_it M_t⁻¹ J_itᵀ
// over the (at most two) trees the constraint touches (§V-B); because M is block diagonal by tree
// this diagonal block of W = J M⁻¹ Jᵀ is exact. For a point mass W_ii = I/m and w = 1/(√3 m): the
// paper's estimates that assume w = 1/m (rest penetration β²gδt²/(4π²), slip σμgδt) come out
// smaller by 1/√3 with the formula as printed, which is the one implemented here.
#include "engine/contact/contact_problem.h"

#include "engine/common/tree_ltdl.h"

#include <Eigen/Cholesky>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/common/small_kernels.h"
#include "engine/multibody/articulated_tree.h"

namespace contactlab {

const char* ConstraintKindName(ConstraintKind kind) {
  switch (kind) {
    case ConstraintKind::kFrictionCone: return "friction_cone";
    case ConstraintKind::kUnilateral: return "unilateral";
    case ConstraintKind::kBilateral: return "bilateral";
  }
  return "unknown";
}

namespace {

MatX DenseBlockDiagonal(const ContactProblem& p, const std::vector<MatX>& blocks) {
  MatX out = MatX::Zero(p.nv, p.nv);
  for (int t = 0; t < p.num_trees() && t < static_cast<int>(blocks.size()); ++t) {
    const int n = p.tree_nv[t];
    out.block(p.tree_v_start[t], p.tree_v_start[t], n, n) = blocks[t];
  }
  return out;
}

#if defined(__x86_64__)
// W (3 x 3, column-major) += X Xᵀ with X = J Liᵀ (J: 3 x 6, Li: 6 x 6 lower triangular with exact
// zeros above the diagonal, as InverseCholesky6 writes it; all column-major). The same result to
// the bit as Eigen's fixed-size products `X = J * Li.transpose(); W += X * X.transpose()` with
// 128-bit vectors, which evaluate rows 0-1 of each product as a vector summed over k in order and
// row 2 as a scalar sum in the pairwise order ((t0 + (t1 + t2)) + (t3 + (t4 + t5))); here the
// terms with Li(c, k) = 0 (k > c), which add exact zeros there, are skipped.
void AddDelassusBlock36(const double* J, const double* Li, double* W) {
  double X[18];  // column-major 3 x 6
  for (int c = 0; c < 6; ++c) {
    const double* l = Li + c;  // l[6 k] = Li(c, k), zero for k > c
    __m128d x01 = _mm_mul_pd(_mm_loadu_pd(J), _mm_set1_pd(l[0]));
    for (int k = 1; k <= c; ++k) {
      x01 = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(J + 3 * k), _mm_set1_pd(l[6 * k])), x01);
    }
    _mm_storeu_pd(X + 3 * c, x01);
    double t[6];
    for (int k = 0; k <= c; ++k) t[k] = J[2 + 3 * k] * l[6 * k];
    double x2;
    switch (c) {
      case 0: x2 = t[0]; break;
      case 1: x2 = t[0] + t[1]; break;
      case 2: x2 = t[0] + (t[1] + t[2]); break;
      case 3: x2 = (t[0] + (t[1] + t[2])) + t[3]; break;
      case 4: x2 = (t[0] + (t[1] + t[2])) + (t[3] + t[4]); break;
      default: x2 = (t[0] + (t[1] + t[2])) + (t[3] + (t[4] + t[5])); break;
    }
    X[2 + 3 * c] = x2;
  }
  for (int j = 0; j < 3; ++j) {
    __m128d w01 = _mm_mul_pd(_mm_loadu_pd(X), _mm_set1_pd(X[j]));
    for (int k = 1; k < 6; ++k) {
      w01 = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(X + 3 * k), _mm_set1_pd(X[j + 3 * k])), w01);
    }
    _mm_storeu_pd(W + 3 * j, _mm_add_pd(_mm_loadu_pd(W + 3 * j), w01));
    double t[6];
    for (int k = 0; k < 6; ++k) t[k] = X[2 + 3 * k] * X[j + 3 * k];
    W[2 + 3 * j] += (t[0] + (t[1] + t[2])) + (t[3] + (t[4] + t[5]));
  }
}
#define CONTACTLAB_DELASSUS_KERNEL 1
#endif

}  // namespace

void InverseCholesky6(const double* M, double* Li_out) {
  // Cholesky by columns on the lower triangle of M (column-major), then the inverse of L by
  // forward substitution, both with fixed loop bounds. A pivot that is not positive makes the
  // factor NaN, which the solver's input check reports.
  double L[6][6];  // L[i][j], i >= j
  double inv_d[6];
  for (int j = 0; j < 6; ++j) {
    double s = M[j + 6 * j];
    for (int k = 0; k < j; ++k) s -= L[j][k] * L[j][k];
    const double d = s > 0 ? std::sqrt(s) : std::numeric_limits<double>::quiet_NaN();
    L[j][j] = d;
    inv_d[j] = 1.0 / d;
    for (int i = j + 1; i < 6; ++i) {
      double t = M[i + 6 * j];
      for (int k = 0; k < j; ++k) t -= L[i][k] * L[j][k];
      L[i][j] = t * inv_d[j];
    }
  }
  kernels::Map<6, 6> Li(Li_out);
  Li.setZero();
  for (int j = 0; j < 6; ++j) {
    Li(j, j) = inv_d[j];
    for (int i = j + 1; i < 6; ++i) {
      double s = 0;
      for (int k = j; k < i; ++k) s += L[i][k] * Li(k, j);
      Li(i, j) = -s * inv_d[i];
    }
  }
}

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

void ContactProblem::TreeComponentRoots(std::vector<int>* root) const {
  std::vector<int>& parent = *root;
  const int nt = num_trees();
  parent.resize(nt);
  for (int t = 0; t < nt; ++t) parent[t] = t;
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const ConstraintData& c : constraints) {
    if (c.num_blocks == 2) {
      const int a = find(c.blocks[0].tree), b = find(c.blocks[1].tree);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the smaller index stays the root
    }
  }
  // Roots only ever point to smaller indices, so one increasing pass finishes every path.
  for (int t = 0; t < nt; ++t) parent[t] = parent[parent[t]];
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
    double* vc_i = vc->data() + c.first_row;
    for (int r = 0; r < c.num_rows; ++r) vc_i[r] = c.bias(r);
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      kernels::AddJx(b.J.data(), c.num_rows, tree_nv[b.tree], v.data() + tree_v_start[b.tree],
                     vc_i);
    }
  }
}

void ContactProblem::AddJacobianTransposeTimes(const VecX& gamma, VecX* out) const {
  for (const ConstraintData& c : constraints) {
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      kernels::AddJtx(b.J.data(), c.num_rows, tree_nv[b.tree], gamma.data() + c.first_row,
                      out->data() + tree_v_start[b.tree]);
    }
  }
}

bool TreeMotionMatches(const TreeMotion& tm, const MatX& A, double rel_tol) {
  if (!tm.has_inertia()) return false;
  const int n = static_cast<int>(tm.parent.size());
  if (A.rows() != n || A.cols() != n) return false;
  if (!tm.armature.empty() && static_cast<int>(tm.armature.size()) != n) return false;
  // The recursions visit parents before children in dof order.
  for (int j = 0; j < n; ++j) {
    if (tm.parent[j] < -1 || tm.parent[j] >= j) return false;
  }
  thread_local std::vector<double> composite;
  composite = tm.inertia;
  double max_diag = 0, max_diff = 0;
  for (int j = n - 1; j >= 0; --j) {
    const Eigen::Map<const Eigen::Matrix<double, 6, 6>> Ic(composite.data() + 36 * static_cast<size_t>(j));
    double d = tm.Phi.col(j).dot(Ic * tm.Phi.col(j));
    if (!tm.armature.empty()) d += tm.armature[j];
    if (!std::isfinite(d)) return false;
    max_diag = std::max(max_diag, std::abs(A(j, j)));
    max_diff = std::max(max_diff, std::abs(A(j, j) - d));
    const int p = tm.parent[j];
    if (p >= 0) {
      Eigen::Map<Eigen::Matrix<double, 6, 6>>(composite.data() + 36 * static_cast<size_t>(p)) += Ic;
    }
  }
  return max_diff <= rel_tol * max_diag;
}

void ContactProblem::ComputeDelassusEstimates(const InverseCholeskyFactors* known,
                                              const std::vector<std::vector<int>>* dof_parent) {
  // Once per tree touched by a constraint, reused by every constraint on that tree: the inverse
  // Cholesky factor L⁻¹ of M_t = L Lᵀ (fixed-size kernels for 6-dof trees, i.e. free bodies), with
  // W = (J L⁻ᵀ)(J L⁻ᵀ)ᵀ. The storage is kept between calls (one problem is assembled per step),
  // so that a step does not allocate.
  //
  // Trees with more than kLargeTreeDofs dofs (long chains) keep a factor M = U Uᵀ instead of
  // forming an inverse (n³/3 multiply-adds saved), and their blocks are done per tree in chunks:
  // Y = U⁻¹ [J_iᵀ] for up to kChunkRows stacked rows by one blocked triangular solve,
  // W_ii += Y_iᵀ Y_i. A product J L⁻ᵀ per constraint would read all of L⁻¹ for every contact
  // (memory bound).
  constexpr int kLargeTreeDofs = 64;
  constexpr int kChunkRows = 192;
  thread_local std::vector<MatX> Minv;  // per tree, L⁻¹
  thread_local std::vector<const double*> li_of;  // per 6-dof tree, its L⁻¹ (Minv or the caller's)
  thread_local std::vector<char> inverted;
  thread_local std::vector<MatX> factor;       // per tree, storage of the in-place Cholesky factor
  thread_local std::vector<double> x_storage;  // J L⁻ᵀ, r x n
  thread_local std::vector<Mat3> W_acc;        // per constraint, W_ii accumulated so far
  thread_local std::vector<int> large_begin, large_con, large_next;  // constraints per tree
  thread_local MatX Y;                                               // n x kChunkRows
  thread_local std::vector<std::pair<int, int>> order;  // (−support width, constraint)
  thread_local ArticulatedTreeSolver aba;               // large trees with TreeMotion inertias
  thread_local std::vector<double> omega;
  thread_local VecX row_solve;
  thread_local std::vector<char> sparse;  // per tree: factor[t] holds M's tree LᵀDL factor
  thread_local std::vector<tree_ltdl::Ancestors> ancestors;  // per tree with a sparse factor
  thread_local std::vector<double> y_rows;  // L⁻ᵀ J_iᵀ, n x 3 (column-major)
  thread_local std::vector<double> path_ys;  // the same on a dof's path, 3 per path entry
  sparse.assign(num_trees(), 0);
  if (static_cast<int>(ancestors.size()) < num_trees()) ancestors.resize(num_trees());
  if (static_cast<int>(Minv.size()) < num_trees()) Minv.resize(num_trees());
  if (static_cast<int>(factor.size()) < num_trees()) factor.resize(num_trees());
  inverted.assign(num_trees(), 0);
  li_of.resize(num_trees());
  const int nc = static_cast<int>(constraints.size());
  W_acc.resize(nc);
  bool any_large = false;
  for (int ci = 0; ci < nc; ++ci) {
    ConstraintData& c = constraints[ci];
    const int r = c.num_rows;
    Mat3 W = Mat3::Zero();  // W_ii (top-left num_rows x num_rows used) [1/kg]
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      const int n = tree_nv[b.tree];
      if (n > kLargeTreeDofs) {
        any_large = true;
        continue;
      }
      if (!inverted[b.tree]) {
        if (n == 6) {
          // A free body's L⁻¹: the caller's (read in place) or computed into Minv.
          if (known && known->Has(b.tree)) {
            li_of[b.tree] = known->Li[b.tree].data();
          } else {
            Minv[b.tree].resize(6, 6);
            InverseCholesky6(M[b.tree].data(), Minv[b.tree].data());
            li_of[b.tree] = Minv[b.tree].data();
          }
        } else {
          const std::vector<int>* par =
              dof_parent && b.tree < static_cast<int>(dof_parent->size()) ? &(*dof_parent)[b.tree]
                                                                          : nullptr;
          factor[b.tree] = M[b.tree];
          if (par && static_cast<int>(par->size()) == n &&
              ancestors[b.tree].Build(par->data(), n) &&
              tree_ltdl::Factor(factor[b.tree].data(), ancestors[b.tree])) {
            sparse[b.tree] = 1;
          } else {
            factor[b.tree] = M[b.tree];
            const Eigen::LLT<Eigen::Ref<MatX>> llt(factor[b.tree]);
            Minv[b.tree].setIdentity(n, n);
            llt.matrixL().solveInPlace(Minv[b.tree]);
          }
        }
        inverted[b.tree] = 1;
      }
      if (sparse[b.tree]) {
        // W_ii += Yᵀ D⁻¹ Y with Y = L⁻ᵀ Jᵀ (n x r): M⁻¹ = L⁻¹ D⁻¹ L⁻ᵀ.
        const double* L = factor[b.tree].data();
        y_rows.resize(static_cast<size_t>(3) * n);
        const double* Jd = b.J.data();
        // J is zero past column m (the deepest dof it moves); L⁻ᵀ moves values only towards the
        // root (lower indices), so Y is too.
        int m = n;
        while (m > 0) {
          bool zero = true;
          for (int q = 0; q < r; ++q) zero = zero && Jd[q + r * (m - 1)] == 0;
          if (!zero) break;
          --m;
        }
        if (m == 0) continue;
        const tree_ltdl::Ancestors& anc = ancestors[b.tree];
        // Usually J moves only the path P of its deepest dof (a contact with the world or another
        // tree, a limit): then Y = L⁻ᵀ Jᵀ lives on P and each entry is pulled from the ones below
        // it, y_a = J_a − Σ_{b below a on P} L(b, a) y_b, with independent sums (the pushing form
        // below chains every update through memory).
        const int leaf = m - 1;
        const int* up = anc.list.data() + anc.begin[leaf];
        const int d = 1 + anc.begin[leaf + 1] - anc.begin[leaf];  // P = leaf, up[0], up[1], ...
        bool on_path = true;
        {
          int a = 1;  // next path entry below the column being checked
          for (int j = leaf - 1; j >= 0 && on_path; --j) {
            while (a < d && up[a - 1] > j) ++a;
            const bool in_path = a - 1 < d - 1 && up[a - 1] == j;
            if (in_path) continue;
            for (int q = 0; q < r; ++q) on_path = on_path && Jd[q + r * j] == 0;
          }
        }
        if (on_path) {
          path_ys.resize(static_cast<size_t>(4) * d);
          double* ys = path_ys.data();  // ys[3 a + q], a along P from the leaf
          auto node = [&](int a) { return a == 0 ? leaf : up[a - 1]; };
          for (int a = 0; a < d; ++a) {
            const int pa = node(a);
            const double* Lcol = L + static_cast<size_t>(pa) * n;
            double s0 = Jd[0 + r * pa], s1 = r > 1 ? Jd[1 + r * pa] : 0.0,
                   s2 = r > 2 ? Jd[2 + r * pa] : 0.0;
            for (int bb = 0; bb < a; ++bb) {
              const double l = Lcol[node(bb)];
              s0 -= l * ys[3 * bb];
              s1 -= l * ys[3 * bb + 1];
              s2 -= l * ys[3 * bb + 2];
            }
            ys[3 * a] = s0;
            ys[3 * a + 1] = s1;
            ys[3 * a + 2] = s2;
            const double inv_d = 1.0 / L[pa + static_cast<size_t>(pa) * n];
            for (int aa = 0; aa < r; ++aa) {
              for (int q = 0; q <= aa; ++q) {
                const double v = ys[3 * a + aa] * ys[3 * a + q] * inv_d;
                W(aa, q) += v;
                if (q != aa) W(q, aa) += v;
              }
            }
          }
          continue;
        }
        for (int q = 0; q < r; ++q) {
          double* y = y_rows.data() + static_cast<size_t>(q) * n;
          for (int j = 0; j < m; ++j) y[j] = Jd[q + r * j];
          for (int i = m - 1; i >= 0; --i) {
            const double yi = y[i];
            if (yi == 0) continue;
            for (int p = anc.begin[i]; p < anc.begin[i + 1]; ++p) {
              y[anc.list[p]] -= L[i + anc.list[p] * n] * yi;
            }
          }
        }
        for (int j = 0; j < m; ++j) {
          const double inv_d = 1.0 / L[j + j * n];
          for (int a = 0; a < r; ++a) {
            const double ya = y_rows[static_cast<size_t>(a) * n + j];
            if (ya == 0) continue;
            for (int q = 0; q <= a; ++q) {
              const double s = ya * y_rows[static_cast<size_t>(q) * n + j] * inv_d;
              W(a, q) += s;
              if (q != a) W(q, a) += s;
            }
          }
        }
        continue;
      }
      if (r == 3 && n == 6) {
#ifdef CONTACTLAB_DELASSUS_KERNEL
        AddDelassusBlock36(b.J.data(), li_of[b.tree], W.data());
        continue;
#endif
        const kernels::CMap<3, 6> J(b.J.data());
        const Eigen::Matrix<double, 3, 6> X = J * kernels::CMap<6, 6>(li_of[b.tree]).transpose();
        W.noalias() += X * X.transpose();
      } else {
        x_storage.resize(static_cast<size_t>(r) * n);
        Eigen::Map<MatX> X(x_storage.data(), r, n);
        const Eigen::Map<const MatX> Li(n == 6 ? li_of[b.tree] : Minv[b.tree].data(), n, n);
        if (r <= 3) {
          // X = J L⁻ᵀ, X(:, k) = Σ_{j <= k} J(:, j) L⁻¹(k, j) (L⁻¹ is lower triangular), over the
          // nonzero columns j of J only (the dofs the constraint moves with): direct loops, for a
          // few rows a general product's packing costs more than the arithmetic.
          X.setZero();
          const double* Jd = b.J.data();
          for (int j = 0; j < n; ++j) {
            const double* Jj = Jd + r * j;
            bool zero = true;
            for (int q = 0; q < r; ++q) zero = zero && Jj[q] == 0;
            if (zero) continue;
            for (int k = j; k < n; ++k) {
              const double l = Li(k, j);
              for (int q = 0; q < r; ++q) X(q, k) += Jj[q] * l;
            }
          }
          for (int a = 0; a < r; ++a) {
            for (int q = 0; q <= a; ++q) {
              double sum = 0;
              for (int k = 0; k < n; ++k) sum += X(a, k) * X(q, k);
              W(a, q) += sum;
              if (q != a) W(q, a) += sum;
            }
          }
        } else {
          X.noalias() = b.J * Li.transpose();
          W.topLeftCorner(r, r).noalias() += X * X.transpose();
        }
      }
    }
    W_acc[ci] = W;
  }
  if (any_large) {
    const int nt = num_trees();
    large_begin.assign(nt + 1, 0);
    for (const ConstraintData& c : constraints) {
      for (int k = 0; k < c.num_blocks; ++k) {
        if (tree_nv[c.blocks[k].tree] > kLargeTreeDofs) ++large_begin[c.blocks[k].tree + 1];
      }
    }
    for (int t = 0; t < nt; ++t) large_begin[t + 1] += large_begin[t];
    large_con.resize(large_begin[nt]);
    large_next.assign(large_begin.begin(), large_begin.end() - 1);
    for (int ci = 0; ci < nc; ++ci) {
      const ConstraintData& c = constraints[ci];
      for (int k = 0; k < c.num_blocks; ++k) {
        const int t = c.blocks[k].tree;
        if (tree_nv[t] > kLargeTreeDofs) large_con[large_next[t]++] = ci;
      }
    }
    for (int t = 0; t < nt; ++t) {
      if (large_begin[t] == large_begin[t + 1]) continue;
      const int n = tree_nv[t];
      if (static_cast<int>(tree_motion.size()) > t && tree_motion[t].has_inertia() &&
          TreeMotionMatches(tree_motion[t], M[t])) {
        // O(n) per tree: the articulated-body factorization of M_t and, per dof j, the inverse
        // operational-space inertia Ω_j = Φ_P M⁻¹ Φ_Pᵀ of j's path P. A contact block J = W Φ_P
        // (leaf j) has J M⁻¹ Jᵀ = W Ω_j Wᵀ; a one-row block with one nonzero column k (a joint
        // limit) has J_k² (M⁻¹)_kk; any other block is solved row by row (O(n) per row).
        const TreeMotion& tm = tree_motion[t];
        if (!aba.Factor(tm.Phi, tm.parent, tm.inertia.data(), tm.armature_or_null())) {
          // Not SPD to working precision: the dense path below reports the same data.
        } else {
          aba.InverseOperationalInertias(&omega);
          for (int e = large_begin[t]; e < large_begin[t + 1]; ++e) {
            const int ci = large_con[e];
            const ConstraintData& c = constraints[ci];
            const TreeJacobianBlock& b = c.blocks[c.blocks[0].tree == t ? 0 : 1];
            const int r = c.num_rows;
            if (b.leaf >= 0 && b.leaf < n && r == 3) {
              const Eigen::Map<const Eigen::Matrix<double, 6, 6>> Om(omega.data() +
                                                                     36 * static_cast<size_t>(b.leaf));
              W_acc[ci].noalias() += b.W * Om * b.W.transpose();
              continue;
            }
            int nz = 0, col = -1;
            for (int k = 0; k < n && nz < 2; ++k) {
              if (b.J(0, k) != 0) {
                ++nz;
                col = k;
              }
            }
            if (r == 1 && nz == 1) {
              W_acc[ci](0, 0) += b.J(0, col) * b.J(0, col) * aba.InverseDiagonal(omega, col);
              continue;
            }
            for (int row = 0; row < r; ++row) {
              row_solve = b.J.row(row).transpose();
              aba.Solve(row_solve.data());
              for (int row2 = 0; row2 < r; ++row2) W_acc[ci](row2, row) += b.J.row(row2).dot(row_solve);
            }
          }
          continue;
        }
      }
      // M = U Uᵀ with U upper triangular: the Cholesky factor L of the reversed matrix P M P
      // (P reverses the dof order) gives U = P L P. A constraint's J is zero past column m (its
      // body's ancestors come first), so U y = Jᵀ has y = 0 past m and W_ii = ‖y‖² needs only
      // U's leading m x m block: r m²/2 multiply-adds instead of r n²/2.
      factor[t] = M[t].reverse();
      Eigen::LLT<Eigen::Ref<MatX>> llt(factor[t]);
      factor[t].reverseInPlace();
      const MatX& U = factor[t];
      if (Y.rows() != n || Y.cols() < kChunkRows) Y.resize(n, kChunkRows);
      order.clear();
      for (int e = large_begin[t]; e < large_begin[t + 1]; ++e) {
        const ConstraintData& c = constraints[large_con[e]];
        const MatX& J = c.blocks[c.blocks[0].tree == t ? 0 : 1].J;
        int m = n;
        while (m > 0 && J.col(m - 1).isZero(0)) --m;
        if (m > 0) order.emplace_back(-m, large_con[e]);  // J = 0: W_ii gets nothing
      }
      std::sort(order.begin(), order.end());
      size_t e = 0;
      while (e < order.size()) {
        // Stack the rows (transposed) of as many constraints as fit in a chunk; the chunk's
        // widest support m is its first.
        const int m = -order[e].first;
        int cols = 0;
        const size_t e0 = e;
        for (; e < order.size(); ++e) {
          const ConstraintData& c = constraints[order[e].second];
          if (cols + c.num_rows > kChunkRows) break;
          const int k = c.blocks[0].tree == t ? 0 : 1;
          Y.block(0, cols, m, c.num_rows) = c.blocks[k].J.leftCols(m).transpose();
          cols += c.num_rows;
        }
        auto Yc = Y.block(0, 0, m, cols);
        U.topLeftCorner(m, m).triangularView<Eigen::Upper>().solveInPlace(Yc);
        cols = 0;
        for (size_t f = e0; f < e; ++f) {
          const int ci = order[f].second;
          const int r = constraints[ci].num_rows;
          W_acc[ci].topLeftCorner(r, r).noalias() +=
              Yc.middleCols(cols, r).transpose() * Yc.middleCols(cols, r);
          cols += r;
        }
      }
    }
  }
  for (int ci = 0; ci < nc; ++ci) {
    ConstraintData& c = constraints[ci];
    const int r = c.num_rows;
    c.w = W_acc[ci].topLeftCorner(r, r).norm() / r;
  }
}

}  // namespace contactlab
