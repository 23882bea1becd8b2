// Block-sparse Cholesky factorization of the SAP Hessian H = A + JᵀGJ on the tree graph (SAP
// paper §IV-D / seed §2.4). Each kinematic tree is one dense supernode (its dofs are eliminated
// together with dense kernels); two trees are coupled when a constraint acts on both. The
// symbolic phase picks a minimum-degree (or, for large patterns, AMD) elimination order of the
// trees, computes the block fill pattern of L and the target of every Schur-complement update; it
// is reused for as long as the set of coupled tree pairs (and the tree sizes) is unchanged, i.e.
// between Newton iterations and between steps whose contact graph keeps the same tree pairs. The
// numeric phase allocates nothing.
//
// Usage per Newton iteration: SetPattern (cheap when unchanged), Zero, AddToBlock for the A blocks
// and the JᵀGJ terms, Factor, Solve.
//
// Memory: the factor stores Σ nv_row nv_col doubles over the blocks of L (diagonal blocks and
// fill). The symbolic phase counts them in 64-bit integers before anything of that size is
// allocated (FactorLayoutSize) and refuses a pattern whose estimate exceeds the memory budget
// (set_memory_budget): SetPattern then leaves the factor empty, over_budget() is true and
// Factor()/Solve() must not be called until a pattern within the budget is set.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/common/math.h"

namespace contactlab {

// Sizes of the factor of one block pattern, in 64-bit integers (a 10⁴-tree pile has column
// products past 2³¹).
struct FactorLayoutSize {
  std::int64_t blocks = 0;   // stored blocks of L (diagonal + off-diagonal)
  std::int64_t values = 0;   // doubles of L: Σ over blocks of rows x cols
  std::int64_t updates = 0;  // Schur-complement block updates of one factorization
  std::int64_t flops = 0;    // multiply-adds of one factorization (diagonal Cholesky, triangular
                             // solves and the updates), an estimate of its cost
  std::int64_t bytes = 0;    // estimated memory of the numeric factor and its index arrays
};

// Adds column `col_nv` with off-diagonal row blocks of sizes row_nv[0..num_rows) to *size
// (all 64-bit; exposed so the estimate can be tested on sizes that overflow int).
void AddFactorColumn(std::int64_t col_nv, const std::int64_t* row_nv, std::int64_t num_rows,
                     FactorLayoutSize* size);

// Default budget of the factor memory [bytes]: the value of the environment variable
// CONTACTLAB_MEMORY_BUDGET_MB (mebibytes, > 0) if set, else half of the physical memory (4 GiB
// if that cannot be read), and at most half of the process's address-space limit (RLIMIT_AS).
std::int64_t DefaultMemoryBudgetBytes();

// Default work budget [multiply-adds per factorization]: 1e9 times the value of the environment
// variable CONTACTLAB_WORK_BUDGET_GFLOP (> 0) if set, else 1e11, and at most 5e8 per second of
// the process's CPU-time limit (RLIMIT_CPU, `ulimit -t`).
std::int64_t DefaultWorkBudgetFlops();

class BlockSparseCholesky {
 public:
  // Largest estimated factor memory [bytes] a pattern may need (FactorLayoutSize::bytes);
  // <= 0: no limit. Default: DefaultMemoryBudgetBytes().
  void set_memory_budget(std::int64_t bytes) { memory_budget_ = bytes; }
  std::int64_t memory_budget() const { return memory_budget_; }
  // Minimum degree orders a pattern; when its factorization needs more multiply-adds than this, an
  // approximate minimum degree (AMD) order is computed as well and the cheaper one kept (default
  // 1e8; 0: always compare, a negative value: never, minimum degree only). A pattern of more than
  // 20 000 coupled pairs is ordered by AMD alone (unless the value is negative).
  void set_amd_min_flops(std::int64_t flops) { amd_min_flops_ = flops; }
  // Largest multiply-adds per factorization (FactorLayoutSize::flops) a pattern may need; <= 0: no
  // limit. Default: DefaultWorkBudgetFlops().
  void set_work_budget(std::int64_t flops) { work_budget_ = flops; }
  std::int64_t work_budget() const { return work_budget_; }
  // True when the last SetPattern was refused: layout().bytes > memory_budget(),
  // layout().flops > work_budget() or over_fill_limit(). Nothing of the factor's size is
  // allocated then.
  bool over_budget() const { return over_budget_; }
  // True when the last SetPattern was refused for its work (its memory was within the budget).
  bool over_work_budget() const { return over_work_budget_; }
  // Sizes of the current pattern's factor (computed before the factor is allocated).
  const FactorLayoutSize& layout() const { return layout_; }
  // Limit of the factorization's work beyond the diagonal blocks [multiply-adds]: a (complete)
  // pattern whose layout().flops minus the Cholesky of its diagonal tree blocks (Σ n³/6) exceed
  // it is refused like one over a budget (nothing allocated, over_budget() true) and
  // over_fill_limit() is set, so that the caller can switch to an iterative solve. A pattern over
  // the memory or work budget is refused for that budget (over_fill_limit() false). <= 0: no
  // limit (the default). The diagonal blocks are left out so that one large tree (a long chain,
  // whose dense block an iterative solve would factor too) never trips it.
  void set_fill_work_limit(std::int64_t flops) {
    if (flops != fill_work_limit_) analyzed_ = false;  // the next SetPattern checks it again
    fill_work_limit_ = flops;
  }
  bool over_fill_limit() const { return over_fill_limit_; }

