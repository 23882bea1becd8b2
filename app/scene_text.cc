#include "app/scene_text.h"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace contactlab {
namespace {

std::string Hex(unsigned value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*X", digits, value);
  return buf;
}

// Byte-level checks: NUL, control characters, UTF-8 well-formedness, stray byte-order marks.
std::optional<YamlTextIssue> CheckBytes(const std::string& text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  int line = 1;
  size_t i = 0;
  if (n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) i = 3;  // a leading BOM is allowed
  while (i < n) {
    const unsigned c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c < 0x80) {
      if (c == 0) return YamlTextIssue{line, "NUL byte in the text (a scene file is UTF-8 text)"};
      if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F) {
        return YamlTextIssue{line, "control character U+" + Hex(c, 4) +
                                       " in the text (only tab, LF and CR are allowed)"};
      }
      ++i;
      continue;
    }
    // Multi-byte sequence: lead byte, then 1 to 3 continuation bytes 10xxxxxx.
    int len = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4, cp = c & 0x07;
    }
    bool ok = len > 0 && i + len <= n;
    for (int k = 1; ok && k < len; ++k) {
      ok = (s[i + k] & 0xC0) == 0x80;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (ok && ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
               (cp >= 0xD800 && cp <= 0xDFFF))) {
      ok = false;
    }
    if (!ok) {
      return YamlTextIssue{line,
                           "invalid UTF-8 (byte 0x" + Hex(c, 2) + "; a scene file is UTF-8 text)"};
    }
    if (cp == 0xFEFF) {
      return YamlTextIssue{line, "byte-order mark (U+FEFF) after the start of the text"};
    }
    i += len;
  }
  return std::nullopt;
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

