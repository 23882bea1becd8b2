#include "render/renderer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/collision.h"
#include "render/mesh.h"
#include "render/shaders.h"

namespace contactlab {

double GridSpacingForDistance(double distance) {
  if (!(distance > 0) || !std::isfinite(distance)) return 0.1;
  return std::pow(10.0, std::floor(std::log10(distance / 3.0)));
}

SceneRenderer::SceneRenderer() = default;

SceneRenderer::~SceneRenderer() {
  if (mesh_program_) glDeleteProgram(mesh_program_);
  if (background_program_) glDeleteProgram(background_program_);
  if (empty_vao_) glDeleteVertexArrays(1, &empty_vao_);
}

bool SceneRenderer::Init(std::string* error) {
  mesh_program_ = BuildProgram(shaders::kMeshVertex, shaders::kMeshFragment, error);
  if (!mesh_program_) return false;
  background_program_ =
      BuildProgram(shaders::kBackgroundVertex, shaders::kBackgroundFragment, error);
  if (!background_program_) return false;
  glGenVertexArrays(1, &empty_vao_);
  return true;
}

void SceneRenderer::SetModel(const Model& model) {
  meshes_.clear();
  has_half_space_ = false;
  for (const Geom& g : model.geoms) {
    const MeshData data = MakeShapeMesh(g.shape, plane_half_size_);
    if (g.shape.type == ShapeType::kHalfSpace) has_half_space_ = true;
    if (data.indices.empty()) {
      meshes_.push_back(nullptr);
      continue;
    }
    auto buffer = std::make_unique<VertexBuffer>();
    buffer->Create({3, 3}, true);
    buffer->Upload(data.vertices, false);
    buffer->UploadIndices(data.indices);
    meshes_.push_back(std::move(buffer));
  }
  if (floor_.empty()) {
    const MeshData plane = MakePlaneMesh(plane_half_size_);
    floor_.Create({3, 3}, true);
    floor_.Upload(plane.vertices, false);
    floor_.UploadIndices(plane.indices);
  }
}

void SceneRenderer::BeginFrame(int x_px, int y_px, int width_px, int height_px,
                               const OrbitCamera& camera, const RenderOptions& options) {
  glViewport(x_px, y_px, width_px, height_px);
  view_ = camera.ViewMatrix();
  proj_ = camera.ProjectionMatrix(height_px > 0 ? double(width_px) / height_px : 1.0);
  eye_ = camera.Eye();
  target_ = camera.target;
  fade_radius_ =
      static_cast<float>(std::min(plane_half_size_, options.fade_distances * camera.distance));
  grid_spacing_ = options.grid_spacing;
  glDepthMask(GL_TRUE);
  glClearColor(options.background_bottom.r, options.background_bottom.g,
               options.background_bottom.b, 1.0f);
  glEnable(GL_SCISSOR_TEST);
  glScissor(x_px, y_px, width_px, height_px);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  // Gradient background, behind everything (no depth write).
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glUseProgram(background_program_);
  SetUniform(background_program_, "u_top",
             Eigen::Vector3f(options.background_top.r, options.background_top.g,
                             options.background_top.b));
  SetUniform(background_program_, "u_bottom",
             Eigen::Vector3f(options.background_bottom.r, options.background_bottom.g,
                             options.background_bottom.b));
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUseProgram(0);
}

void SceneRenderer::DrawMesh(const VertexBuffer& mesh, const Pose& X_WG, const Color& color,
                             bool grid) {
  Eigen::Matrix4f model = Eigen::Matrix4f::Identity();
  const Mat3 R = X_WG.R();
  model.block<3, 3>(0, 0) = R.cast<float>();
  model.block<3, 1>(0, 3) = X_WG.p.cast<float>();
  SetUniform(mesh_program_, "u_model", model);
  SetUniform(mesh_program_, "u_normal_matrix", Eigen::Matrix3f(R.cast<float>()));
  SetUniform(mesh_program_, "u_color", Eigen::Vector4f(color.r, color.g, color.b, color.a));
  SetUniform(mesh_program_, "u_grid", grid ? 1 : 0);
  mesh.Draw(GL_TRIANGLES);
}

void SceneRenderer::DrawModel(const Model& model, const std::vector<Pose>& X_WB,
                              const RenderOptions& options) {
  glUseProgram(mesh_program_);
  SetUniform(mesh_program_, "u_view", view_);
  SetUniform(mesh_program_, "u_proj", proj_);
  SetUniform(mesh_program_, "u_eye", Eigen::Vector3f(eye_.cast<float>()));
  SetUniform(mesh_program_, "u_grid_spacing", grid_spacing_);
  SetUniform(mesh_program_, "u_fade_center", Eigen::Vector3f(target_.cast<float>()));
  SetUniform(mesh_program_, "u_fade_radius", fade_radius_);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);

