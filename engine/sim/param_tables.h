// The parameter tables of the engine's tunable structs (engine/common/param_spec.h): each range,
// default, unit, scale and help text is written here once, bound to its field. Readers of the
// tables: the structs' Validate(), the scene reader and `--set` (app/scene.cc), the viewer's
// parameter panel (ui/panels.cc), the exports (app/export.cc, bench JSON, run --stats) and
// `contactlab params` (the reference in docs/scene_format.md).
//
//   group     prefix           struct                  scene keys
//   step      (top level)      StepSettings            time_step, integrator, contact_margin, ...
//   step      (top level)      StepSettings::solver_type  solver.type
//   solver    solver           SapParameters           solver.sigma, solver.max_iterations, ...
//   canal     solver.canal     CanalParameters         solver.canal.beta0, ...
//   subadmm   solver.subadmm   SubAdmmParameters       solver.subadmm.max_iterations, ...
//   pgs       solver.pgs       PgsParameters           solver.pgs.max_iterations, ...
//   first_order solver.first_order FirstOrderParameters solver.first_order.friction_damping, ...
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
#include "engine/solvers/canal/canal_parameter_table.h"
#include "engine/solvers/first_order/first_order_parameter_table.h"
#include "engine/solvers/pgs/pgs_parameter_table.h"
#include "engine/solvers/sap/sap_parameter_table.h"
#include "engine/solvers/subadmm/subadmm_parameter_table.h"

namespace contactlab {

struct StepSettings;

const ParamTable<StepSettings>& StepSettingsTable();

// Every table in reference order: step, the solvers (SAP first), contact, material.
std::vector<ParamGroupInfo> AllParamGroups();

}  // namespace contactlab
