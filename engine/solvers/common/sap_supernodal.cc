// Block-sparse (tree-supernodal) Cholesky: minimum-degree order on the tree graph, block fill by
// symbolic elimination, right-looking numeric factorization with dense per-block kernels.
#include "engine/solvers/common/sap_supernodal.h"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numeric>

namespace contactlab {

namespace {

template <int R, int C>
using BlockMap = Eigen::Map<Eigen::Matrix<double, R, C>>;
using DynMap = Eigen::Map<MatX>;

// In-place lower Cholesky of the n x n column-major block d (reads the lower triangle). Writes
// the reciprocals of the diagonal of L to inv_diag (n).
template <int N>
bool CholeskyInPlace(double* d, int n_dyn, double* inv_diag) {
  const int n = N > 0 ? N : n_dyn;
  for (int j = 0; j < n; ++j) {
    double s = d[j + j * n];
    for (int p = 0; p < j; ++p) s -= d[j + p * n] * d[j + p * n];
    if (!(s > 0)) return false;
    const double l = std::sqrt(s);
    d[j + j * n] = l;
    const double inv = 1.0 / l;
    inv_diag[j] = inv;
    for (int i = j + 1; i < n; ++i) {
      double t = d[i + j * n];
      for (int p = 0; p < j; ++p) t -= d[i + p * n] * d[j + p * n];
      d[i + j * n] = t * inv;
    }
  }
  return true;
}

// Diagonal blocks larger than this are factorized by Eigen's blocked (cache-tiled, vectorized)
// Cholesky instead of the dot-product kernel above, whose row-wise reads stride through the whole
// block: a 2000-dof chain takes ~10x less time. Up to this size the kernel is kept, so the
// results of small trees (free bodies, robot arms and hands) do not change by a bit.
constexpr int kBlockedCholeskyMinDofs = 64;

// Patterns with more coupled tree pairs than this are ordered by AMD alone (see Analyze).
constexpr int kAmdOnlyPairs = 20000;


// In-place blocked lower Cholesky of the n x n column-major block d (lower triangle read and
// written, like CholeskyInPlace). Writes 1 / L_jj to inv_diag.
bool BlockedCholeskyInPlace(double* d, int n, double* inv_diag) {
  Eigen::Map<MatX> D(d, n, n);
  // Eigen's LLT reads the lower triangle and writes L there.
  if (Eigen::internal::llt_inplace<double, Eigen::Lower>::blocked(D) >= 0) return false;
  for (int j = 0; j < n; ++j) {
    const double l = d[j + j * n];
    if (!(l > 0) || !std::isfinite(l)) return false;
    inv_diag[j] = 1.0 / l;
  }
  return true;
}

// B (r x n) := B L⁻ᵀ with L the n x n lower factor.
// inv_diag: reciprocals of the diagonal of L.
template <int N, int RR = -1>
void SolveRightLowerTranspose(const double* L, const double* inv_diag, int n_dyn, double* B,
                              int r_dyn) {
  const int n = N > 0 ? N : n_dyn;
  const int r = RR > 0 ? RR : r_dyn;
  for (int j = 0; j < n; ++j) {
    const double inv = inv_diag[j];
    double* bj = B + j * r;
    for (int p = 0; p < j; ++p) {
      const double l = L[j + p * n];
      const double* bp = B + p * r;
      for (int i = 0; i < r; ++i) bj[i] -= bp[i] * l;
    }
    for (int i = 0; i < r; ++i) bj[i] *= inv;
  }
}

// T (ri x rj) -= Bi (ri x n) Bjᵀ (n x rj).
template <int RI, int RJ, int N>
void SubtractOuter(const double* Bi, int ri, const double* Bj, int rj, int n, double* T) {
  if constexpr (RI > 0 && RJ > 0 && N > 0) {
    BlockMap<RI, RJ>(T).noalias() -= BlockMap<RI, N>(const_cast<double*>(Bi)) *
                                     BlockMap<RJ, N>(const_cast<double*>(Bj)).transpose();
  } else {
    DynMap(T, ri, rj).noalias() -=
        DynMap(const_cast<double*>(Bi), ri, n) * DynMap(const_cast<double*>(Bj), rj, n).transpose();
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CONTACTLAB_AVX_KERNELS 1
// T (6 x 6) -= Bi (6 x 6) Bjᵀ with 256-bit vectors: the same operations per entry, in the same
// order, as Eigen's 128-bit lazy product of SubtractOuter<6, 6, 6> (per column j: the products
// Bi(:, k) Bj(j, k) summed for k = 0, ..., 5 as ((p0 + p1) + p2) + ..., then subtracted from
// T(:, j)), separate multiplies and adds (no fused multiply-add), so the results are the same to
// the bit. Rows 0-3 in a 256-bit vector, rows 4-5 in a 128-bit one.
__attribute__((target("avx"))) void SubtractOuter666Avx(const double* Bi, const double* Bj,
                                                        double* T) {
  for (int j = 0; j < 6; ++j) {
    __m256d lo = _mm256_mul_pd(_mm256_loadu_pd(Bi), _mm256_set1_pd(Bj[j]));
    __m128d hi = _mm_mul_pd(_mm_loadu_pd(Bi + 4), _mm_set1_pd(Bj[j]));
    for (int k = 1; k < 6; ++k) {
      const double b = Bj[j + 6 * k];
      lo = _mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(Bi + 6 * k), _mm256_set1_pd(b)), lo);
      hi = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(Bi + 6 * k + 4), _mm_set1_pd(b)), hi);
    }
    _mm256_storeu_pd(T + 6 * j, _mm256_sub_pd(_mm256_loadu_pd(T + 6 * j), lo));
    _mm_storeu_pd(T + 6 * j + 4, _mm_sub_pd(_mm_loadu_pd(T + 6 * j + 4), hi));
  }
}

