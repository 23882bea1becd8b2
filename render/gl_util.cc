#include "render/gl_util.h"

#include <algorithm>

namespace contactlab {

namespace {

GLuint CompileShader(GLenum type, const char* source, std::string* error) {
  GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    if (error) {
      *error =
          std::string(type == GL_VERTEX_SHADER ? "vertex" : "fragment") + " shader: " + log.c_str();
    }
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

}  // namespace

GLuint BuildProgram(const char* vertex_source, const char* fragment_source, std::string* error) {
  const GLuint vs = CompileShader(GL_VERTEX_SHADER, vertex_source, error);
  if (vs == 0) return 0;
  const GLuint fs = CompileShader(GL_FRAGMENT_SHADER, fragment_source, error);
  if (fs == 0) {
    glDeleteShader(vs);
    return 0;
  }
  GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    GLint length = 0;
    glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
    glGetProgramInfoLog(program, length, nullptr, log.data());
    if (error) *error = std::string("link: ") + log.c_str();
    glDeleteProgram(program);
    return 0;
  }
  return program;
}

void SetUniform(GLuint program, const char* name, const Eigen::Matrix4f& m) {
  glUniformMatrix4fv(glGetUniformLocation(program, name), 1, GL_FALSE, m.data());
}

void SetUniform(GLuint program, const char* name, const Eigen::Matrix3f& m) {
  glUniformMatrix3fv(glGetUniformLocation(program, name), 1, GL_FALSE, m.data());
}

void SetUniform(GLuint program, const char* name, const Eigen::Vector3f& v) {
  glUniform3fv(glGetUniformLocation(program, name), 1, v.data());
}

void SetUniform(GLuint program, const char* name, const Eigen::Vector4f& v) {
  glUniform4fv(glGetUniformLocation(program, name), 1, v.data());
}

void SetUniform(GLuint program, const char* name, float x) {
  glUniform1f(glGetUniformLocation(program, name), x);
}

void SetUniform(GLuint program, const char* name, int x) {
  glUniform1i(glGetUniformLocation(program, name), x);
}

VertexBuffer::~VertexBuffer() {
  if (ebo_) glDeleteBuffers(1, &ebo_);
  if (vbo_) glDeleteBuffers(1, &vbo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
}

void VertexBuffer::Create(const std::vector<int>& attribute_sizes, bool indexed) {
  indexed_ = indexed;
  floats_per_vertex_ = 0;
  for (int s : attribute_sizes) floats_per_vertex_ += s;
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  if (indexed_) {
    glGenBuffers(1, &ebo_);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
  }
  const GLsizei stride = floats_per_vertex_ * static_cast<GLsizei>(sizeof(float));
  size_t offset = 0;
  for (size_t i = 0; i < attribute_sizes.size(); ++i) {
    glEnableVertexAttribArray(static_cast<GLuint>(i));
    glVertexAttribPointer(static_cast<GLuint>(i), attribute_sizes[i], GL_FLOAT, GL_FALSE, stride,
                          reinterpret_cast<const void*>(offset * sizeof(float)));
    offset += attribute_sizes[i];
  }
  glBindVertexArray(0);
}

void VertexBuffer::Upload(const std::vector<float>& vertices, bool dynamic) {
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  const size_t bytes = vertices.size() * sizeof(float);
  if (dynamic) {
    const size_t capacity = GrownCapacity(vbo_capacity_, bytes);
    if (capacity != vbo_capacity_) {
      glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity), nullptr, GL_DYNAMIC_DRAW);
      vbo_capacity_ = capacity;
      ++reallocations_;
    }
    if (bytes > 0) {
      glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(bytes), vertices.data());
    }
  } else {
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(bytes),
                 vertices.empty() ? nullptr : vertices.data(), GL_STATIC_DRAW);
    vbo_capacity_ = bytes;
  }
  if (!indexed_) count_ = static_cast<int>(vertices.size()) / floats_per_vertex_;
}

void VertexBuffer::UploadIndices(const std::vector<std::uint32_t>& indices) {
  glBindVertexArray(vao_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER,
               static_cast<GLsizeiptr>(indices.size() * sizeof(std::uint32_t)),
               indices.empty() ? nullptr : indices.data(), GL_STATIC_DRAW);
  glBindVertexArray(0);
  count_ = static_cast<int>(indices.size());
}

