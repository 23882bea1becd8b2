#include "ui/contact_tooltip.h"

#include <cstdio>

#include "engine/contact/constraint_bundle.h"
#include "ui/plot_data.h"

namespace contactlab {

std::vector<std::string> ContactTooltipLines(const ContactRow& r) {
  std::vector<std::string> lines;
  auto num = [](double v) { return FormatNumber("%.3g", v); };
  auto sci = [](double v) { return FormatNumber("%.2e", v); };
  lines.push_back("contact " + std::to_string(r.contact) + ": " + r.body_a + " / " + r.body_b +
                  ", " + (r.constraint < 0 ? std::string("no constraint")
                                           : std::string(RegimeName(r.regime))));
  lines.push_back("phi " + sci(r.phi) + " m   v_n " + sci(r.v_n) + " m/s   |v_t| " + sci(r.v_t) +
                  " m/s");
  if (r.constraint >= 0) {
    char sat[32];
    std::snprintf(sat, sizeof(sat), "%.2f", r.saturation);
    lines.push_back("gamma_n " + sci(r.gamma_n) + " N s   |gamma_t| " + sci(r.gamma_t) +
                    " N s   |gamma_t|/(mu gamma_n) " + sat);
  }
  lines.push_back("mu " + num(r.mu) + "   k " + sci(r.stiffness) + " N/m   tau_d " +
                  sci(r.dissipation_time) + " s");
  if (r.constraint >= 0 && r.constants.size > 0) {
    std::string model = std::string(LawName(r.law)) + ":";
    for (int k = 0; k < r.constants.size; ++k) {
      const ModelConstant& mc = r.constants.items[k];
      model += std::string("   ") + mc.symbol + " ";
      if (mc.is_flag) {
        model += mc.value != 0 ? "yes" : "no";
      } else {
        model += sci(mc.value);
        if (mc.unit[0] != '\0') model += std::string(" ") + mc.unit;
      }
    }
    lines.push_back(model);
  }
  if (r.loaded_at_gap) lines.push_back("pushing at phi > 0 (before the surfaces touch)");
  return lines;
}

}  // namespace contactlab
