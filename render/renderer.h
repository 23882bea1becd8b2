// Draws a Model's geometry at given body poses with OpenGL 3.3 core: lit shaded meshes, grid
// textured half-spaces, an optional floor grid and a gradient background. Debug glyphs are drawn
// separately by GlDebugDraw.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "engine/inspect/colormap.h"
#include "engine/multibody/model.h"
#include "render/camera.h"
#include "render/gl_util.h"
#include "render/scene_geometry.h"

namespace contactlab {

struct RenderOptions {
  bool transparent_bodies = false;  // alpha-blend bodies so contacts inside a pile show
  float body_alpha = 0.35f;         // opacity of bodies when transparent_bodies
  bool show_grid = true;            // grid lines on half-spaces; a floor grid at z = 0 otherwise
  bool glyphs_on_top = true;        // contact glyphs are not hidden by bodies
  float grid_spacing = 0.1f;        // minor grid spacing [m]; major lines every 10
  float fade_distances = 10.0f;     // planes fade out at this many camera distances from the target
  Color background_top{0.36f, 0.40f, 0.47f, 1.0f};
  Color background_bottom{0.10f, 0.11f, 0.13f, 1.0f};
};

// Minor grid spacing (a power of ten) suited to a camera distance [m].
double GridSpacingForDistance(double distance);

class SceneRenderer {
 public:
  SceneRenderer();
  ~SceneRenderer();

  // Compiles the programs; needs a current GL 3.3 core context. Returns false with `error`.
  bool Init(std::string* error);
  // Builds one GPU mesh per geometry of `model`.
  void SetModel(const Model& model);
  // Draws the half-spaces of `faces` (ComputeHalfSpaceFaces in render/scene_geometry.h, for the
  // model of the last SetModel) as those finite polygons, without the fade to the horizon; a
  // model with fewer than two half-spaces (faces.boxed false) keeps its infinite planes. Each face
  // has a rim (faces.rim_width wide, lighter and nearly opaque) that outlines it, so a see-through
  // face of the floor's colour (mesh_pile's ramp) still reads as a surface.
  void SetHalfSpaceFaces(const HalfSpaceFaces& faces);

  // Sets the viewport (GL convention: x, y of the bottom-left corner, framebuffer pixels) and
  // the camera matrices. The caller has cleared the depth buffer (to 1) in that rectangle;
  // DrawModel draws the gradient background after the opaque geometry, where it is not covered
  // (the depth test rejects the covered pixels before they are shaded).
  void BeginFrame(int x_px, int y_px, int width_px, int height_px, const OrbitCamera& camera,
                  const RenderOptions& options);
  // Draws every geometry of the model given the body poses (size model.bodies.size()), and the
  // background. Opaque geometry is drawn without blending: bodies front to back, then the finite
  // faces of half-spaces, then the background where nothing covers it, then what blends (planes
  // that fade to the horizon, face rims, translucent bodies and faces). A translucent finite face
  // is the surface of a solid: seen from its free side (a far wall of a box, a ramp from above)
  // it is drawn opaque, lit like the floor; seen from inside the solid (a near wall) it is a
  // see-through film of its alpha, so that the bodies behind it show.
  void DrawModel(const Model& model, const std::vector<Pose>& X_WB, const RenderOptions& options);
  // Draws a ghost of the model at other body poses (compare mode: another configuration's
  // bodies over the primary's): the geometry of bodies with dofs only (static, prescribed and
  // world geometry is the same in every configuration), see-through, its colour mixed towards
  // `tint` by `tint_amount` in [0, 1], with `alpha` facing the camera and a nearly opaque rim
  // (alpha 0.95) in the tint at the silhouette. `body_alpha` (per body, optional) scales both
  // (GhostVisibility fades the bodies that coincide with the primary's). After DrawModel;
  // writes no depth.
  void DrawGhost(const Model& model, const std::vector<Pose>& X_WB, const Color& tint,
                 const std::vector<float>* body_alpha = nullptr, float alpha = 0.4f,
                 float tint_amount = 0.75f);

  const Eigen::Matrix4f& view() const { return view_; }
  const Eigen::Matrix4f& projection() const { return proj_; }
  const Vec3& eye() const { return eye_; }

 private:
  // The gradient background over the viewport where the depth buffer is still at its clear
  // value (depth test LEQUAL at the far plane, no depth writes).
  void DrawBackground();
  // Uniform locations, looked up once after linking.
  struct MeshUniforms {
    GLint model = -1, view_proj = -1, normal_matrix = -1, color = -1, eye = -1, rim_alpha = -1;
  };
  struct PlaneUniforms {
    GLint model = -1, view_proj = -1, inv_spacing = -1, color = -1, eye = -1, normal = -1,
          base_front = -1, base_back = -1, grid = -1, fade_center = -1, fade_radius = -1;
  };
  // Round shapes (spheres, capsules, cylinders) keep several tessellations; the one drawn
  // depends on the shape's size on screen.
  struct LevelOfDetail {
    int slices = 0;
    std::unique_ptr<VertexBuffer> mesh;
  };

  void DrawBody(const VertexBuffer& mesh, const Pose& X_WG, const Color& color);
  void DrawPlane(const VertexBuffer& mesh, const Pose& X_WG, const Color& color, bool grid,
                 bool finite = false);
  // A half-space: its plane (or finite face) and the face's rim, lighter and nearly opaque.
  void DrawHalfSpace(int i, const Pose& X_WG, const Color& color, bool grid);
  void DrawRim(int i, const Pose& X_WG, const Color& color);
  // The tessellation of geom i for its pose (the full mesh for shapes without levels).
  const VertexBuffer& MeshFor(int i, const Geom& g, const Pose& X_WG) const;

  GLuint mesh_program_ = 0, plane_program_ = 0, background_program_ = 0;
  // Translucent planes (no depth writes) fade by alpha alone: without the opaque program's
  // discard, the depth test can reject their hidden fragments before shading (early z), which
  // matters for walls that extend below an opaque floor.
  GLuint blend_plane_program_ = 0;
  MeshUniforms mesh_u_;
  PlaneUniforms plane_u_, blend_plane_u_;
  const PlaneUniforms* active_plane_u_ = &plane_u_;  // of the plane program in use
  GLuint empty_vao_ = 0;
  std::vector<std::unique_ptr<VertexBuffer>> meshes_;  // per geom (null if empty)
  std::vector<std::vector<LevelOfDetail>> lods_;        // per geom, coarsest first (may be empty)
  std::vector<bool> finite_face_;  // per geom: a half-space drawn as its finite face (no fade)
  std::vector<std::unique_ptr<VertexBuffer>> rims_;  // per geom: the outline band of a finite face
  double pixels_per_unit_ = 1.0;  // [px] per unit of size / depth in the viewport
  VertexBuffer floor_;
  double plane_half_size_ = 25.0;
  bool has_half_space_ = false;
  float grid_spacing_ = 0.1f;
  Eigen::Matrix4f view_ = Eigen::Matrix4f::Identity();
  Eigen::Matrix4f proj_ = Eigen::Matrix4f::Identity();
  Vec3 eye_ = Vec3::Zero();
  Vec3 target_ = Vec3::Zero();
  float fade_radius_ = 25.0f;  // [m]
  Eigen::Vector3f background_top_ = Eigen::Vector3f::Zero();
  Eigen::Vector3f background_bottom_ = Eigen::Vector3f::Zero();
};

}  // namespace contactlab
