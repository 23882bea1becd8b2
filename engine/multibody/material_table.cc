#include "engine/multibody/material_table.h"

#include "engine/multibody/model.h"

namespace contactlab {
namespace {

using namespace param_dsl;

ParamTable<Material> MakeMaterialTable() {
  ParamTable<Material> t;
  t.group = "material";
  t.prefix = "materials.NAME";
  t.title = "Materials (`materials:` items and `pairs:` items)";
  t.help =
      "Per-material contact values (Material, engine/multibody/model.h); a `pairs` item takes the "
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
      Bind<&Material::hydroelastic_modulus>(Slider(
          Describe(RealParam("hydroelastic.modulus", 0, kClosed, 1e15, kClosed, 0, kLog), "E",
                   "Pa",
                   "Hydroelastic modulus: a geometry with E > 0 is compliant and touches along "
                   "pressure-field contact surfaces (p = E · extent, docs/hydroelastic.md); 0: "
                   "point contact. Pair overrides ignore it."),
          1e3, 1e10)),
      Bind<&Material::hydroelastic_resolution>(Advanced(Slider(
          Describe(RealParam("hydroelastic.resolution", 0, kClosed, 1e3, kClosed, 0, kLog), "h",
                   "m",
                   "Tet size hint of a compliant geometry's volume mesh (and of a curved rigid "
                   "geometry's tessellation against it); 0: automatic (half a sphere's radius, a "
                   "box's smallest half extent; docs/hydroelastic.md). Takes effect when the "
                   "mesh is next built."),
          1e-4, 1))),
  };
  return t;
}

}  // namespace

const ParamTable<Material>& MaterialTable() {
  static const ParamTable<Material> table = MakeMaterialTable();
  return table;
}

}  // namespace contactlab
