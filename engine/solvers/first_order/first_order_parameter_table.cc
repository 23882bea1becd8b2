#include "engine/solvers/first_order/first_order_parameter_table.h"

#include "engine/solvers/first_order/first_order_solver.h"

namespace contactlab {
namespace {

using namespace param_dsl;

ParamTable<FirstOrderParameters> MakeFirstOrderTable() {
  using P = FirstOrderParameters;
  ParamTable<P> t;
  t.group = "first_order";
  t.prefix = "solver.first_order";
  t.title = "Solver: first-order (`solver: {type: first_order, first_order: {...}}`)";
  t.help =
      "Drumwright's unconditionally stable first-order constraint solver (FirstOrderParameters, "
      "engine/solvers/first_order/first_order_solver.h): every row a spring-damper integrated by "
      "implicit Euler in constraint space, the per-step SOCP solved by a dense interior-point "
      "method. Equation numbers: seed 002.";
  t.fields = {
      Bind<&P::formulation>(Describe(
          EnumParam("formulation", {"paper", "complementarity"},
                    static_cast<int>(P::Formulation::kPaper)),
          "", "",
          "paper: the min-norm SOCP of the paper (Appendix 0.A, eqs. 176-186), where a coupled or "
          "sliding contact may carry more than its spring force; complementarity: the symmetric "
          "program whose solution satisfies the spring law λ = max(0, σ) row by row (the LCP "
          "variant, SAP's law with R = 1/(h²K + hB)).")),
      Bind<&P::phi_convention>(Describe(
          EnumParam("phi_convention", {"signed", "clamp_nonpositive"},
                    static_cast<int>(P::PhiConvention::kSigned)),
          "", "",
          "signed: the spring deformation is the signed distance φ0, so a contact ahead of "
          "touching is loaded only when it would close within the step; clamp_nonpositive: the "
          "paper's φ = min(φ0, 0), which resists any approach even across a gap.")),
      Bind<&P::rigid_stiffness>(Slider(
          Describe(RealParam("rigid_stiffness", 0, kOpen, 1e20, kClosed, 1e15, kLog), "K_rigid",
                   "N/m",
                   "Stiffness K of rows with infinite stiffness (\"rigid to double precision\"; "
                   "the paper uses 1e12-1e15). Larger: less penetration, worse conditioning."),
          1e3, 1e18)),
      Bind<&P::friction_damping>(Slider(
          Describe(RealParam("friction_damping", 0, kOpen, 1e12, kClosed, 1e6, kLog), "h B_t", "kg",
                   "Tangential damper B_t = friction_damping / h of the memoryless Coulomb law "
                   "(K_t = 0; the paper uses 1e6). Larger: less creep in stiction, a wider numeric "
                   "range (digits of precision grow with h B_t)."),
          1, 1e10)),
      Bind<&P::normal_weight>(Slider(
          Describe(RealParam("normal_weight", 0, kOpen, 1e12, kClosed, 1.0, kLog), "ζ h", "-",
                   "Weight ζ = normal_weight / h of the normal and limit impulses in the paper's "
                   "objective (the paper: ζ = 1/h). Larger: the normal impulse stays closer to the "
                   "spring law when friction would profit from a larger one."),
          1e-3, 1e12)),
      Bind<&P::gap_tolerance>(
          Slider(Describe(RealParam("gap_tolerance", 0, kOpen, 1, kOpen, 1e-10, kLog), "ε_gap", "-",
                          "Interior-point stopping test on the duality gap sᵀz of the equilibrated "
                          "problem, relative to the largest term of its objective."),
                 1e-14, 1e-2)),
      Bind<&P::feasibility_tolerance>(Slider(
          Describe(RealParam("feasibility_tolerance", 0, kOpen, 1, kOpen, 1e-10, kLog), "ε_feas",
                   "-",
                   "Interior-point stopping test on the relative primal and dual residuals of the "
                   "equilibrated problem."),
          1e-14, 1e-2)),
      Bind<&P::max_iterations>(Describe(
          IntegerParam("max_iterations", 1, 10000, 100, kLog), "", "",
          "Interior-point iteration cap; a solve that reaches it reports max_iterations_reached "
          "with the last iterate.")),
      Bind<&P::step_fraction>(Advanced(
          Slider(Describe(RealParam("step_fraction", 0, kOpen, 1, kOpen, 0.99, kLin), "", "-",
                          "Fraction of the step to the boundary of the cones taken by each "
                          "interior-point step."),
                 0.5, 0.9999))),
      Bind<&P::reduced_tolerance>(Advanced(Slider(
          Describe(RealParam("reduced_tolerance", 0, kClosed, 1, kOpen, 1e-6, kLog), "ε_red", "-",
                   "When round-off stops the interior point short of the tolerances (the "
                   "paper's program with rigid rows and a large friction damping is very "
                   "ill-conditioned), its best iterate is accepted if the gap and both "
                   "residuals are below this; the message says so. 0: never."),
          1e-12, 1e-2))),
      Bind<&P::refinement_steps>(Advanced(Describe(
          IntegerParam("refinement_steps", 0, 10, 3, kLin), "", "",
          "Iterative refinement passes on the unreduced KKT system per Newton direction."))),
  };
  return t;
}

}  // namespace

const ParamTable<FirstOrderParameters>& FirstOrderParameterTable() {
  static const ParamTable<FirstOrderParameters> table = MakeFirstOrderTable();
  return table;
}

}  // namespace contactlab
