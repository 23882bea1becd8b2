#include "engine/contact/contact_model_table.h"

#include "engine/contact/contact_model.h"

namespace contactlab {
namespace {

using namespace param_dsl;

std::vector<const char*> ContactModelNames() {
  std::vector<const char*> out;
  for (int i = 0; i < kNumContactModelTypes; ++i) {
    out.push_back(ContactModelName(static_cast<ContactModelType>(i)));
  }
  return out;
}

ParamTable<ContactModelParameters> MakeContactTable() {
  ParamTable<ContactModelParameters> t;
  t.group = "contact";
  t.prefix = "contact";
  t.title = "Contact model (`contact:`)";
  t.help =
      "Which law turns a contact velocity into an impulse (engine/contact/contact_model.h; "
      "seed 004). Per-pair values (k, τ_d, d, μ) come from the materials.";
  t.fields = {
      Bind<&ContactModelParameters::model>(Describe(
          EnumParam("model", ContactModelNames(), static_cast<int>(ContactModelType::kLinear)), "",
          "",
          "linear: SAP's spring-damper law; lagged: Hunt–Crossley normal force, friction from "
          "the previous step's normal impulse; lagged_regularized: lagged with ε_s = max(v_s, "
          "σ w μ γ_n0); similar: Hunt–Crossley on z = v_n − μ‖v_t‖_s.")),
      Bind<&ContactModelParameters::stiction_tolerance>(Slider(
          Describe(RealParam("stiction_tolerance", 0, kOpen, 1, kClosed, 1e-4, kLog), "v_s", "m/s",
                   "Regularization velocity of the Hunt–Crossley models' friction, ‖v_t‖_s = "
                   "√(‖v_t‖² + v_s²) − v_s (seed 004, eq. 45)."),
          1e-7, 1e-1)),
      Bind<&ContactModelParameters::near_rigid_beta>(Slider(
          Describe(RealParam("near_rigid_beta", 0, kClosed, 1, kClosed, kDefaultHuntCrossleyBeta,
                             kLin),
                   "β_HC", "-",
                   "Near-rigid regime of the Hunt–Crossley models: k̃ = min(k, 4π²/(β_HC² w "
                   "δt²)), the stiffness whose contact period is β_HC δt (as the linear model's "
                   "β in eq. 29). 0: k as given (the paper's law)."),
          0, 1)),
  };
  return t;
}

}  // namespace

const ParamTable<ContactModelParameters>& ContactModelTable() {
  static const ParamTable<ContactModelParameters> table = MakeContactTable();
  return table;
}

}  // namespace contactlab