// B (6 x 6) := B L⁻ᵀ (SolveRightLowerTranspose<6, 6>) with 256-bit vectors: per column j of B,
// B(:, j) −= B(:, p) L(j, p) for p = 0, ..., j − 1, then B(:, j) *= 1 / L(j, j), the same
// operations in the same order.
__attribute__((target("avx"))) void SolveRightLowerTranspose66Avx(const double* L,
                                                                  const double* inv_diag,
                                                                  double* B) {
  for (int j = 0; j < 6; ++j) {
    __m256d lo = _mm256_loadu_pd(B + 6 * j);
    __m128d hi = _mm_loadu_pd(B + 6 * j + 4);
    for (int p = 0; p < j; ++p) {
      const double l = L[j + 6 * p];
      lo = _mm256_sub_pd(lo, _mm256_mul_pd(_mm256_loadu_pd(B + 6 * p), _mm256_set1_pd(l)));
      hi = _mm_sub_pd(hi, _mm_mul_pd(_mm_loadu_pd(B + 6 * p + 4), _mm_set1_pd(l)));
    }
    _mm256_storeu_pd(B + 6 * j, _mm256_mul_pd(lo, _mm256_set1_pd(inv_diag[j])));
    _mm_storeu_pd(B + 6 * j + 4, _mm_mul_pd(hi, _mm_set1_pd(inv_diag[j])));
  }
}

// y (6) −= B (6 x 6) x with 256-bit vectors, as Eigen's 128-bit lazy product does it: the
// products B(:, k) x(k) summed for k = 0, ..., 5 in order, then subtracted from y.
__attribute__((target("avx"))) void SubtractMatVec66Avx(const double* B, const double* x,
                                                        double* y) {
  __m256d lo = _mm256_mul_pd(_mm256_loadu_pd(B), _mm256_set1_pd(x[0]));
  __m128d hi = _mm_mul_pd(_mm_loadu_pd(B + 4), _mm_set1_pd(x[0]));
  for (int k = 1; k < 6; ++k) {
    lo = _mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(B + 6 * k), _mm256_set1_pd(x[k])), lo);
    hi = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(B + 6 * k + 4), _mm_set1_pd(x[k])), hi);
  }
  _mm256_storeu_pd(y, _mm256_sub_pd(_mm256_loadu_pd(y), lo));
  _mm_storeu_pd(y + 4, _mm_sub_pd(_mm_loadu_pd(y + 4), hi));
}

bool CpuHasAvx() {
  static const bool has = __builtin_cpu_supports("avx");
  return has;
}
#else
bool CpuHasAvx() { return false; }
#endif

}  // namespace

bool BlockSparseCholesky::SetPattern(const std::vector<int>& tree_nv,
                                     const std::vector<std::pair<int, int>>& pairs,
                                     bool keep_order) {
  // Pairs given as (max, min), strictly increasing (as the SAP solver builds them) are taken as
  // they are; others are normalized, sorted and made unique.
  bool canonical = true;
  for (size_t k = 0; canonical && k < pairs.size(); ++k) {
    canonical = pairs[k].first > pairs[k].second && (k == 0 || pairs[k - 1] < pairs[k]);
  }
  if (canonical) {
    pairs_scratch_.assign(pairs.begin(), pairs.end());
  } else {
    pairs_scratch_.clear();
    for (const auto& [a, b] : pairs) {
      if (a == b) continue;
      pairs_scratch_.emplace_back(std::max(a, b), std::min(a, b));
    }
    std::sort(pairs_scratch_.begin(), pairs_scratch_.end());
    pairs_scratch_.erase(std::unique(pairs_scratch_.begin(), pairs_scratch_.end()),
                         pairs_scratch_.end());
  }
  // A refused pattern is analysed again (the budget may have been raised since).
  if (analyzed_ && !over_budget_ && tree_nv == tree_nv_ && pairs_scratch_ == pairs_) return false;
  keep_order = keep_order && analyzed_ && tree_nv == tree_nv_;
  tree_nv_ = tree_nv;
  pairs_.swap(pairs_scratch_);
  Analyze(keep_order);
  return true;
}

