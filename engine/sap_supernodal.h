// Block-sparse Cholesky factorization of the SAP Hessian H = A + JᵀGJ on the tree graph (SAP
// paper §IV-D / seed §2.4). Each kinematic tree is one dense supernode (its dofs are eliminated
// together with dense kernels); two trees are coupled when a constraint acts on both. The
// symbolic phase picks a minimum-degree elimination order of the trees, computes the block fill
// pattern of L and the target of every Schur-complement update; it is reused for as long as the
// set of coupled tree pairs (and the tree sizes) is unchanged, i.e. between Newton iterations and
// between steps whose contact graph keeps the same tree pairs. The numeric phase allocates nothing.
//
// Usage per Newton iteration: SetPattern (cheap when unchanged), Zero, AddToBlock for the A blocks
// and the JᵀGJ terms, Factor, Solve.
#pragma once

#include <utility>
#include <vector>

#include "engine/math.h"

namespace contactlab {

class BlockSparseCholesky {
 public:
  // Sets the block pattern: tree sizes and coupled pairs (ti != tj, any order, duplicates allowed).
  // Redoes the symbolic analysis only if the sizes or the set of pairs differ from the last call.
  // Returns true if the analysis was redone.
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

  void SetZero();
  // Pointer to the column-major values of block `b` (rows x cols as given by BlockRows/Cols).
  double* BlockData(int b) { return values_.data() + block_offset_[b]; }
  int BlockRows(int b) const { return block_rows_[b]; }
  int BlockCols(int b) const { return block_cols_[b]; }
  int BlockRowTree(int b) const { return block_row_tree_[b]; }
  int BlockColTree(int b) const { return block_col_tree_[b]; }

  // Factorizes in place. Returns false if a diagonal pivot is not positive (H not SPD).
  bool Factor();
  // x = H⁻¹ b (b, x: Σ tree_nv in tree order; may alias).
  void Solve(const VecX& b, VecX* x);

  // Cheap conditioning estimate from the factor: (max diag L / min diag L)², a lower bound of
  // cond₂(H) when H is diagonal and typically within a small factor of it otherwise.
  double DiagonalConditionEstimate() const;

  int num_trees() const { return static_cast<int>(tree_nv_.size()); }
  int num_pairs() const { return static_cast<int>(pairs_.size()); }  // distinct coupled pairs
  int num_blocks() const { return static_cast<int>(block_offset_.size()); }
  int num_analyses() const { return num_analyses_; }  // symbolic analyses since construction
  int num_orderings() const { return num_orderings_; }  // minimum-degree orderings among them
  // Schur-complement block updates of one factorization (a measure of its cost).
  int num_updates() const { return static_cast<int>(update_target_.size()); }

  // Connected components of the tree graph of the current pattern: component id per tree.
  const std::vector<int>& component() const { return component_; }
  int num_components() const { return num_components_; }

 private:
  void Analyze(bool keep_order);
  void BuildAdjacency();
  void MinimumDegreeOrder();   // order_, position_ and col_rows_ from adj_ (consumes adj_)
  void SymbolicWithOrder();    // col_rows_ from adj_ and the kept order_
  void Layout();               // blocks, lookup, values and update targets from col_rows_

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
  std::vector<int> block_offset_, block_rows_, block_cols_;
  // Schur updates of column k: for each off-diagonal pair (i >= j) of its blocks, the target block
  // (row tree of i, row tree of j): [update_begin_[k], update_begin_[k + 1]) into update_target_.
  std::vector<int> update_begin_, update_target_;
  // Lookup of stored blocks per tree: sorted (other tree, block) lists of the lower blocks in the
  // tree's column and of the blocks where the tree is the row.
  std::vector<std::vector<std::pair<int, int>>> lookup_;  // per tree: (other tree, block)
  // Analysis scratch, kept so that repeated analyses do not reallocate.
  std::vector<std::vector<int>> adj_, col_rows_;
  std::vector<int> merged_, slot_, mark_, child_head_, child_next_;
  std::vector<char> eliminated_;
  std::vector<long> w_cache_;
  std::vector<std::pair<long, int>> heap_;
  std::vector<int> component_;
  int num_components_ = 0;
  std::vector<double> values_;
  std::vector<double> inv_diag_;                 // per dof (tree order): 1 / L_jj after Factor
  VecX work_;
  int num_analyses_ = 0;
  int num_orderings_ = 0;
  long ordered_updates_ = 0;  // update count when the current order was computed
  bool analyzed_ = false;
};

}  // namespace contactlab
