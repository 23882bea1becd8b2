// Spatial (6D) vector algebra in world axes about one fixed reference point r0 (Featherstone,
// "Rigid Body Dynamics Algorithms", ch. 2). Used by the recursive multibody algorithms.
//
//   SpatialMotion [ω; v]: angular velocity and the velocity of the material point at r0.
//   SpatialForce  [n; f]: moment about r0 and force.
//   SpatialInertia: mass m, first moment h = m c and rotational inertia I about r0, where c is
//                   the center of mass relative to r0; as a 6x6 matrix [[I, [h]×], [[h]×ᵀ, m]].
// Power is the pairing SpatialMotion · SpatialForce = ω·n + v·f.
#pragma once

#include "engine/common/math.h"

namespace contactlab {

struct SpatialMotion {
  Vec3 w = Vec3::Zero();  // angular part
  Vec3 v = Vec3::Zero();  // linear part (velocity of the point at r0)

  SpatialMotion& operator+=(const SpatialMotion& o) {
    w += o.w;
    v += o.v;
    return *this;
  }
  SpatialMotion operator+(const SpatialMotion& o) const { return {w + o.w, v + o.v}; }
  SpatialMotion operator*(double s) const { return {w * s, v * s}; }
};

struct SpatialForce {
  Vec3 n = Vec3::Zero();  // moment about r0
  Vec3 f = Vec3::Zero();  // force

  SpatialForce& operator+=(const SpatialForce& o) {
    n += o.n;
    f += o.f;
    return *this;
  }
  SpatialForce operator+(const SpatialForce& o) const { return {n + o.n, f + o.f}; }
};

inline double Dot(const SpatialMotion& m, const SpatialForce& f) {
  return m.w.dot(f.n) + m.v.dot(f.f);
}

// a ×ₘ b: rate of change of the motion vector b carried by a body moving with velocity a.
inline SpatialMotion CrossMotion(const SpatialMotion& a, const SpatialMotion& b) {
  return {a.w.cross(b.w), a.w.cross(b.v) + a.v.cross(b.w)};
}

// a ×f f: rate of change of the force vector f carried by a body moving with velocity a.
inline SpatialForce CrossForce(const SpatialMotion& a, const SpatialForce& f) {
  return {a.w.cross(f.n) + a.v.cross(f.f), a.w.cross(f.f)};
}

struct SpatialInertia {
  double m = 0;           // mass [kg]
  Vec3 h = Vec3::Zero();  // first moment m c about r0 [kg m]
  Mat3 I = Mat3::Zero();  // rotational inertia about r0, world axes [kg m²]

  // Rigid body of mass `mass` with center of mass at c (relative to r0) and rotational inertia
  // I_com about its center of mass (world axes): parallel-axis theorem.
  static SpatialInertia FromBody(double mass, const Vec3& c, const Mat3& I_com) {
    SpatialInertia s;
    s.m = mass;
    s.h = mass * c;
    s.I = I_com;
    s.I.diagonal().array() += mass * c.squaredNorm();
    s.I.noalias() -= mass * c * c.transpose();
    return s;
  }

  SpatialInertia& operator+=(const SpatialInertia& o) {
    m += o.m;
    h += o.h;
    I += o.I;
    return *this;
  }

  // Momentum of a body moving with spatial velocity x.
  SpatialForce operator*(const SpatialMotion& x) const {
    return {I * x.w + h.cross(x.v), m * x.v - h.cross(x.w)};
  }
};

}  // namespace contactlab