void BlockSparseCholesky::Analyze(bool keep_order) {
  const int nt = num_trees();
  ++num_analyses_;
  analyzed_ = true;
  tree_start_.assign(nt + 1, 0);
  for (int t = 0; t < nt; ++t) tree_start_[t + 1] = tree_start_[t] + tree_nv_[t];

  // Connected components (union-find).
  std::vector<int>& parent = merged_;  // scratch, reused below
  parent.resize(nt);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& [a, b] : pairs_) parent[find(a)] = find(b);
  component_.assign(nt, -1);
  num_components_ = 0;
  std::vector<int>& root_id = slot_;  // scratch, reused below
  root_id.assign(nt, -1);
  for (int t = 0; t < nt; ++t) {
    const int r = find(t);
    if (root_id[r] < 0) root_id[r] = num_components_++;
    component_[t] = root_id[r];
  }

  BuildAdjacency();
  // The factor's sizes are counted from the symbolic structure (col_rows_) before the values are
  // allocated; a pattern whose factor would not fit the budget is refused without allocating it.
  auto finish = [&]() {
    const bool over_memory = memory_budget_ > 0 && layout_.bytes > memory_budget_;
    over_work_budget_ = !over_memory && work_budget_ > 0 && layout_.flops > work_budget_;
    std::int64_t diagonal_flops = 0;
    for (int t = 0; t < nt; ++t) {
      const std::int64_t n = tree_nv_[t];
      diagonal_flops += n * n * n / 6;
    }
    over_fill_limit_ = !incomplete_ && !over_memory && !over_work_budget_ &&
                       fill_work_limit_ > 0 && layout_.flops - diagonal_flops > fill_work_limit_;
    over_budget_ = over_memory || over_work_budget_ || over_fill_limit_;
    if (!over_budget_) {
      Layout();
      return;
    }
    // Leave no stale layout behind: BlockIndex finds nothing and the old values are released.
    block_offset_.clear();
    block_rows_.clear();
    block_cols_.clear();
    block_row_tree_.clear();
    block_col_tree_.clear();
    col_begin_.assign(nt + 1, 0);
    std::vector<double>().swap(values_);
  };
  if (incomplete_) {
    // No fill: column t holds its neighbours that come later in the natural order.
    order_.resize(nt);
    std::iota(order_.begin(), order_.end(), 0);
    position_ = order_;
    for (int t = 0; t < nt; ++t) {
      col_rows_[t].clear();
      for (int u : adj_[t]) {
        if (u > t) col_rows_[t].push_back(u);
      }
    }
    EstimateLayout();
    finish();
    return;
  }
  if (keep_order) {
    SymbolicWithOrder();
    EstimateLayout();
    // A kept order that now needs much more work than when it was computed: order anew (the
    // symbolic pass left adj_ as it was).
    if (4 * layout_.updates <= 5 * ordered_updates_ + 64) {
      finish();
      return;
    }
  }
  ++num_orderings_;
  if (amd_min_flops_ >= 0 && num_pairs() > kAmdOnlyPairs) {
    // A large graph: exact minimum degree recomputes every neighbour's degree over its whole
    // adjacency after each elimination, which grows with the fill (64% of the first step of
    // 10⁵ touching spheres, ~5 s); AMD's quotient graph does not, and its order needed fewer
    // multiply-adds on every large pile measured.
    ApproximateMinimumDegreeOrder();
    SymbolicWithOrder();
    EstimateLayout();
    ++num_amd_orderings_;
    ordered_updates_ = layout_.updates;
    finish();
    return;
  }
  MinimumDegreeOrder();
  EstimateLayout();
  // Minimum degree (exact degrees, ties by index) is a greedy rule whose fill on large
  // three-dimensional contact graphs (a pile of thousands of touching bodies) can be well above
  // that of approximate minimum degree with its element absorption and aggressive tie handling.
  // Where minimum degree needs more than amd_min_flops_ multiply-adds, Eigen's AMD (Amestoy, Davis
  // & Duff 1996) orders the tree graph too and the order with fewer multiply-adds per
  // factorization is kept (both counted by the symbolic pass, O(fill)). Smaller problems (default:
  // below 1e8 multiply-adds, ~0.1 s) keep minimum degree, hence their factors, bit for bit.
  if (amd_min_flops_ >= 0 && layout_.flops > amd_min_flops_) {
    const FactorLayoutSize md_layout = layout_;
    md_order_ = order_;
    BuildAdjacency();  // the minimum-degree pass consumed adj_
    ApproximateMinimumDegreeOrder();
    SymbolicWithOrder();
    EstimateLayout();
    if (layout_.flops < md_layout.flops) {
      ++num_amd_orderings_;
    } else {
      order_.swap(md_order_);
      for (int k = 0; k < nt; ++k) position_[order_[k]] = k;
      SymbolicWithOrder();
      layout_ = md_layout;
    }
  }
  ordered_updates_ = layout_.updates;
  finish();
}

