#include "render/renderer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

#include "engine/geometry/collision.h"
#include "render/mesh.h"
#include "render/shaders.h"

namespace contactlab {

namespace {

// Slice counts of the coarser tessellations of round shapes; the full mesh has 32.
constexpr int kLodSlices[] = {12, 16, 24};
// Largest distance [px] between a round shape's true silhouette and its polygon.
constexpr double kMaxSilhouetteErrorPx = 0.3;

// Round shapes tessellated with `slices` around their axis (stacks in proportion), or empty.
MeshData MakeRoundMesh(const Shape& shape, int slices) {
  switch (shape.type) {
    case ShapeType::kSphere:
      return MakeSphereMesh(shape.radius, slices, slices / 2);
    case ShapeType::kCapsule:
      return MakeCapsuleMesh(shape.radius, shape.half_length, slices, std::max(2, slices / 4));
    case ShapeType::kCylinder:
      return MakeCylinderMesh(shape.radius, shape.half_length, slices);
    default:
      return MeshData{};
  }
}

// Shapes whose meshes (render/mesh.h) are closed and wound counter-clockwise from outside, so
// that their back faces are never seen from outside. Convex hulls keep both sides: their render
// meshes come from files.
bool ClosedPrimitive(ShapeType type) {
  return type == ShapeType::kSphere || type == ShapeType::kBox || type == ShapeType::kCapsule ||
         type == ShapeType::kCylinder;
}

// Ambient plus key light factor of Shade() in shaders.h for a surface with normal n.
Eigen::Vector3f PlaneBaseLight(const Eigen::Vector3f& n) {
  const float hemi = 0.5f + 0.5f * n.z();
  const Eigen::Vector3f ambient =
      (1.0f - hemi) * Eigen::Vector3f(0.13f, 0.12f, 0.12f) + hemi * Eigen::Vector3f(0.24f, 0.26f, 0.30f);
  const float key = std::max(n.dot(Eigen::Vector3f(0.35f, 0.25f, 1.0f).normalized()), 0.0f);
  return ambient + Eigen::Vector3f::Constant(0.22f * key);
}

}  // namespace

double GridSpacingForDistance(double distance) {
  if (!(distance > 0) || !std::isfinite(distance)) return 0.1;
  return std::pow(10.0, std::floor(std::log10(distance / 3.0)));
}

SceneRenderer::SceneRenderer() = default;

SceneRenderer::~SceneRenderer() {
  if (mesh_program_) glDeleteProgram(mesh_program_);
  if (plane_program_) glDeleteProgram(plane_program_);
  if (blend_plane_program_) glDeleteProgram(blend_plane_program_);
  if (background_program_) glDeleteProgram(background_program_);
  if (empty_vao_) glDeleteVertexArrays(1, &empty_vao_);
}

bool SceneRenderer::Init(std::string* error) {
  mesh_program_ = BuildProgram(shaders::kMeshVertex, shaders::kMeshFragment, error);
  if (!mesh_program_) return false;
  plane_program_ = BuildProgram(shaders::kPlaneVertex, shaders::kPlaneFragment, error);
  if (!plane_program_) return false;
  {
    std::string source = shaders::kPlaneFragment;
    const std::string cut = "if (r2 > u_fade_radius * u_fade_radius) discard;";
    const size_t at = source.find(cut);
    if (at == std::string::npos) {
      *error = "plane shader: the fade discard to remove for translucent planes is missing";
      return false;
    }
    source.erase(at, cut.size());
    blend_plane_program_ = BuildProgram(shaders::kPlaneVertex, source.c_str(), error);
    if (!blend_plane_program_) return false;
  }
  auto loc = [](GLuint program, const char* name) { return glGetUniformLocation(program, name); };
  mesh_u_.model = loc(mesh_program_, "u_model");
  mesh_u_.view_proj = loc(mesh_program_, "u_view_proj");
  mesh_u_.normal_matrix = loc(mesh_program_, "u_normal_matrix");
  mesh_u_.color = loc(mesh_program_, "u_color");
  mesh_u_.eye = loc(mesh_program_, "u_eye");
  mesh_u_.rim_alpha = loc(mesh_program_, "u_rim_alpha");
  for (auto [program, u] : {std::pair{plane_program_, &plane_u_},
                            std::pair{blend_plane_program_, &blend_plane_u_}}) {
    u->model = loc(program, "u_model");
    u->view_proj = loc(program, "u_view_proj");
    u->inv_spacing = loc(program, "u_inv_spacing");
    u->color = loc(program, "u_color");
    u->eye = loc(program, "u_eye");
    u->normal = loc(program, "u_normal");
    u->base_front = loc(program, "u_base_front");
    u->base_back = loc(program, "u_base_back");
    u->grid = loc(program, "u_grid");
    u->fade_center = loc(program, "u_fade_center");
    u->fade_radius = loc(program, "u_fade_radius");
  }
  background_program_ =
      BuildProgram(shaders::kBackgroundVertex, shaders::kBackgroundFragment, error);
  if (!background_program_) return false;
  glGenVertexArrays(1, &empty_vao_);
  return true;
}

namespace {
// A position + normal indexed mesh on the GPU.
std::unique_ptr<VertexBuffer> UploadMesh(const MeshData& data) {
  auto buffer = std::make_unique<VertexBuffer>();
  buffer->Create({3, 3}, true);
  buffer->Upload(data.vertices, false);
  buffer->UploadIndices(data.indices);
  return buffer;
}
}  // namespace

void SceneRenderer::SetModel(const Model& model) {
  meshes_.clear();
  lods_.clear();
  finite_face_.assign(model.geoms.size(), false);
  rims_.clear();
  rims_.resize(model.geoms.size());
  has_half_space_ = false;
  for (const Geom& g : model.geoms) {
    const MeshData data = MakeShapeMesh(g.shape, plane_half_size_);
    if (g.shape.type == ShapeType::kHalfSpace) has_half_space_ = true;
    lods_.emplace_back();
    if (data.indices.empty()) {
      meshes_.push_back(nullptr);
      continue;
    }
    meshes_.push_back(UploadMesh(data));
    for (int slices : kLodSlices) {
      const MeshData coarse = MakeRoundMesh(g.shape, slices);
      if (coarse.indices.empty()) break;
      lods_.back().push_back({slices, UploadMesh(coarse)});
    }
  }
  if (floor_.empty()) {
    const MeshData plane = MakePlaneMesh(plane_half_size_);
    floor_.Create({3, 3}, true);
    floor_.Upload(plane.vertices, false);
    floor_.UploadIndices(plane.indices);
  }
}

void SceneRenderer::SetHalfSpaceFaces(const HalfSpaceFaces& faces) {
  if (!faces.boxed) return;
  for (size_t k = 0; k < faces.geoms.size() && k < faces.polygons.size(); ++k) {
    const int g = faces.geoms[k];
    if (g < 0 || g >= static_cast<int>(meshes_.size())) continue;
    const std::vector<Vec3>& poly = faces.polygons[k];
    rims_[g].reset();
    if (poly.size() < 3) {
      meshes_[g] = nullptr;  // hidden inside another half-space: nothing to draw
      continue;
    }
    // The face inside its rim: a fan over the inset polygon (normal +z of the geometry frame);
    // the rim: the band between the polygon and the inset one.
    const std::vector<Vec3> inner = InsetConvexPolygon(poly, faces.rim_width);
    const std::vector<Vec3>& face = inner.empty() ? poly : inner;
    MeshData data;
    std::vector<std::uint32_t> ids;
    for (const Vec3& p : face) ids.push_back(data.AddVertex(p, Vec3::UnitZ()));
    for (size_t i = 1; i + 1 < ids.size(); ++i) data.AddTriangle(ids[0], ids[i], ids[i + 1]);
    meshes_[g] = UploadMesh(data);
    finite_face_[g] = true;
    if (!inner.empty() && faces.rim_width > 0) {
      MeshData rim;
      const size_t n = poly.size();
      for (size_t i = 0; i < n; ++i) {
        const size_t j = (i + 1) % n;
        const std::uint32_t a = rim.AddVertex(poly[i], Vec3::UnitZ());
        const std::uint32_t b = rim.AddVertex(poly[j], Vec3::UnitZ());
        const std::uint32_t c = rim.AddVertex(inner[j], Vec3::UnitZ());
        const std::uint32_t d = rim.AddVertex(inner[i], Vec3::UnitZ());
        rim.AddTriangle(a, b, c);
        rim.AddTriangle(a, c, d);
      }
      rims_[g] = UploadMesh(rim);
    }
  }
}

void SceneRenderer::BeginFrame(int x_px, int y_px, int width_px, int height_px,
                               const OrbitCamera& camera, const RenderOptions& options) {
  glViewport(x_px, y_px, width_px, height_px);
  view_ = camera.ViewMatrix();
  proj_ = camera.ProjectionMatrix(height_px > 0 ? double(width_px) / height_px : 1.0);
  eye_ = camera.Eye();
  target_ = camera.target;
  pixels_per_unit_ = 0.5 * proj_(1, 1) * std::max(height_px, 1);
  fade_radius_ =
      static_cast<float>(std::min(plane_half_size_, options.fade_distances * camera.distance));
  grid_spacing_ = options.grid_spacing;
  background_top_ = Eigen::Vector3f(options.background_top.r, options.background_top.g,
                                    options.background_top.b);
  background_bottom_ = Eigen::Vector3f(options.background_bottom.r, options.background_bottom.g,
                                       options.background_bottom.b);
}

void SceneRenderer::DrawBackground() {
  // One pass over the rectangle at the far plane: where opaque geometry was drawn, the depth
  // test rejects the fragments before they are shaded (no discard, no depth write).
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_FALSE);
  glDisable(GL_BLEND);
  glUseProgram(background_program_);
  SetUniform(background_program_, "u_top", background_top_);
  SetUniform(background_program_, "u_bottom", background_bottom_);
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glDepthMask(GL_TRUE);
  glDepthFunc(GL_LESS);
}

