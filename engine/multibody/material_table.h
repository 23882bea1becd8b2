// The parameter table of a Material (group `material`, also a `pairs` item); see
// engine/sim/param_tables.h.
#pragma once

#include "engine/common/param_spec.h"

namespace contactlab {

struct Material;
// Keys of a material; pair overrides (`pairs` items) take the same keys besides `materials`.
const ParamTable<Material>& MaterialTable();

}  // namespace contactlab
