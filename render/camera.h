// Orbit camera for a z-up world: the eye sits on a sphere around `target`, placed by azimuth
// (about +z, from +x) and elevation (above the xy plane). Pure math, no GL: the matrices are
// column-major 4x4 floats ready for glUniformMatrix4fv.
#pragma once

#include <Eigen/Core>

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
};

}  // namespace contactlab
