// A scene run in MuJoCo 2.2.2, in the same process, for side-by-side comparison with ContactLab
// (contactlab bench --peer mujoco). The scene is exported with ExportMjcf, written to a
// temporary file and loaded with mj_loadXML; Step() then drives the exported PD actuators and
// mocap (prescribed) bodies and calls mj_step.
//
// Only compiled when CMake finds MuJoCo (CONTACTLAB_HAVE_MUJOCO); this header needs no MuJoCo.
#pragma once

#include <memory>
#include <string>

#include "app/mjcf_export.h"
#include "app/scene.h"
#include "engine/inspect/metrics.h"

namespace contactlab {

class MujocoPeer {
 public:
  // Exports and loads the scene and sets MuJoCo's state to ContactLab's default state. Throws
  // std::runtime_error with MuJoCo's message when the model does not load.
  explicit MujocoPeer(const Scene& scene, const MjcfExportOptions& options = {});
  ~MujocoPeer();
  MujocoPeer(const MujocoPeer&) = delete;
  MujocoPeer& operator=(const MujocoPeer&) = delete;

  // Sets the actuator controls and mocap poses for the current time, then calls mj_step.
  // Returns the wall time of mj_step alone [ms].
  double Step();

  double time() const;
  // Contacts found by the last step's collision detection (at the start of that step).
  int num_contacts() const;
  // max(0, −min dist) over the last step's contacts [m].
  double max_penetration() const;
  // Solver iterations of the last step.
  int solver_iterations() const;
  // The NCP residual of seed 001 (engine/inspect/metrics.h, RigidNcpResidualOfContacts) of the
  // last step, on MuJoCo's own contact rows, against the rigid velocity-level law: per contact
  // with constraint rows (condim 3 and up: normal and the two sliding rows of its elliptic cone;
  // condim 1: the normal row alone), the impulses efc_force δt, the post-step velocities J v^{n+1}
  // (efc_J of the step's start, qvel after it) and φ0 = efc_pos (the contact's distance at the
  // start of the step). Torsional and rolling rows (condim 4, 6) are not measured. Throws
  // std::runtime_error for a pyramidal cone (the export writes elliptic cones).
  NcpResidual RigidNcpResidual() const;
  // True once MuJoCo ran out of preallocated contacts or constraint rows (results invalid).
  bool overflowed() const;
  // World pose of a ContactLab body's frame (its MJCF body) at time(); static bodies give pose0.
  Pose BodyPose(int body) const;

  const MjcfExport& exported() const;
  static const char* Version();  // MuJoCo's version string, e.g. "2.2.2"

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace contactlab
