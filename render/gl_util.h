// Small OpenGL 3.3 core helpers: shader programs and vertex buffers. Needs a current context.
#pragma once

#include <epoxy/gl.h>

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace contactlab {

// Compiles and links a vertex + fragment program. Returns 0 and fills `error` with the
// compiler log on failure.
GLuint BuildProgram(const char* vertex_source, const char* fragment_source, std::string* error);

// Uniform setters by name (a missing uniform is ignored, as glUniform does for location -1).
void SetUniform(GLuint program, const char* name, const Eigen::Matrix4f& m);
void SetUniform(GLuint program, const char* name, const Eigen::Matrix3f& m);
void SetUniform(GLuint program, const char* name, const Eigen::Vector3f& v);
void SetUniform(GLuint program, const char* name, const Eigen::Vector4f& v);
void SetUniform(GLuint program, const char* name, float x);
void SetUniform(GLuint program, const char* name, int x);

// Interleaved float vertex attributes described by their component counts, e.g. {3, 3} for
// position + normal. Owns a VAO and a VBO (and an EBO when indexed).
class VertexBuffer {
 public:
  VertexBuffer() = default;
  ~VertexBuffer();
  VertexBuffer(const VertexBuffer&) = delete;
  VertexBuffer& operator=(const VertexBuffer&) = delete;

  void Create(const std::vector<int>& attribute_sizes, bool indexed);
  // Replaces the contents (GL_DYNAMIC_DRAW for streamed glyphs, GL_STATIC_DRAW for meshes). A
  // dynamic buffer keeps its storage and grows it geometrically (GrownCapacity), so streaming
  // allocates only while the largest frame so far grows.
  void Upload(const std::vector<float>& vertices, bool dynamic);
  void UploadIndices(const std::vector<std::uint32_t>& indices);
  // Draws `count` vertices (or indices when indexed); count < 0 draws everything uploaded.
  void Draw(GLenum mode, int count = -1) const;
  bool empty() const { return count_ == 0; }
  // Times a dynamic upload replaced the storage (grew it).
  int reallocations() const { return reallocations_; }

 private:
  GLuint vao_ = 0, vbo_ = 0, ebo_ = 0;
  int floats_per_vertex_ = 0;
  int count_ = 0;  // vertices, or indices when indexed
  bool indexed_ = false;
  size_t vbo_capacity_ = 0;  // bytes
  int reallocations_ = 0;
};

// Instanced drawing: a static indexed unit mesh (attribute 0, `unit_floats` per vertex) and a
// stream of per-instance records (attributes 1, 2, ... of the given sizes, divisor 1) in a
// persistent buffer grown geometrically. One Draw is one glDrawElementsInstanced.
class InstancedMesh {
 public:
  InstancedMesh() = default;
  ~InstancedMesh();
  InstancedMesh(const InstancedMesh&) = delete;
  InstancedMesh& operator=(const InstancedMesh&) = delete;

  void Create(const std::vector<float>& unit_vertices, int unit_floats,
              const std::vector<std::uint16_t>& indices,
              const std::vector<int>& instance_attribute_sizes);
  // Another unit mesh over the instances of `source` (created, outliving this): its uploads are
  // this mesh's instances too (a cone's surface and its outline).
  void CreateSharing(const std::vector<float>& unit_vertices, int unit_floats,
                     const std::vector<std::uint16_t>& indices, const InstancedMesh& source);
  // Replaces the instances: `count` records of the instance attributes' total floats each.
  void UploadInstances(const float* records, int count);
  void Draw(GLenum mode) const;
  int instances() const { return source_ ? source_->instances_ : instances_; }
  // Bytes of the instance buffer's storage.
  size_t capacity() const { return capacity_; }
  // Times an upload replaced the instance buffer's storage (grew it).
  int reallocations() const { return reallocations_; }

 private:
  void Build(const std::vector<float>& unit_vertices, int unit_floats,
             const std::vector<std::uint16_t>& indices, GLuint instance_vbo);

  GLuint vao_ = 0, unit_vbo_ = 0, unit_ebo_ = 0;
  GLuint instance_vbo_ = 0;  // owned unless source_
  const InstancedMesh* source_ = nullptr;
  std::vector<int> instance_sizes_;
  int unit_indices_ = 0;
  int floats_per_instance_ = 0;
  int instances_ = 0;
  size_t capacity_ = 0;  // bytes
  int reallocations_ = 0;
};

// Storage for a stream of `needed` bytes that has `capacity` now: unchanged when it fits,
// otherwise at least double (and at least 4 KiB), so that a stream growing frame by frame
// reallocates O(log size) times.
size_t GrownCapacity(size_t capacity, size_t needed);

}  // namespace contactlab
