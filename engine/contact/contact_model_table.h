// The parameter table of ContactModelParameters (group `contact`); see engine/sim/param_tables.h.
#pragma once

#include "engine/common/param_spec.h"

namespace contactlab {

struct ContactModelParameters;
const ParamTable<ContactModelParameters>& ContactModelTable();

}  // namespace contactlab