  // Incomplete (no-fill) mode: the pattern holds the diagonal blocks and one block per coupled
  // pair only, in the natural tree order, and Factor() computes the block incomplete Cholesky
  // factor IC(0): Schur-complement updates whose target block is not in the pattern are
  // dropped. Solve() then applies the preconditioner (L Lᵀ)⁻¹ ≈ H⁻¹. Changing the mode redoes
  // the analysis at the next SetPattern.
  void set_incomplete(bool incomplete) {
    if (incomplete != incomplete_) analyzed_ = false;
    incomplete_ = incomplete;
  }
  bool incomplete() const { return incomplete_; }
  // Copies the assembled blocks (before Factor) so that Multiply can apply H afterwards.
  void SaveMatrix() { matrix_ = values_; }
  // y = H x with the saved matrix (diagonal blocks: lower triangle; x, y in tree order; no alias).
  void Multiply(const VecX& x, VecX* y) const;
  // Block-Jacobi factor: restores the saved matrix, factors its diagonal blocks and zeroes the
  // off-diagonal ones, so that Solve() applies blockdiag(H)⁻¹. Returns false if a diagonal block
  // is not SPD.
  bool FactorBlockDiagonal();

  // Sets the block pattern: tree sizes and coupled pairs (ti != tj, any order, duplicates allowed).
  // Redoes the symbolic analysis only if the sizes or the set of pairs differ from the last call.
  // Returns true if the analysis was redone. After an analysis the block values are unspecified
  // until SetZero().
  //
  // With keep_order (and unchanged tree sizes), the elimination order of the last minimum-degree
  // ordering is kept and only the symbolic factorization is redone (fill pattern and update
  // targets, O(fill)); a new ordering is computed when the kept one would need more than 5/4 of
  // the Schur-complement updates it needed when it was computed.
  bool SetPattern(const std::vector<int>& tree_nv, const std::vector<std::pair<int, int>>& pairs,
                  bool keep_order = false);

  // Index of the stored block that holds H(ti, tj) for a coupled pair or ti == tj, and whether it
  // is stored transposed (stored blocks are those of the lower triangle in elimination order).
  // Returns -1 if the pair is not in the pattern.
  int BlockIndex(int ti, int tj, bool* transposed) const;
  // BlockIndex(t, t) for a tree of the current pattern (0 <= t < num_trees(), not over budget).
  int DiagonalBlock(int t) const { return col_begin_[position_[t]]; }

  void SetZero();
  // Pointer to the column-major values of block `b` (rows x cols as given by BlockRows/Cols).
  double* BlockData(int b) { return values_.data() + block_offset_[b]; }
  const double* BlockData(int b) const { return values_.data() + block_offset_[b]; }
  int BlockRows(int b) const { return block_rows_[b]; }
  int BlockCols(int b) const { return block_cols_[b]; }
  int BlockRowTree(int b) const { return block_row_tree_[b]; }
  int BlockColTree(int b) const { return block_col_tree_[b]; }