std::optional<YamlTextIssue> ScanYamlText(const std::string& text, YamlTextFacts* facts) {
  if (auto issue = CheckBytes(text)) return issue;
  YamlTextFacts seen;
  const size_t n = text.size();
  size_t line_begin = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  int line = 1;
  // Lexical state carried from line to line.
  char quote = 0;                // inside a '...' or "..." scalar
  int quote_line = 0;            // where it opened
  int flow = 0;                  // depth of [ ] and { } collections
  int flow_base = 0;             // block depth where the outermost flow collection opened
  int block_scalar_parent = -2;  // >= -1: inside a | or > scalar of a line with this indent
  std::vector<int> indents;      // block indentation stack
  bool content = false;          // the document has content
  bool ended = false;            // a `...` document end marker was seen
  const auto too_deep = [&](int depth) -> std::optional<YamlTextIssue> {
    if (depth <= kMaxYamlNesting) return std::nullopt;
    return YamlTextIssue{
        line, "lists and maps nested deeper than " + std::to_string(kMaxYamlNesting) + " levels"};
  };

  while (line_begin <= n) {
    size_t line_end = text.find('\n', line_begin);
    if (line_end == std::string::npos) line_end = n;
    size_t p = line_begin;
    bool node_start = false;
    int depth = 0;  // block depth of this line (indentation levels + indicators)
    if (quote == 0) {
      size_t indent = 0;
      while (p + indent < line_end && text[p + indent] == ' ') ++indent;
      size_t q = p + indent;
      while (q < line_end && IsBlank(text[q])) ++q;
      const bool empty = q == line_end || text[q] == '#';
      if (block_scalar_parent >= -1 && (empty || static_cast<int>(indent) > block_scalar_parent)) {
        goto next_line;  // a line of a block scalar's text
      }
      block_scalar_parent = -2;
      if (empty) goto next_line;
      if (flow == 0 && text[p + indent] == '\t') {
        return YamlTextIssue{line, "tab in the indentation (YAML indents with spaces)"};
      }
      if (flow == 0 && indent == 0) {
        const bool marker_end =
            line_end - p == 3 || (line_end - p > 3 && IsBlank(text[p + 3]));
        if (line_end - p >= 3 && text.compare(p, 3, "---") == 0 && marker_end) {
          if (content || ended) {
            return YamlTextIssue{line,
                                 "a second YAML document starts here ('---'); a scene "
                                 "file holds one document"};
          }
          p += 3;
        } else if (line_end - p >= 3 && text.compare(p, 3, "...") == 0 && marker_end) {
          ended = true;
          p += 3;
        } else if (text[p] == '%' && !content) {
          goto next_line;  // a directive such as %YAML 1.2
        }
      }
      if (flow == 0) {
        while (!indents.empty() && indents.back() >= static_cast<int>(indent)) indents.pop_back();
        indents.push_back(static_cast<int>(indent));
        depth = static_cast<int>(indents.size());
        if (auto issue = too_deep(depth)) return issue;
      }
      node_start = true;
    }
    for (; p < line_end; ++p) {
      const char c = text[p];
      const char next = p + 1 < line_end ? text[p + 1] : '\n';
      const bool next_blank = next == '\n' || IsBlank(next);
      if (quote == '\'') {
        if (c == '\'') {
          if (next == '\'') {
            ++p;
          } else {
            quote = 0;
          }
        }
        continue;
      }
      if (quote == '"') {
        if (c == '\\') {
          ++p;
        } else if (c == '"') {
          quote = 0;
        }
        continue;
      }
      if (IsBlank(c)) continue;
      if (c == '#' && (p == line_begin || IsBlank(text[p - 1]))) break;  // comment
      if (ended) {
        return YamlTextIssue{line,
                             "content after the document end marker '...' (a scene file "
                             "holds one document)"};
      }
      content = true;
      if (node_start) {
        if (c == '\'' || c == '"') {
          quote = c;
          quote_line = line;
          node_start = false;
          continue;
        }
        if (c == '&' || c == '!' || c == '*') {
          // Anchor, tag or alias: a name up to a blank (or a flow indicator inside [ ] / { }).
          if (c == '*') {
            if (seen.aliases++ == 0) seen.first_alias_line = line;
          }
          while (p + 1 < line_end && !IsBlank(text[p + 1]) &&
                 !(flow > 0 && (text[p + 1] == ',' || text[p + 1] == ']' || text[p + 1] == '}' ||
                                text[p + 1] == '[' || text[p + 1] == '{'))) {
            ++p;
          }
          if (c == '*') node_start = false;
          continue;
        }
        if (flow == 0 && (c == '|' || c == '>')) {
          // Block scalar: its text is every following line indented more than this one.
          size_t indent = 0;
          while (line_begin + indent < line_end && text[line_begin + indent] == ' ') ++indent;
          block_scalar_parent = static_cast<int>(indent);
          break;
        }
        if (flow == 0 && (c == '-' || c == '?') && next_blank) {
          if (auto issue = too_deep(++depth)) return issue;
          continue;  // `- ` or `? `: a nested node follows on this line
        }
      }
      if (flow == 0 && c == ':' && next_blank) {
        if (auto issue = too_deep(++depth)) return issue;
        node_start = true;
        continue;
      }
      if ((c == '[' || c == '{') && (flow > 0 || node_start)) {
        if (flow == 0) flow_base = depth;
        ++flow;
        if (auto issue = too_deep(flow_base + flow)) return issue;
        node_start = true;
        continue;
      }
      if (flow > 0) {
        if (c == ']' || c == '}') {
          --flow;
          node_start = false;
          continue;
        }
        if (c == ',' || ((c == ':' || c == '?') && (next_blank || next == ',' || next == ']' ||
                                                    next == '}' || next == '[' || next == '{'))) {
          node_start = true;
          continue;
        }
      }
      node_start = false;  // a character of a plain scalar
    }
  next_line:
    if (line_end == n) break;
    line_begin = line_end + 1;
    ++line;
  }
  if (quote != 0) {
    return YamlTextIssue{quote_line, std::string("unterminated quoted string (the closing ") +
                                         quote + " is missing)"};
  }
  if (facts) *facts = seen;
  return std::nullopt;
}

size_t ExpandedNodeCount(const YAML::Node& root, size_t limit) {
  // Nodes are counted when they are pushed, so the stack never holds more than `limit` + 1.
  size_t count = 1;
  std::vector<YAML::Node> stack{root};
  while (!stack.empty()) {
    const YAML::Node node = stack.back();
    stack.pop_back();
    if (!node.IsMap() && !node.IsSequence()) continue;
    for (auto it = node.begin(); it != node.end(); ++it) {
      count += node.IsMap() ? 2 : 1;
      if (count > limit) return limit + 1;
      if (node.IsMap()) {
        stack.push_back(it->first);
        stack.push_back(it->second);
      } else {
        stack.push_back(*it);
      }
    }
  }
  return count;
}

}  // namespace contactlab