void AddFactorColumn(std::int64_t col_nv, const std::int64_t* row_nv, std::int64_t num_rows,
                     FactorLayoutSize* size) {
  const std::int64_t n = col_nv;
  std::int64_t sum_r = 0, sum_r2 = 0;
  for (std::int64_t i = 0; i < num_rows; ++i) {
    sum_r += row_nv[i];
    sum_r2 += row_nv[i] * row_nv[i];
  }
  size->blocks += 1 + num_rows;
  size->values += n * n + sum_r * n;
  size->updates += num_rows * (num_rows + 1) / 2;
  // Cholesky of the diagonal block (n³/6), the triangular solves of the row blocks (r n²/2 each)
  // and the updates T_ij -= B_i B_jᵀ for i >= j (r_i r_j n each: n ((Σr)² + Σr²)/2).
  size->flops += n * n * n / 6 + sum_r * n * n / 2 + n * ((sum_r * sum_r + sum_r2) / 2);
  // Values, then per block its offset, sizes, trees (4 x int) and two lookup entries.
  size->bytes += 8 * (n * n + sum_r * n) + 40 * (1 + num_rows) + 16 * n;
}

void BlockSparseCholesky::EstimateLayout() {
  layout_ = FactorLayoutSize{};
  for (int t = 0; t < num_trees(); ++t) {
    const std::vector<int>& rows = col_rows_[t];
    row_nv_scratch_.resize(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) row_nv_scratch_[i] = tree_nv_[rows[i]];
    AddFactorColumn(tree_nv_[t], row_nv_scratch_.data(), static_cast<std::int64_t>(rows.size()),
                    &layout_);
  }
}

void BlockSparseCholesky::BuildAdjacency() {
  const int nt = num_trees();
  adj_.resize(nt);
  col_rows_.resize(nt);
  for (int t = 0; t < nt; ++t) {
    adj_[t].clear();
    col_rows_[t].clear();
  }
  for (const auto& [a, b] : pairs_) {
    adj_[a].push_back(b);
    adj_[b].push_back(a);
  }
}

void BlockSparseCholesky::SymbolicWithOrder() {
  // Column t of L holds t's neighbours that come later in the order and the rows of its
  // elimination-tree children other than t (the children's columns are complete before t's).
  const int nt = num_trees();
  mark_.assign(nt, -1);
  child_head_.assign(nt, -1);
  child_next_.assign(nt, -1);
  for (int k = 0; k < nt; ++k) {
    const int t = order_[k];
    std::vector<int>& rows = col_rows_[t];
    rows.clear();
    mark_[t] = k;
    for (int u : adj_[t]) {
      if (position_[u] > k && mark_[u] != k) {
        mark_[u] = k;
        rows.push_back(u);
      }
    }
    for (int c = child_head_[t]; c >= 0; c = child_next_[c]) {
      for (int u : col_rows_[c]) {
        if (mark_[u] != k) {
          mark_[u] = k;
          rows.push_back(u);
        }
      }
    }
    if (rows.empty()) continue;
    int parent = rows[0];
    for (int u : rows) {
      if (position_[u] < position_[parent]) parent = u;
    }
    child_next_[t] = child_head_[parent];
    child_head_[parent] = t;
  }
}

