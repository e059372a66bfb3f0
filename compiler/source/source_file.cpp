// Line tables for SourceFile, built once per file so position look-ups are a binary search.
#include "uringc/source_file.h"

#include <algorithm>

namespace uringc {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

LineCol SourceFile::LineColOf(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
  return {line, offset - line_starts_[line - 1] + 1};
}

std::string_view SourceFile::Line(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  const uint32_t begin = line_starts_[line - 1];
  uint32_t end = line < line_starts_.size() ? line_starts_[line] : text_.size();
  while (end > begin && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return std::string_view(text_).substr(begin, end - begin);
}

uint32_t SourceManager::Add(std::string name, std::string text) {
  files_.emplace_back(std::move(name), std::move(text));
  return static_cast<uint32_t>(files_.size());
}

const SourceFile* SourceManager::Get(uint32_t id) const {
  if (id == 0 || id > files_.size()) return nullptr;
  return &files_[id - 1];
}

}  // namespace uringc