void SceneRenderer::DrawBody(const VertexBuffer& mesh, const Pose& X_WG, const Color& color) {
  Eigen::Matrix4f model = Eigen::Matrix4f::Identity();
  const Eigen::Matrix3f R = X_WG.R().cast<float>();
  model.block<3, 3>(0, 0) = R;
  model.block<3, 1>(0, 3) = X_WG.p.cast<float>();
  glUniformMatrix4fv(mesh_u_.model, 1, GL_FALSE, model.data());
  glUniformMatrix3fv(mesh_u_.normal_matrix, 1, GL_FALSE, R.data());
  glUniform4f(mesh_u_.color, color.r, color.g, color.b, color.a);
  mesh.Draw(GL_TRIANGLES);
}

void SceneRenderer::DrawPlane(const VertexBuffer& mesh, const Pose& X_WG, const Color& color,
                              bool grid, bool finite) {
  Eigen::Matrix4f model = Eigen::Matrix4f::Identity();
  const Eigen::Matrix3f R = X_WG.R().cast<float>();
  model.block<3, 3>(0, 0) = R;
  model.block<3, 1>(0, 3) = X_WG.p.cast<float>();
  const Eigen::Vector3f n = R.col(2);
  const Eigen::Vector3f front = PlaneBaseLight(n), back = PlaneBaseLight(-n);
  const PlaneUniforms& u = *active_plane_u_;
  // A finite face (a wall of a box) is drawn whole; infinite planes fade towards the horizon.
  glUniform1f(u.fade_radius, finite ? 1e18f : fade_radius_);
  glUniformMatrix4fv(u.model, 1, GL_FALSE, model.data());
  glUniform3fv(u.normal, 1, n.data());
  glUniform3fv(u.base_front, 1, front.data());
  glUniform3fv(u.base_back, 1, back.data());
  glUniform4f(u.color, color.r, color.g, color.b, color.a);
  glUniform1i(u.grid, grid ? 1 : 0);
  mesh.Draw(GL_TRIANGLES);
}