void BlockSparseCholesky::MinimumDegreeOrder() {
  const int nt = num_trees();
  // Minimum-degree elimination on the tree graph (degree weighted by dofs, ties by index). The
  // neighbors of a tree when it is eliminated are the row trees of its column of L. The trees not
  // yet eliminated sit in a binary heap indexed by tree (key: weight, then index), whose top is
  // the tree a scan for the least (weight, index) would pick; a neighbour's key is moved in place
  // when its weight changes. Adjacency lists are unordered sets: a neighbour's list gains the
  // eliminated tree's other neighbours it lacks (found with a stamp array) and its weight is
  // updated by the dofs gained and lost, the same integers a recount would give.
  eliminated_.assign(nt, 0);
  order_.clear();
  position_.assign(nt, -1);
  w_cache_.resize(nt);
  for (int t = 0; t < nt; ++t) {
    std::int64_t w = 0;
    for (int u : adj_[t]) w += tree_nv_[u];
    w_cache_[t] = w;
  }
  auto less = [&](int a, int b) {
    return w_cache_[a] < w_cache_[b] || (w_cache_[a] == w_cache_[b] && a < b);
  };
  std::vector<int>& heap = heap_tree_;
  std::vector<int>& where = heap_pos_;
  heap.resize(nt);
  where.resize(nt);
  std::iota(heap.begin(), heap.end(), 0);
  std::make_heap(heap.begin(), heap.end(), [&](int a, int b) { return less(b, a); });
  for (int i = 0; i < nt; ++i) where[heap[i]] = i;
  auto place = [&](int i, int t) {
    heap[i] = t;
    where[t] = i;
  };
  auto sift_up = [&](int i) {
    const int t = heap[i];
    while (i > 0) {
      const int p = (i - 1) / 2;
      if (!less(t, heap[p])) break;
      place(i, heap[p]);
      i = p;
    }
    place(i, t);
  };
  auto sift_down = [&](int i) {
    const int n = static_cast<int>(heap.size());
    const int t = heap[i];
    for (;;) {
      int c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && less(heap[c + 1], heap[c])) ++c;
      if (!less(heap[c], t)) break;
      place(i, heap[c]);
      i = c;
    }
    place(i, t);
  };
  mark_.assign(nt, -1);
  int stamp = 0;
  for (int step = 0; step < nt; ++step) {
    const int best = heap[0];
    const int last = heap.back();
    heap.pop_back();
    if (!heap.empty()) {
      place(0, last);
      sift_down(0);
    }
    eliminated_[best] = 1;
    position_[best] = step;
    order_.push_back(best);
    // Copies, not swaps, so that every list keeps its own capacity between analyses.
    std::vector<int>& nbrs = col_rows_[best];
    nbrs.assign(adj_[best].begin(), adj_[best].end());
    adj_[best].clear();
    for (int u : nbrs) {
      // adj[u] := adj[u] ∪ nbrs \ {u, best}
      std::vector<int>& au = adj_[u];
      ++stamp;
      std::int64_t w = w_cache_[u];
      for (size_t k = 0; k < au.size();) {
        if (au[k] == best) {
          au[k] = au.back();
          au.pop_back();
          w -= tree_nv_[best];
          continue;
        }
        mark_[au[k]] = stamp;
        ++k;
      }
      for (int x : nbrs) {
        if (x != u && mark_[x] != stamp) {
          au.push_back(x);
          w += tree_nv_[x];
        }
      }
      const std::int64_t old = w_cache_[u];
      w_cache_[u] = w;
      if (w < old) {
        sift_up(where[u]);
      } else if (w > old) {
        sift_down(where[u]);
      }
    }
  }
}

void BlockSparseCholesky::ApproximateMinimumDegreeOrder() {
  // Eigen's AMD on the pattern of the tree graph (one node per tree, unweighted; the choice
  // between the candidates counts the dofs).
  const int nt = num_trees();
  std::vector<Eigen::Triplet<double, int>> entries;
  entries.reserve(2 * pairs_.size() + nt);
  for (int t = 0; t < nt; ++t) entries.emplace_back(t, t, 1.0);
  for (const auto& [a, b] : pairs_) {
    entries.emplace_back(a, b, 1.0);
    entries.emplace_back(b, a, 1.0);
  }
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> pattern(nt, nt);
  pattern.setFromTriplets(entries.begin(), entries.end());
  Eigen::AMDOrdering<int>::PermutationType perm;
  Eigen::AMDOrdering<int>()(pattern, perm);
  order_.assign(perm.indices().data(), perm.indices().data() + nt);  // position -> tree
  position_.assign(nt, -1);
  for (int k = 0; k < nt; ++k) position_[order_[k]] = k;
}

void BlockSparseCholesky::Layout() {
  const int nt = num_trees();
  // Block layout: per column, the diagonal block then the row blocks by elimination position.
  col_begin_.assign(nt + 1, 0);
  block_row_tree_.clear();
  block_col_tree_.clear();
  block_offset_.clear();
  block_rows_.clear();
  block_cols_.clear();
  std::int64_t offset = 0;
  block_row_tree_.reserve(layout_.blocks);
  block_col_tree_.reserve(layout_.blocks);
  block_offset_.reserve(layout_.blocks);
  block_rows_.reserve(layout_.blocks);
  block_cols_.reserve(layout_.blocks);
  auto add_block = [&](int row_tree, int col_tree) {
    const int b = static_cast<int>(block_offset_.size());
    block_row_tree_.push_back(row_tree);
    block_col_tree_.push_back(col_tree);
    block_offset_.push_back(offset);
    block_rows_.push_back(tree_nv_[row_tree]);
    block_cols_.push_back(tree_nv_[col_tree]);
    offset += static_cast<std::int64_t>(tree_nv_[row_tree]) * tree_nv_[col_tree];
    return b;
  };
  for (int k = 0; k < nt; ++k) {
    const int t = order_[k];
    col_begin_[k] = static_cast<int>(block_offset_.size());
    add_block(t, t);
    std::vector<int>& rows = col_rows_[t];
    std::sort(rows.begin(), rows.end(),
              [&](int a, int b) { return position_[a] < position_[b]; });
    for (int r : rows) add_block(r, t);
  }
  col_begin_[nt] = static_cast<int>(block_offset_.size());
  // Not zeroed here: SetZero() precedes every assembly.
  values_.resize(offset);
  inv_diag_.assign(tree_start_[nt], 0.0);
  work_.resize(tree_start_[nt]);
  slot_.assign(nt, -1);
}

