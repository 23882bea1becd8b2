#include "engine/param_tables.h"

#include "engine/contact/contact_model.h"
#include "engine/model.h"
#include "engine/sap_solver.h"
#include "engine/simulator.h"

namespace contactlab {
namespace {

constexpr bool kOpen = true, kClosed = false;
constexpr ParamScale kLog = ParamScale::kLog, kLin = ParamScale::kLinear;

ParamSpec Describe(ParamSpec s, const char* symbol, const char* unit, const char* help) {
  s.symbol = symbol;
  if (s.type == ParamType::kReal) s.unit = unit;
  s.help = help;
  return s;
}
ParamSpec Slider(ParamSpec s, double lo, double hi) {
  s.slider_min = lo;
  s.slider_max = hi;
  return s;
}
ParamSpec Advanced(ParamSpec s) {
  s.advanced = true;
  return s;
}

std::vector<const char*> IntegratorNames() {
  std::vector<const char*> out;
  for (Integrator i : {Integrator::kExplicitEuler, Integrator::kSymplecticEuler,
                       Integrator::kImplicitEuler, Integrator::kMidpoint}) {
    out.push_back(IntegratorName(i));
  }
  return out;
}

std::vector<const char*> ContactModelNames() {
  std::vector<const char*> out;
  for (int i = 0; i < kNumContactModelTypes; ++i) {
    out.push_back(ContactModelName(static_cast<ContactModelType>(i)));
  }
  return out;
}

ParamTable<StepSettings> MakeStepTable() {
  ParamTable<StepSettings> t;
  t.group = "step";
  t.prefix = "";
  t.title = "Step (top-level keys)";
  t.help =
      "The time step, integration scheme, contact candidates and free-motion solve of every "
      "step (StepSettings, engine/simulator.h).";
  t.fields = {
      Bind<&StepSettings::time_step>(Slider(
          Describe(RealParam("time_step", 0, kOpen, 1, kClosed, 1e-3, kLog), "δt", "s",
                   "Time step. Smaller: more accurate and better conditioned, more steps per "
                   "simulated second."),
          1e-5, 1e-1)),
      Bind<&StepSettings::integrator>(
          Describe(EnumParam("integrator", IntegratorNames(),
                             static_cast<int>(Integrator::kSymplecticEuler)),
                   "θ", "",
                   "θ-method scheme (SAP paper §II-C): explicit_euler θ = 0, symplectic_euler "
                   "θ = 0 with θ_vq = 1, implicit_euler θ = 1, midpoint θ = ½.")),
      Bind<&StepSettings::contact_margin>(Slider(
          Describe(RealParam("contact_margin", 0, kClosed, 1, kClosed, 1e-3, kLin), "", "m",
                   "Base margin: geometry pairs with signed distance φ below it become contact "
                   "candidates (rows of the step's problem)."),
          0, 0.02)),
      Bind<&StepSettings::speculative_margin>(
          Describe(BoolParam("speculative_margin", true), "", "",
                   "Grow each pair's margin by (δt + τ_d) √(1 + μ²) u_ab so that every contact "
                   "the model would load at a positive gap is a candidate (see Contact margin).")),
      Bind<&StepSettings::free_motion_max_iterations>(Advanced(
          Describe(IntegerParam("free_motion.max_iterations", 1, 1000, 20, kLog), "", "",
                   "Newton iteration cap of the implicit free-motion solve m(v*) = 0 (eq. 14)."))),
      Bind<&StepSettings::free_motion_tolerance>(Advanced(
          Slider(Describe(RealParam("free_motion.tolerance", 0, kOpen, 1, kOpen, 1e-12, kLog), "",
                          "-", "Relative tolerance on ‖m(v*)‖ of the implicit free-motion solve."),
                 1e-15, 1e-2))),
  };
  return t;
}

ParamTable<SapParameters> MakeSapTable() {
  ParamTable<SapParameters> t;
  t.group = "solver";
  t.prefix = "solver";
  t.title = "Solver: SAP (`solver:`)";
  t.help =
      "The SAP solver's parameters (SapParameters, engine/sap_solver.h); `type: sap` "
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
                          "β of joint-limit constraints (near-rigid clamp of the limit's spring)."),
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
          EnumParam("linear_solver", {"dense", "block_sparse"},
                    static_cast<int>(LinSolver::kBlockSparse)),
          "", "",
          "block_sparse: sparse Cholesky over the tree/constraint graph; dense: the reference "
          "dense LLT of H.")),
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
                            "cond₂(H) at every iteration (an eigen-solve per iteration: slow)."))),
      Bind<&SapParameters::islands>(
          Advanced(Describe(BoolParam("islands", true), "", "",
                            "Block path: solve each island (connected component of trees and "
                            "constraints) with its own Newton loop."))),
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