void VertexBuffer::Draw(GLenum mode, int count) const {
  const int n = count < 0 ? count_ : std::min(count, count_);
  if (n <= 0) return;
  glBindVertexArray(vao_);
  if (indexed_) {
    glDrawElements(mode, n, GL_UNSIGNED_INT, nullptr);
  } else {
    glDrawArrays(mode, 0, n);
  }
  glBindVertexArray(0);
}

size_t GrownCapacity(size_t capacity, size_t needed) {
  if (needed <= capacity) return capacity;
  return std::max({needed, 2 * capacity, size_t{4096}});
}

InstancedMesh::~InstancedMesh() {
  if (instance_vbo_ && !source_) glDeleteBuffers(1, &instance_vbo_);
  if (unit_ebo_) glDeleteBuffers(1, &unit_ebo_);
  if (unit_vbo_) glDeleteBuffers(1, &unit_vbo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
}

void InstancedMesh::Create(const std::vector<float>& unit_vertices, int unit_floats,
                           const std::vector<std::uint16_t>& indices,
                           const std::vector<int>& instance_attribute_sizes) {
  instance_sizes_ = instance_attribute_sizes;
  GLuint vbo = 0;
  glGenBuffers(1, &vbo);
  Build(unit_vertices, unit_floats, indices, vbo);
}

void InstancedMesh::CreateSharing(const std::vector<float>& unit_vertices, int unit_floats,
                                  const std::vector<std::uint16_t>& indices,
                                  const InstancedMesh& source) {
  source_ = &source;
  instance_sizes_ = source.instance_sizes_;
  Build(unit_vertices, unit_floats, indices, source.instance_vbo_);
}

void InstancedMesh::Build(const std::vector<float>& unit_vertices, int unit_floats,
                          const std::vector<std::uint16_t>& indices, GLuint instance_vbo) {
  instance_vbo_ = instance_vbo;
  unit_indices_ = static_cast<int>(indices.size());
  floats_per_instance_ = 0;
  for (int s : instance_sizes_) floats_per_instance_ += s;
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &unit_vbo_);
  glGenBuffers(1, &unit_ebo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, unit_ebo_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER,
               static_cast<GLsizeiptr>(indices.size() * sizeof(std::uint16_t)), indices.data(),
               GL_STATIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, unit_vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(unit_vertices.size() * sizeof(float)),
               unit_vertices.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, unit_floats, GL_FLOAT, GL_FALSE,
                        unit_floats * static_cast<GLsizei>(sizeof(float)), nullptr);
  glBindBuffer(GL_ARRAY_BUFFER, instance_vbo_);
  const GLsizei stride = floats_per_instance_ * static_cast<GLsizei>(sizeof(float));
  size_t offset = 0;
  for (size_t i = 0; i < instance_sizes_.size(); ++i) {
    const GLuint location = static_cast<GLuint>(i + 1);
    glEnableVertexAttribArray(location);
    glVertexAttribPointer(location, instance_sizes_[i], GL_FLOAT, GL_FALSE, stride,
                          reinterpret_cast<const void*>(offset * sizeof(float)));
    glVertexAttribDivisor(location, 1);
    offset += instance_sizes_[i];
  }
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void InstancedMesh::UploadInstances(const float* records, int count) {
  if (source_) return;  // the source's uploads are the instances
  instances_ = std::max(count, 0);
  const size_t bytes = static_cast<size_t>(instances_) * floats_per_instance_ * sizeof(float);
  glBindBuffer(GL_ARRAY_BUFFER, instance_vbo_);
  const size_t capacity = GrownCapacity(capacity_, bytes);
  if (capacity != capacity_) {
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity), nullptr, GL_DYNAMIC_DRAW);
    capacity_ = capacity;
    ++reallocations_;
  }
  if (bytes > 0) glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(bytes), records);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void InstancedMesh::Draw(GLenum mode) const {
  const int n = instances();
  if (n <= 0 || unit_indices_ <= 0) return;
  glBindVertexArray(vao_);
  glDrawElementsInstanced(mode, unit_indices_, GL_UNSIGNED_SHORT, nullptr, n);
  glBindVertexArray(0);
}

}  // namespace contactlab