int BlockSparseCholesky::BlockIndex(int ti, int tj, bool* transposed) const {
  if (over_budget_ || ti < 0 || tj < 0 || ti >= num_trees() || tj >= num_trees()) return -1;
  if (ti == tj) {
    *transposed = false;
    return col_begin_[position_[ti]];
  }
  // The block lies in the column of the tree eliminated first, whose row blocks are sorted by
  // the elimination position of their row trees.
  const int pi = position_[ti], pj = position_[tj];
  const int k = std::min(pi, pj), row_pos = std::max(pi, pj);
  int lo = col_begin_[k] + 1, hi = col_begin_[k + 1];
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (position_[block_row_tree_[mid]] < row_pos) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == col_begin_[k + 1] || position_[block_row_tree_[lo]] != row_pos) return -1;
  *transposed = block_row_tree_[lo] != ti;
  return lo;
}

void BlockSparseCholesky::SetZero() { std::fill(values_.begin(), values_.end(), 0.0); }

bool BlockSparseCholesky::Factor() {
  const int nt = num_trees();
  const bool avx = wide_kernels_ && CpuHasAvx();
  double* v = values_.data();
  for (int k = 0; k < nt; ++k) {
    const int bd = col_begin_[k];
    const int n = block_rows_[bd];
    double* L = v + block_offset_[bd];
    const bool six = n == 6;
    double* inv = inv_diag_.data() + tree_start_[order_[k]];
    const bool large = n > kBlockedCholeskyMinDofs;
    const bool ok = six     ? CholeskyInPlace<6>(L, n, inv)
                    : large ? BlockedCholeskyInPlace(L, n, inv)
                            : CholeskyInPlace<-1>(L, n, inv);
    if (!ok) return false;
    const int b0 = bd + 1, b1 = col_begin_[k + 1];
    for (int b = b0; b < b1; ++b) {
      double* B = v + block_offset_[b];
      if (six && block_rows_[b] == 6) {
#ifdef CONTACTLAB_AVX_KERNELS
        if (avx) {
          SolveRightLowerTranspose66Avx(L, inv, B);
          continue;
        }
#endif
        SolveRightLowerTranspose<6, 6>(L, inv, n, B, 6);
      } else if (six) {
        SolveRightLowerTranspose<6>(L, inv, n, B, block_rows_[b]);
      } else if (large) {
        // B := B L⁻ᵀ, i.e. solve X Lᵀ = B (blocked triangular solve).
        Eigen::Map<MatX> Bm(B, block_rows_[b], n);
        Eigen::Map<const MatX>(L, n, n)
            .transpose()
            .triangularView<Eigen::Upper>()
            .solveInPlace<Eigen::OnTheRight>(Bm);
      } else {
        SolveRightLowerTranspose<-1>(L, inv, n, B, block_rows_[b]);
      }
    }
    // Schur-complement updates: blocks (bi, bj), bi >= bj, update block (row tree of bi, row
    // tree of bj), which lies in the column of bj's row tree (elimination puts every later row of
    // column k into that column). A scatter of that column's row trees to their block indices
    // finds the targets without searching and without a stored list of targets, whose length
    // (Σ over columns of d(d+1)/2 for d row blocks) would grow with the square of the fill.
    for (int bj = b0; bj < b1; ++bj) {
      const int rj = block_rows_[bj];
      const double* Bj = v + block_offset_[bj];
      const int kj = position_[block_row_tree_[bj]];
      for (int b = col_begin_[kj]; b < col_begin_[kj + 1]; ++b) slot_[block_row_tree_[b]] = b;
      for (int bi = bj; bi < b1; ++bi) {
        const int ri = block_rows_[bi];
        const double* Bi = v + block_offset_[bi];
        const int target = slot_[block_row_tree_[bi]];
        if (target < 0) continue;  // incomplete mode: no block there, the update is dropped
        double* T = v + block_offset_[target];
        if (six && ri == 6 && rj == 6) {
#ifdef CONTACTLAB_AVX_KERNELS
          if (avx) {
            SubtractOuter666Avx(Bi, Bj, T);
            continue;
          }
#endif
          SubtractOuter<6, 6, 6>(Bi, ri, Bj, rj, n, T);
        } else {
          SubtractOuter<-1, -1, -1>(Bi, ri, Bj, rj, n, T);
        }
      }
      if (incomplete_) {
        for (int b = col_begin_[kj]; b < col_begin_[kj + 1]; ++b) slot_[block_row_tree_[b]] = -1;
      }
    }
  }
  return true;
}

