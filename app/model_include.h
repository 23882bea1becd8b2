// A model file placed into a scene: the `models:` list of YAML scenes (docs/scene_format.md),
// which puts an MJCF, URDF or YAML model beside the scene's own bodies.
//
// The included model is loaded on its own (LoadScene: finalized, its start state in q_default /
// v_default) and its bodies, joints, geometries, materials, pair values, exclusions and
// equalities are appended to the scene's model with their indices shifted. Placement: every
// pose the part gives in its world frame (root joints' parent frames, world geometries, static
// and prescribed bodies, free bodies' start poses and velocities) is moved by `base`. The
// scene's own settings (time step, gravity, solver) rule; the part's are not used.
#pragma once

#include <string>
#include <vector>

#include "engine/multibody/model.h"

namespace contactlab {

struct ModelPlacement {
  Pose base;               // the part's world frame in the scene's world frame
  bool fixed = false;      // root free joints become fixed joints (welded where they start)
  std::string prefix;      // body, joint and geometry names become PREFIX/NAME ("" keeps them)
  int material = -1;       // >= 0: every geometry of the part uses this scene material
  bool world_geometry = true;  // false: the part's geometries fixed to the world (its floor)
                               // and its static bodies' geometries are left out
};

// What AppendModel did, to set the part's start state once the scene is finalized.
struct AppendedModel {
  int first_body = 0, num_bodies = 0;
  int first_joint = 0, num_joints = 0;
  int first_geom = 0, num_geoms = 0;
  // Per appended joint (scene index), the part's start coordinates and velocities, already
  // moved by the base pose (free joints); empty for joints that became fixed.
  struct JointStart {
    int joint = -1;
    VecX q, v;
  };
  std::vector<JointStart> starts;
  int fixed_roots = 0;  // free joints turned fixed
};

// Appends the finalized model `part` to `into` (not finalized: Model::Finalize runs after all
// parts are in). Materials of the part are appended unless one of the same name and values
// exists (then reused); a same-named material with other values is renamed PREFIX/NAME.
// Throws std::invalid_argument when a name collides after prefixing (message names it).
AppendedModel AppendModel(const Model& part, const ModelPlacement& placement, Model* into);

// Writes the part's start state into the finalized scene model's q_default / v_default.
void ApplyAppendedStart(const AppendedModel& appended, Model* model);

}  // namespace contactlab
