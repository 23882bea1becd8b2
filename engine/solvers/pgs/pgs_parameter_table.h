// The parameter table of PGS's PgsParameters (group `pgs`, scene keys `solver.pgs.*`); see
// engine/common/param_spec.h.
#pragma once

#include "engine/common/param_spec.h"

namespace contactlab {

struct PgsParameters;
const ParamTable<PgsParameters>& PgsParameterTable();

}  // namespace contactlab
