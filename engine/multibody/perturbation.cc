#include "engine/multibody/perturbation.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace contactlab {
namespace {

void RequireDynamicBody(const Model& model, int body) {
  const int nb = static_cast<int>(model.bodies.size());
  if (body >= 0 && body < nb && model.bodies[body].tree >= 0) return;
  std::ostringstream os;
  os << "perturbation body = " << body;
  if (body >= 0 && body < nb) os << " (" << model.bodies[body].name << ")";
  os << " is not a dynamic body: valid bodies are in [0, " << nb
     << ") and have a kinematic tree (not static, prescribed or welded to the world)";
  throw std::invalid_argument(os.str());
}

void RequireNonNegative(const char* field, double value, const char* unit) {
  if (std::isfinite(value) && value >= 0) return;
  std::ostringstream os;
  os << "perturbation " << field << " = " << value << " is out of range [0, inf) " << unit
     << " (finite)";
  throw std::invalid_argument(os.str());
}

}  // namespace

Perturbation MakeMouseSpring(const Model& model, int body, const Vec3& point_B,
                             const Vec3& target_W) {
  RequireDynamicBody(model, body);
  const double m = model.bodies[body].mass;          // [kg]
  const double w = 2.0 * kPi * kMouseSpringFrequency;  // [rad/s]
  Perturbation p;
  p.body = body;
  p.point_B = point_B;
  p.target_W = target_W;
  p.stiffness = m * w * w;   // [N/m]
  p.damping = 2.0 * m * w;   // [N s/m], critical for mass m
  return p;
}

void ValidatePerturbation(const Model& model, const Perturbation& p) {
  RequireDynamicBody(model, p.body);
  if (!p.point_B.allFinite()) throw std::invalid_argument("perturbation point_B must be finite");
  if (!p.target_W.allFinite()) throw std::invalid_argument("perturbation target_W must be finite");
  RequireNonNegative("stiffness", p.stiffness, "N/m");
  RequireNonNegative("damping", p.damping, "N s/m");
}

PerturbationForce EvaluatePerturbation(const Multibody& multibody, const KinematicsCache& kin,
                                       const VecX& v, const Perturbation& p,
                                       VecX* generalized_force) {
  PerturbationForce out;
  out.point_W = kin.X_WB[p.body].Apply(p.point_B);
  out.velocity_W = multibody.PointVelocity(kin, v, p.body, out.point_W);
  out.force_W = p.stiffness * (p.target_W - out.point_W) - p.damping * out.velocity_W;
  multibody.AddPointForce(kin, p.body, out.point_W, out.force_W, generalized_force);
  return out;
}

}  // namespace contactlab
