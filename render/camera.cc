#include "render/camera.h"

#include <algorithm>
#include <cmath>

namespace contactlab {

namespace {
constexpr double kMaxElevation = 0.5 * kPi - 1e-3;
}  // namespace

void OrbitCamera::Set(const Vec3& t, double d, double azimuth_deg, double elevation_deg) {
  target = t;
  distance = std::clamp(d, min_distance, max_distance);
  azimuth = azimuth_deg * kPi / 180.0;
  elevation = std::clamp(elevation_deg * kPi / 180.0, -kMaxElevation, kMaxElevation);
}

Vec3 OrbitCamera::Forward() const {
  // The eye is at target + distance * (cos e cos a, cos e sin a, sin e).
  const double ce = std::cos(elevation);
  return -Vec3(ce * std::cos(azimuth), ce * std::sin(azimuth), std::sin(elevation));
}

Vec3 OrbitCamera::Eye() const { return target - distance * Forward(); }

Vec3 OrbitCamera::Right() const {
  // Horizontal, so orbiting never rolls the view.
  return Vec3(-std::sin(azimuth), std::cos(azimuth), 0.0);
}

Vec3 OrbitCamera::Up() const { return Right().cross(Forward()); }

Eigen::Matrix4f OrbitCamera::ViewMatrix() const {
  const Vec3 f = Forward(), r = Right(), u = Up(), e = Eye();
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.block<1, 3>(0, 0) = r.transpose();
  m.block<1, 3>(1, 0) = u.transpose();
  m.block<1, 3>(2, 0) = -f.transpose();
  m(0, 3) = -r.dot(e);
  m(1, 3) = -u.dot(e);
  m(2, 3) = f.dot(e);
  return m.cast<float>();
}

Eigen::Matrix4f OrbitCamera::ProjectionMatrix(double aspect) const {
  const double n = NearPlane(), f = FarPlane();
  const double t = 1.0 / std::tan(0.5 * fov_y);
  Eigen::Matrix4d p = Eigen::Matrix4d::Zero();
  p(0, 0) = t / aspect;
  p(1, 1) = t;
  p(2, 2) = -(f + n) / (f - n);
  p(2, 3) = -2.0 * f * n / (f - n);
  p(3, 2) = -1.0;
  return p.cast<float>();
}

void OrbitCamera::Orbit(double d_azimuth, double d_elevation) {
  azimuth = std::remainder(azimuth + d_azimuth, 2.0 * kPi);
  elevation = std::clamp(elevation + d_elevation, -kMaxElevation, kMaxElevation);
}

void OrbitCamera::Pan(double dx_px, double dy_px, double viewport_height_px) {
  if (viewport_height_px <= 0) return;
  // World size of one pixel at the target's depth.
  const double m_per_px = 2.0 * distance * std::tan(0.5 * fov_y) / viewport_height_px;
  target += m_per_px * (-dx_px * Right() + dy_px * Up());
}

void OrbitCamera::Zoom(double factor) {
  if (!(factor > 0)) return;
  distance = std::clamp(distance * factor, min_distance, max_distance);
}

Ray OrbitCamera::PickRay(double x_px, double y_px, double width_px, double height_px) const {
  const double ndc_x = 2.0 * x_px / width_px - 1.0;
  const double ndc_y = 1.0 - 2.0 * y_px / height_px;
  const double t = std::tan(0.5 * fov_y);
  const double aspect = width_px / height_px;
  const Vec3 d = Forward() + ndc_x * t * aspect * Right() + ndc_y * t * Up();
  return Ray{Eye(), d.normalized()};
}

bool OrbitCamera::Project(const Vec3& p, double width_px, double height_px, double* x_px,
                          double* y_px) const {
  const Vec3 rel = p - Eye();
  const double depth = rel.dot(Forward());
  if (depth <= NearPlane()) return false;
  const double t = std::tan(0.5 * fov_y);
  const double aspect = width_px / height_px;
  const double ndc_x = rel.dot(Right()) / (depth * t * aspect);
  const double ndc_y = rel.dot(Up()) / (depth * t);
  *x_px = 0.5 * (ndc_x + 1.0) * width_px;
  *y_px = 0.5 * (1.0 - ndc_y) * height_px;
  return true;
}

}  // namespace contactlab
