#include "engine/solvers/common/problem_checks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace contactlab {

namespace {

// x·0 is 0 for finite x and NaN for ±inf and NaN: one sum screens a whole array.
inline double FiniteScreen(const double* x, Eigen::Index n) {
  return Eigen::Map<const VecX>(x, n).sum() * 0.0;
}

// True when every input CheckFinite examines is finite: a branch-free screen over the arrays, so
// that the usual (valid) case costs one pass over the data.
bool AllInputsFinite(const ContactProblem& p, const VecX& v_guess) {
  double acc = FiniteScreen(p.v_star.data(), p.v_star.size()) +
               FiniteScreen(v_guess.data(), v_guess.size());
  const bool have_M = static_cast<int>(p.M.size()) == p.num_trees();
  for (int t = 0; t < p.num_trees(); ++t) {
    acc += FiniteScreen(p.A[t].data(), p.A[t].size());
    if (have_M) acc += FiniteScreen(p.M[t].data(), p.M[t].size());
  }
  for (const ConstraintData& c : p.constraints) {
    acc += FiniteScreen(c.bias.data(), c.num_rows);
    for (int k = 0; k < c.num_blocks; ++k) {
      acc += FiniteScreen(c.blocks[k].J.data(), c.blocks[k].J.size());
    }
  }
  return acc == 0;
}

}  // namespace

// Structural checks a malformed problem would crash on. Returns an empty string if well formed.
std::string CheckProblemStructure(const ContactProblem& p, const VecX& v_guess) {
  std::ostringstream os;
  const int nt = p.num_trees();
  if (p.nv < 0 || static_cast<int>(p.tree_v_start.size()) != nt ||
      static_cast<int>(p.A.size()) != nt) {
    return "malformed problem: tree arrays (tree_v_start, tree_nv, A) differ in size";
  }
  int total = 0;
  for (int t = 0; t < nt; ++t) {
    const int s = p.tree_v_start[t], n = p.tree_nv[t];
    if (s < 0 || n < 0 || s + n > p.nv || p.A[t].rows() != n || p.A[t].cols() != n ||
        (static_cast<int>(p.M.size()) == nt && (p.M[t].rows() != n || p.M[t].cols() != n))) {
      os << "malformed problem: tree " << t << " has an inconsistent range or A/M block size";
      return os.str();
    }
    total += n;
  }
  if (total != p.nv) return "malformed problem: the trees do not cover the nv velocities";
  if (p.v_star.size() != p.nv) return "malformed problem: v_star has the wrong size";
  if (v_guess.size() != p.nv) return "malformed input: v_guess has the wrong size";
  if (!(p.time_step > 0)) return "malformed problem: time_step must be > 0";
  int rows = 0;
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    const int expected = c.kind == ConstraintKind::kFrictionCone ? 3
                         : c.kind == ConstraintKind::kBilateral && c.num_rows == 3 ? 3
                                                                                   : 1;
    bool ok = c.num_rows == expected && c.first_row == rows && c.num_blocks >= 0 &&
              c.num_blocks <= 2;
    for (int k = 0; ok && k < c.num_blocks; ++k) {
      const TreeJacobianBlock& b = c.blocks[k];
      ok = b.tree >= 0 && b.tree < nt && b.J.rows() == c.num_rows &&
           b.J.cols() == p.tree_nv[b.tree];
    }
    if (!ok) {
      os << "malformed problem: constraint " << i << " has inconsistent rows or Jacobian blocks";
      return os.str();
    }
    if (c.num_blocks == 2 && c.blocks[0].tree == c.blocks[1].tree) {
      // The Hessian, the Delassus estimate and the island split take the two blocks of a
      // constraint to act on two different trees.
      os << "malformed problem: constraint " << i << " has both Jacobian blocks on tree "
         << c.blocks[0].tree << " (give one block, their sum)";
      return os.str();
    }
    rows += c.num_rows;
  }
  if (rows != p.num_rows) return "malformed problem: num_rows differs from the constraints' rows";
  return {};
}


