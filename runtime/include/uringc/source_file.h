// A source file held in memory, with positions as byte offsets. Every diagnostic and every AST
// node points into one of these; line and column are computed only when something is printed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace uringc {

/// A half-open byte range [begin, end) in one SourceFile.
struct SourceRange {
  uint32_t file = 0;  // index in SourceManager; 0 is "no file"
  uint32_t begin = 0;
  uint32_t end = 0;
};

/// A 1-based line and column (columns count bytes, as clang's do).
struct LineCol {
  uint32_t line = 0;
  uint32_t column = 0;
};

class SourceFile {
 public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  /// Line and column of a byte offset; an offset past the end maps to the end.
  LineCol LineColOf(uint32_t offset) const;
  /// The text of a 1-based line, without its line break.
  std::string_view Line(uint32_t line) const;
  uint32_t LineCount() const { return static_cast<uint32_t>(line_starts_.size()); }

 private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
};

/// Owns every file of one compilation; SourceRange::file indexes into it (1-based).
class SourceManager {
 public:
  /// Adds a file and returns its id (never 0).
  uint32_t Add(std::string name, std::string text);
  /// The file with this id, or nullptr for 0 or an unknown id.
  const SourceFile* Get(uint32_t id) const;
  /// Every file, in the order added (the first has id 1).
  const std::vector<SourceFile>& files() const { return files_; }

 private:
  std::vector<SourceFile> files_;
};

}  // namespace uringc
