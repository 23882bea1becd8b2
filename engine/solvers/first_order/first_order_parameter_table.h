// The parameter table of FirstOrderParameters (group `first_order`, scene keys
// `solver.first_order.*`); see engine/common/param_spec.h.
#pragma once

#include "engine/common/param_spec.h"

namespace contactlab {

struct FirstOrderParameters;
const ParamTable<FirstOrderParameters>& FirstOrderParameterTable();

}  // namespace contactlab
