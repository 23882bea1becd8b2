// Reading untrusted mesh files: limits, structural checks before parsing, a parser isolated in a
// child process, and checks of everything the parser hands back.
//
// The layers, in the order LoadConvexMesh (mesh_loader.h) applies them:
//   1. CheckMeshBytes: file size bound and a format-specific pre-scan of the bytes (OBJ and ASCII
//      STL/PLY numbers and indices with FILE:LINE, binary PLY/STL counts against the file size,
//      glTF JSON nesting depth and node-graph depth/cycles). Cheap, and it refuses most hostile
//      files before any third-party parser sees them.
//   2. ReadMeshIsolated: Assimp parses the file in a forked child process with an address-space
//      and a CPU-time limit and a wall-clock deadline; the child sends back the triangle arrays
//      through a pipe. A crash, a signal or a timeout of the child is reported as a MeshError
//      naming the file; the calling process is never taken down by the parser.
//   3. ExtractTriangles (run inside the child) and CheckTriangleSoup (run again in the parent on
//      what the pipe delivered): null pointers, index bounds, face sizes, non-finite or huge
//      coordinates, counts against sizes, node-graph depth walked iteratively.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/multibody/model.h"

namespace contactlab {

// Bounds on what a mesh file may ask for. Defaults are those of the scene loader; they are
// documented in docs/scene_format.md ("Mesh files").
struct MeshLimits {
  std::uint64_t max_file_bytes = 256ull << 20;  // 256 MiB
  std::uint64_t max_vertices = 2'000'000;       // vertex records declared or read
  std::uint64_t max_triangles = 4'000'000;      // triangles after triangulating polygons
  double max_coordinate = 1e9;                  // |coordinate| in file units, after node transforms
  double max_scaled_coordinate = 1e4;           // |coordinate| [m] after the scene's scale
  int max_json_depth = 128;                     // glTF JSON nesting (objects and arrays)
  int max_node_depth = 256;                     // glTF / Assimp node hierarchy depth
  std::uint64_t max_nodes = 1'000'000;          // nodes visited in the hierarchy
  // Isolated reader (child process): address space [bytes], CPU time and wall time [s].
  std::uint64_t reader_memory_bytes = 8ull << 30;  // 8 GiB
  int reader_seconds = 120;
  // Parse in a child process (ReadMeshIsolated). Off only for fuzzing and for measuring the
  // isolation overhead: the checks before and after parsing stay on.
  bool isolate = true;
};

bool operator==(const MeshLimits& a, const MeshLimits& b);

// Kinds of refusal, for callers and tests that need to tell them apart.
enum class MeshErrorKind {
  kNotFound,       // missing or unreadable file
  kLimit,          // a MeshLimits bound is exceeded (size, count, depth, memory, time)
  kMalformed,      // structure is wrong: truncated, counts that lie, bad syntax, bad index
  kBadNumber,      // a coordinate is unparseable, NaN/inf or beyond max_coordinate
  kReaderError,    // the parser refused the file (its message is quoted)
  kReaderCrashed,  // the isolated parser died (signal or abnormal exit)
  kNoVolume,       // no triangles, flat/degenerate points, or a hull without positive volume
};
const char* MeshErrorKindName(MeshErrorKind kind);

// Error of a mesh file; what() starts with the file name ("FILE:LINE: ..." where a line is
// known, "FILE: ..." otherwise).
class MeshError : public std::runtime_error {
 public:
  MeshError(MeshErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  MeshErrorKind kind() const { return kind_; }

 private:
  MeshErrorKind kind_;
};

// Triangles as read from a file, in file units with node transforms applied (not scaled).
struct TriangleSoup {
  std::vector<Vec3> vertices;
  std::vector<int> triangles;  // 3 indices per triangle, each in [0, vertices.size())
};

// Mesh formats with a dedicated pre-scan; everything else Assimp reads is kOther (size bound
// and the isolated reader only).
enum class MeshFormat { kObj, kStl, kPly, kGltf, kGlb, kOther };
// Format from the file extension (case-insensitive); `name` is a path or file name.
MeshFormat MeshFormatOf(std::string_view name);

// Layer 1 on the bytes of a file: `name` is used in messages and for the format. Throws
// MeshError. Bounded work: one pass over the bytes, an explicit stack for JSON, no recursion.
void CheckMeshBytes(std::string_view bytes, const std::string& name, const MeshLimits& limits);

// Layer 3: every index in range, every vertex finite and within max_coordinate, counts within
// the limits. Throws MeshError naming `name`.
void CheckTriangleSoup(const TriangleSoup& soup, const std::string& name, const MeshLimits& limits);

// Reads the file's bytes (refusing files over max_file_bytes before reading). Throws MeshError.
std::string ReadMeshFileBytes(const std::string& path, const MeshLimits& limits);

// Layers 1 and 3 with Assimp parsing in this process: for fuzzing and for the child process.
// `bytes` holds the file; `name` gives the format by its extension and names the file in
// messages. Formats whose files refer to other files (glTF with external buffers) can only
// resolve them through ReadMeshInProcessFromFile.
TriangleSoup ReadMeshFromMemory(std::string_view bytes, const std::string& name,
                                const MeshLimits& limits);
// Same for a file on disk (Assimp resolves external references relative to it).
TriangleSoup ReadMeshInProcessFromFile(const std::string& path, const MeshLimits& limits);

// Layers 1 to 3: checks the file's bytes here, then parses it in a child process (fork) with the
// limits of `limits`, and checks what comes back. Throws MeshError; a crashed or killed reader
// gives kReaderCrashed ("mesh reader crashed on FILE (signal 11, Segmentation fault)").
TriangleSoup ReadMeshIsolated(const std::string& path, const MeshLimits& limits);

}  // namespace contactlab
