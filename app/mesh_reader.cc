#include "app/mesh_reader.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

// GCC defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang reports sanitizers through
// __has_feature (clang 14, the fuzz build's compiler, does not define the GCC macros).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CONTACTLAB_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CONTACTLAB_UNDER_SANITIZER 1
#endif
#endif

namespace contactlab {
namespace {

[[noreturn]] void Fail(MeshErrorKind kind, const std::string& message) {
  throw MeshError(kind, message);
}

std::string Num(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Quoted token for a message, shortened so that a hostile megabyte-long token stays readable.
std::string Quote(std::string_view tok) {
  const size_t kMax = 40;
  if (tok.size() <= kMax) return "'" + std::string(tok) + "'";
  return "'" + std::string(tok.substr(0, kMax)) + "...' (" + std::to_string(tok.size()) +
         " characters)";
}

// ---- Text scanning ----

// Splits `bytes` into lines (LF or CRLF), calling f(line, line_number) with 1-based numbers.
template <typename F>
void ForEachLine(std::string_view bytes, F f) {
  size_t pos = 0;
  uint64_t line_no = 0;
  while (pos < bytes.size()) {
    size_t eol = bytes.find('\n', pos);
    if (eol == std::string_view::npos) eol = bytes.size();
    std::string_view line = bytes.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(line, ++line_no);
    pos = eol + 1;
  }
}

// Whitespace-separated tokens of a line (at most `max` are kept; the count is exact).
size_t Tokens(std::string_view line, std::vector<std::string_view>* out) {
  out->clear();
  size_t i = 0, n = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\v' ||
                               line[i] == '\f' || line[i] == '\0')) {
      ++i;
    }
    if (i >= line.size()) break;
    size_t j = i;
    while (j < line.size() && !(line[j] == ' ' || line[j] == '\t' || line[j] == '\v' ||
                                line[j] == '\f' || line[j] == '\0')) {
      ++j;
    }
    out->push_back(line.substr(i, j - i));
    ++n;
    i = j;
  }
  return n;
}

// Longest number token accepted: longer ones are not numbers any writer produces, and parsers
// disagree on them (digits past double precision, overflowing mantissa accumulators).
constexpr size_t kMaxNumberChars = 64;

// Strict decimal floating-point parse of a whole token. Returns "" on success, else the reason.
std::string ParseDouble(std::string_view tok, double* out) {
  if (tok.size() > kMaxNumberChars) {
    return "is too long for a number (" + std::to_string(tok.size()) + " characters; at most " +
           std::to_string(kMaxNumberChars) + ")";
  }
  std::string_view t = tok;
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (t.empty()) return "is not a number";
  const char* end = t.data() + t.size();
  auto [ptr, ec] = std::from_chars(t.data(), end, *out);
  if (ec == std::errc::result_out_of_range) return "is beyond the range of a double";
  if (ec != std::errc() || ptr != end) return "is not a number";
  if (!std::isfinite(*out)) return "is not a finite number";
  return "";
}

