// A contact point produced by the narrow phase.
#pragma once

#include "engine/common/math.h"

namespace contactlab {

// Convention (as in the SAP paper): the contact frame C has its z axis along `normal`, which
// points from geometry A into geometry B. The contact velocity v_c = [v_t1, v_t2, v_n] is the
// velocity of B relative to A at `point`, expressed in C; v_n > 0 means separating. φ < 0 means
// the geometries overlap by −φ.
struct Contact {
  int geom_a = -1, geom_b = -1;
  int body_a = -1, body_b = -1;  // -1 = world
  Vec3 point = Vec3::Zero();     // world, midway between the two surfaces [m]
  Vec3 normal = Vec3::UnitZ();   // world, unit, from A into B
  double phi = 0;                // signed distance [m]
  // Combined pair material (filled by the simulator from Model::PairMaterial).
  double stiffness = 0;          // k [N/m]
  double dissipation_time = 0;   // τ_d [s]
  double friction = 0;           // μ [-]
  double hunt_crossley_dissipation = 0;  // d [s/m] (Hunt–Crossley contact models)
  // Pressure-field contact (engine/geometry/hydroelastic/): the face of StepRecord::surfaces
  // this point stands for (its centroid, k = A_e g, φ = −p0/g); -1 for a point contact. The
  // stiffness of a face comes from its field, not from the materials.
  int surface = -1, face = -1;
};

}  // namespace contactlab
