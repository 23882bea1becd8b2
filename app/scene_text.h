// Checks of a scene's YAML text before yaml-cpp reads it, and of the document yaml-cpp builds.
//
// yaml-cpp (0.7) reads the first document of a text and ignores the rest, lets a quoted string
// that is never closed run to the end of the text, passes NUL bytes, control characters and
// invalid UTF-8 into names, refuses deep nesting only with the message "bad file", and shares the
// node an alias names, so a small text with aliases of aliases ("billion laughs") reads quickly
// but expands to billions of nodes for whoever walks it. ScanYamlText finds these in one linear
// pass over the text, with the 1-based line, so that the scene reader can refuse them as
// `FILE:LINE: yaml: ...`; ExpandedNodeCount bounds the walk of a document with aliases.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <string>

namespace contactlab {

// Largest scene file read [bytes]: 64 MiB (a 100 000-body scene written out in full is ~10 MB).
constexpr size_t kMaxSceneFileBytes = size_t{64} << 20;
// Deepest nesting of lists and maps (block and flow levels together, a line's `- ` and `key:`
// indicators counted as levels). A scene needs about 10.
constexpr int kMaxYamlNesting = 64;
// Most nodes a document with aliases may expand to (every alias counted as a copy of what it
// names); a --set value may expand to kMaxOverrideNodes.
constexpr size_t kMaxExpandedNodes = 10'000'000;
constexpr size_t kMaxOverrideNodes = 100'000;

struct YamlTextIssue {
  int line = 1;      // 1-based line of the problem
  std::string what;  // e.g. "unterminated quoted string (the closing \" is missing)"
};

struct YamlTextFacts {
  int aliases = 0;           // number of `*name` aliases
  int first_alias_line = 0;  // 1-based; 0 without aliases
};

// The first problem of `text` as a single YAML document, or nullopt. Refused: NUL bytes, control
// characters other than tab, LF and CR, invalid UTF-8, a byte-order mark after the start, a tab in
// the indentation, a quoted string that is not closed, a second document (`---` after content, or
// content after `...`), and nesting deeper than kMaxYamlNesting. Linear in the text's length; no
// recursion. `facts` (may be null) receives what the scan saw of aliases.
std::optional<YamlTextIssue> ScanYamlText(const std::string& text, YamlTextFacts* facts = nullptr);

// Number of nodes of `root` with every alias expanded, counting up to `limit` + 1 and stopping
// there (so the work is bounded by `limit`, whatever the expansion). Iterative.
size_t ExpandedNodeCount(const YAML::Node& root, size_t limit);

}  // namespace contactlab
