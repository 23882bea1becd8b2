#include "engine/contact/contact_model.h"

namespace contactlab {

const char* ContactModelName(ContactModelType type) {
  switch (type) {
    case ContactModelType::kLinear: return "linear";
    case ContactModelType::kLagged: return "lagged";
    case ContactModelType::kLaggedRegularized: return "lagged_regularized";
    case ContactModelType::kSimilar: return "similar";
  }
  return "unknown";
}

bool ParseContactModel(const std::string& name, ContactModelType* type) {
  for (int i = 0; i < kNumContactModelTypes; ++i) {
    const auto t = static_cast<ContactModelType>(i);
    if (name == ContactModelName(t)) {
      *type = t;
      return true;
    }
  }
  return false;
}

}  // namespace contactlab
