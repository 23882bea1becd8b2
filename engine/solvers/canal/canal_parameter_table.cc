#include "engine/solvers/canal/canal_parameter_table.h"

#include "engine/solvers/canal/canal_solver.h"

namespace contactlab {
namespace {

using namespace param_dsl;

ParamTable<CanalParameters> MakeCanalTable() {
  ParamTable<CanalParameters> t;
  t.group = "canal";
  t.prefix = "solver.canal";
  t.title = "Solver: CANAL (`solver: {type: canal, canal: {...}}`)";
  t.help =
      "The CANAL solver's parameters (CanalParameters, engine/solvers/canal/canal_solver.h): the "
      "cascaded Newton-based augmented Lagrangian of seed 001 (§V, Alg. 1), solving the exact "
      "compliant Signorini-Coulomb problem (linear contact model only). Each AL iteration "
      "minimizes a convex surrogate (eq. 21-22) with SAP's Newton method. The paper gives only "
      "beta0; the other defaults are ContactLab's choices, explained per key.";
  t.fields = {
      Bind<&CanalParameters::beta0>(
          Slider(Describe(RealParam("beta0", 0, kOpen, 1e12, kClosed, 1e4, kLog), "β₀", "kg",
                          "Initial AL penalty of every solve (paper: 1e4, 'moderate'; "
                          "dimensionless under penalty_scaling: delassus). Larger: "
                          "fewer AL iterations, stiffer surrogates (more Newton steps). Its "
                          "scale is a mass: β w ≫ 1 (w the Delassus estimate) makes the AL "
                          "contract fast."),
                 1, 1e10)),
      Bind<&CanalParameters::kappa>(
          Slider(Describe(RealParam("kappa", 1, kOpen, 1e4, kClosed, 10, kLog), "κ", "-",
                          "Penalty growth β ← min(κβ, β_max) when ‖J v − z‖ stalls (eq. 27). "
                          "10: one decade per stall, so two stalls reach β_max."),
                 1.5, 1e3)),
      Bind<&CanalParameters::beta_max>(
          Slider(Describe(RealParam("beta_max", 0, kOpen, 1e16, kClosed, 1e6, kLog), "β_max", "kg",
                          "Penalty cap (dimensionless under penalty_scaling: delassus). The surrogate's impulse is β times a velocity "
                          "difference, so its round-off is about β ε |v_c|: at 1e6 that is "
                          "1e-10 of the impulse of a 1 kg body at 1 m/s, the default Newton "
                          "tolerance, which larger β would make unattainable."),
                 1e2, 1e14)),
      Bind<&CanalParameters::zeta>(
          Slider(Describe(RealParam("zeta", 0, kOpen, 1, kOpen, 0.5, kLin), "ζ", "-",
                          "β grows when ‖J v − z‖ exceeds ζ times its previous value while it "
                          "dominates the cascade's lag (Alg. 1). 0.5: at least a halving per "
                          "iteration is expected; the AL part gains far more at β w ≫ 1."),
                 0.01, 0.99)),
      Bind<&CanalParameters::al_tolerance>(
          Slider(Describe(RealParam("al_tolerance", 0, kOpen, 1, kOpen, 1e-7, kLog), "θ_AL", "m/s",
                          "Stopping tolerance on the AL residual √(‖J v − z‖² + cascade²) "
                          "(2-norm over rows: the slack and the exact law's normal-velocity "
                          "error left by the frozen De Saxcé term). 1e-7 m/s: on "
                          "scenes/bench/clutter_40_walls.yaml the converged steps reach an NCP "
                          "residual of at most 6e-9 (mean 1.2e-9; the paper's target is 1e-8). "
                          "1e-9 is below what redundant near-rigid contacts allow: their shared "
                          "load is set by R alone, the AL moves it by βR per iteration (5e-5 at "
                          "k = 1e12, δt = τ_d = 10 ms) and ‖J v − z‖ stalls at 1e-9-1e-7 m/s."),
                 1e-14, 1e-2)),
      Bind<&CanalParameters::newton_tolerance>(Slider(
          Describe(RealParam("newton_tolerance", 0, kOpen, 1, kOpen, 1e-10, kLog), "ε_r", "-",
                   "Relative tolerance of each surrogate's Newton solve (SAP eq. 26). "
                   "The momentum error of the result is of this order, so it must be "
                   "well below the AL target; Newton converges quadratically, so a "
                   "tight value costs about one step."),
          1e-14, 1e-2)),
      Bind<&CanalParameters::max_iterations>(
          Describe(IntegerParam("max_iterations", 1, 10000, 100, kLog), "", "",
                   "AL iteration cap; a solve that reaches it reports max_iterations_reached "
                   "with the iterate of smallest AL residual. The paper converges in about 10; "
                   "the plain cascade contracts by μ²W_tt/(W_nn + μ²W_tt) per iteration on a "
                   "sliding contact, so high friction needs more without cascade: anderson.")),
      Bind<&CanalParameters::max_newton_iterations>(
          Describe(IntegerParam("max_newton_iterations", 1, 10000, 100, kLog), "", "",
                   "Newton iteration cap of each surrogate (SAP's default cap).")),
      Bind<&CanalParameters::sigma>(
          Slider(Describe(RealParam("sigma", 0, kClosed, 1, kClosed, 0, kLin), "σ", "-",
                          "Friction regularization R_t = σ w; 0 (default) is exact Coulomb "
                          "friction, as in the AL paper. σ > 0 solves SAP's regularized "
                          "friction without its convex gliding."),
                 0, 0.1)),
      Bind<&CanalParameters::near_rigid_beta>(Advanced(Slider(
          Describe(RealParam("near_rigid_beta", 0, kClosed, 10, kClosed, 0, kLin), "β_nr", "-",
                   "SAP's near-rigid clamp R_n ≥ β_nr² w/(4π²) (SAP eq. 29); 0 (default) "
                   "is off: the exact compliant or rigid normal law."),
          0, 10))),
      Bind<&CanalParameters::islands>(
          Advanced(Describe(BoolParam("islands", true), "", "",
                            "Solve each island (connected component of trees and constraints) "
                            "with its own CANAL: its own β schedule and stopping test."))),
      Bind<&CanalParameters::cascade>(Describe(
          EnumParam("cascade", {"plain", "anderson", "tresca", "tresca_anderson", "hybrid"},
                    static_cast<int>(CanalParameters::Cascade::kAnderson)),
          "", "",
          "plain: the paper's cascade (Alg. 1), each AL iteration takes the last surrogate's "
          "impulses and De Saxcé term p = μ‖ṽ_t‖ as they come; it contracts by about "
          "μ²W_tt/(W_nn + μ²W_tt) per iteration on a sliding contact (0.78 for a solid sphere at "
          "μ = 1). anderson: Anderson acceleration of that map on (λ/β, p) over the last "
          "anderson_memory iterations, in a trust region of plain steps; an extrapolation that "
          "does not lower the best AL residual is replaced by the plain step and the plain "
          "iteration runs 1, 2, 4, ... steps before the next one (docs/canal_cascade.md). "
          "tresca: freeze the friction bound μλ_n at the previous AL iterate instead of the De "
          "Saxcé term (each surrogate has fixed friction disks and no spurious normal velocity; "
          "rate μW_nt/W_nn on a sliding contact, 0 for a sphere). tresca_anderson: tresca with "
          "the Anderson acceleration of anderson on λ/β. Both stall where redundant near-rigid "
          "contacts determine λ_n only through R (the bounds follow λ_n). hybrid: "
          "tresca_anderson until its AL residual has not halved in 3 iterations, then anderson "
          "from its iterate (docs/canal_cascade.md).")),
      Bind<&CanalParameters::penalty_scaling>(Describe(
          EnumParam("penalty_scaling", {"absolute", "delassus"},
                    static_cast<int>(CanalParameters::PenaltyScaling::kAbsolute)),
          "", "",
          "absolute: one penalty β [kg] for every row, as the paper (Alg. 1). delassus: "
          "constraint i gets β_i = β/w_i (w_i its Delassus estimate), so β (then dimensionless: "
          "β_i w_i = β) gives every constraint the same relative stiffness, a 0.1 kg dish as a 5 kg "
          "pot; beta0 and beta_max are read in that unit (try beta0 = 30, beta_max = 3000). On "
          "scenes/bench/clutter_40_walls.yaml a surrogate then takes 4.6 Newton steps instead of "
          "16 at the absolute 1e4 (docs/canal_cascade.md, 'Penalty scaling'); at tight "
          "al_tolerance the AL stalls more often on redundant near-rigid contacts.")),
      Bind<&CanalParameters::anderson_memory>(Advanced(
          Describe(IntegerParam("anderson_memory", 1, 50, 5, kLin), "m", "",
                   "Iterations combined by the Anderson acceleration of the cascade (cascade: "
                   "anderson)."))),
      Bind<&CanalParameters::beta_revert>(Advanced(Describe(
          BoolParam("beta_revert", true), "", "",
          "Take back a β raise after which ‖J v − z‖ did not fall by ζ, and raise no more in "
          "this solve: such a stall is not the AL's contraction, which β controls, but impulses "
          "that only the compliance R determines (redundant near-rigid contacts), and a larger "
          "β only stiffens the surrogates (ours; false: the paper's schedule)."))),
  };
  return t;
}

}  // namespace

const ParamTable<CanalParameters>& CanalParameterTable() {
  static const ParamTable<CanalParameters> table = MakeCanalTable();
  return table;
}

}  // namespace contactlab
