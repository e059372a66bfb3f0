// textDocument/publishDiagnostics (see features.h). A diagnostic in an imported module is shown
// on the `import` that brings that module in, with the module's own position in the message and
// as related information, since an editor only shows a document's own diagnostics on it.
#include "lsp/features.h"

#include "uringc/diag/diagnostic.h"

namespace uringc::lsp {
namespace {

using nlohmann::json;

int Severity(uringc::Severity s) {
  switch (s) {
    case uringc::Severity::kError: return 1;
    case uringc::Severity::kWarning: return 2;
    case uringc::Severity::kNote: return 3;
  }
  return 1;
}

// The import of the root module that loaded the module of `file`, or nullptr.
const ast::ImportDecl* ImportOf(const Analysis& a, uint32_t file) {
  const auto& modules = a.compilation.program.modules;
  const ast::File* root = a.compilation.program.root().ast.get();
  if (!root) return nullptr;
  for (const auto& d : root->decls) {
    const auto* imp = d ? d->As<ast::ImportDecl>() : nullptr;
    if (imp && imp->module > 0 && imp->module < modules.size() &&
        modules[imp->module].file_id == file)
      return imp;
  }
  return nullptr;
}

}  // namespace

json PublishDiagnostics(const Document& doc, Encoding encoding) {
  json items = json::array();
  const Analysis& a = *doc.analysis;
  const SourceManager& sources = a.compilation.sources;
  const uint32_t root = a.compilation.program.root().file_id;
  const LineIndex index(doc.text, encoding);
  for (const Diagnostic& d : a.compilation.diagnostics.items()) {
    json item = {{"severity", Severity(d.severity)},
                 {"code", std::string(DiagKindName(d.kind))},
                 {"source", "uringc"},
                 {"message", d.message}};
    json related = json::array();
    if (d.range.file == root) {
      item["range"] = index.Range(d.range);
    } else {
      const ast::ImportDecl* imp = ImportOf(a, d.range.file);
      item["range"] = index.Range(imp ? imp->name_range : SourceRange{root, 0, 0});
      if (const SourceFile* f = sources.Get(d.range.file)) {
        const LineCol lc = f->LineColOf(d.range.begin);
        item["message"] = "in " + f->name() + ":" + std::to_string(lc.line) + ":" +
                          std::to_string(lc.column) + ": " + d.message;
        related.push_back({{"location", LocationOf(doc, sources, d.range, encoding)},
                           {"message", d.message}});
      }
    }
    for (const DiagnosticNote& n : d.notes) {
      json loc = LocationOf(doc, sources, n.range, encoding);
      if (!loc.is_null()) related.push_back({{"location", loc}, {"message", n.message}});
    }
    if (!related.empty()) item["relatedInformation"] = related;
    items.push_back(std::move(item));
  }
  return {{"uri", doc.uri}, {"version", doc.version}, {"diagnostics", items}};
}

}  // namespace uringc::lsp