void SceneRenderer::DrawHalfSpace(int i, const Pose& X_WG, const Color& color, bool grid) {
  DrawPlane(*meshes_[i], X_WG, color, grid, finite_face_[i]);
  DrawRim(i, X_WG, color);
}

void SceneRenderer::DrawRim(int i, const Pose& X_WG, const Color& color) {
  if (!rims_[i]) return;
  const Color rim{color.r + 0.45f * (1.0f - color.r), color.g + 0.45f * (1.0f - color.g),
                  color.b + 0.45f * (1.0f - color.b), std::max(color.a, 0.9f)};
  DrawPlane(*rims_[i], X_WG, rim, false, true);
}

const VertexBuffer& SceneRenderer::MeshFor(int i, const Geom& g, const Pose& X_WG) const {
  const std::vector<LevelOfDetail>& levels = lods_[i];
  if (levels.empty()) return *meshes_[i];
  // Radius of the round cross-section in pixels at the depth of the shape's nearest point
  // (conservative: a shape seen from close up keeps the finer tessellation).
  const double bound = g.shape.radius + (g.shape.type == ShapeType::kSphere ? 0.0
                                                                             : g.shape.half_length);
  const double depth = (X_WG.p - eye_).norm() - bound;
  if (!(depth > 0)) return *meshes_[i];
  const double radius_px = g.shape.radius * pixels_per_unit_ / depth;
  for (const LevelOfDetail& level : levels) {
    if (radius_px * (1.0 - std::cos(kPi / level.slices)) <= kMaxSilhouetteErrorPx) {
      return *level.mesh;
    }
  }
  return *meshes_[i];
}

