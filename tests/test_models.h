// Small models built in code for the physics tests (no scene files involved).
#pragma once

#include <cmath>
#include <string>

#include "engine/multibody/model.h"
#include "engine/sim/simulator.h"

namespace contactlab::testing {

// Step settings without gravity, δt = 1 ms: external forces act alone.
inline StepSettings NoGravity(Integrator integrator = Integrator::kSymplecticEuler) {
  StepSettings s;
  s.time_step = 1e-3;
  s.gravity = Vec3::Zero();
  s.integrator = integrator;
  return s;
}

inline Quat AxisAngleDeg(const Vec3& axis, double deg) {
  return Quat(Eigen::AngleAxisd(deg * kPi / 180.0, axis.normalized()));
}

inline int AddMaterial(Model* m, const std::string& name, double k, double tau, double mu) {
  Material mat;
  mat.name = name;
  mat.stiffness = k;
  mat.dissipation_time = tau;
  mat.friction = mu;
  m->materials.push_back(mat);
  return static_cast<int>(m->materials.size()) - 1;
}

// A world half-space whose outward normal is R(pose) * z.
inline void AddGround(Model* m, const Pose& pose, int material) {
  Geom g;
  g.name = "ground";
  g.body = -1;
  g.local = pose;
  g.shape.type = ShapeType::kHalfSpace;
  g.material = material;
  m->geoms.push_back(g);
}

inline Mat3 BoxInertia(double mass, const Vec3& h) {
  const Vec3 s = 2 * h;
  return (mass / 12.0 * Vec3(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(),
                             s.x() * s.x() + s.y() * s.y()))
      .asDiagonal();
}

inline Mat3 SphereInertia(double mass, double r) {
  return Mat3::Identity() * (0.4 * mass * r * r);
}

// Adds a body with a free joint to the world at `pose` and returns its index.
inline int AddFreeBody(Model* m, const std::string& name, double mass, const Mat3& inertia,
                       const Pose& pose) {
  Body b;
  b.name = name;
  b.mass = mass;
  b.inertia = inertia;
  b.pose0 = pose;
  m->bodies.push_back(b);
  const int bi = static_cast<int>(m->bodies.size()) - 1;
  Joint j;
  j.name = name + "_free";
  j.type = JointType::kFree;
  j.parent = -1;
  j.child = bi;
  m->joints.push_back(j);
  m->bodies[bi].joint = static_cast<int>(m->joints.size()) - 1;
  return bi;
}

inline void AddGeom(Model* m, int body, const Shape& shape, int material,
                    const Pose& local = Pose{}) {
  Geom g;
  g.name = (body >= 0 ? m->bodies[body].name : std::string("world")) + "_geom" +
           std::to_string(m->geoms.size());
  g.body = body;
  g.local = local;
  g.shape = shape;
  g.material = material;
  m->geoms.push_back(g);
}

inline Shape BoxShape(const Vec3& half) {
  Shape s;
  s.type = ShapeType::kBox;
  s.half_extents = half;
  return s;
}

inline Shape SphereShape(double r) {
  Shape s;
  s.type = ShapeType::kSphere;
  s.radius = r;
  return s;
}

// Adds a body connected to `parent` (-1 = world) by a 1-dof joint; returns the body index.
inline int AddJointedBody(Model* m, const std::string& name, int parent, JointType type,
                          const Vec3& axis, const Pose& parent_from_joint,
                          const Pose& child_from_joint, double mass, const Mat3& inertia,
                          const Vec3& com = Vec3::Zero()) {
  Body b;
  b.name = name;
  b.mass = mass;
  b.inertia = inertia;
  b.com = com;
  m->bodies.push_back(b);
  const int bi = static_cast<int>(m->bodies.size()) - 1;
  Joint j;
  j.name = name + "_joint";
  j.type = type;
  j.parent = parent;
  j.child = bi;
  j.axis = axis;
  j.parent_from_joint = parent_from_joint;
  j.child_from_joint = child_from_joint;
  m->joints.push_back(j);
  m->bodies[bi].joint = static_cast<int>(m->joints.size()) - 1;
  return bi;
}

}  // namespace contactlab::testing
