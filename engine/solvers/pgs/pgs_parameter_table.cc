#include "engine/solvers/pgs/pgs_parameter_table.h"

#include "engine/solvers/pgs/pgs_solver.h"

namespace contactlab {
namespace {

using namespace param_dsl;

ParamTable<PgsParameters> MakePgsTable() {
  ParamTable<PgsParameters> t;
  t.group = "pgs";
  t.prefix = "solver.pgs";
  t.title = "Solver: PGS (`solver: {type: pgs, pgs: {...}}`)";
  t.help =
      "Projected block Gauss-Seidel on the dual of SAP's convex problem (PgsParameters, "
      "engine/solvers/pgs/pgs_solver.h), the baseline of seed 001 §VII: one exact block update "
      "per constraint and sweep (a 3-D damped Newton on the constraint's law in the metric of its "
      "Delassus block). σ, β and limit_beta prepare the linear law exactly as SAP's do, so PGS "
      "and SAP with equal values solve the same problem. Accepts every contact model.";
  using Sweep = PgsParameters::Sweep;
  using Warm = PgsParameters::WarmStart;
  t.fields = {
      Bind<&PgsParameters::max_iterations>(
          Describe(IntegerParam("max_iterations", 1, 1000000, 100, kLog), "", "",
                   "Sweep cap (seed 001 runs PGS for 100 sweeps); a solve that reaches it reports "
                   "max_iterations_reached with the last iterate.")),
      Bind<&PgsParameters::tolerance>(
          Slider(Describe(RealParam("tolerance", 0, kClosed, 1, kOpen, 1e-12, kLog), "τ_γ", "-",
                          "Stop when the sweep's impulse change ‖Δγ‖∞ / ‖γ‖∞ is below this "
                          "(0: never by this test). PGS contracts slowly: a small change is not "
                          "a small error (1e-8 can stop at e_m ≈ 1e-4)."),
                 1e-14, 1e-1)),
      Bind<&PgsParameters::momentum_tolerance>(Slider(
          Describe(RealParam("momentum_tolerance", 0, kClosed, 1, kOpen, 1e-6, kLog), "ε_r", "-",
                   "Stop when SAP's momentum residual e_m (seed 000 eq. 32) at PGS's "
                   "velocities, with the laws' impulses there, is at most this; also "
                   "tested at the start, so an exact guess costs no sweep (0: off)."),
          1e-14, 1e-1)),
      Bind<&PgsParameters::improvement_tolerance>(Advanced(Slider(
          Describe(RealParam("improvement_tolerance", 0, kClosed, 1e-3, kClosed, 0, kLog), "", "-",
                   "Stop when the sweep's dual-cost decrease is at most this times the size of "
                   "its terms: no measurable progress (round-off). 0 (default): off, since the "
                   "dual cost is flat to round-off long before the iterate stops improving."),
          1e-18, 1e-6))),
      Bind<&PgsParameters::sigma>(
          Slider(Describe(RealParam("sigma", 0, kOpen, 1, kClosed, 1e-3, kLog), "σ", "-",
                          "Friction regularization R_t = σ w of the linear law (seed 000 eq. 30), "
                          "as SAP's sigma."),
                 1e-6, 1)),
      Bind<&PgsParameters::beta>(
          Slider(Describe(RealParam("beta", 0, kOpen, 10, kClosed, 1.0, kLog), "β", "-",
                          "Near-rigid clamp R_n ≥ β² w / (4π²) of the linear law (seed 000 "
                          "eq. 29), as SAP's beta."),
                 1e-2, 10)),
      Bind<&PgsParameters::limit_beta>(Advanced(
          Slider(Describe(RealParam("limit_beta", 0, kOpen, 10, kClosed, 0.1, kLog), "β_limit", "-",
                          "β of joint-limit and equality constraints, as SAP's limit_beta."),
                 1e-2, 10))),
      Bind<&PgsParameters::sweep>(Describe(
          EnumParam("sweep", {"forward", "symmetric"}, static_cast<int>(Sweep::kForward)), "", "",
          "forward: constraints in order each sweep; symmetric: in order, then back (two passes "
          "per sweep).")),
      Bind<&PgsParameters::warm_start>(Describe(
          EnumParam("warm_start", {"impulses", "guess", "zero"}, static_cast<int>(Warm::kImpulses)),
          "", "",
          "impulses: each constraint's impulse from the previous solve, matched by its identity "
          "(geometry pair or joint limit, nearest contact point), and as guess for a constraint "
          "without a match; guess: the laws' impulses at the guessed velocities; zero: γ = 0 "
          "(v = v*).")),
  };
  return t;
}

}  // namespace

const ParamTable<PgsParameters>& PgsParameterTable() {
  static const ParamTable<PgsParameters> table = MakePgsTable();
  return table;
}

}  // namespace contactlab