ParamTable<ContactModelParameters> MakeContactTable() {
  ParamTable<ContactModelParameters> t;
  t.group = "contact";
  t.prefix = "contact";
  t.title = "Contact model (`contact:`)";
  t.help =
      "Which law turns a contact velocity into an impulse (engine/contact/contact_model.h; "
      "seed 004). Per-pair values (k, τ_d, d, μ) come from the materials.";
  t.fields = {
      Bind<&ContactModelParameters::model>(Describe(
          EnumParam("model", ContactModelNames(), static_cast<int>(ContactModelType::kLinear)), "",
          "",
          "linear: SAP's spring-damper law; lagged: Hunt–Crossley normal force, friction from "
          "the previous step's normal impulse; lagged_regularized: lagged with ε_s = max(v_s, "
          "σ w μ γ_n0); similar: Hunt–Crossley on z = v_n − μ‖v_t‖_s.")),
      Bind<&ContactModelParameters::stiction_tolerance>(Slider(
          Describe(RealParam("stiction_tolerance", 0, kOpen, 1, kClosed, 1e-4, kLog), "v_s", "m/s",
                   "Regularization velocity of the Hunt–Crossley models' friction, ‖v_t‖_s = "
                   "√(‖v_t‖² + v_s²) − v_s (seed 004, eq. 45)."),
          1e-7, 1e-1)),
  };
  return t;
}

ParamTable<Material> MakeMaterialTable() {
  ParamTable<Material> t;
  t.group = "material";
  t.prefix = "materials.NAME";
  t.title = "Materials (`materials:` items and `pairs:` items)";
  t.help =
      "Per-material contact values (Material, engine/model.h); a `pairs` item takes the "
      "same keys for one pair of materials. Combination rules: see Materials.";
  t.fields = {
      Bind<&Material::stiffness>(
          Slider(Describe(RealParam("stiffness", 0, kOpen, kParamInf, kOpen, 1e6, kLog), "k", "N/m",
                          "Point-contact stiffness."),
                 1e2, 1e10)),
      Bind<&Material::dissipation_time>(Slider(
          Describe(RealParam("dissipation_time", 0, kClosed, kParamInf, kOpen, 0.01, kLin), "τ_d",
                   "s", "Linear (Kelvin-Voigt) dissipation time scale of the linear model."),
          0, 1)),
      Bind<&Material::friction>(
          Slider(Describe(RealParam("friction", 0, kClosed, 10, kClosed, 0.5, kLin), "μ", "-",
                          "Coulomb friction coefficient."),
                 0, 2)),
      Bind<&Material::hunt_crossley_dissipation>(Slider(
          Describe(RealParam("hunt_crossley_dissipation", 0, kClosed, kParamInf, kOpen, 10.0, kLin),
                   "d", "s/m",
                   "Hunt–Crossley dissipation of the lagged and similar models, f_n = k x (1 + d "
                   "ẋ)₊ (seed 004, eq. 13); unused by the linear model."),
          0, 100)),
  };
  return t;
}

}  // namespace

const ParamTable<StepSettings>& StepSettingsTable() {
  static const ParamTable<StepSettings> table = MakeStepTable();
  return table;
}
const ParamTable<SapParameters>& SapParameterTable() {
  static const ParamTable<SapParameters> table = MakeSapTable();
  return table;
}
const ParamTable<ContactModelParameters>& ContactModelTable() {
  static const ParamTable<ContactModelParameters> table = MakeContactTable();
  return table;
}
const ParamTable<Material>& MaterialTable() {
  static const ParamTable<Material> table = MakeMaterialTable();
  return table;
}

std::vector<ParamGroupInfo> AllParamGroups() {
  return {GroupInfo(StepSettingsTable()), GroupInfo(SapParameterTable()),
          GroupInfo(ContactModelTable()), GroupInfo(MaterialTable())};
}

}  // namespace contactlab
