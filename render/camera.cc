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

void OrbitCamera::FitSphere(const Vec3& center, double radius, double aspect, double margin) {
  if (!center.allFinite()) return;
  target = center;
  if (!(radius > 0) || !std::isfinite(radius)) return;
  const double half_y = 0.5 * fov_y;
  const double a = aspect > 0 && std::isfinite(aspect) ? aspect : 1.0;
  const double half_x = std::atan(std::tan(half_y) * a);
  const double half = std::min(half_x, half_y);
  const double d = std::max(1.0, margin) * radius / std::sin(half);
  distance = std::clamp(d, min_distance, max_distance);
}

const char* CameraPresetName(CameraPreset preset) {
  switch (preset) {
    case CameraPreset::kFront: return "front";
    case CameraPreset::kSide: return "side";
    case CameraPreset::kTop: return "top";
    case CameraPreset::kFit: return "fit";
  }
  return "?";
}

void ApplyCameraPreset(CameraPreset preset, const Bounds3& bounds, double aspect,
                       OrbitCamera* camera) {
  switch (preset) {
    case CameraPreset::kFront:
      camera->azimuth = -0.5 * kPi;
      camera->elevation = 0.0;
      break;
    case CameraPreset::kSide:
      camera->azimuth = 0.0;
      camera->elevation = 0.0;
      break;
    case CameraPreset::kTop:
      // Straight down with +x to the right and +y up on screen (Right() = (-sin a, cos a, 0)).
      camera->azimuth = -0.5 * kPi;
      camera->elevation = kMaxElevation;
      break;
    case CameraPreset::kFit:
      break;
  }
  if (!bounds.empty()) camera->FitSphere(bounds.Center(), bounds.Radius(), aspect);
}

const char* CameraTrackingName(CameraTracking tracking) {
  switch (tracking) {
    case CameraTracking::kOff: return "off";
    case CameraTracking::kSelectedBody: return "selected body";
    case CameraTracking::kActiveContacts: return "active contacts";
  }
  return "?";
}

Vec3 SmoothFollow(const Vec3& current, const Vec3& goal, double dt, double time_constant) {
  if (!goal.allFinite()) return current;
  if (!current.allFinite() || time_constant <= 0) return goal;
  if (!(dt > 0)) return current;
  const double f = 1.0 - std::exp(-dt / time_constant);
  return current + f * (goal - current);
}

AxesGizmo ComputeAxesGizmo(const OrbitCamera& camera) {
  AxesGizmo g;
  const Vec3 r = camera.Right(), u = camera.Up(), f = camera.Forward();
  double depth[3];
  for (int k = 0; k < 3; ++k) {
    const Vec3 e = Vec3::Unit(k);
    g.axis[k] = Eigen::Vector2d(e.dot(r), -e.dot(u));
    depth[k] = e.dot(f);  // > 0: points away from the eye
  }
  std::sort(g.order, g.order + 3, [&](int a, int b) { return depth[a] > depth[b]; });
  return g;
}

}  // namespace contactlab
