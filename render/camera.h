// Orbit camera for a z-up world: the eye sits on a sphere around `target`, placed by azimuth
// (about +z, from +x) and elevation (above the xy plane). Pure math, no GL: the matrices are
// column-major 4x4 floats ready for glUniformMatrix4fv.
#pragma once

#include <Eigen/Core>
#include <limits>

#include "engine/common/math.h"

namespace contactlab {

struct Ray {
  Vec3 origin;
  Vec3 direction;  // unit
};

class OrbitCamera {
 public:
  Vec3 target = Vec3::Zero();  // point looked at [m]
  double distance = 2.0;       // eye to target [m], > 0
  double azimuth = 0.5;        // [rad] about +z, from +x
  double elevation = 0.35;     // [rad], clamped to (−π/2, π/2)
  double fov_y = 0.7;          // vertical field of view [rad]
  double min_distance = 1e-3;  // [m]
  double max_distance = 1e4;   // [m]

  // Sets target, distance and angles given in degrees (as in the scene's CameraDef).
  void Set(const Vec3& target, double distance, double azimuth_deg, double elevation_deg);

  Vec3 Eye() const;
  Vec3 Forward() const;  // unit, eye -> target
  Vec3 Right() const;    // unit, screen right
  Vec3 Up() const;       // unit, screen up

  // Near/far planes follow the distance so that both tiny and large scenes render.
  double NearPlane() const { return distance * 0.01; }
  double FarPlane() const { return distance * 200.0 + 50.0; }

  Eigen::Matrix4f ViewMatrix() const;
  Eigen::Matrix4f ProjectionMatrix(double aspect) const;  // aspect = width / height

  // Rotates about the target: d_azimuth, d_elevation in radians.
  void Orbit(double d_azimuth, double d_elevation);
  // Moves target and eye together by a drag of (dx, dy) pixels in a viewport `height` px tall,
  // so that the point under the cursor at the target's depth follows the cursor.
  void Pan(double dx_px, double dy_px, double viewport_height_px);
  // Multiplies the distance by `factor` (> 0), clamped to [min_distance, max_distance].
  void Zoom(double factor);

  // World ray through pixel (x, y) of a width x height viewport, y pointing down from the top
  // (window convention). Pixel centres are at half-integers.
  Ray PickRay(double x_px, double y_px, double width_px, double height_px) const;

  // Projects a world point into window pixels (y down). Returns false if it is behind the eye.
  bool Project(const Vec3& p, double width_px, double height_px, double* x_px, double* y_px) const;

  // Moves the eye back along the view direction (angles kept) so that the sphere (center,
  // radius) fits in a viewport of aspect width / height with `margin` (>= 1) to spare: the
  // target becomes the centre, the distance radius * margin / sin(half the narrower field of
  // view). A radius <= 0 or not finite keeps the distance.
  void FitSphere(const Vec3& center, double radius, double aspect, double margin = 1.1);
};

// Camera presets: looking along +y from the front (eye on -y), along -x from the side (eye on
// +x), down from the top (eye on +z, x to the right), and "fit": the angles kept, the scene's
// bounding sphere fitted.
enum class CameraPreset { kFront, kSide, kTop, kFit };
const char* CameraPresetName(CameraPreset preset);

// Axis-aligned bounds of points; empty() until a point is added.
struct Bounds3 {
  Vec3 min = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 max = Vec3::Constant(-std::numeric_limits<double>::infinity());
  bool empty() const { return !(min.x() <= max.x()); }
  void Add(const Vec3& p) {
    if (!p.allFinite()) return;
    min = min.cwiseMin(p);
    max = max.cwiseMax(p);
  }
  void Add(const Bounds3& b) {
    if (b.empty()) return;
    Add(b.min);
    Add(b.max);
  }
  Vec3 Center() const { return 0.5 * (min + max); }
  double Radius() const { return 0.5 * (max - min).norm(); }  // of the enclosing sphere
};

// Applies `preset` to the camera: front, side and top set the angles and fit `bounds` (when
// not empty; else they keep target and distance); fit keeps the angles. `aspect` = viewport
// width / height.
void ApplyCameraPreset(CameraPreset preset, const Bounds3& bounds, double aspect,
                       OrbitCamera* camera);

// What a tracking camera follows.
enum class CameraTracking { kOff, kSelectedBody, kActiveContacts };
const char* CameraTrackingName(CameraTracking tracking);

// Exponential smoothing of a followed point: moves `current` towards `goal` by the fraction
// 1 - exp(-dt / time_constant) (all the way for time_constant <= 0; not at all for dt <= 0). A
// goal that is not finite leaves `current` unchanged.
Vec3 SmoothFollow(const Vec3& current, const Vec3& goal, double dt, double time_constant);

// The world axes gizmo: the screen direction of each world axis (x, y, z) for the camera,
// (right, down) in pixels per unit length, and the depth order to draw them in (far first).
struct AxesGizmo {
  Eigen::Vector2d axis[3];  // screen direction (x right, y down), |axis| <= 1
  int order[3] = {0, 1, 2};  // axis indices, farthest from the eye first
};
AxesGizmo ComputeAxesGizmo(const OrbitCamera& camera);

}  // namespace contactlab
