// The parameter table of SAP's SapParameters (group `solver`); see engine/sim/param_tables.h.
#pragma once

#include "engine/common/param_spec.h"

namespace contactlab {

struct SapParameters;
const ParamTable<SapParameters>& SapParameterTable();

}  // namespace contactlab
