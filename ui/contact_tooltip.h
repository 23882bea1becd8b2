// The text of the tooltip shown when the mouse hovers a contact in the 3D view: the contact's
// row of the inspector (ContactRow) as a few lines. Free of ImGui, for tests.
#pragma once

#include <string>
#include <vector>

#include "ui/ui_data.h"

namespace contactlab {

// Lines of the tooltip, e.g.
//   contact 12: table / bowl_1, stiction
//   phi -1.19e-04 m   v_n -2.60e-10 m/s   |v_t| 2.64e-12 m/s
//   gamma_n 2.84e-02 N s   |gamma_t| 1.33e-10 N s   |gamma_t|/(mu gamma_n) 0.00
//   mu 0.5   k 5.00e+07 N/m   tau_d 4.17e-03 s
//   linear: R_n 5.04e-01 1/kg   R_t 1.99e-02 1/kg   v̂_n 1.43e-03 m/s   near-rigid yes
//   pushing at phi > 0                      (only when loaded at a positive gap)
// A contact without a constraint says so instead of the impulse and model lines.
std::vector<std::string> ContactTooltipLines(const ContactRow& row);

}  // namespace contactlab
