#include "engine/sim/param_tables.h"

#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

using namespace param_dsl;

std::vector<const char*> IntegratorNames() {
  std::vector<const char*> out;
  for (Integrator i : {Integrator::kExplicitEuler, Integrator::kSymplecticEuler,
                       Integrator::kImplicitEuler, Integrator::kMidpoint,
                       Integrator::kImplicitDampingEuler}) {
    out.push_back(IntegratorName(i));
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
      "step (StepSettings, engine/sim/simulator.h).";
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
                   "θ = 0 with θ_vq = 1, implicit_euler θ = 1, midpoint θ = ½; "
                   "implicit_damping_euler: symplectic Euler with joint damping and actuator "
                   "kd implicit (A = M + δt D, one linear solve), as MuJoCo's Euler "
                   "integrator.")),
      Bind<&StepSettings::contact_margin>(Slider(
          Describe(RealParam("contact_margin", 0, kClosed, 1, kClosed, 1e-3, kLin), "", "m",
                   "Base margin: geometry pairs with signed distance φ below it become contact "
                   "candidates (rows of the step's problem)."),
          0, 0.02)),
      Bind<&StepSettings::speculative_margin>(
          Describe(BoolParam("speculative_margin", true), "", "",
                   "Grow each pair's margin by (δt + τ_d) √(1 + μ²) u_ab so that every contact "
                   "the model would load at a positive gap is a candidate (see Contact margin).")),
      Bind<&StepSettings::defer_limits>(
          Describe(BoolParam("defer_limits", true), "", "",
                   "Leave out of the step's problem the joint limits that cannot act within the "
                   "step (gap φ0 >= 2 δt · approach speed + 1e-3); checked after the solve, which "
                   "is repeated with the sides that would act as rows (exact either way). SAP "
                   "only: the other solvers keep every side as a row.")),
      Bind<&StepSettings::free_motion_max_iterations>(Advanced(
          Describe(IntegerParam("free_motion.max_iterations", 1, 1000, 20, kLog), "", "",
                   "Newton iteration cap of the implicit free-motion solve m(v*) = 0 (eq. 14)."))),
      Bind<&StepSettings::free_motion_tolerance>(Advanced(
          Slider(Describe(RealParam("free_motion.tolerance", 0, kOpen, 1, kOpen, 1e-12, kLog), "",
                          "-", "Relative tolerance on ‖m(v*)‖ of the implicit free-motion solve."),
                 1e-15, 1e-2))),
      Bind<&StepSettings::solver_type>(Describe(
          EnumParam("solver.type", SolverTypeNames(), static_cast<int>(SolverType::kSap)), "", "",
          "Contact solver of every step: sap (Newton on the convex problem, seed 000), canal "
          "(cascaded Newton augmented Lagrangian, seed 001 §V), subadmm (subsystem ADMM, seed 001 "
          "§VI), pgs (projected block Gauss–Seidel on the dual of SAP's problem), first_order "
          "(Drumwright's implicit spring–damper prediction, seed 002). canal, subadmm and "
          "first_order accept the linear contact model only (docs/solvers.md).")),
  };
  return t;
}

}  // namespace

const ParamTable<StepSettings>& StepSettingsTable() {
  static const ParamTable<StepSettings> table = MakeStepTable();
  return table;
}

std::vector<ParamGroupInfo> AllParamGroups() {
  return {GroupInfo(StepSettingsTable()),      GroupInfo(SapParameterTable()),
          GroupInfo(CanalParameterTable()),    GroupInfo(SubAdmmParameterTable()),
          GroupInfo(PgsParameterTable()),      GroupInfo(FirstOrderParameterTable()),
          GroupInfo(ContactModelTable()),      GroupInfo(MaterialTable())};
}

}  // namespace contactlab