  // Factorizes in place. Returns false if a diagonal pivot is not positive (H not SPD).
  bool Factor();
  // Whether Factor and Solve may use 256-bit vector kernels for 6 x 6 blocks where the processor
  // has them (default true). They give the same results to the bit as the 128-bit ones; the
  // switch is for the test that checks it.
  void set_wide_kernels(bool on) { wide_kernels_ = on; }
  // x = H⁻¹ b (b, x: Σ tree_nv in tree order; may alias).
  void Solve(const VecX& b, VecX* x);

  // Cheap conditioning estimate from the factor: (max diag L / min diag L)², a lower bound of
  // cond₂(H) when H is diagonal and typically within a small factor of it otherwise.
  double DiagonalConditionEstimate() const;

  int num_trees() const { return static_cast<int>(tree_nv_.size()); }
  int num_pairs() const { return static_cast<int>(pairs_.size()); }  // distinct coupled pairs
  int num_blocks() const { return static_cast<int>(block_offset_.size()); }
  int num_analyses() const { return num_analyses_; }  // symbolic analyses since construction
  int num_orderings() const { return num_orderings_; }  // orderings among them
  // Orderings that kept Eigen's approximate minimum degree order (fewer multiply-adds than
  // minimum degree).
  int num_amd_orderings() const { return num_amd_orderings_; }
  // Schur-complement block updates of one factorization (a measure of its cost).
  std::int64_t num_updates() const { return layout_.updates; }

  // Connected components of the tree graph of the current pattern: component id per tree.
  const std::vector<int>& component() const { return component_; }
  int num_components() const { return num_components_; }

 private:
  void Analyze(bool keep_order);
  void BuildAdjacency();
  void MinimumDegreeOrder();   // order_, position_ and col_rows_ from adj_ (consumes adj_)
  void ApproximateMinimumDegreeOrder();  // order_ and position_ from pairs_ (Eigen's AMD)
  void SymbolicWithOrder();    // col_rows_ from adj_ and the kept order_
  // Sizes of the factor from col_rows_ (no allocation of that size); sets layout_.
  void EstimateLayout();
  void Layout();  // blocks, lookup and values from col_rows_

  std::vector<int> tree_nv_;
  std::vector<int> tree_start_;                  // offset of each tree's dofs in b and x
  std::vector<std::pair<int, int>> pairs_;       // sorted, unique, (max, min)
  std::vector<std::pair<int, int>> pairs_scratch_;
  std::vector<int> order_;                       // elimination position -> tree
  std::vector<int> position_;                    // tree -> elimination position
  // Per elimination column k (tree order_[k]): diagonal block, then off-diagonal blocks whose
  // row trees are in increasing elimination position, as [col_begin_[k], col_begin_[k + 1]).
  std::vector<int> col_begin_;
  std::vector<int> block_row_tree_, block_col_tree_;  // per block, row and column tree
  std::vector<std::int64_t> block_offset_;            // per block, offset into values_
  std::vector<int> block_rows_, block_cols_;
  // Analysis scratch, kept so that repeated analyses do not reallocate.
  std::vector<std::vector<int>> adj_, col_rows_;
  std::vector<int> merged_, slot_, mark_, child_head_, child_next_;
  std::vector<char> eliminated_;
  std::vector<std::int64_t> w_cache_;
  std::vector<int> heap_tree_, heap_pos_;  // minimum-degree heap: trees, and each tree's slot
  std::vector<std::int64_t> row_nv_scratch_;
  std::vector<int> component_;
  int num_components_ = 0;
  std::vector<double> values_;
  std::vector<double> inv_diag_;                 // per dof (tree order): 1 / L_jj after Factor
  VecX work_;
  int num_analyses_ = 0;
  int num_orderings_ = 0;
  int num_amd_orderings_ = 0;
  std::int64_t amd_min_flops_ = 100'000'000;
  std::vector<int> md_order_;  // minimum-degree order while AMD's is compared
  std::int64_t ordered_updates_ = 0;  // update count when the current order was computed
  bool analyzed_ = false;
  FactorLayoutSize layout_;
  std::int64_t memory_budget_ = DefaultMemoryBudgetBytes();
  bool over_budget_ = false;
  std::int64_t work_budget_ = DefaultWorkBudgetFlops();
  bool over_work_budget_ = false;
  std::int64_t fill_work_limit_ = 0;
  bool over_fill_limit_ = false;
  bool incomplete_ = false;
  bool wide_kernels_ = true;
  std::vector<double> matrix_;  // SaveMatrix(): the assembled H, for Multiply
};

}  // namespace contactlab