void SceneRenderer::DrawModel(const Model& model, const std::vector<Pose>& X_WB,
                              const RenderOptions& options) {
  const Eigen::Matrix4f view_proj = proj_ * view_;
  const Eigen::Vector3f eye = eye_.cast<float>();
  const Eigen::Vector3f fade_center = target_.cast<float>();
  for (auto [program, u] : {std::pair{plane_program_, &plane_u_},
                            std::pair{blend_plane_program_, &blend_plane_u_}}) {
    glUseProgram(program);
    glUniformMatrix4fv(u->view_proj, 1, GL_FALSE, view_proj.data());
    glUniform3fv(u->eye, 1, eye.data());
    glUniform1f(u->inv_spacing, 1.0f / grid_spacing_);
    glUniform3fv(u->fade_center, 1, fade_center.data());
    glUniform1f(u->fade_radius, fade_radius_);
  }
  glUseProgram(mesh_program_);
  glUniformMatrix4fv(mesh_u_.view_proj, 1, GL_FALSE, view_proj.data());
  glUniform3fv(mesh_u_.eye, 1, eye.data());
  glUniform1f(mesh_u_.rim_alpha, 0.0f);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  // Opaque geometry without blending (the result is the source colour anyway).
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);

  const int num_geoms = std::min<int>(model.geoms.size(), meshes_.size());
  auto pose_of = [&](const Geom& g) {
    if (g.body >= 0 && g.body >= static_cast<int>(X_WB.size())) return g.local;
    return GeomPose(g, X_WB);
  };
  auto color_of = [](const Geom& g) {
    return Color{float(g.color[0]), float(g.color[1]), float(g.color[2]), float(g.color[3])};
  };

  // Half-spaces: finite faces (opaque, or translucent ones whose free side is drawn opaque) and
  // planes that fade to the horizon (opaque or translucent); bodies opaque or translucent
  // (geometry with alpha < 1, or all bodies in transparent mode).
  std::vector<int> faces, fading_planes, bodies, translucent_bodies, translucent_planes;
  for (int i = 0; i < num_geoms; ++i) {
    if (!meshes_[i]) continue;
    const Geom& g = model.geoms[i];
    const bool plane = g.shape.type == ShapeType::kHalfSpace;
    const bool translucent = g.color[3] < 1.0 || (!plane && options.transparent_bodies);
    if (plane && finite_face_[i]) {
      faces.push_back(i);
      if (translucent) translucent_planes.push_back(i);
    } else if (plane && !translucent) {
      fading_planes.push_back(i);
    } else if (plane) {
      translucent_planes.push_back(i);
    } else if (translucent) {
      translucent_bodies.push_back(i);
    } else {
      bodies.push_back(i);
    }
  }
  // Opaque bodies front to back, so that the depth test rejects hidden fragments before they
  // are shaded; closed primitive meshes (wound counter-clockwise from outside) without their
  // back faces.
  std::vector<std::pair<double, int>> near_first;
  near_first.reserve(bodies.size());
  std::vector<Pose> body_pose(num_geoms);
  for (int i : bodies) {
    body_pose[i] = pose_of(model.geoms[i]);
    near_first.push_back({(body_pose[i].p - eye_).squaredNorm(), i});
  }
  std::sort(near_first.begin(), near_first.end());
  glCullFace(GL_BACK);
  for (const auto& [unused, i] : near_first) {
    if (ClosedPrimitive(model.geoms[i].shape.type)) {
      glEnable(GL_CULL_FACE);
    } else {
      glDisable(GL_CULL_FACE);
    }
    DrawBody(MeshFor(i, model.geoms[i], body_pose[i]), body_pose[i], color_of(model.geoms[i]));
  }
  glDisable(GL_CULL_FACE);
  // Finite faces behind the bodies (the program without the fade's discard, so the depth test
  // rejects the covered fragments early). A translucent face: its free side only (front faces,
  // counter-clockwise seen from there), opaque.
  if (!faces.empty()) {
    glUseProgram(blend_plane_program_);
    active_plane_u_ = &blend_plane_u_;
    for (int i : faces) {
      Color c = color_of(model.geoms[i]);
      const bool translucent = c.a < 1.0f;
      if (translucent) {
        glEnable(GL_CULL_FACE);
        glCullFace(GL_BACK);
        c.a = 1.0f;
      }
      DrawPlane(*meshes_[i], pose_of(model.geoms[i]), c, options.show_grid, true);
      glDisable(GL_CULL_FACE);
    }
  }
  DrawBackground();
  glEnable(GL_BLEND);
  // The faces' rims and the planes that fade into the background at their edge.
  if (!faces.empty()) {
    glUseProgram(blend_plane_program_);
    active_plane_u_ = &blend_plane_u_;
    for (int i : faces) DrawRim(i, pose_of(model.geoms[i]), color_of(model.geoms[i]));
  }
  if (!fading_planes.empty()) {
    glUseProgram(plane_program_);
    active_plane_u_ = &plane_u_;
    for (int i : fading_planes) {
      DrawHalfSpace(i, pose_of(model.geoms[i]), color_of(model.geoms[i]), options.show_grid);
    }
  }
  glUseProgram(mesh_program_);
  // Back to front, each shape's back faces before its front faces.
  std::vector<double> depth(num_geoms, 0.0);
  for (int i : translucent_bodies) depth[i] = (pose_of(model.geoms[i]).p - eye_).squaredNorm();
  std::sort(translucent_bodies.begin(), translucent_bodies.end(),
            [&](int a, int b) { return depth[a] > depth[b]; });
  glDepthMask(GL_FALSE);
  if (!translucent_bodies.empty()) glEnable(GL_CULL_FACE);
  for (int i : translucent_bodies) {
    Color c = color_of(model.geoms[i]);
    if (options.transparent_bodies) c.a *= options.body_alpha;
    const Pose X = pose_of(model.geoms[i]);
    const VertexBuffer& mesh = MeshFor(i, model.geoms[i], X);
    glCullFace(GL_FRONT);
    DrawBody(mesh, X, c);
    glCullFace(GL_BACK);
    DrawBody(mesh, X, c);
  }
  glDisable(GL_CULL_FACE);
  // Translucent half-spaces: a finite face from inside its solid (back faces) as a film, a
  // fading plane from both sides.
  glUseProgram(blend_plane_program_);
  active_plane_u_ = &blend_plane_u_;
  for (int i : translucent_planes) {
    if (finite_face_[i]) {
      glEnable(GL_CULL_FACE);
      glCullFace(GL_FRONT);
      DrawPlane(*meshes_[i], pose_of(model.geoms[i]), color_of(model.geoms[i]), options.show_grid,
                true);
      glDisable(GL_CULL_FACE);
    } else {
      DrawHalfSpace(i, pose_of(model.geoms[i]), color_of(model.geoms[i]), options.show_grid);
    }
  }
  glDepthMask(GL_TRUE);

  // Floor grid for scenes without a ground: translucent, drawn over what lies below it.
  if (options.show_grid && !has_half_space_ && !floor_.empty()) {
    glDepthMask(GL_FALSE);
    DrawPlane(floor_, Pose{}, Color{0.55f, 0.57f, 0.60f, 0.35f}, true);
    glDepthMask(GL_TRUE);
  }
  glUseProgram(0);
}

