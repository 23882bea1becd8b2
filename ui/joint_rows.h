// The joints of the selected body, for the viewer's "Selected body" section: its own joint and
// every joint on the path to its tree's root, with coordinates, rates, limits and actuator, as
// text (pure data, no ImGui).
#pragma once

#include <string>
#include <vector>

#include "engine/multibody/model.h"

namespace contactlab {

struct JointRow {
  int joint = -1;
  std::string name;      // the joint's name ("joint N" when it has none)
  std::string type;      // "revolute", "prismatic", "ball", "free", "fixed"
  std::string body;      // the child body it moves
  std::string position;  // q: "0.4120 rad (23.61°)", "0.0500 m", "23.61° about [0.00 0.00 1.00]"
  std::string rate;      // v: "-0.3000 rad/s", "0.1000 m/s", "|ω| 1.2000 rad/s"
  std::string limits;    // "[-45.00°, 45.00°]", "[0.0000, 0.2000] m", or "" when unlimited
  bool at_limit = false;  // q within 1e-9 of a limit, or beyond it
  std::string actuator;  // "PD kp 300 kd 10" or ""
};

// Rows for the joints from `body` to its root (the body's own joint first); empty for the world
// (body < 0), static and prescribed bodies. q and v are the model's full coordinate vectors.
std::vector<JointRow> JointPathRows(const Model& model, const VecX& q, const VecX& v, int body);

}  // namespace contactlab
