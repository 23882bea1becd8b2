// The parameter table of CANAL's CanalParameters (group `canal`, scene keys solver.canal.*);
// see engine/common/param_spec.h.
#pragma once

#include "engine/common/param_spec.h"

namespace contactlab {

struct CanalParameters;
const ParamTable<CanalParameters>& CanalParameterTable();

}  // namespace contactlab