// Strict integer parse of a whole token.
bool ParseInt(std::string_view tok, long long* out) {
  if (tok.empty() || tok.size() > 20) return false;
  std::string_view t = tok;
  if (t[0] == '+') t.remove_prefix(1);
  const char* end = t.data() + t.size();
  auto [ptr, ec] = std::from_chars(t.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

// A coordinate token: finite and within the limit; else kBadNumber at FILE:LINE.
double Coordinate(std::string_view tok, const std::string& where, const std::string& field,
                  const MeshLimits& limits) {
  double x = 0;
  std::string why = ParseDouble(tok, &x);
  if (!why.empty()) {
    Fail(MeshErrorKind::kBadNumber, where + ": " + field + ": " + Quote(tok) + " " + why +
                                        " (coordinates must be finite numbers within ±" +
                                        Num(limits.max_coordinate) + ")");
  }
  if (std::abs(x) > limits.max_coordinate) {
    Fail(MeshErrorKind::kBadNumber, where + ": " + field + ": coordinate " + Quote(tok) +
                                        " is beyond the limit ±" + Num(limits.max_coordinate));
  }
  return x;
}

std::string At(const std::string& name, uint64_t line) { return name + ":" + std::to_string(line); }

// Location in a binary file: "FILE: byte N", N the 0-based offset of the first byte of the value
// at fault (as `xxd -s N FILE` or `od -A d -j N FILE` shows it).
std::string AtByte(const std::string& name, uint64_t offset) {
  return name + ": byte " + std::to_string(offset);
}

constexpr const char* kAxisNames[3] = {"x", "y", "z"};

// ---- OBJ ----

void CheckObj(std::string_view bytes, const std::string& name, const MeshLimits& limits) {
  uint64_t nv = 0, nvt = 0, nvn = 0, tris = 0;
  uint64_t max_v_ref = 0, max_v_line = 0, max_vt_ref = 0, max_vt_line = 0, max_vn_ref = 0,
           max_vn_line = 0;
  std::vector<std::string_view> tok;
  ForEachLine(bytes, [&](std::string_view line, uint64_t ln) {
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    if (Tokens(line, &tok) == 0) return;
    const std::string_view kw = tok[0];
    if (kw == "v") {
      if (tok.size() < 4) {
        Fail(MeshErrorKind::kMalformed, At(name, ln) + ": v: " + std::to_string(tok.size() - 1) +
                                            " values (expected x y z, optionally w or r g b)");
      }
      for (size_t k = 1; k < tok.size(); ++k) {
        Coordinate(tok[k], At(name, ln), "v", limits);
      }
      if (++nv > limits.max_vertices) {
        Fail(MeshErrorKind::kLimit, At(name, ln) + ": v: more than " +
                                        std::to_string(limits.max_vertices) +
                                        " vertices (the vertex limit)");
      }
    } else if (kw == "vt" || kw == "vn") {
      for (size_t k = 1; k < tok.size(); ++k) {
        double x;
        std::string why = ParseDouble(tok[k], &x);
        if (!why.empty()) {
          Fail(MeshErrorKind::kBadNumber,
               At(name, ln) + ": " + std::string(kw) + ": " + Quote(tok[k]) + " " + why);
        }
      }
      uint64_t& n = kw == "vt" ? nvt : nvn;
      if (++n > limits.max_vertices) {
        Fail(MeshErrorKind::kLimit, At(name, ln) + ": " + std::string(kw) + ": more than " +
                                        std::to_string(limits.max_vertices) + " records");
      }
    } else if (kw == "f" || kw == "l" || kw == "p") {
      if (tok.size() < 2) {
        Fail(MeshErrorKind::kMalformed, At(name, ln) + ": " + std::string(kw) + ": no indices");
      }
      for (size_t k = 1; k < tok.size(); ++k) {
        std::string_view t = tok[k];
        // i, i/j, i//n, i/j/n: vertex, texture coordinate and normal indices.
        std::string_view parts[3];
        int np = 0;
        size_t start = 0;
        while (np < 3) {
          size_t slash = t.find('/', start);
          parts[np++] = t.substr(start, slash == std::string_view::npos ? t.npos : slash - start);
          if (slash == std::string_view::npos) break;
          start = slash + 1;
        }
        if (t.find('/', start) != std::string_view::npos && np == 3) {
          Fail(MeshErrorKind::kMalformed,
               At(name, ln) + ": " + std::string(kw) + ": index " + Quote(t) +
                   " has more than three parts (expected v, v/vt, v//vn or v/vt/vn)");
        }
        const uint64_t counts[3] = {nv, nvt, nvn};
        uint64_t* max_ref[3] = {&max_v_ref, &max_vt_ref, &max_vn_ref};
        uint64_t* max_line[3] = {&max_v_line, &max_vt_line, &max_vn_line};
        const char* what[3] = {"vertex", "texture coordinate", "normal"};
        for (int p = 0; p < np; ++p) {
          if (p > 0 && parts[p].empty()) continue;
          long long idx = 0;
          if (!ParseInt(parts[p], &idx) || idx == 0) {
            Fail(MeshErrorKind::kMalformed, At(name, ln) + ": " + std::string(kw) + ": " + what[p] +
                                                " index " + Quote(parts[p]) +
                                                " is not a nonzero integer");
          }
          if (idx < 0) {
            // Relative to the records read so far: -1 is the last one.
            if (static_cast<unsigned long long>(-(idx + 1)) >= counts[p]) {
              Fail(MeshErrorKind::kMalformed,
                   At(name, ln) + ": " + std::string(kw) + ": relative " + what[p] + " index " +
                       std::to_string(idx) + " reaches before the first record (" +
                       std::to_string(counts[p]) + " so far)");
            }
          } else if (static_cast<uint64_t>(idx) > *max_ref[p]) {
            *max_ref[p] = static_cast<uint64_t>(idx);
            *max_line[p] = ln;
          }
        }
      }
      if (kw == "f" && tok.size() >= 4) {
        tris += tok.size() - 3;
        if (tris > limits.max_triangles) {
          Fail(MeshErrorKind::kLimit, At(name, ln) + ": f: more than " +
                                          std::to_string(limits.max_triangles) +
                                          " triangles (the triangle limit)");
        }
      }
    }
  });
  const uint64_t counts[3] = {nv, nvt, nvn};
  const uint64_t refs[3] = {max_v_ref, max_vt_ref, max_vn_ref};
  const uint64_t lines[3] = {max_v_line, max_vt_line, max_vn_line};
  const char* what[3] = {"vertex", "texture coordinate", "normal"};
  for (int p = 0; p < 3; ++p) {
    if (refs[p] > counts[p]) {
      Fail(MeshErrorKind::kMalformed,
           At(name, lines[p]) + ": " + what[p] + " index " + std::to_string(refs[p]) +
               " is out of range (the file has " + std::to_string(counts[p]) + ")");
    }
  }
}

// ---- STL ----

uint32_t Le32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

float LeFloat(const unsigned char* p) {
  uint32_t u = Le32(p);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

bool LooksLikeText(std::string_view bytes) {
  size_t n = std::min<size_t>(bytes.size(), 1024);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') return false;
  }
  return true;
}

void CheckStl(std::string_view bytes, const std::string& name, const MeshLimits& limits) {
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t first = bytes.find_first_not_of(" \t\r\n");
  const bool says_solid =
      first != std::string_view::npos && Lower(bytes.substr(first, 5)) == "solid";
  const bool binary_size_matches =
      bytes.size() >= 84 && 84 + 50 * uint64_t(Le32(u + 80)) == bytes.size();
  if (says_solid && !binary_size_matches && LooksLikeText(bytes)) {
    // ASCII STL: "vertex x y z" lines.
    uint64_t facets = 0;
    std::vector<std::string_view> tok;
    ForEachLine(bytes, [&](std::string_view line, uint64_t ln) {
      if (Tokens(line, &tok) == 0) return;
      std::string kw = Lower(tok[0]);
      if (kw == "vertex") {
        if (tok.size() != 4) {
          Fail(MeshErrorKind::kMalformed, At(name, ln) +
                                              ": vertex: " + std::to_string(tok.size() - 1) +
                                              " values (expected x y z)");
        }
        for (int k = 1; k <= 3; ++k) Coordinate(tok[k], At(name, ln), "vertex", limits);
      } else if (kw == "facet") {
        if (++facets > limits.max_triangles) {
          Fail(MeshErrorKind::kLimit, At(name, ln) + ": facet: more than " +
                                          std::to_string(limits.max_triangles) +
                                          " triangles (the triangle limit)");
        }
      }
    });
    return;
  }
  if (bytes.size() < 84) {
    Fail(MeshErrorKind::kMalformed, AtByte(name, bytes.size()) + ": header: binary STL of " +
                                        std::to_string(bytes.size()) +
                                        " bytes is shorter than its 84-byte header");
  }
  const uint64_t n = Le32(u + 80);
  if (n > limits.max_triangles) {
    Fail(MeshErrorKind::kLimit, AtByte(name, 80) + ": triangle count: binary STL header declares " +
                                    std::to_string(n) + " triangles, more than the limit of " +
                                    std::to_string(limits.max_triangles));
  }
  if (84 + 50 * n != bytes.size()) {
    Fail(MeshErrorKind::kMalformed,
         AtByte(name, 80) + ": triangle count: binary STL header declares " + std::to_string(n) +
             " triangles (84 + 50 * " + std::to_string(n) + " = " + std::to_string(84 + 50 * n) +
             " bytes) but the file has " + std::to_string(bytes.size()) + " bytes");
  }
  for (uint64_t t = 0; t < n; ++t) {
    const unsigned char* rec = u + 84 + 50 * t;
    for (int k = 0; k < 9; ++k) {
      float x = LeFloat(rec + 12 + 4 * k);
      if (!std::isfinite(x) || std::abs(x) > limits.max_coordinate) {
        Fail(MeshErrorKind::kBadNumber,
             AtByte(name, 84 + 50 * t + 12 + 4 * k) + ": triangle " + std::to_string(t) +
                 " vertex " + std::to_string(k / 3) + ": " + kAxisNames[k % 3] + " = " + Num(x) +
                 " is not a finite number within ±" + Num(limits.max_coordinate));
      }
    }
  }
}

// ---- PLY ----

struct PlyProperty {
  bool list = false;
  int size = 0;  // bytes of a value (binary)
  bool integer = false;
  bool is_signed = false;
  int count_size = 0;  // list length type
  std::string name;
};

struct PlyElement {
  std::string name;
  uint64_t count = 0;
  std::vector<PlyProperty> props;
};

// Size of a PLY scalar type, 0 if unknown.
int PlyTypeSize(std::string_view t, bool* integer, bool* is_signed) {
  *integer = true;
  *is_signed = true;
  if (t == "char" || t == "int8") return 1;
  if (t == "short" || t == "int16") return 2;
  if (t == "int" || t == "int32") return 4;
  *is_signed = false;
  if (t == "uchar" || t == "uint8") return 1;
  if (t == "ushort" || t == "uint16") return 2;
  if (t == "uint" || t == "uint32") return 4;
  *integer = false;
  *is_signed = true;
  if (t == "float" || t == "float32") return 4;
  if (t == "double" || t == "float64") return 8;
  return 0;
}

// Longest polygon accepted in a PLY face list.
constexpr uint64_t kMaxPolygonVertices = 1 << 16;

void CheckPly(std::string_view bytes, const std::string& name, const MeshLimits& limits) {
  // Header: text lines up to "end_header".
  size_t header_end = std::string_view::npos;
  {
    size_t pos = 0;
    while (pos < bytes.size() && pos < (1u << 20)) {
      size_t eol = bytes.find('\n', pos);
      if (eol == std::string_view::npos) break;
      std::string_view line = bytes.substr(pos, eol - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      pos = eol + 1;
      if (line == "end_header") {
        header_end = pos;
        break;
      }
    }
  }
  if (header_end == std::string_view::npos) {
    Fail(MeshErrorKind::kMalformed, name + ": PLY header has no end_header line");
  }
  enum { kAscii, kLittle, kBig } format = kAscii;
  bool have_format = false;
  std::vector<PlyElement> elements;
  std::vector<std::string_view> tok;
  uint64_t vertex_count = 0;
  bool magic_seen = false;
  ForEachLine(bytes.substr(0, header_end), [&](std::string_view line, uint64_t ln) {
    Tokens(line, &tok);
    if (!magic_seen) {
      if (tok.size() != 1 || tok[0] != "ply") {
        Fail(MeshErrorKind::kMalformed, At(name, ln) + ": PLY file does not start with 'ply'");
      }
      magic_seen = true;
      return;
    }
    if (tok.empty() || tok[0] == "comment" || tok[0] == "obj_info" || tok[0] == "end_header") {
      return;
    }
    if (tok[0] == "format") {
      if (tok.size() != 3)
        Fail(MeshErrorKind::kMalformed, At(name, ln) + ": format: expected 2 values");
      if (tok[1] == "ascii")
        format = kAscii;
      else if (tok[1] == "binary_little_endian")
        format = kLittle;
      else if (tok[1] == "binary_big_endian")
        format = kBig;
      else
        Fail(MeshErrorKind::kMalformed, At(name, ln) + ": format: unknown " + Quote(tok[1]));
      have_format = true;
    } else if (tok[0] == "element") {
      long long count = -1;
      if (tok.size() != 3 || !ParseInt(tok[2], &count) || count < 0) {
        Fail(MeshErrorKind::kMalformed,
             At(name, ln) + ": element: expected a name and a count >= 0");
      }
      PlyElement e;
      e.name = std::string(tok[1]);
      e.count = static_cast<uint64_t>(count);
      const uint64_t bound = e.name == "face" ? limits.max_triangles : limits.max_vertices;
      if (e.count > bound) {
        Fail(MeshErrorKind::kLimit, At(name, ln) + ": element " + e.name + ": count " +
                                        std::to_string(e.count) + " exceeds the limit of " +
                                        std::to_string(bound));
      }
      if (e.name == "vertex") vertex_count = e.count;
      elements.push_back(std::move(e));
    } else if (tok[0] == "property") {
      if (elements.empty()) {
        Fail(MeshErrorKind::kMalformed, At(name, ln) + ": property before any element");
      }
      PlyProperty p;
      bool ok;
      if (tok.size() == 5 && tok[1] == "list") {
        bool ci, cs;
        p.list = true;
        p.count_size = PlyTypeSize(tok[2], &ci, &cs);
        p.size = PlyTypeSize(tok[3], &p.integer, &p.is_signed);
        p.name = std::string(tok[4]);
        ok = p.count_size > 0 && ci && p.size > 0;
      } else if (tok.size() == 3) {
        p.size = PlyTypeSize(tok[1], &p.integer, &p.is_signed);
        p.name = std::string(tok[2]);
        ok = p.size > 0;
      } else {
        ok = false;
      }
      if (!ok) {
        Fail(MeshErrorKind::kMalformed,
             At(name, ln) +
                 ": property: expected 'TYPE NAME' or 'list COUNT_TYPE TYPE NAME' "
                 "with PLY types (char, uchar, short, ushort, int, uint, float, "
                 "double)");
      }
      elements.back().props.push_back(std::move(p));
    } else {
      Fail(MeshErrorKind::kMalformed, At(name, ln) + ": unknown PLY header line " + Quote(tok[0]));
    }
  });
  if (!have_format) Fail(MeshErrorKind::kMalformed, name + ": PLY header has no format line");

  // Body: walk every record, so that counts that promise more than the file holds, list lengths
  // that run past the end, face indices out of range and non-finite coordinates are refused here.
  const std::string_view body = bytes.substr(header_end);
  const auto* u = reinterpret_cast<const unsigned char*>(body.data());
  size_t offset = 0;  // binary position
  size_t value_at = 0;  // binary: offset in the file of the last value read
  // ASCII position: current line tokens and line number.
  size_t line_pos = 0;
  uint64_t line_no = 0;
  ForEachLine(bytes.substr(0, header_end), [&](std::string_view, uint64_t ln) { line_no = ln; });
  std::vector<std::string_view> line_tok;
  size_t tok_i = 0;
  uint64_t triangles = 0;

  auto next_line = [&](const PlyElement& e, uint64_t r) {
    while (true) {
      if (line_pos >= body.size()) {
        Fail(MeshErrorKind::kMalformed, name + ": PLY file ends after " + std::to_string(r) +
                                            " of the " + std::to_string(e.count) + " " + e.name +
                                            " records its header declares");
      }
      size_t eol = body.find('\n', line_pos);
      if (eol == std::string_view::npos) eol = body.size();
      std::string_view line = body.substr(line_pos, eol - line_pos);
      line_pos = eol + 1;
      ++line_no;
      if (Tokens(line, &line_tok) > 0) break;
    }
    tok_i = 0;
  };
  // Next value of property type (size, integer, signed) as a double; `what` names it.
  auto value = [&](const PlyElement& e, uint64_t r, int size, bool integer, bool is_signed,
                   std::string_view* text) -> double {
    if (format == kAscii) {
      if (tok_i >= line_tok.size()) {
        Fail(MeshErrorKind::kMalformed, At(name, line_no) + ": " + e.name + " record " +
                                            std::to_string(r) + " has too few values");
      }
      *text = line_tok[tok_i++];
      double x;
      std::string why = ParseDouble(*text, &x);
      if (!why.empty()) {
        Fail(MeshErrorKind::kBadNumber, At(name, line_no) + ": " + e.name + " record " +
                                            std::to_string(r) + ": " + Quote(*text) + " " + why);
      }
      return x;
    }
    if (offset + size > body.size()) {
      Fail(MeshErrorKind::kMalformed, AtByte(name, bytes.size()) + ": PLY file ends inside " +
                                          e.name + " record " + std::to_string(r) + " of the " +
                                          std::to_string(e.count) + " its header declares (" +
                                          std::to_string(body.size()) + " bytes after the header)");
    }
    value_at = header_end + offset;
    unsigned char b[8];
    for (int k = 0; k < size; ++k) b[k] = u[offset + (format == kLittle ? k : size - 1 - k)];
    offset += size;
    uint64_t bits = 0;
    for (int k = size - 1; k >= 0; --k) bits = bits << 8 | b[k];
    if (!integer) {
      if (size == 4) {
        float f;
        uint32_t b32 = static_cast<uint32_t>(bits);
        std::memcpy(&f, &b32, 4);
        return f;
      }
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    if (is_signed) {
      int shift = 64 - 8 * size;
      return static_cast<double>(static_cast<int64_t>(bits << shift) >> shift);
    }
    return static_cast<double>(bits);
  };

  for (const PlyElement& e : elements) {
    const bool is_vertex = e.name == "vertex", is_face = e.name == "face";
    for (uint64_t r = 0; r < e.count; ++r) {
      if (format == kAscii) next_line(e, r);
      if (format != kAscii && e.props.empty()) break;
      for (const PlyProperty& p : e.props) {
        std::string_view text;
        if (!p.list) {
          double x = value(e, r, p.size, p.integer, p.is_signed, &text);
          if (is_vertex && (p.name == "x" || p.name == "y" || p.name == "z") &&
              (!std::isfinite(x) || std::abs(x) > limits.max_coordinate)) {
            std::string where = format == kAscii ? At(name, line_no) : AtByte(name, value_at);
            Fail(MeshErrorKind::kBadNumber,
                 where + ": vertex " + std::to_string(r) + ": " + p.name + " = " + Num(x) +
                     " is not a finite number within ±" + Num(limits.max_coordinate));
          }
          continue;
        }
        double n = value(e, r, p.count_size, true, false, &text);
        if (!(n >= 0 && n <= static_cast<double>(kMaxPolygonVertices)) || n != std::floor(n)) {
          std::string where = format == kAscii ? At(name, line_no) : AtByte(name, value_at);
          Fail(MeshErrorKind::kMalformed, where + ": " + e.name + " record " + std::to_string(r) +
                                              ": list length " + Num(n) + " outside [0, " +
                                              std::to_string(kMaxPolygonVertices) + "]");
        }
        const bool indices = is_face && (p.name == "vertex_indices" || p.name == "vertex_index");
        if (indices && n >= 3) {
          triangles += static_cast<uint64_t>(n) - 2;
          if (triangles > limits.max_triangles) {
            Fail(MeshErrorKind::kLimit,
                 (format == kAscii ? At(name, line_no) : AtByte(name, value_at)) + ": " + e.name +
                     " record " + std::to_string(r) + ": more than " +
                     std::to_string(limits.max_triangles) + " triangles (the triangle limit)");
          }
        }
        for (uint64_t k = 0; k < static_cast<uint64_t>(n); ++k) {
          double x = value(e, r, p.size, p.integer, p.is_signed, &text);
          if (indices && !(x >= 0 && x < static_cast<double>(vertex_count) && x == std::floor(x))) {
            std::string where = format == kAscii ? At(name, line_no) : AtByte(name, value_at);
            Fail(MeshErrorKind::kMalformed, where + ": face " + std::to_string(r) +
                                                ": vertex index " + Num(x) +
                                                " is out of range (the header declares " +
                                                std::to_string(vertex_count) + " vertices)");
          }
        }
      }
    }
  }
}

// ---- glTF ----

// SAX handler that measures JSON nesting and records the node hierarchy ("nodes[i].children")
// and scene roots ("scenes[i].nodes"), with an explicit stack (nlohmann's SAX parser is itself
// iterative).
class GltfScan : public nlohmann::json_sax<nlohmann::json> {
 public:
  GltfScan(int max_depth, uint64_t max_nodes) : max_depth_(max_depth), max_nodes_(max_nodes) {}

  bool null() override { return Value(false, 0); }
  bool boolean(bool) override { return Value(false, 0); }
  bool number_integer(number_integer_t v) override { return Value(v >= 0, uint64_t(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Value(true, v); }
  bool number_float(number_float_t, const string_t&) override { return Value(false, 0); }
  bool string(string_t& v) override {
    for (const char* list : {"buffers", "images"}) {
      if (stack_.size() == 3 && stack_[0].object && stack_[0].key == list && !stack_[1].object &&
          stack_[2].object && stack_[2].key == "uri" && !UriIsSafe(v)) {
        return Error(MeshErrorKind::kMalformed,
                     std::string(list) + "[" + std::to_string(stack_[1].next - 1) + "].uri " +
                         Quote(v) +
                         " must be a data: URI or a relative path inside the file's directory "
                         "(no '..', no absolute path, no scheme)");
      }
    }
    return Value(false, 0);
  }
  // A buffer or image reference the reader may open: embedded data, or a plain relative path
  // below the glTF file's directory (not /dev/zero, not ../../secret, not http://...).
  static bool UriIsSafe(const std::string& uri) {
    if (uri.rfind("data:", 0) == 0) return true;
    if (uri.empty() || uri[0] == '/' || uri[0] == '\\') return false;
    const size_t colon = uri.find(':');
    if (colon != std::string::npos && colon < uri.find('/')) return false;  // scheme or drive
    size_t start = 0;
    while (start <= uri.size()) {
      size_t end = uri.find_first_of("/\\", start);
      if (end == std::string::npos) end = uri.size();
      if (uri.compare(start, end - start, "..") == 0) return false;
      start = end + 1;
    }
    return true;
  }
  bool binary(binary_t&) override { return Value(false, 0); }
  bool start_object(std::size_t) override { return Open(true); }
  bool key(string_t& k) override {
    stack_.back().key = k;
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(false); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    if (error_.empty()) {
      error_ = std::string("invalid JSON (") + ex.what() + ")";
      kind_ = MeshErrorKind::kMalformed;
    }
    return false;
  }

  const std::string& error() const { return error_; }
  MeshErrorKind kind() const { return kind_; }
  uint64_t node_count() const { return node_count_; }
  const std::vector<std::pair<uint64_t, uint64_t>>& edges() const {
    return edges_;
  }  // (parent, child)

 private:
  struct Frame {
    bool object = false;
    std::string key;    // object: current key
    uint64_t next = 0;  // array: index of the next element
  };

  // Position of the value about to be read: the key (in an object) or the index (in an array).
  bool InRootArray(const char* name) const {
    return stack_.size() == 2 && stack_[0].object && stack_[0].key == name && !stack_[1].object;
  }
  // Inside root[name][i][field] (an array of indices): returns i.
  bool InIndexList(const char* name, const char* field, uint64_t* i) const {
    if (stack_.size() != 4 || !stack_[0].object || stack_[0].key != name || stack_[1].object ||
        !stack_[2].object || stack_[2].key != field || stack_[3].object) {
      return false;
    }
    *i = stack_[1].next - 1;
    return true;
  }

  bool Value(bool index, uint64_t v) {
    uint64_t i;
    if (InIndexList("nodes", "children", &i)) {
      if (!index)
        return Error(
            MeshErrorKind::kMalformed,
            "nodes[" + std::to_string(i) + "].children holds a value that is not a node index");
      edges_.emplace_back(i, v);
      if (edges_.size() > max_nodes_) {
        return Error(MeshErrorKind::kLimit,
                     "more than " + std::to_string(max_nodes_) + " child links (the node limit)");
      }
    } else if (InIndexList("scenes", "nodes", &i)) {
      if (!index)
        return Error(
            MeshErrorKind::kMalformed,
            "scenes[" + std::to_string(i) + "].nodes holds a value that is not a node index");
    }
    Advance();
    return true;
  }
  void Advance() {
    if (!stack_.empty() && !stack_.back().object) ++stack_.back().next;
  }
  bool Open(bool object) {
    if (InRootArray("nodes") && object) {
      if (++node_count_ > max_nodes_) {
        return Error(MeshErrorKind::kLimit,
                     "more than " + std::to_string(max_nodes_) + " nodes (the node limit)");
      }
    }
    Advance();
    if (static_cast<int>(stack_.size()) >= max_depth_) {
      return Error(MeshErrorKind::kLimit, "JSON nesting deeper than " + std::to_string(max_depth_) +
                                              " levels (the nesting limit)");
    }
    stack_.push_back(Frame{object, "", 0});
    return true;
  }
  bool Close() {
    stack_.pop_back();
    return true;
  }
  bool Error(MeshErrorKind kind, const std::string& what) {
    if (error_.empty()) {
      error_ = what;
      kind_ = kind;
    }
    return false;
  }

  int max_depth_;
  uint64_t max_nodes_;
  std::vector<Frame> stack_;
  uint64_t node_count_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> edges_;
  std::string error_;
  MeshErrorKind kind_ = MeshErrorKind::kMalformed;
};

void CheckGltfJson(std::string_view json, const std::string& name, const MeshLimits& limits) {
  GltfScan scan(limits.max_json_depth, limits.max_nodes);
  bool ok = nlohmann::json::sax_parse(json.begin(), json.end(), &scan,
                                      nlohmann::json::input_format_t::json, true);
  if (!ok || !scan.error().empty()) {
    Fail(scan.error().empty() ? MeshErrorKind::kMalformed : scan.kind(),
         name + ": glTF: " + (scan.error().empty() ? "invalid JSON" : scan.error()));
  }
  // Node hierarchy: every child index in range, at most one parent per node, no cycle, depth
  // within the limit. Walked breadth-first from the nodes that have no parent.
  const uint64_t n = scan.node_count();
  std::vector<int64_t> parent(n, -1);
  std::vector<std::vector<uint64_t>> children(n);
  for (const auto& [p, c] : scan.edges()) {
    if (c >= n) {
      Fail(MeshErrorKind::kMalformed, name + ": glTF: nodes[" + std::to_string(p) +
                                          "].children: node index " + std::to_string(c) +
                                          " is out of range (" + std::to_string(n) + " nodes)");
    }
    if (parent[c] >= 0 || c == p) {
      Fail(MeshErrorKind::kMalformed,
           name + ": glTF: node " + std::to_string(c) + " has more than one parent (nodes " +
               std::to_string(parent[c] >= 0 ? parent[c] : int64_t(p)) + " and " +
               std::to_string(p) + "); the node hierarchy must be a set of trees");
    }
    parent[c] = static_cast<int64_t>(p);
    children[p].push_back(c);
  }
  std::vector<uint64_t> level;
  for (uint64_t i = 0; i < n; ++i) {
    if (parent[i] < 0) level.push_back(i);
  }
  uint64_t reached = 0;
  int depth = 0;
  std::vector<uint64_t> next;
  while (!level.empty()) {
    if (++depth > limits.max_node_depth) {
      Fail(MeshErrorKind::kLimit, name + ": glTF: node hierarchy deeper than " +
                                      std::to_string(limits.max_node_depth) +
                                      " levels (the node depth limit)");
    }
    reached += level.size();
    next.clear();
    for (uint64_t i : level) next.insert(next.end(), children[i].begin(), children[i].end());
    level.swap(next);
  }
  if (reached != n) {
    Fail(MeshErrorKind::kMalformed, name + ": glTF: the node hierarchy has a cycle (" +
                                        std::to_string(n - reached) +
                                        " nodes are not reachable from a root)");
  }
}

void CheckGlb(std::string_view bytes, const std::string& name, const MeshLimits& limits) {
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 20 || Le32(u) != 0x46546C67u) {
    Fail(MeshErrorKind::kMalformed,
         AtByte(name, 0) + ": magic: not a binary glTF (no 'glTF' header)");
  }
  const uint64_t length = Le32(u + 8), json_len = Le32(u + 12);
  if (length != bytes.size()) {
    Fail(MeshErrorKind::kMalformed, AtByte(name, 8) + ": length: binary glTF header declares " +
                                        std::to_string(length) + " bytes but the file has " +
                                        std::to_string(bytes.size()));
  }
  if (Le32(u + 16) != 0x4E4F534Au || 20 + json_len > bytes.size()) {
    Fail(
        MeshErrorKind::kMalformed,
        AtByte(name, 12) +
            ": chunk 0: binary glTF: the first chunk is not JSON or runs past the end of the file");
  }
  uint64_t pos = 20 + json_len;
  for (int chunk = 1; pos < bytes.size(); ++chunk) {
    if (pos + 8 > bytes.size() || pos + 8 + Le32(u + pos) > bytes.size()) {
      Fail(MeshErrorKind::kMalformed, AtByte(name, pos) + ": chunk " + std::to_string(chunk) +
                                          ": binary glTF: the chunk runs past the end of the file");
    }
    pos += 8 + Le32(u + pos);
  }
  CheckGltfJson(bytes.substr(20, json_len), name, limits);
}

// ---- Reading with Assimp ----

constexpr unsigned kAssimpFlags = aiProcess_ValidateDataStructure | aiProcess_Triangulate |
                                  aiProcess_JoinIdenticalVertices | aiProcess_SortByPType;

bool FiniteMatrix(const aiMatrix4x4& m) {
  const ai_real* p = &m.a1;
  for (int k = 0; k < 16; ++k) {
    if (!std::isfinite(p[k])) return false;
  }
  return true;
}

// Triangles of every mesh reachable from the root, node transforms applied. Checks every pointer,
// count and index Assimp hands back; the hierarchy is walked with an explicit stack.
TriangleSoup ExtractTriangles(const aiScene* scene, const std::string& name,
                              const MeshLimits& limits) {
  if (scene == nullptr || scene->mRootNode == nullptr) {
    Fail(MeshErrorKind::kReaderError, name + ": the mesh reader returned no scene");
  }
  if (scene->mNumMeshes > 0 && scene->mMeshes == nullptr) {
    Fail(MeshErrorKind::kMalformed, name + ": the mesh reader returned a scene without meshes");
  }
  TriangleSoup soup;
  struct Item {
    const aiNode* node;
    aiMatrix4x4 parent;
    int depth;
  };
  std::vector<Item> stack{{scene->mRootNode, aiMatrix4x4(), 1}};
  uint64_t visited = 0;
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    const aiNode* node = item.node;
    if (node == nullptr)
      Fail(MeshErrorKind::kMalformed, name + ": the node hierarchy has a null node");
    if (++visited > limits.max_nodes) {
      Fail(MeshErrorKind::kLimit,
           name + ": more than " + std::to_string(limits.max_nodes) + " nodes (the node limit)");
    }
    if (item.depth > limits.max_node_depth) {
      Fail(MeshErrorKind::kLimit, name + ": node hierarchy deeper than " +
                                      std::to_string(limits.max_node_depth) +
                                      " levels (the node depth limit)");
    }
    const aiMatrix4x4 m = item.parent * node->mTransformation;
    if (!FiniteMatrix(m)) {
      Fail(MeshErrorKind::kBadNumber,
           name + ": node '" + node->mName.C_Str() + "' has a transform that is not finite");
    }
    if (node->mNumMeshes > 0 && node->mMeshes == nullptr) {
      Fail(MeshErrorKind::kMalformed,
           name + ": node '" + node->mName.C_Str() + "' lists meshes without indices");
    }
    for (unsigned k = 0; k < node->mNumMeshes; ++k) {
      const unsigned mi = node->mMeshes[k];
      if (mi >= scene->mNumMeshes || scene->mMeshes[mi] == nullptr) {
        Fail(MeshErrorKind::kMalformed, name + ": node '" + node->mName.C_Str() +
                                            "' refers to mesh " + std::to_string(mi) + " of " +
                                            std::to_string(scene->mNumMeshes));
      }
      const aiMesh* mesh = scene->mMeshes[mi];
      if ((mesh->mNumVertices > 0 && mesh->mVertices == nullptr) ||
          (mesh->mNumFaces > 0 && mesh->mFaces == nullptr)) {
        Fail(MeshErrorKind::kMalformed, name + ": mesh " + std::to_string(mi) +
                                            " declares vertices or faces it does not hold");
      }
      if (soup.vertices.size() + mesh->mNumVertices > limits.max_vertices) {
        Fail(MeshErrorKind::kLimit, name + ": more than " + std::to_string(limits.max_vertices) +
                                        " vertices (the vertex limit)");
      }
      const size_t base = soup.vertices.size();
      for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
        const aiVector3D p = m * mesh->mVertices[i];
        const Vec3 v(p.x, p.y, p.z);
        if (!v.allFinite() || v.cwiseAbs().maxCoeff() > limits.max_coordinate) {
          Fail(MeshErrorKind::kBadNumber,
               name + ": mesh " + std::to_string(mi) + " vertex " + std::to_string(i) + " (" +
                   Num(v.x()) + ", " + Num(v.y()) + ", " + Num(v.z()) +
                   ") is not finite or beyond ±" + Num(limits.max_coordinate));
        }
        soup.vertices.push_back(v);
      }
      for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
        const aiFace& face = mesh->mFaces[f];
        if (face.mNumIndices != 3) continue;  // points and lines
        if (face.mIndices == nullptr) {
          Fail(MeshErrorKind::kMalformed, name + ": mesh " + std::to_string(mi) + " face " +
                                              std::to_string(f) + " has no indices");
        }
        if (soup.triangles.size() / 3 + 1 > limits.max_triangles) {
          Fail(MeshErrorKind::kLimit, name + ": more than " + std::to_string(limits.max_triangles) +
                                          " triangles (the triangle limit)");
        }
        for (int j = 0; j < 3; ++j) {
          if (face.mIndices[j] >= mesh->mNumVertices) {
            Fail(MeshErrorKind::kMalformed,
                 name + ": mesh " + std::to_string(mi) + " face " + std::to_string(f) +
                     ": vertex index " + std::to_string(face.mIndices[j]) + " is out of range (" +
                     std::to_string(mesh->mNumVertices) + " vertices)");
          }
          soup.triangles.push_back(static_cast<int>(base + face.mIndices[j]));
        }
      }
    }
    if (node->mNumChildren > 0 && node->mChildren == nullptr) {
      Fail(MeshErrorKind::kMalformed,
           name + ": node '" + node->mName.C_Str() + "' lists children it does not hold");
    }
    for (unsigned c = node->mNumChildren; c-- > 0;) {
      stack.push_back(Item{node->mChildren[c], m, item.depth + 1});
    }
  }
  return soup;
}

std::string ReaderMessage(Assimp::Importer& importer) {
  std::string s = importer.GetErrorString();
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

TriangleSoup AssimpReadFile(const std::string& path, const MeshLimits& limits) {
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(path, kAssimpFlags);
  if (scene == nullptr) {
    const std::string why = ReaderMessage(importer);
    if (why.find("bad_alloc") != std::string::npos) {
      // Assimp turns an allocation failure into an error string.
      Fail(MeshErrorKind::kLimit, path + ": the mesh reader ran out of memory (limit " +
                                      std::to_string(limits.reader_memory_bytes >> 20) + " MiB)");
    }
    Fail(MeshErrorKind::kReaderError, path + ": cannot read mesh (" + why + ")");
  }
  return ExtractTriangles(scene, path, limits);
}

// ---- Child process protocol ----

constexpr char kMagic[8] = {'C', 'L', 'M', 'E', 'S', 'H', '1', '\0'};

struct WireHeader {
  char magic[8];
  uint32_t ok;
  uint32_t kind;
  uint64_t vertices;
  uint64_t indices;
  uint64_t message_bytes;
};

void WriteAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void SendError(int fd, MeshErrorKind kind, const std::string& message) {
  WireHeader h{};
  std::memcpy(h.magic, kMagic, 8);
  h.ok = 0;
  h.kind = static_cast<uint32_t>(kind);
  h.message_bytes = std::min<size_t>(message.size(), 4096);
  WriteAll(fd, &h, sizeof h);
  WriteAll(fd, message.data(), h.message_bytes);
}

// Runs in the child: parse, then send the arrays or the error. Never returns.
[[noreturn]] void ChildMain(int fd, const std::string& path, const MeshLimits& limits) {
  struct rlimit no_core {
    0, 0
  };
  setrlimit(RLIMIT_CORE, &no_core);
#if !defined(CONTACTLAB_UNDER_SANITIZER)
  // An address-space limit cannot be combined with a sanitizer's shadow memory reservation.
  struct rlimit as {
    limits.reader_memory_bytes, limits.reader_memory_bytes
  };
  setrlimit(RLIMIT_AS, &as);
#endif
  const rlim_t cpu = static_cast<rlim_t>(std::max(1, limits.reader_seconds));
  struct rlimit cpu_limit {
    cpu, cpu + 1
  };
  setrlimit(RLIMIT_CPU, &cpu_limit);
  try {
    TriangleSoup soup = AssimpReadFile(path, limits);
    WireHeader h{};
    std::memcpy(h.magic, kMagic, 8);
    h.ok = 1;
    h.vertices = soup.vertices.size();
    h.indices = soup.triangles.size();
    WriteAll(fd, &h, sizeof h);
    WriteAll(fd, soup.vertices.data(), soup.vertices.size() * sizeof(Vec3));
    WriteAll(fd, soup.triangles.data(), soup.triangles.size() * sizeof(int));
  } catch (const MeshError& e) {
    SendError(fd, e.kind(), e.what());
  } catch (const std::bad_alloc&) {
    SendError(fd, MeshErrorKind::kLimit,
              path + ": the mesh reader ran out of memory (limit " +
                  std::to_string(limits.reader_memory_bytes >> 20) + " MiB)");
  } catch (const std::exception& e) {
    SendError(fd, MeshErrorKind::kReaderError, path + ": cannot read mesh (" + e.what() + ")");
  } catch (...) {
    SendError(fd, MeshErrorKind::kReaderError, path + ": cannot read mesh (unknown error)");
  }
  ::close(fd);
  _exit(0);
}

}  // namespace

bool operator==(const MeshLimits& a, const MeshLimits& b) {
  return a.max_file_bytes == b.max_file_bytes && a.max_vertices == b.max_vertices &&
         a.max_triangles == b.max_triangles && a.max_coordinate == b.max_coordinate &&
         a.max_scaled_coordinate == b.max_scaled_coordinate &&
         a.max_json_depth == b.max_json_depth && a.max_node_depth == b.max_node_depth &&
         a.max_nodes == b.max_nodes && a.reader_memory_bytes == b.reader_memory_bytes &&
         a.reader_seconds == b.reader_seconds && a.isolate == b.isolate;
}

const char* MeshErrorKindName(MeshErrorKind kind) {
  switch (kind) {
    case MeshErrorKind::kNotFound:
      return "not found";
    case MeshErrorKind::kLimit:
      return "limit exceeded";
    case MeshErrorKind::kMalformed:
      return "malformed";
    case MeshErrorKind::kBadNumber:
      return "bad number";
    case MeshErrorKind::kReaderError:
      return "reader error";
    case MeshErrorKind::kReaderCrashed:
      return "reader crashed";
    case MeshErrorKind::kNoVolume:
      return "no volume";
  }
  return "?";
}

MeshFormat MeshFormatOf(std::string_view name) {
  const std::string ext = Lower(std::filesystem::path(std::string(name)).extension().string());
  if (ext == ".obj") return MeshFormat::kObj;
  if (ext == ".stl") return MeshFormat::kStl;
  if (ext == ".ply") return MeshFormat::kPly;
  if (ext == ".gltf") return MeshFormat::kGltf;
  if (ext == ".glb") return MeshFormat::kGlb;
  return MeshFormat::kOther;
}

void CheckMeshBytes(std::string_view bytes, const std::string& name, const MeshLimits& limits) {
  if (bytes.size() > limits.max_file_bytes) {
    Fail(MeshErrorKind::kLimit, name + ": file of " + std::to_string(bytes.size()) +
                                    " bytes exceeds the mesh file limit of " +
                                    std::to_string(limits.max_file_bytes) + " bytes");
  }
  if (bytes.empty()) Fail(MeshErrorKind::kMalformed, name + ": mesh file is empty");
  switch (MeshFormatOf(name)) {
    case MeshFormat::kObj:
      CheckObj(bytes, name, limits);
      break;
    case MeshFormat::kStl:
      CheckStl(bytes, name, limits);
      break;
    case MeshFormat::kPly:
      CheckPly(bytes, name, limits);
      break;
    case MeshFormat::kGltf:
      CheckGltfJson(bytes, name, limits);
      break;
    case MeshFormat::kGlb:
      CheckGlb(bytes, name, limits);
      break;
    case MeshFormat::kOther:
      break;
  }
}

void CheckTriangleSoup(const TriangleSoup& soup, const std::string& name,
                       const MeshLimits& limits) {
  if (soup.vertices.size() > limits.max_vertices) {
    Fail(MeshErrorKind::kLimit, name + ": " + std::to_string(soup.vertices.size()) +
                                    " vertices exceed the limit of " +
                                    std::to_string(limits.max_vertices));
  }
  if (soup.triangles.size() % 3 != 0 || soup.triangles.size() / 3 > limits.max_triangles) {
    Fail(MeshErrorKind::kLimit, name + ": " + std::to_string(soup.triangles.size() / 3) +
                                    " triangles exceed the limit of " +
                                    std::to_string(limits.max_triangles));
  }
  for (size_t i = 0; i < soup.vertices.size(); ++i) {
    const Vec3& v = soup.vertices[i];
    if (!v.allFinite() || v.cwiseAbs().maxCoeff() > limits.max_coordinate) {
      Fail(MeshErrorKind::kBadNumber,
           name + ": vertex " + std::to_string(i) + " (" + Num(v.x()) + ", " + Num(v.y()) + ", " +
               Num(v.z()) + ") is not finite or beyond ±" + Num(limits.max_coordinate));
    }
  }
  for (size_t k = 0; k < soup.triangles.size(); ++k) {
    const int i = soup.triangles[k];
    if (i < 0 || static_cast<size_t>(i) >= soup.vertices.size()) {
      Fail(MeshErrorKind::kMalformed,
           name + ": triangle " + std::to_string(k / 3) + ": vertex index " + std::to_string(i) +
               " is out of range (" + std::to_string(soup.vertices.size()) + " vertices)");
    }
  }
}

std::string ReadMeshFileBytes(const std::string& path, const MeshLimits& limits) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    Fail(MeshErrorKind::kNotFound, path + ": mesh file not found");
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) Fail(MeshErrorKind::kNotFound, path + ": cannot read mesh file (" + ec.message() + ")");
  if (size > limits.max_file_bytes) {
    Fail(MeshErrorKind::kLimit, path + ": file of " + std::to_string(size) +
                                    " bytes exceeds the mesh file limit of " +
                                    std::to_string(limits.max_file_bytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(MeshErrorKind::kNotFound, path + ": cannot open mesh file");
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

TriangleSoup ReadMeshFromMemory(std::string_view bytes, const std::string& name,
                                const MeshLimits& limits) {
  CheckMeshBytes(bytes, name, limits);
  Assimp::Importer importer;
  const std::string ext = std::filesystem::path(name).extension().string();
  const aiScene* scene = importer.ReadFileFromMemory(bytes.data(), bytes.size(), kAssimpFlags,
                                                     ext.empty() ? "" : ext.c_str() + 1);
  if (scene == nullptr) {
    Fail(MeshErrorKind::kReaderError,
         name + ": cannot read mesh (" + ReaderMessage(importer) + ")");
  }
  TriangleSoup soup = ExtractTriangles(scene, name, limits);
  CheckTriangleSoup(soup, name, limits);
  return soup;
}

TriangleSoup ReadMeshInProcessFromFile(const std::string& path, const MeshLimits& limits) {
  const std::string bytes = ReadMeshFileBytes(path, limits);
  CheckMeshBytes(bytes, path, limits);
  TriangleSoup soup = AssimpReadFile(path, limits);
  CheckTriangleSoup(soup, path, limits);
  return soup;
}

TriangleSoup ReadMeshIsolated(const std::string& path, const MeshLimits& limits) {
  {
    const std::string bytes = ReadMeshFileBytes(path, limits);
    CheckMeshBytes(bytes, path, limits);
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    Fail(MeshErrorKind::kReaderError,
         path + ": cannot start the mesh reader (pipe: " + std::strerror(errno) + ")");
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    Fail(MeshErrorKind::kReaderError,
         path + ": cannot start the mesh reader (fork: " + std::strerror(err) + ")");
  }
  if (pid == 0) {
    ::close(fds[0]);
    ChildMain(fds[1], path, limits);
  }
  ::close(fds[1]);

  // Collect the child's answer until it closes the pipe, within the deadline and a size bound.
  const uint64_t max_bytes = sizeof(WireHeader) + 4096 + limits.max_vertices * sizeof(Vec3) +
                             3 * limits.max_triangles * sizeof(int);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(std::max(1, limits.reader_seconds));
  std::string data;
  bool timed_out = false, too_big = false;
  char buf[1 << 16];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > max_bytes) {
      too_big = true;
      break;
    }
  }
  ::close(fds[0]);
  if (timed_out || too_big) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    Fail(MeshErrorKind::kLimit, path + ": the mesh reader exceeded the time limit of " +
                                    std::to_string(limits.reader_seconds) + " s and was stopped");
  }
  if (too_big) {
    Fail(MeshErrorKind::kReaderCrashed,
         path + ": the mesh reader sent more data than the vertex and triangle limits allow");
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGXCPU || sig == SIGKILL) {
      Fail(MeshErrorKind::kLimit, path + ": the mesh reader exceeded the CPU time limit of " +
                                      std::to_string(limits.reader_seconds) + " s (signal " +
                                      std::to_string(sig) + ")");
    }
    const char* desc = ::strsignal(sig);
    Fail(MeshErrorKind::kReaderCrashed, "mesh reader crashed on " + path + " (signal " +
                                            std::to_string(sig) + ", " + (desc ? desc : "unknown") +
                                            ")");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    Fail(MeshErrorKind::kReaderCrashed, "mesh reader crashed on " + path + " (exit status " +
                                            std::to_string(WEXITSTATUS(status)) + ")");
  }
  WireHeader h{};
  if (data.size() < sizeof h) {
    Fail(MeshErrorKind::kReaderCrashed,
         "mesh reader crashed on " + path + " (it exited without a result)");
  }
  std::memcpy(&h, data.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, 8) != 0) {
    Fail(MeshErrorKind::kReaderCrashed, "mesh reader crashed on " + path + " (garbled result)");
  }
  if (!h.ok) {
    if (h.kind > static_cast<uint32_t>(MeshErrorKind::kNoVolume) ||
        data.size() != sizeof h + h.message_bytes) {
      Fail(MeshErrorKind::kReaderCrashed, "mesh reader crashed on " + path + " (garbled error)");
    }
    Fail(static_cast<MeshErrorKind>(h.kind), data.substr(sizeof h));
  }
  if (h.vertices > limits.max_vertices || h.indices > 3 * limits.max_triangles ||
      data.size() != sizeof h + h.vertices * sizeof(Vec3) + h.indices * sizeof(int)) {
    Fail(MeshErrorKind::kReaderCrashed,
         "mesh reader crashed on " + path + " (result sizes do not match its counts)");
  }
  TriangleSoup soup;
  soup.vertices.resize(h.vertices);
  soup.triangles.resize(h.indices);
  if (h.vertices > 0) {
    std::memcpy(static_cast<void*>(soup.vertices.data()), data.data() + sizeof h,
                h.vertices * sizeof(Vec3));
  }
  if (h.indices > 0) {
    std::memcpy(soup.triangles.data(), data.data() + sizeof h + h.vertices * sizeof(Vec3),
                h.indices * sizeof(int));
  }
  CheckTriangleSoup(soup, path, limits);
  return soup;
}

}  // namespace contactlab
