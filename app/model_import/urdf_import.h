// URDF import through urdfdom (liburdfdom-dev, the ROS reference parser) with tinyxml2 for line
// numbers: the file is first read by tinyxml2 (malformed XML, unknown joint types and missing
// names are refused with their line), then parsed by urdfdom (its console_bridge messages are
// captured and rethrown with the line of the element they name), and the urdf::ModelInterface is
// converted to a ContactLab Scene. docs/model_files.md lists what comes across and what is
// reported.
//
// Mapping (URDF -> Model):
//   links     one Body per <link> (a root link called "world" without <inertial> is the world
//             itself). <inertial>: mass, COM = origin xyz, inertia rotated by origin rpy into the
//             link axes (Body::inertia = R I Rᵀ about the COM). A link without <inertial> (or
//             with mass 0) gets kUrdfLinkMass and kUrdfLinkInertia; a rigid group of such links
//             (welded by fixed joints) that a moving joint carries is reported when it carries
//             further moving links, and refused when it carries nothing (it would have no
//             dynamics).
//   joints    one Joint per <joint>: revolute -> revolute (limits), continuous -> revolute
//             without limits, prismatic -> prismatic (limits), fixed -> fixed, floating -> free
//             (on the world only). Joint origin = X_PJ, the child link frame is the joint frame
//             (X_CJ = identity), axis in the joint frame (default 1 0 0). <dynamics damping> ->
//             damping; friction, effort and velocity limits, safety controllers, planar joints
//             (imported as fixed) and floating joints between links (fixed): reported.
//             <mimic> -> Model::equalities (joint coupling q = offset + multiplier q_mimicked).
//             The root link (unless it is the world) gets a free joint, or a fixed joint with
//             UrdfImportOptions::fixed_base.
//   geoms     <collision>: box, cylinder (along z), sphere, mesh -> convex hull of the mesh file
//             (LoadConvexMesh, scaled). Colour from the link's first <visual> material. <visual>
//             meshes are resolved and read (a missing or unreadable one is an error) but not
//             drawn; collision never depends on visuals. Friction: the default material (μ 0.5)
//             unless a <gazebo reference="LINK"><mu1> gives μ.
//   contact   bodies welded together (fixed joints) never touch, nor a welded group and the
//             group its moving joint hangs from (Model::excluded_body_pairs).
//   settings  URDF has no time step or gravity: 1 ms and −9.81 z.
//   ignored silently: sensors, calibration, visual-only geometry other than meshes.
//   reported by element and line: transmissions, <gazebo> extensions other than mu1/mu2,
//   joint friction, planar joints, floating joints between links.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "app/scene.h"

namespace contactlab {

// Mass [kg] and inertia [kg m²] of links without <inertial> (frames, link bodies of chains).
constexpr double kUrdfLinkMass = 1e-12;
constexpr double kUrdfLinkInertia = 1e-12;

struct UrdfImportOptions {
  // Where package://NAME/... is looked up: "NAME=DIR" (package NAME is the folder DIR) or a plain
  // DIR (package NAME is DIR/NAME), in order; then the model file's ancestor folders called NAME,
  // and folders NAME inside an ancestor.
  std::vector<std::string> package_paths;
  bool fixed_base = false;    // weld the root link to the world instead of a free joint
  bool ground_plane = false;  // add a half-space z <= 0 and lift a free or fixed root so that
                              // the lowest collision geometry touches z = 0 at t = 0
};

struct UrdfImportReport {
  // What could not come across, one line each: "FILE:LINE: element 'name': what".
  std::vector<std::string> warnings;
  // Counts in the file.
  int urdf_links = 0, urdf_joints = 0, urdf_collisions = 0, urdf_visual_meshes = 0;
  double urdf_total_mass = 0;  // sum of <mass value>
  bool world_link = false;     // the root link is the world
  std::map<std::string, int> body_of_link;   // ContactLab body of each link (world: -1)
  std::map<std::string, int> joint_of_urdf;  // ContactLab joint of each URDF joint
  int root_joint = -1;                       // the added free / fixed root joint, or -1
  int massless_links = 0;                    // links given kUrdfLinkMass
  int overlap_exclusions = 0;                // body pairs excluded as overlapping at q = 0
  double lift = 0;                           // [m] root raised by ground_plane
};

// Resolves a URDF file reference (package://NAME/REST, file:///PATH, an absolute path, or a path
// relative to the model file's folder). Returns "" and sets *error (naming the package and every
// place looked in) when a package is not found.
std::string ResolveUrdfUri(const std::string& uri, const std::string& model_path,
                           const std::vector<std::string>& package_paths, std::string* error);

// Parses and converts the URDF file. Throws SceneError "FILE:LINE: element: message" for a
// malformed file, an unknown joint type, a bad inertia, a missing package or mesh, an unreadable
// mesh; "FILE: model: ..." when the converted model is invalid. The scene is finalized.
Scene ImportUrdf(const std::string& path, const UrdfImportOptions& options = {},
                 UrdfImportReport* report = nullptr);

}  // namespace contactlab
