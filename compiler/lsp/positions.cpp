// See positions.h. UTF-16 units are counted from the UTF-8 lead bytes: a 4-byte sequence is a
// surrogate pair (2 units), every other sequence 1; invalid bytes count as 1 unit each.
#include "lsp/positions.h"

#include <algorithm>

namespace uringc::lsp {
namespace {

// Bytes of the UTF-8 sequence starting with `lead`.
uint32_t SequenceBytes(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

}  // namespace

LineIndex::LineIndex(std::string_view text, Encoding encoding)
    : text_(text), encoding_(encoding) {
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts_.push_back(i + 1);
}

uint32_t LineIndex::Offset(Position p) const {
  if (p.line >= line_starts_.size()) return static_cast<uint32_t>(text_.size());
  const uint32_t start = line_starts_[p.line];
  uint32_t end = p.line + 1 < line_starts_.size() ? line_starts_[p.line + 1] - 1
                                                   : static_cast<uint32_t>(text_.size());
  if (end > start && text_[end - 1] == '\r') --end;
  uint32_t offset = start, units = 0;
  while (offset < end && units < p.character) {
    const uint32_t bytes = std::min(SequenceBytes(text_[offset]), end - offset);
    units += encoding_ == Encoding::kUtf8 ? bytes : (bytes == 4 ? 2 : 1);
    offset += bytes;
  }
  return offset;
}

Position LineIndex::PositionOf(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) - 1;
  Position p{static_cast<uint32_t>(it - line_starts_.begin()), 0};
  for (uint32_t i = *it; i < offset;) {
    const uint32_t bytes = std::min(SequenceBytes(text_[i]), offset - i);
    p.character += encoding_ == Encoding::kUtf8 ? bytes : (bytes == 4 ? 2 : 1);
    i += bytes;
  }
  return p;
}

nlohmann::json LineIndex::Range(SourceRange r) const {
  const Position b = PositionOf(r.begin), e = PositionOf(std::max(r.begin, r.end));
  return {{"start", {{"line", b.line}, {"character", b.character}}},
          {"end", {{"line", e.line}, {"character", e.character}}}};
}

bool ParsePosition(const nlohmann::json& j, Position& p) {
  if (!j.is_object() || !j.contains("line") || !j.contains("character")) return false;
  const auto& line = j["line"];
  const auto& character = j["character"];
  if (!line.is_number_unsigned() || !character.is_number_unsigned()) return false;
  p.line = line.get<uint32_t>();
  p.character = character.get<uint32_t>();
  return true;
}

}  // namespace uringc::lsp
