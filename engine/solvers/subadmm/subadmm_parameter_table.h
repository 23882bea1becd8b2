// The parameter table of SubADMM's SubAdmmParameters (group `subadmm`, scene keys
// `solver.subadmm.KEY`); see engine/common/param_spec.h.
#pragma once

#include "engine/common/param_spec.h"

namespace contactlab {

struct SubAdmmParameters;
const ParamTable<SubAdmmParameters>& SubAdmmParameterTable();

}  // namespace contactlab
