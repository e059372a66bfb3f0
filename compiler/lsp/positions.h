// LSP positions are a 0-based line and a 0-based character offset counted in UTF-16 code units
// (or in bytes when client and server agree on UTF-8); the compiler counts bytes from the start
// of the file. A LineIndex converts between the two for one document's text.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "uringc/source_file.h"

namespace uringc::lsp {

enum class Encoding { kUtf16, kUtf8 };

struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
};

class LineIndex {
 public:
  /// `text` must outlive the index.
  LineIndex(std::string_view text, Encoding encoding);

  /// The byte offset of `p`; a character past the end of its line maps to the line's end, a
  /// line past the last to the end of the text.
  uint32_t Offset(Position p) const;
  Position PositionOf(uint32_t offset) const;
  /// `{"start": .., "end": ..}` for a byte range.
  nlohmann::json Range(SourceRange r) const;

 private:
  std::string_view text_;
  Encoding encoding_;
  std::vector<uint32_t> line_starts_;
};

/// Reads `{"line": .., "character": ..}`; false when it is not one.
bool ParsePosition(const nlohmann::json& j, Position& p);

}  // namespace uringc::lsp
