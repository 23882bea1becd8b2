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
  };
  return t;
}

}  // namespace

const ParamTable<Material>& MaterialTable() {
  static const ParamTable<Material> table = MakeMaterialTable();
  return table;
}

}  // namespace contactlab
