// The parameter tables of the engine's tunable structs (engine/common/param_spec.h): each range,
// default, unit, scale and help text is written here once, bound to its field. Readers of the
// tables: the structs' Validate(), the scene reader and `--set` (app/scene.cc), the viewer's
// parameter panel (ui/panels.cc), the exports (app/export.cc, bench JSON, run --stats) and
// `contactlab params` (the reference in docs/scene_format.md).
//
//   group     prefix           struct                  scene keys
//   step      (top level)      StepSettings            time_step, integrator, contact_margin, ...
//   solver    solver           SapParameters           solver.sigma, solver.max_iterations, ...
//   contact   contact          ContactModelParameters  contact.model, contact.stiction_tolerance
//   material  materials.NAME   Material                stiffness, dissipation_time, friction, d
//
// The step table holds only StepSettings' own scalar fields (not gravity, a vector, nor the
// nested sap / contact structs, which have their tables). A new model or solver adds its table
// here (and to AllParamGroups) and every reader picks it up.
#pragma once

#include <vector>

#include "engine/common/param_spec.h"
#include "engine/contact/contact_model_table.h"
#include "engine/multibody/material_table.h"
#include "engine/solvers/sap/sap_parameter_table.h"

namespace contactlab {

struct StepSettings;

const ParamTable<StepSettings>& StepSettingsTable();

// Every table in reference order: step, solver, contact, material.
std::vector<ParamGroupInfo> AllParamGroups();

}  // namespace contactlab
