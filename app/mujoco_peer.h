// A scene run in MuJoCo 2.2.2, in the same process, for side-by-side comparison with ContactLab
// (contactlab bench --peer mujoco).
//   YAML scenes: the scene is exported with ExportMjcf, written to a temporary file and loaded
//     with mj_loadXML; Step() then drives the exported PD actuators and mocap (prescribed)
//     bodies and calls mj_step.
//   MJCF scenes (.xml / .mjcf, imported by app/model_import/mjcf_import.h): MuJoCo loads the
//     user's file itself (mj_loadXML on the scene's path) with the file's own <option> (time
//     step, cone, solver, iterations, tolerance), starts from keyframe 0 when the file has one
//     (else qpos0, as the importer does), and Step() is mj_step with zero controls (the
//     importer's PD actuators hold ctrl = 0 likewise). Bodies map through the importer's
//     MjcfImportReport::body_of_mj.
//
// Only compiled when CMake finds MuJoCo (CONTACTLAB_HAVE_MUJOCO); this header needs no MuJoCo.
#pragma once

#include <memory>
#include <string>

#include "app/mjcf_export.h"
#include "app/scene.h"
#include "engine/inspect/metrics.h"

namespace contactlab {

struct MujocoPeerOptions {
  MjcfExportOptions export_options;  // YAML scenes only
  // Friction cone of MuJoCo's model: "" keeps the file's (MJCF scenes; MuJoCo's default is
  // pyramidal) or the export's (elliptic); "elliptic" or "pyramidal" sets m->opt.cone.
  std::string cone;
  // MJCF scenes: MuJoCo's preallocated sizes when non-zero (grown on overflow); 0 keeps the
  // file's (<size nconmax njmax>, MuJoCo's defaults otherwise).
  int nconmax = 0, njmax = 0;
};

// True for a scene MuJoCo can load directly: a path ending in .xml, .XML or .mjcf.
bool IsMjcfScenePath(const std::string& path);

class MujocoPeer {
 public:
  // YAML scenes are exported, MJCF scenes loaded from their file (see above). Throws
  // std::runtime_error with MuJoCo's message when the model does not load, or when the file's
  // model does not match the imported scene (dof count).
  MujocoPeer(const Scene& scene, const MujocoPeerOptions& options);
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
  // Total mechanical energy KE + PE [J] at the current state (MuJoCo's mj_energyPos and
  // mj_energyVel with mjENBL_ENERGY: gravity and joint-spring potential, ½ q̇ᵀ M q̇ with armature).
  double MechanicalEnergy() const;
  // The model's friction cone ("pyramidal" or "elliptic"), solver tolerance (opt.tolerance) and
  // iteration cap (opt.iterations), and whether MuJoCo loaded the scene's own file.
  std::string cone() const;
  double tolerance() const;
  int iteration_cap() const;
  bool loaded_file() const;
  int nconmax() const;  // the sizes in use (MJCF scenes: what the peer grows on overflow)
  int njmax() const;
  // The NCP residual of seed 001 (engine/inspect/metrics.h, RigidNcpResidualOfContacts) of the
  // last step, on MuJoCo's own contact rows, against the rigid velocity-level law: per contact
  // with constraint rows (condim 3 and up: normal and the two sliding rows of its elliptic cone;
  // condim 1: the normal row alone), the impulses efc_force δt, the post-step velocities J v^{n+1}
  // (efc_J of the step's start, qvel after it) and φ0 = efc_pos (the contact's distance at the
  // start of the step). Torsional and rolling rows (condim 4, 6) are not measured.
  // Pyramidal cones: the 2(condim − 1) edge rows of a contact, J_n ± μ J_tk with forces f_k±,
  // combine to the normal and friction impulses γ_n = δt Σ f, γ_tk = δt μ (f_k+ − f_k−) and
  // velocities v_n = ½ (J_k+ + J_k−) v, v_tk = (J_k+ − J_k−) v / (2μ), measured by the same law.
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
