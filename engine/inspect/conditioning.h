// The debugger's conditioning panel: the SAP Hessian H = A + JᵀGJ of a recorded step at its
// returned velocities, its condition number cond₂(H) = λ_max / λ_min, its spectrum, and the
// sparsity patterns of H and J downsampled for drawing as images.
//
// cond₂(H) of the unscaled H mixes units (masses [kg] against moments of inertia [kg m²]), so it
// is also reported for the Jacobi-scaled D H D with D = diag(H)^(-1/2) (unit diagonal,
// dimensionless): the conditioning left once each dof is measured in its own units.
//
// cond₂(H) (and cond₂(D H D)) is exact (dense symmetric eigen-solve) for n <= ConditioningOptions::exact_max_size;
// above, λ_max comes from Lanczos iterations on H and λ_min from Lanczos on H⁻¹ (inverse
// iteration accelerated by Lanczos, each product a sparse Cholesky solve), both with full
// reorthogonalization and stopped when the Ritz residual bound guarantees the relative tolerance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/SparseCore>

#include "engine/contact/contact_problem.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

using SparseMat = Eigen::SparseMatrix<double>;

// A rectangle of a matrix that holds nonzeros: H blocks are (tree, tree) pairs, J blocks are
// (constraint rows, tree columns). Matrix coordinates, 0-based.
struct MatrixBlock {
  int row = 0, col = 0, rows = 0, cols = 0;
};

// Nonzero pattern of a rows x cols matrix on a width x height grid of cells (at most the sizes
// requested, and never more cells than entries). Cell (x, y) covers matrix rows
// [y rows / height, (y+1) rows / height) and the analogous columns. Its value is 0 when the cell
// holds no nonzero entry, else max(1, round(255 nnz / entries)): the fill fraction in 1..255.
struct SparsityImage {
  int rows = 0, cols = 0;
  int width = 0, height = 0;
  std::vector<std::uint8_t> cells;  // height x width, row-major
  long long nonzeros = 0;           // entries != 0 in the matrix
  std::vector<MatrixBlock> blocks;  // structural blocks (filled by AnalyzeConditioning)
  std::uint8_t at(int x, int y) const { return cells[static_cast<size_t>(y) * width + x]; }
};
SparsityImage ComputeSparsityImage(const SparseMat& m, int max_width, int max_height);

// Extreme eigenvalues of an SPD matrix.
struct EigenvalueBounds {
  double lambda_min = 0, lambda_max = 0;
  int iterations_max = 0, iterations_min = 0;  // Lanczos steps spent on each
  bool converged = false;  // both estimates met the tolerance
  bool ok = true;          // false: the Cholesky factorization failed (not SPD)
};
// Iterative estimate (see the file comment). `tolerance` is the relative accuracy each
// eigenvalue is iterated to (a guaranteed bound in exact arithmetic: |θ − λ| <= ‖r‖ <= tol θ);
// `max_steps` caps the Lanczos steps per eigenvalue (and is capped at n). Ritz values never
// overshoot: λ_max is never overestimated and λ_min never underestimated, so an estimate that did
// not converge gives a lower bound on cond₂.
EigenvalueBounds EstimateExtremeEigenvalues(const SparseMat& H, double tolerance = 1e-6,
                                            int max_steps = 300);

struct ConditioningOptions {
  int exact_max_size = 600;   // n <= this: exact dense eigen-solve; above: iterative estimate
  double tolerance = 1e-6;    // relative accuracy of the iterative eigenvalues
  int max_lanczos_steps = 300;
  int image_width = 256;      // maximum cells of the sparsity images
  int image_height = 256;
};

struct ConditioningReport {
  int n = 0;                 // nv, size of H
  int num_rows = 0;          // rows of J
  bool exact = false;        // true: dense eigen-solve; false: iterative estimate
  bool ok = true;            // false: see message
  bool converged = true;     // iterative estimate met the tolerance (always true if exact)
  double lambda_min = 0, lambda_max = 0;  // [kg]
  double condition_number = 0;            // λ_max / λ_min [-]
  // Jacobi-scaled D H D, D = diag(H)^(-1/2), by the same method (exact or iterative) [-].
  double scaled_lambda_min = 0, scaled_lambda_max = 0;
  double scaled_condition_number = 0;  // cond₂(D H D); NaN when diag(H) has an entry <= 0
  bool scaled_converged = true;        // iterative estimate of D H D met the tolerance
  std::vector<double> eigenvalues;        // ascending, all n of them; only when exact
  SparsityImage H_pattern, J_pattern;
  std::string message;
};

// H = A + JᵀGJ at `v` with the laws `result` reports (its model and per-constraint constants),
// so it is the Hessian of the cost the solver minimized. Sparse, symmetric (both triangles), nv x nv [kg].
SparseMat BuildSapHessian(const ContactProblem& problem, const SolverResult& result,
                          const VecX& v);
// D H D with D = diag(H)^(-1/2) (the Jacobi scaling): unit diagonal (exactly 1.0), same
// sparsity, so a diagonal H scales to the identity (cond₂ exactly 1). Returns an
// empty (0 x 0) matrix when some diagonal entry of H is not > 0.
SparseMat JacobiScaled(const SparseMat& H);
// J as a sparse matrix (num_rows x nv).
SparseMat BuildSparseJacobian(const ContactProblem& problem);

// Conditioning of a recorded step at its solution (result.v).
ConditioningReport AnalyzeConditioning(const ContactProblem& problem, const SolverResult& result,
                                       const ConditioningOptions& options = {});

}  // namespace contactlab
