// See repair.h.
#include "lsp/repair.h"

#include <string_view>
#include <vector>

#include "uringc/diag/diagnostic.h"

namespace uringc::lsp {
namespace {

bool StartsDecl(std::string_view line) {
  for (std::string_view kw : {"graph", "fn", "const", "import"}) {
    if (line.substr(0, kw.size()) == kw &&
        (line.size() == kw.size() || line[kw.size()] == ' ' || line[kw.size()] == '\t'))
      return true;
  }
  return false;
}

// Everything but line breaks in [begin, end) of `text` becomes a space.
void Blank(std::string& text, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i)
    if (text[i] != '\n' && text[i] != '\r') text[i] = ' ';
}

bool ParsesAlone(const std::string& text, size_t begin, size_t end,
                 const ParseOptions& options) {
  std::string alone = text;
  Blank(alone, 0, begin);
  Blank(alone, end, alone.size());
  SourceManager sources;
  const uint32_t id = sources.Add("decl", std::move(alone));
  DiagnosticList diagnostics;
  auto file = ParseFile(sources, id, diagnostics, options);
  return !diagnostics.HasErrors() && file && !file->decls.empty();
}

}  // namespace

std::string BlankBrokenDecls(const std::string& text, const ParseOptions& options,
                             size_t max_bytes) {
  std::vector<size_t> starts;
  for (size_t at = 0; at < text.size();) {
    const size_t eol = std::min(text.find('\n', at), text.size());
    if (StartsDecl(std::string_view(text).substr(at, eol - at))) starts.push_back(at);
    at = eol + 1;
  }
  if (starts.empty() || starts.size() * text.size() > max_bytes) return "";
  starts.push_back(text.size());
  std::string repaired = text;
  bool any_kept = false;
  for (size_t i = 0; i + 1 < starts.size(); ++i) {
    if (ParsesAlone(text, starts[i], starts[i + 1], options)) {
      any_kept = true;
    } else {
      Blank(repaired, starts[i], starts[i + 1]);
    }
  }
  return any_kept ? repaired : "";
}

}  // namespace uringc::lsp
