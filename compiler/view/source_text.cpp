// Source text for the request view's labels: a request is shown as the user wrote it, a cluster
// by its construct's head, and both with the file and line they come from.
#include "view/passes.h"

namespace uringc::view {

std::string OneLine(const SourceManager& sources, SourceRange r, size_t max) {
  const SourceFile* f = sources.Get(r.file);
  if (f == nullptr || r.end <= r.begin || r.end > f->text().size()) return "";
  std::string out;
  bool space = false;
  for (uint32_t i = r.begin; i < r.end; ++i) {
    const char c = f->text()[i];
    if (c == '/' && i + 1 < r.end && f->text()[i + 1] == '/') {  // a comment: to its line's end
      while (i < r.end && f->text()[i] != '\n') ++i;
      space = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > max) out = out.substr(0, max - 3) + "...";
  return out;
}

std::string Head(const SourceManager& sources, SourceRange r) {
  const SourceFile* f = sources.Get(r.file);
  if (f == nullptr) return "";
  SourceRange head = r;
  const size_t brace = f->text().find('{', r.begin);
  if (brace != std::string::npos && brace < r.end) head.end = static_cast<uint32_t>(brace);
  return OneLine(sources, head);
}

std::string Where(const SourceManager& sources, SourceRange r, uint32_t home) {
  const SourceFile* f = sources.Get(r.file);
  if (f == nullptr) return "";
  const std::string& name = f->name();
  size_t cut = name.find_last_of('/');
  if (r.file != home && cut != std::string::npos && cut > 0) {
    const size_t folder = name.find_last_of('/', cut - 1);
    cut = folder == std::string::npos ? std::string::npos : folder;
  }
  return name.substr(cut == std::string::npos ? 0 : cut + 1) + ":" +
         std::to_string(f->LineColOf(r.begin).line);
}

}  // namespace uringc::view