  const int num_geoms = std::min<int>(model.geoms.size(), meshes_.size());
  auto pose_of = [&](const Geom& g) {
    if (g.body >= 0 && g.body >= static_cast<int>(X_WB.size())) return g.local;
    return GeomPose(g, X_WB);
  };
  auto color_of = [](const Geom& g) {
    return Color{float(g.color[0]), float(g.color[1]), float(g.color[2]), float(g.color[3])};
  };

  // Opaque half-spaces first (they fade into the background at their edge), then opaque
  // bodies; everything translucent (geometry with alpha < 1, or all bodies in transparent mode)
  // afterwards without depth writes, so what lies behind it stays visible.
  std::vector<int> bodies, translucent_bodies, translucent_planes;
  for (int i = 0; i < num_geoms; ++i) {
    if (!meshes_[i]) continue;
    const Geom& g = model.geoms[i];
    const bool plane = g.shape.type == ShapeType::kHalfSpace;
    const bool translucent = g.color[3] < 1.0 || (!plane && options.transparent_bodies);
    if (plane && !translucent) {
      DrawMesh(*meshes_[i], pose_of(g), color_of(g), options.show_grid);
    } else if (plane) {
      translucent_planes.push_back(i);
    } else if (translucent) {
      translucent_bodies.push_back(i);
    } else {
      bodies.push_back(i);
    }
  }
  for (int i : bodies) {
    DrawMesh(*meshes_[i], pose_of(model.geoms[i]), color_of(model.geoms[i]), false);
  }
  // Back to front, each shape's back faces before its front faces.
  std::vector<double> depth(num_geoms, 0.0);
  for (int i : translucent_bodies) depth[i] = (pose_of(model.geoms[i]).p - eye_).squaredNorm();
  std::sort(translucent_bodies.begin(), translucent_bodies.end(),
            [&](int a, int b) { return depth[a] > depth[b]; });
  glDepthMask(GL_FALSE);
  glEnable(GL_CULL_FACE);
  for (int i : translucent_bodies) {
    Color c = color_of(model.geoms[i]);
    if (options.transparent_bodies) c.a *= options.body_alpha;
    const Pose X = pose_of(model.geoms[i]);
    glCullFace(GL_FRONT);
    DrawMesh(*meshes_[i], X, c, false);
    glCullFace(GL_BACK);
    DrawMesh(*meshes_[i], X, c, false);
  }
  glDisable(GL_CULL_FACE);
  for (int i : translucent_planes) {
    DrawMesh(*meshes_[i], pose_of(model.geoms[i]), color_of(model.geoms[i]), options.show_grid);
  }
  glDepthMask(GL_TRUE);

  // Floor grid for scenes without a ground: translucent, drawn over what lies below it.
  if (options.show_grid && !has_half_space_ && !floor_.empty()) {
    glDepthMask(GL_FALSE);
    DrawMesh(floor_, Pose{}, Color{0.55f, 0.57f, 0.60f, 0.35f}, true);
    glDepthMask(GL_TRUE);
  }
  glUseProgram(0);
}

}  // namespace contactlab