void BlockSparseCholesky::Multiply(const VecX& x, VecX* y) const {
  y->setZero(x.size());
  const double* m = matrix_.data();
  for (int b = 0; b < num_blocks(); ++b) {
    const int ti = block_row_tree_[b], tj = block_col_tree_[b];
    const int r = block_rows_[b], c = block_cols_[b];
    const double* B = m + block_offset_[b];
    const int si = tree_start_[ti], sj = tree_start_[tj];
    if (ti == tj) {
      if (r == 6) {
        y->segment<6>(si).noalias() +=
            BlockMap<6, 6>(const_cast<double*>(B)).selfadjointView<Eigen::Lower>() *
            x.segment<6>(si);
      } else {
        y->segment(si, r).noalias() +=
            Eigen::Map<const MatX>(B, r, r).selfadjointView<Eigen::Lower>() * x.segment(si, r);
      }
    } else if (r == 6 && c == 6) {
      const BlockMap<6, 6> Bm(const_cast<double*>(B));
      y->segment<6>(si).noalias() += Bm * x.segment<6>(sj);
      y->segment<6>(sj).noalias() += Bm.transpose() * x.segment<6>(si);
    } else {
      const Eigen::Map<const MatX> Bm(B, r, c);
      y->segment(si, r).noalias() += Bm * x.segment(sj, c);
      y->segment(sj, c).noalias() += Bm.transpose() * x.segment(si, r);
    }
  }
}

bool BlockSparseCholesky::FactorBlockDiagonal() {
  values_ = matrix_;
  const int nt = num_trees();
  for (int k = 0; k < nt; ++k) {
    const int bd = col_begin_[k];
    const int n = block_rows_[bd];
    double* L = values_.data() + block_offset_[bd];
    double* inv = inv_diag_.data() + tree_start_[order_[k]];
    const bool ok = n == 6 ? CholeskyInPlace<6>(L, n, inv)
                    : n > kBlockedCholeskyMinDofs ? BlockedCholeskyInPlace(L, n, inv)
                                                  : CholeskyInPlace<-1>(L, n, inv);
    if (!ok) return false;
    for (int b = bd + 1; b < col_begin_[k + 1]; ++b) {
      std::fill_n(values_.data() + block_offset_[b],
                  static_cast<std::int64_t>(block_rows_[b]) * block_cols_[b], 0.0);
    }
  }
  return true;
}

namespace {

// y_t := L⁻¹ y_t for the n x n lower diagonal block L.
template <int N>
void ForwardDiagonal(const double* L, const double* inv, int n_dyn, double* yt) {
  const int n = N > 0 ? N : n_dyn;
  if (N <= 0 && n > kBlockedCholeskyMinDofs) {
    // Column-oriented: the same subtractions in the same order as below (y_j −= L_jp y_p for
    // p = 0, 1, ..., j − 1, then the scaling), reading L by columns instead of by strided rows.
    for (int p = 0; p < n; ++p) {
      const double yp = yt[p] * inv[p];
      yt[p] = yp;
      const double* Lp = L + p * n;
      for (int j = p + 1; j < n; ++j) yt[j] -= Lp[j] * yp;
    }
    return;
  }
  for (int j = 0; j < n; ++j) {
    double s = yt[j];
    for (int p = 0; p < j; ++p) s -= L[j + p * n] * yt[p];
    yt[j] = s * inv[j];
  }
}

// y_r -= B y_t (B: r x n).
template <int R, int N>
void ForwardOffDiagonal(const double* B, int r_dyn, int n_dyn, const double* yt, double* yr) {
  const int n = N > 0 ? N : n_dyn;
  const int r = R > 0 ? R : r_dyn;
  for (int j = 0; j < n; ++j) {
    const double yj = yt[j];
    for (int i = 0; i < r; ++i) yr[i] -= B[i + j * r] * yj;
  }
}

// y_t -= Bᵀ y_r (B: r x n).
template <int R, int N>
void BackwardOffDiagonal(const double* B, int r_dyn, int n_dyn, const double* yr, double* yt) {
  const int n = N > 0 ? N : n_dyn;
  const int r = R > 0 ? R : r_dyn;
  for (int j = 0; j < n; ++j) {
    double s = 0;
    for (int i = 0; i < r; ++i) s += B[i + j * r] * yr[i];
    yt[j] -= s;
  }
}

// y_t := L⁻ᵀ y_t.
template <int N>
void BackwardDiagonal(const double* L, const double* inv, int n_dyn, double* yt) {
  const int n = N > 0 ? N : n_dyn;
  for (int j = n - 1; j >= 0; --j) {
    double s = yt[j];
    for (int i = j + 1; i < n; ++i) s -= L[i + j * n] * yt[i];
    yt[j] = s * inv[j];
  }
}

}  // namespace

