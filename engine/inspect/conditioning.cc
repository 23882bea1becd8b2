#include "engine/inspect/conditioning.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <utility>

#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>

#include "engine/solvers/sap/sap_model.h"
#include "engine/solvers/sap/sap_solver.h"

namespace contactlab {
namespace {

using Triplet = Eigen::Triplet<double>;

// Largest eigenvalue of the symmetric operator `op` (n x n) by Lanczos with full
// reorthogonalization from a fixed start vector. Stops when the Ritz residual bound
// β_j |s_j| <= tol θ (then |θ − λ_max| <= tol θ in exact arithmetic) or on an invariant subspace.
double LanczosLargest(int n, const std::function<void(const VecX&, VecX*)>& op, double tol,
                      int max_steps, int* steps, bool* converged) {
  max_steps = std::max(1, std::min(max_steps, n));
  MatX Q(n, max_steps);
  std::vector<double> alpha, beta;
  // Deterministic start with components in every direction (no eigenvector is missed unless
  // it is exactly orthogonal to this vector).
  VecX q(n);
  for (int i = 0; i < n; ++i) q(i) = 1.0 + 0.5 * std::sin(1.0 + 0.7 * i);
  q.normalize();
  VecX w(n);
  double theta = 0;
  int next_check = 1;
  *converged = false;
  *steps = 0;
  for (int j = 0; j < max_steps; ++j) {
    Q.col(j) = q;
    op(q, &w);
    const double a = q.dot(w);
    alpha.push_back(a);
    // Full reorthogonalization, twice ("twice is enough").
    for (int pass = 0; pass < 2; ++pass) {
      const VecX c = Q.leftCols(j + 1).transpose() * w;
      w -= Q.leftCols(j + 1) * c;
    }
    const double b = w.norm();
    *steps = j + 1;
    // Ritz values of the m x m tridiagonal matrix. Its eigen-solve costs O(m³), so after the
    // first steps the test runs on a geometric schedule (every m/8 steps), and at the end.
    const int m = j + 1;
    const bool invariant = b <= 1e-300 || !std::isfinite(b);
    if (m <= 8 || m >= next_check || m == max_steps || invariant) {
      next_check = m + std::max(1, m / 8);
      VecX diag(m), sub(std::max(m - 1, 1));
      for (int i = 0; i < m; ++i) diag(i) = alpha[i];
      for (int i = 0; i + 1 < m; ++i) sub(i) = beta[i];
      double bound = b;
      if (m == 1) {
        theta = diag(0);
      } else {
        Eigen::SelfAdjointEigenSolver<MatX> es;
        es.computeFromTridiagonal(diag, sub.head(m - 1), Eigen::ComputeEigenvectors);
        theta = es.eigenvalues()(m - 1);
        bound = b * std::abs(es.eigenvectors()(m - 1, m - 1));
      }
      if (bound <= tol * std::abs(theta)) {
        *converged = true;
        break;
      }
    }
    if (b <= 1e-300 || !std::isfinite(b)) {  // invariant subspace: θ is exact
      *converged = std::isfinite(b);
      break;
    }
    beta.push_back(b);
    q = w / b;
  }
  return theta;
}

// Number of indices in [0, size) that fall in each of `cells` cells (index i -> i cells / size).
std::vector<int> CellCounts(int size, int cells) {
  std::vector<int> count(cells, 0);
  for (int i = 0; i < size; ++i)
    ++count[static_cast<int>(static_cast<long long>(i) * cells / size)];
  return count;
}

}  // namespace

SparsityImage ComputeSparsityImage(const SparseMat& m, int max_width, int max_height) {
  SparsityImage img;
  img.rows = static_cast<int>(m.rows());
  img.cols = static_cast<int>(m.cols());
  img.width = std::max(0, std::min(max_width, img.cols));
  img.height = std::max(0, std::min(max_height, img.rows));
  if (img.width == 0 || img.height == 0) {
    img.width = img.height = 0;
    for (int k = 0; k < m.outerSize(); ++k)
      for (SparseMat::InnerIterator it(m, k); it; ++it) img.nonzeros += it.value() != 0.0;
    return img;
  }
  std::vector<long long> nnz(static_cast<size_t>(img.width) * img.height, 0);
  for (int k = 0; k < m.outerSize(); ++k) {
    for (SparseMat::InnerIterator it(m, k); it; ++it) {
      if (it.value() == 0.0) continue;
      ++img.nonzeros;
      const int y = static_cast<int>(static_cast<long long>(it.row()) * img.height / img.rows);
      const int x = static_cast<int>(static_cast<long long>(it.col()) * img.width / img.cols);
      ++nnz[static_cast<size_t>(y) * img.width + x];
    }
  }
  const std::vector<int> rows_in = CellCounts(img.rows, img.height);
  const std::vector<int> cols_in = CellCounts(img.cols, img.width);
  img.cells.assign(nnz.size(), 0);
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      const long long n = nnz[static_cast<size_t>(y) * img.width + x];
      if (n == 0) continue;
      const double area = static_cast<double>(rows_in[y]) * cols_in[x];
      const long long v = std::llround(255.0 * static_cast<double>(n) / area);
      img.cells[static_cast<size_t>(y) * img.width + x] =
          static_cast<std::uint8_t>(std::clamp<long long>(v, 1, 255));
    }
  }
  return img;
}

