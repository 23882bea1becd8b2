// Basic math types shared by every layer. Eigen only.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace contactlab {

using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

constexpr double kPi = 3.14159265358979323846;

// Rigid transform: x_world = R(q) x_local + p.
struct Pose {
  Vec3 p = Vec3::Zero();
  Quat q = Quat::Identity();

  Vec3 Apply(const Vec3& x) const { return q * x + p; }
  Vec3 Rotate(const Vec3& x) const { return q * x; }
  Vec3 InverseApply(const Vec3& x) const { return q.conjugate() * (x - p); }
  Pose operator*(const Pose& b) const { return Pose{q * b.p + p, q * b.q}; }
  Pose Inverse() const {
    Quat qi = q.conjugate();
    return Pose{-(qi * p), qi};
  }
  Mat3 R() const { return q.toRotationMatrix(); }
};

inline Mat3 Skew(const Vec3& w) {
  Mat3 s;
  s << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
  return s;
}

// Any unit vector orthogonal to n (n must be unit).
inline Vec3 AnyOrthogonal(const Vec3& n) {
  Vec3 a = std::abs(n.x()) < 0.57735 ? Vec3::UnitX() : (std::abs(n.y()) < 0.57735 ? Vec3::UnitY() : Vec3::UnitZ());
  return (a - n * n.dot(a)).normalized();
}

// Rotation that maps a world vector into the contact frame whose z axis is n.
// Rows are (t1, t2, n): v_c = C * v_world.
inline Mat3 ContactFrame(const Vec3& n) {
  Vec3 t1 = AnyOrthogonal(n);
  Vec3 t2 = n.cross(t1);
  Mat3 c;
  c.row(0) = t1.transpose();
  c.row(1) = t2.transpose();
  c.row(2) = n.transpose();
  return c;
}

}  // namespace contactlab
