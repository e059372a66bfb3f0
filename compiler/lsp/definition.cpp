// textDocument/definition (see features.h): where a binding, const, fn or graph is declared, in
// this document, an imported file or the stdlib; an import goes to the top of its module's file.
// Requests and builtins have no source to go to.
#include "lsp/features.h"
#include "lsp/target.h"
#include "lsp/uri.h"

namespace uringc::lsp {

nlohmann::json LocationOf(const Document& doc, const SourceManager& sources, SourceRange r,
                          Encoding encoding) {
  const SourceFile* f = sources.Get(r.file);
  if (!f) return nullptr;
  const bool own = r.file == doc.analysis->root().file_id;  // 1 in every compilation
  return {{"uri", own ? doc.uri : UriFromPath(f->name())},
          {"range", LineIndex(f->text(), encoding).Range(r)}};
}

nlohmann::json Definition(const Document& doc, Position p, Encoding encoding) {
  if (!doc.analysis) return nullptr;
  const Analysis& a = *doc.analysis;
  const SourceManager& sources = a.semantic().sources;
  const Target t = FindTarget(a, LineIndex(doc.text, encoding).Offset(p));
  if (t.binding) return LocationOf(doc, sources, t.binding->range, encoding);
  if (!t.decl) return nullptr;
  if (const auto* imp = t.decl->As<ast::ImportDecl>()) {
    const auto& modules = a.semantic().program.modules;
    if (imp->module == 0 || imp->module >= modules.size()) return nullptr;
    return LocationOf(doc, sources, SourceRange{modules[imp->module].file_id, 0, 0}, encoding);
  }
  return LocationOf(doc, sources, t.decl->name_range, encoding);
}

}  // namespace uringc::lsp