void BlockSparseCholesky::Solve(const VecX& b, VecX* x) {
  const int nt = num_trees();
  const bool avx = wide_kernels_ && CpuHasAvx();
  work_ = b;
  double* y = work_.data();
  const double* v = values_.data();
  // Forward: L y = b.
  for (int k = 0; k < nt; ++k) {
    const int t = order_[k];
    const int bd = col_begin_[k];
    const int n = tree_nv_[t];
    const double* L = v + block_offset_[bd];
    double* yt = y + tree_start_[t];
    if (n == 6) {
      ForwardDiagonal<6>(L, inv_diag_.data() + tree_start_[t], n, yt);
    } else {
      ForwardDiagonal<-1>(L, inv_diag_.data() + tree_start_[t], n, yt);
    }
    for (int b = bd + 1; b < col_begin_[k + 1]; ++b) {
      const int r = block_rows_[b];
      const double* B = v + block_offset_[b];
      double* yr = y + tree_start_[block_row_tree_[b]];
      if (n == 6 && r == 6) {
#ifdef CONTACTLAB_AVX_KERNELS
        if (avx) {
          SubtractMatVec66Avx(B, yt, yr);
          continue;
        }
#endif
        Eigen::Map<Eigen::Matrix<double, 6, 1>>(yr).noalias() -=
            BlockMap<6, 6>(const_cast<double*>(B)) *
            Eigen::Map<const Eigen::Matrix<double, 6, 1>>(yt);
      } else {
        ForwardOffDiagonal<-1, -1>(B, r, n, yt, yr);
      }
    }
  }
  // Backward: Lᵀ x = y.
  for (int k = nt - 1; k >= 0; --k) {
    const int t = order_[k];
    const int bd = col_begin_[k];
    const int n = tree_nv_[t];
    double* yt = y + tree_start_[t];
    for (int b = bd + 1; b < col_begin_[k + 1]; ++b) {
      const int r = block_rows_[b];
      const double* B = v + block_offset_[b];
      const double* yr = y + tree_start_[block_row_tree_[b]];
      if (n == 6 && r == 6) {
        Eigen::Map<Eigen::Matrix<double, 6, 1>>(yt).noalias() -=
            BlockMap<6, 6>(const_cast<double*>(B)).transpose() *
            Eigen::Map<const Eigen::Matrix<double, 6, 1>>(yr);
      } else {
        BackwardOffDiagonal<-1, -1>(B, r, n, yr, yt);
      }
    }
    const double* L = v + block_offset_[bd];
    if (n == 6) {
      BackwardDiagonal<6>(L, inv_diag_.data() + tree_start_[t], n, yt);
    } else {
      BackwardDiagonal<-1>(L, inv_diag_.data() + tree_start_[t], n, yt);
    }
  }
  *x = work_;
}

double BlockSparseCholesky::DiagonalConditionEstimate() const {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (int k = 0; k < num_trees(); ++k) {
    const int bd = col_begin_[k];
    const int n = block_rows_[bd];
    const double* L = values_.data() + block_offset_[bd];
    for (int j = 0; j < n; ++j) {
      lo = std::min(lo, L[j + j * n]);
      hi = std::max(hi, L[j + j * n]);
    }
  }
  return hi > 0 ? (hi / lo) * (hi / lo) : 1.0;
}

std::int64_t DefaultWorkBudgetFlops() {
  if (const char* env = std::getenv("CONTACTLAB_WORK_BUDGET_GFLOP")) {
    char* end = nullptr;
    const double g = std::strtod(env, &end);
    if (end != env && *end == '\0' && g > 0 && g < 1e9) return static_cast<std::int64_t>(g * 1e9);
  }
  std::int64_t budget = std::int64_t{100'000'000'000};
  // A process with a CPU-time limit (ulimit -t) cannot spend more than that on a factorization:
  // 5e8 multiply-adds per second of the limit (the block kernels run at 1-10 GFlop/s).
  rlimit cpu{};
  if (getrlimit(RLIMIT_CPU, &cpu) == 0 && cpu.rlim_cur != RLIM_INFINITY) {
    budget = std::min<std::int64_t>(
        budget, static_cast<std::int64_t>(std::min<double>(static_cast<double>(cpu.rlim_cur), 1e9) * 5e8));
  }
  return std::max<std::int64_t>(budget, 1);
}

std::int64_t DefaultMemoryBudgetBytes() {
  if (const char* env = std::getenv("CONTACTLAB_MEMORY_BUDGET_MB")) {
    char* end = nullptr;
    const double mb = std::strtod(env, &end);
    if (end != env && *end == '\0' && mb > 0 && mb < 1e12) {
      return static_cast<std::int64_t>(mb * 1024.0 * 1024.0);
    }
  }
  std::int64_t budget = std::int64_t{4} << 30;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) budget = static_cast<std::int64_t>(pages) * page_size / 2;
  // A process with an address-space limit (ulimit -v) cannot use more than that: half of it.
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    budget = std::min<std::int64_t>(budget, static_cast<std::int64_t>(as.rlim_cur / 2));
  }
  return budget;
}

}  // namespace contactlab