EigenvalueBounds EstimateExtremeEigenvalues(const SparseMat& H, double tolerance, int max_steps) {
  EigenvalueBounds out;
  const int n = static_cast<int>(H.rows());
  if (n == 0) return out;
  bool conv_max = false, conv_min = false;
  out.lambda_max = LanczosLargest(
      n, [&](const VecX& x, VecX* y) { *y = H * x; }, tolerance, max_steps, &out.iterations_max,
      &conv_max);
  Eigen::SimplicialLLT<SparseMat, Eigen::Lower> llt(H);
  if (llt.info() != Eigen::Success) {
    out.ok = false;
    out.converged = false;
    out.lambda_min = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  const double mu = LanczosLargest(
      n, [&](const VecX& x, VecX* y) { *y = llt.solve(x); }, tolerance, max_steps,
      &out.iterations_min, &conv_min);
  out.lambda_min = 1.0 / mu;
  out.converged = conv_max && conv_min;
  return out;
}

SparseMat BuildSapHessian(const ContactProblem& problem, const SolverResult& result,
                          const VecX& v) {
  std::vector<Triplet> t;
  for (int tr = 0; tr < problem.num_trees(); ++tr) {
    const int s = problem.tree_v_start[tr];
    const MatX& A = problem.A[tr];
    for (int j = 0; j < A.cols(); ++j)
      for (int i = 0; i < A.rows(); ++i)
        if (A(i, j) != 0.0) t.emplace_back(s + i, s + j, A(i, j));
  }
  if (problem.num_rows > 0) {
    VecX vc, gamma;
    std::vector<Mat3> G;
    problem.ConstraintVelocities(v, &vc);
    result.laws.Evaluate(vc, &gamma, &G, nullptr);
    for (size_t i = 0; i < problem.constraints.size(); ++i) {
      const ConstraintData& c = problem.constraints[i];
      const MatX Gi = G[i].topLeftCorner(c.num_rows, c.num_rows);
      for (int a = 0; a < c.num_blocks; ++a) {
        for (int b = 0; b < c.num_blocks; ++b) {
          const TreeJacobianBlock& ba = c.blocks[a];
          const TreeJacobianBlock& bb = c.blocks[b];
          const MatX blk = ba.J.transpose() * Gi * bb.J;
          const int ra = problem.tree_v_start[ba.tree], cb = problem.tree_v_start[bb.tree];
          for (int j = 0; j < blk.cols(); ++j)
            for (int k = 0; k < blk.rows(); ++k)
              if (blk(k, j) != 0.0) t.emplace_back(ra + k, cb + j, blk(k, j));
        }
      }
    }
  }
  SparseMat H(problem.nv, problem.nv);
  H.setFromTriplets(t.begin(), t.end());
  return H;
}

SparseMat JacobiScaled(const SparseMat& H) {
  const int n = static_cast<int>(H.rows());
  VecX d = H.diagonal();
  for (int i = 0; i < n; ++i) {
    if (!(d(i) > 0) || !std::isfinite(d(i))) return SparseMat();
    d(i) = 1.0 / std::sqrt(d(i));
  }
  SparseMat S = H;
  // The diagonal is 1 by construction; set exactly (d_i² H_ii rounds to 1 ± 1 ulp).
  for (int k = 0; k < S.outerSize(); ++k)
    for (SparseMat::InnerIterator it(S, k); it; ++it)
      it.valueRef() = it.row() == it.col() ? 1.0 : it.value() * d(it.row()) * d(it.col());
  return S;
}

SparseMat BuildSparseJacobian(const ContactProblem& problem) {
  std::vector<Triplet> t;
  for (const ConstraintData& c : problem.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      const int s = problem.tree_v_start[b.tree];
      for (int j = 0; j < b.J.cols(); ++j)
        for (int i = 0; i < b.J.rows(); ++i)
          if (b.J(i, j) != 0.0) t.emplace_back(c.first_row + i, s + j, b.J(i, j));
    }
  }
  SparseMat J(problem.num_rows, problem.nv);
  J.setFromTriplets(t.begin(), t.end());
  return J;
}