void SceneRenderer::DrawGhost(const Model& model, const std::vector<Pose>& X_WB, const Color& tint,
                              const std::vector<float>* body_alpha, float alpha,
                              float tint_amount) {
  const Eigen::Matrix4f view_proj = proj_ * view_;
  const Eigen::Vector3f eye = eye_.cast<float>();
  const int num_geoms = std::min<int>(model.geoms.size(), meshes_.size());
  std::vector<int> geoms;
  std::vector<Pose> poses(num_geoms);
  std::vector<double> depth(num_geoms, 0.0);
  for (int i = 0; i < num_geoms; ++i) {
    const Geom& g = model.geoms[i];
    if (!meshes_[i] || g.shape.type == ShapeType::kHalfSpace) continue;
    if (g.body < 0 || g.body >= static_cast<int>(X_WB.size())) continue;
    if (g.body >= static_cast<int>(model.bodies.size()) || model.bodies[g.body].tree < 0) continue;
    poses[i] = GeomPose(g, X_WB);
    depth[i] = (poses[i].p - eye_).squaredNorm();
    geoms.push_back(i);
  }
  if (geoms.empty()) return;
  // Back to front (as translucent bodies).
  std::sort(geoms.begin(), geoms.end(), [&](int a, int b) { return depth[a] > depth[b]; });
  glUseProgram(mesh_program_);
  glUniformMatrix4fv(mesh_u_.view_proj, 1, GL_FALSE, view_proj.data());
  glUniform3fv(mesh_u_.eye, 1, eye.data());
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);  // a ghost that coincides with the primary's body still shows
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDepthMask(GL_FALSE);
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  const float t = std::clamp(tint_amount, 0.0f, 1.0f);
  for (int i : geoms) {
    const Geom& g = model.geoms[i];
    const Color base{float(g.color[0]), float(g.color[1]), float(g.color[2]), 1.0f};
    const float f =
        body_alpha && g.body < static_cast<int>(body_alpha->size()) ? (*body_alpha)[g.body] : 1.0f;
    Color c = Lerp(base, tint, t);
    c.a = alpha * f;
    glUniform1f(mesh_u_.rim_alpha, std::max(0.95f * f, 1e-3f));
    // Front faces only: a ghost is a tinted film with a rim, and one pass halves its cost on a
    // software rasterizer (a large pile has hundreds of ghost bodies).
    // The coarsest tessellation of round shapes: a see-through copy needs no fine silhouette.
    const VertexBuffer& mesh = lods_[i].empty() ? *meshes_[i] : *lods_[i].front().mesh;
    DrawBody(mesh, poses[i], c);
  }
  glDisable(GL_CULL_FACE);
  glDepthMask(GL_TRUE);
  glDepthFunc(GL_LESS);
  glUniform1f(mesh_u_.rim_alpha, 0.0f);
  glUseProgram(0);
}

}  // namespace contactlab
