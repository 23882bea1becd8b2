#include "engine/solvers/sap/sap_parameter_table.h"

#include "engine/solvers/sap/sap_solver.h"

namespace contactlab {
namespace {

using namespace param_dsl;

ParamTable<SapParameters> MakeSapTable() {
  ParamTable<SapParameters> t;
  t.group = "solver";
  t.prefix = "solver";
  t.title = "Solver: SAP (`solver:`)";
  t.help =
      "The SAP solver's parameters (SapParameters, engine/solvers/sap/sap_solver.h); `type: sap` "
      "names the solver. Equation numbers: seed 000.";
  using LS = SapParameters::LineSearch;
  using LinSolver = SapParameters::LinearSolver;
  t.fields = {
      Bind<&SapParameters::sigma>(
          Slider(Describe(RealParam("sigma", 0, kOpen, 1, kClosed, 1e-3, kLog), "σ", "-",
                          "Friction regularization R_t = σ w (eq. 30). Smaller: less stiction slip "
                          "(about σ μ δt g), harder Newton problems."),
                 1e-6, 1)),
      Bind<&SapParameters::beta>(
          Slider(Describe(RealParam("beta", 0, kOpen, 10, kClosed, 1.0, kLog), "β", "-",
                          "Near-rigid clamp R_n ≥ β² w / (4π²) (eq. 29): contacts stiffer than the "
                          "time step resolves are treated as near-rigid."),
                 1e-2, 10)),
      Bind<&SapParameters::limit_beta>(Advanced(
          Slider(Describe(RealParam("limit_beta", 0, kOpen, 10, kClosed, 0.1, kLog), "β_limit", "-",
                          "β of joint-limit and equality constraints (near-rigid clamp of their spring)."),
                 1e-2, 10))),
      Bind<&SapParameters::rel_tolerance>(
          Slider(Describe(RealParam("rel_tolerance", 0, kOpen, 1, kOpen, 1e-6, kLog), "ε_r", "-",
                          "Relative tolerance of the stopping criterion (eq. 26)."),
                 1e-12, 1e-1)),
      Bind<&SapParameters::abs_tolerance>(Advanced(
          Slider(Describe(RealParam("abs_tolerance", 0, kClosed, 1, kOpen, 1e-16, kLog), "ε_a",
                          "√J", "Absolute tolerance of the stopping criterion (eq. 26)."),
                 1e-20, 1e-2))),
      Bind<&SapParameters::max_iterations>(
          Describe(IntegerParam("max_iterations", 1, 10000, 100, kLog), "", "",
                   "Newton iteration cap; a solve that reaches it reports "
                   "max_iterations_reached.")),
      Bind<&SapParameters::line_search>(Describe(
          EnumParam("line_search", {"exact", "backtracking"}, static_cast<int>(LS::kExact)), "", "",
          "exact: 1-D Newton (rtsafe) on the cost along the search direction (§IV-C); "
          "backtracking: Armijo backtracking (§IV-B).")),
      Bind<&SapParameters::linear_solver>(Describe(
          EnumParam("linear_solver", {"dense", "block_sparse", "pcg", "auto"},
                    static_cast<int>(LinSolver::kAuto)),
          "", "",
          "Newton direction H Δv = −∇ℓ. block_sparse: block Cholesky over the tree/constraint "
          "graph; dense: the reference dense LLT of H; pcg: preconditioned conjugate gradients "
          "on the blocks of H (inexact Newton, Eisenstat–Walker forcing terms); auto: "
          "block_sparse unless its factorization needs more than pcg_auto_gflop beyond the "
          "diagonal tree blocks or more than the work budget, then pcg (refused when PCG's "
          "bound, pcg_max_iterations CG iterations, is over the work budget too, and when the "
          "factor is over the memory budget).")),
      Bind<&SapParameters::pcg_auto_gflop>(Advanced(Slider(
          Describe(RealParam("pcg_auto_gflop", 0, kOpen, 1e9, kClosed, 1.0, kLog), "", "Gflop",
                   "linear_solver auto: switch to pcg when the block Cholesky factorization "
                   "needs more than this many 10^9 multiply-adds beyond the Cholesky of the "
                   "diagonal tree blocks."),
          1e-3, 1e3))),
      Bind<&SapParameters::pcg_forcing_max>(Advanced(Slider(
          Describe(RealParam("pcg_forcing_max", 0, kOpen, 1, kOpen, 0.1, kLog), "η_max", "-",
                   "pcg: largest forcing term; CG stops at ‖D r‖ ≤ η ‖D∇ℓ‖ with η from "
                   "Eisenstat–Walker choice 2 (η₀ = η_max, then 0.9 (‖D∇ℓ_k‖/‖D∇ℓ_k−1‖)², "
                   "safeguarded, at least half the stopping threshold over ‖D∇ℓ‖)."),
          1e-8, 0.9))),
      Bind<&SapParameters::pcg_max_iterations>(Advanced(
          Describe(IntegerParam("pcg_max_iterations", 1, 1000000, 2000, kLog), "", "",
                   "pcg: CG iteration cap per Newton direction; reaching it without the forcing "
                   "tolerance fails the step with linear_solver_failure."))),
      Bind<&SapParameters::pcg_preconditioner>(Advanced(Describe(
          EnumParam("pcg_preconditioner", {"incomplete_cholesky", "block_jacobi"},
                    static_cast<int>(SapParameters::Preconditioner::kIncompleteCholesky)),
          "", "",
          "pcg: block incomplete Cholesky IC(0) on the tree graph (block Jacobi if it breaks "
          "down), or block Jacobi (each tree's block of H factored)."))),
      Bind<&SapParameters::ls_alpha_max>(
          Advanced(Slider(Describe(RealParam("ls_alpha_max", 1, kClosed, 100, kClosed, 1.5, kLin),
                                   "α_max", "-", "Largest step the exact line search tries."),
                          1, 10))),
      Bind<&SapParameters::ls_rho>(Advanced(
          Slider(Describe(RealParam("ls_rho", 0, kOpen, 1, kOpen, 0.8, kLin), "ρ", "-",
                          "Backtracking factor: each backtracking step multiplies α by ρ."),
                 0.05, 0.95))),
      Bind<&SapParameters::ls_c>(
          Advanced(Slider(Describe(RealParam("ls_c", 0, kOpen, 1, kOpen, 1e-4, kLog), "c", "-",
                                   "Armijo constant of the backtracking search."),
                          1e-8, 0.5))),
      Bind<&SapParameters::ls_backtracking_alpha_max>(Advanced(Slider(
          Describe(RealParam("ls_backtracking_alpha_max", 1, kClosed, 100, kClosed, 1.25, kLin),
                   "α_max,bt", "-", "First step tried by the backtracking search."),
          1, 10))),
      Bind<&SapParameters::ls_max_iterations>(
          Advanced(Describe(IntegerParam("ls_max_iterations", 1, 1000, 100, kLog), "", "",
                            "Iteration cap of either line search."))),
      Bind<&SapParameters::cost_abs_tolerance>(Advanced(Slider(
          Describe(RealParam("cost_abs_tolerance", 0, kClosed, 1, kOpen, 1e-30, kLog), "", "J",
                   "Cost-stagnation test |Δℓ| < abs + rel ℓ (checked when α > 0.5): stops at "
                   "round-off."),
          1e-40, 1e-3))),
      Bind<&SapParameters::cost_rel_tolerance>(Advanced(
          Slider(Describe(RealParam("cost_rel_tolerance", 0, kClosed, 1, kOpen, 1e-15, kLog), "",
                          "-", "Relative part of the cost-stagnation test."),
                 1e-18, 1e-3))),
      Bind<&SapParameters::compute_condition_number>(
          Advanced(Describe(BoolParam("compute_condition_number", false), "", "",
                            "cond₂(H) and cond₂(D H D), D = diag(H)^(-1/2), at every iteration "
                            "(eigen-solves per iteration: slow)."))),
      Bind<&SapParameters::islands>(
          Advanced(Describe(BoolParam("islands", true), "", "",
                            "Block path: solve each island (connected component of trees and "
                            "constraints) with its own Newton loop."))),
      Bind<&SapParameters::keep_order>(
          Advanced(Describe(BoolParam("keep_order", false), "", "",
                            "Block path: the first Newton pattern of a solve keeps the last "
                            "solve's elimination order (same tree sizes; reordered when it needs "
                            "5/4 of its updates). Saves the ordering of large coupled piles; "
                            "results differ by round-off and depend on the solves before."))),
      Bind<&SapParameters::memory_budget_mb>(Advanced(Slider(
          Describe(RealParam("memory_budget_mb", 0, kClosed, 1e9, kClosed, 0, kLin), "", "MiB",
                   "Memory budget of the Newton system; 0: CONTACTLAB_MEMORY_BUDGET_MB, else "
                   "half the physical memory. A step whose factor would need more fails with "
                   "memory_budget_exceeded before allocating."),
          0, 16384))),
      Bind<&SapParameters::work_budget_gflop>(Advanced(Slider(
          Describe(RealParam("work_budget_gflop", 0, kClosed, 1e9, kClosed, 0, kLin), "",
                   "Gflop",
                   "Work budget of one factorization of the Newton system [10^9 multiply-adds]; "
                   "0: CONTACTLAB_WORK_BUDGET_GFLOP, else 100, at most 0.5 per second of a CPU "
                   "time limit (ulimit -t). A step whose factorization would need more fails with "
                   "work_budget_exceeded before allocating."),
          0, 10000))),
  };
  return t;
}

}  // namespace

const ParamTable<SapParameters>& SapParameterTable() {
  static const ParamTable<SapParameters> table = MakeSapTable();
  return table;
}

}  // namespace contactlab
