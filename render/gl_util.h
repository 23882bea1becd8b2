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
  // Replaces the contents (GL_DYNAMIC_DRAW for streamed glyphs, GL_STATIC_DRAW for meshes).
  void Upload(const std::vector<float>& vertices, bool dynamic);
  void UploadIndices(const std::vector<std::uint32_t>& indices);
  // Draws `count` vertices (or indices when indexed); count < 0 draws everything uploaded.
  void Draw(GLenum mode, int count = -1) const;
  bool empty() const { return count_ == 0; }

 private:
  GLuint vao_ = 0, vbo_ = 0, ebo_ = 0;
  int floats_per_vertex_ = 0;
  int count_ = 0;  // vertices, or indices when indexed
  bool indexed_ = false;
  size_t vbo_capacity_ = 0;  // bytes
};

}  // namespace contactlab