ConditioningReport AnalyzeConditioning(const ContactProblem& problem, const SolverResult& result,
                                       const ConditioningOptions& options) {
  ConditioningReport rep;
  rep.n = problem.nv;
  rep.num_rows = problem.num_rows;
  if (result.v.size() != problem.nv || result.laws.num_rows() != problem.num_rows ||
      result.laws.num_constraints() != static_cast<int>(problem.constraints.size())) {
    rep.ok = false;
    rep.converged = false;
    rep.message = "the result does not match the problem (no solve recorded?)";
    return rep;
  }
  const SparseMat H = BuildSapHessian(problem, result, result.v);
  const SparseMat J = BuildSparseJacobian(problem);

  // Sparsity images with the structural blocks: (tree, tree) pairs of H coupled by A or by a
  // constraint, and (constraint, tree) blocks of J.
  rep.H_pattern = ComputeSparsityImage(H, options.image_width, options.image_height);
  rep.J_pattern = ComputeSparsityImage(J, options.image_width, options.image_height);
  std::set<std::pair<int, int>> pairs;
  for (int tr = 0; tr < problem.num_trees(); ++tr)
    if (problem.tree_nv[tr] > 0) pairs.insert({tr, tr});
  for (const ConstraintData& c : problem.constraints) {
    for (int k = 0; k < c.num_blocks; ++k) {
      rep.J_pattern.blocks.push_back({c.first_row, problem.tree_v_start[c.blocks[k].tree],
                                      c.num_rows, problem.tree_nv[c.blocks[k].tree]});
      for (int l = 0; l < c.num_blocks; ++l) pairs.insert({c.blocks[k].tree, c.blocks[l].tree});
    }
  }
  for (const auto& [ti, tj] : pairs) {
    rep.H_pattern.blocks.push_back({problem.tree_v_start[ti], problem.tree_v_start[tj],
                                    problem.tree_nv[ti], problem.tree_nv[tj]});
  }

  if (rep.n == 0) {
    rep.ok = false;
    rep.converged = false;
    rep.message = "empty problem (no degrees of freedom)";
    return rep;
  }
  if (!Eigen::Map<const VecX>(H.valuePtr(), H.nonZeros()).allFinite()) {
    rep.ok = false;
    rep.converged = false;
    rep.message = "H has non-finite entries";
    return rep;
  }
  if (rep.n <= options.exact_max_size) {
    rep.exact = true;
    Eigen::SelfAdjointEigenSolver<MatX> es(MatX(H), Eigen::EigenvaluesOnly);
    if (es.info() != Eigen::Success) {
      rep.ok = false;
      rep.converged = false;
      rep.message = "the eigen-solve did not converge";
      return rep;
    }
    const VecX& ev = es.eigenvalues();  // ascending
    rep.eigenvalues.assign(ev.data(), ev.data() + ev.size());
    rep.lambda_min = ev(0);
    rep.lambda_max = ev(ev.size() - 1);
    const SparseMat S = JacobiScaled(H);
    if (S.rows() == rep.n) {
      Eigen::SelfAdjointEigenSolver<MatX> ss(MatX(S), Eigen::EigenvaluesOnly);
      if (ss.info() == Eigen::Success) {
        rep.scaled_lambda_min = ss.eigenvalues()(0);
        rep.scaled_lambda_max = ss.eigenvalues()(rep.n - 1);
      } else {
        rep.scaled_converged = false;
      }
    }
  } else {
    rep.exact = false;
    const EigenvalueBounds b =
        EstimateExtremeEigenvalues(H, options.tolerance, options.max_lanczos_steps);
    if (!b.ok) {
      rep.ok = false;
      rep.converged = false;
      rep.message = "the Cholesky factorization of H failed (H is not positive definite)";
      return rep;
    }
    rep.lambda_min = b.lambda_min;
    rep.lambda_max = b.lambda_max;
    rep.converged = b.converged;
    if (!b.converged) rep.message = "the iterative estimate did not reach the tolerance";
    const SparseMat S = JacobiScaled(H);
    if (S.rows() == rep.n) {
      const EigenvalueBounds sb =
          EstimateExtremeEigenvalues(S, options.tolerance, options.max_lanczos_steps);
      rep.scaled_lambda_min = sb.ok ? sb.lambda_min : 0.0;
      rep.scaled_lambda_max = sb.lambda_max;
      rep.scaled_converged = sb.ok && sb.converged;
    }
  }
  rep.condition_number = rep.lambda_max / rep.lambda_min;
  rep.scaled_condition_number = rep.scaled_lambda_min > 0
                                    ? rep.scaled_lambda_max / rep.scaled_lambda_min
                                    : std::numeric_limits<double>::quiet_NaN();
  if (!(rep.lambda_min > 0)) {
    rep.ok = false;
    rep.message = "H is not positive definite (λ_min <= 0)";
  }
  return rep;
}

}  // namespace contactlab
