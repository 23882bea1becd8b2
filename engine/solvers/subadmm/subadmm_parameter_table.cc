#include "engine/solvers/subadmm/subadmm_parameter_table.h"

#include "engine/solvers/subadmm/subadmm_solver.h"

namespace contactlab {
namespace {

using namespace param_dsl;

ParamTable<SubAdmmParameters> MakeSubAdmmTable() {
  ParamTable<SubAdmmParameters> t;
  t.group = "subadmm";
  t.prefix = "solver.subadmm";
  t.title = "Solver: SubADMM (`solver: {type: subadmm, subadmm: {...}}`)";
  t.help =
      "The subsystem-based ADMM solver's parameters (SubAdmmParameters, "
      "engine/solvers/subadmm/subadmm_solver.h): one small Cholesky solve per kinematic tree and "
      "one closed-form projection per constraint per iteration, first order (linear rate). "
      "Equation numbers: seed 001 (Lee et al.), section VI.";
  t.fields = {
      Bind<&SubAdmmParameters::max_iterations>(
          Describe(IntegerParam("max_iterations", 1, 100000, 100, kLog), "l_max", "",
                   "Iteration cap (the paper runs a fixed 100); a solve that reaches it reports "
                   "max_iterations_reached and returns the iterate with the smallest residual.")),
      Bind<&SubAdmmParameters::tolerance>(
          Slider(Describe(RealParam("tolerance", 0, kOpen, 1, kOpen, 1e-6, kLog), "θ_th", "m/s",
                          "Stop when θ_p + θ_d < tolerance (eq. 42): primal residual max ‖J v − z‖ "
                          "plus dual residual max ‖D(A(v − v*) − Jᵀλ)‖/√m_t (D = diag(M)^-1/2, m_t "
                          "the tree's mass), both velocities."),
                 1e-12, 1e-1)),
      Bind<&SubAdmmParameters::beta_scale>(
          Slider(Describe(RealParam("beta_scale", 0, kOpen, 1e6, kClosed, 1.0, kLog), "", "-",
                          "Factor on the initial penalty β₀, the geometric mean over trees of the "
                          "pseudo-density m_t / n_t (the tree's mass, as its constraints see it, "
                          "over their number). Larger: constraints met sooner, dynamics later."),
                 1e-4, 1e4)),
      Bind<&SubAdmmParameters::adaptive_beta>(
          Describe(BoolParam("adaptive_beta", true), "", "",
                   "Residual balancing (eq. 43): β ← β √(θ_p/θ_d) when one residual exceeds "
                   "balance_ratio times the other; every change refactors each tree.")),
      Bind<&SubAdmmParameters::balance_ratio>(
          Slider(Describe(RealParam("balance_ratio", 1, kOpen, 1e6, kClosed, 10.0, kLog), "γ", "-",
                          "Ratio of the residuals that triggers a change of β (eq. 43). Larger: "
                          "fewer changes and refactorizations."),
                 1.5, 1e3)),
      Bind<&SubAdmmParameters::beta_update_interval>(Advanced(
          Describe(IntegerParam("beta_update_interval", 1, 10000, 10, kLog), "", "",
                   "Iterations between two tests of the β update rule (eq. 43); 1 is the paper's "
                   "Alg. 2. The residuals oscillate for a few iterations after each change."))),
      Bind<&SubAdmmParameters::sigma>(
          Slider(Describe(RealParam("sigma", 0, kClosed, 1, kClosed, 0.0, kLin), "σ", "-",
                          "Friction compliance R_t = σ w (as SAP's eq. 30); 0: exact Coulomb "
                          "friction (the paper's). Positive: stiction creeps at v_t = −R_t λ_t."),
                 0, 0.01)),
      Bind<&SubAdmmParameters::near_rigid_beta>(Slider(
          Describe(RealParam("near_rigid_beta", 0, kClosed, 10, kClosed, 0.0, kLin), "β_nr", "-",
                   "Near-rigid clamp R_n ≥ β² w / (4π²) (SAP's eq. 29) on contacts and "
                   "joint limits; 0: the physical compliance 1/(δt k (δt + τ_d)), rigid for "
                   "k = inf."),
          0, 2)),
      Bind<&SubAdmmParameters::warm_start>(
          Advanced(Describe(BoolParam("warm_start", true), "", "",
                            "Start λ and β from the previous solve's when the problem has the same "
                            "number of constraint rows (else λ = 0 and β = β₀)."))),
  };
  return t;
}

}  // namespace

const ParamTable<SubAdmmParameters>& SubAdmmParameterTable() {
  static const ParamTable<SubAdmmParameters> table = MakeSubAdmmTable();
  return table;
}

}  // namespace contactlab