std::string CheckProblemFinite(const ContactProblem& p, const VecX& v_guess) {
  if (AllInputsFinite(p, v_guess)) return {};
  std::ostringstream os;
  if (!p.v_star.allFinite()) return "non-finite v_star";
  if (!v_guess.allFinite()) return "non-finite v_guess";
  for (int t = 0; t < p.num_trees(); ++t) {
    if (!p.A[t].allFinite()) {
      os << "non-finite A block of tree " << t;
      return os.str();
    }
    if (static_cast<int>(p.M.size()) == p.num_trees() && !p.M[t].allFinite()) {
      os << "non-finite M block of tree " << t;
      return os.str();
    }
  }
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    bool ok = c.bias.head(c.num_rows).allFinite();
    for (int k = 0; k < c.num_blocks; ++k) ok = ok && c.blocks[k].J.allFinite();
    if (!ok) {
      os << "constraint " << i << ": non-finite Jacobian or bias";
      return os.str();
    }
  }
  return {};
}


std::string CheckProblemInput(const ContactProblem& p, const VecX& v_guess,
                              const ConstraintBundle* laws) {
  std::string error = CheckProblemStructure(p, v_guess);
  if (error.empty()) error = CheckProblemFinite(p, v_guess);
  if (error.empty() && laws) error = laws->Check();
  return error;
}

double MomentumError(const ContactProblem& p, const VecX& v, const VecX& gamma) {
  const bool have_M = static_cast<int>(p.M.size()) == p.num_trees();
  VecX jc = VecX::Zero(p.nv);
  p.AddJacobianTransposeTimes(gamma, &jc);
  double grad2 = 0, mom2 = 0, imp2 = 0;
  for (int t = 0; t < p.num_trees(); ++t) {
    const int s = p.tree_v_start[t], n = p.tree_nv[t];
    const MatX& Mt = have_M ? p.M[t] : p.A[t];
    const VecX D = Mt.diagonal().cwiseMax(0).cwiseSqrt().cwiseInverse();
    const VecX grad = p.A[t] * (v.segment(s, n) - p.v_star.segment(s, n)) - jc.segment(s, n);
    grad2 += D.cwiseProduct(grad).squaredNorm();
    mom2 += D.cwiseProduct(Mt * v.segment(s, n)).squaredNorm();
    imp2 += D.cwiseProduct(jc.segment(s, n)).squaredNorm();
  }
  const double scale = std::sqrt(std::max(mom2, imp2));
  if (scale == 0) return std::sqrt(grad2) == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(grad2) / scale;
}

double ComplementarityError(const ContactProblem& p, const ConstraintBundle& laws, const VecX& v,
                            const VecX& vc, const VecX& gamma) {
  const int nc = static_cast<int>(p.constraints.size());
  if (nc == 0 || laws.num_rows() != vc.size()) return 0.0;
  VecX gamma_at_vc;  // Evaluate writes γ(v_c); the cost is what is wanted here
  double cost = laws.Evaluate(vc, &gamma_at_vc, nullptr, nullptr);
  for (int t = 0; t < p.num_trees(); ++t) {
    const int s = p.tree_v_start[t], n = p.tree_nv[t];
    const VecX dv = v.segment(s, n) - p.v_star.segment(s, n);
    cost += 0.5 * dv.dot(p.A[t] * dv);
  }
  if (!(cost > 0)) return 0.0;
  return laws.ComplementaritySlack(vc, gamma) / nc / cost;
}

SolverStatus FailResult(const ContactProblem& p, const VecX& v_guess, SolverStatus status,
                        const std::string& message, SeriesTable log_table, SolverResult* result) {
  const int nr = std::max(p.num_rows, 0);
  const int nc = static_cast<int>(p.constraints.size());
  result->v = v_guess;
  result->vc.setZero(nr);
  if (v_guess.size() == p.nv && CheckProblemStructure(p, v_guess).empty()) {
    p.ConstraintVelocities(v_guess, &result->vc);
  }
  result->gamma.setZero(nr);
  result->regime.assign(nc, Regime::kNoContact);
  result->stats.status = status;
  result->stats.message = message;
  result->stats.iteration_log.Reset(log_table);
  return status;
}

}  // namespace contactlab
