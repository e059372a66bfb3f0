// textDocument/documentSymbol (see features.h): one DocumentSymbol per declaration of the root
// module, graphs and fns with their parameters (and a graph's outputs) as children, detail the
// signature. Works on the recovered AST of a file with syntax errors too.
#include "lsp/describe.h"
#include "lsp/features.h"

namespace uringc::lsp {
namespace {

using nlohmann::json;

// LSP's SymbolKind values used here.
enum SymbolKind { kModule = 2, kClass = 5, kField = 8, kFunction = 12, kVariable = 13,
                  kConstant = 14 };

// The selection range must lie inside the range; a recovered node may lack one.
SourceRange Selection(SourceRange name, SourceRange whole) {
  if (name.file == 0 || name.begin < whole.begin || name.end > whole.end) return whole;
  return name;
}

json Symbol(const std::string& name, const std::string& detail, int kind, SourceRange whole,
            SourceRange name_range, const LineIndex& index) {
  return {{"name", name.empty() ? "?" : name},
          {"detail", detail},
          {"kind", kind},
          {"range", index.Range(whole)},
          {"selectionRange", index.Range(Selection(name_range, whole))}};
}

void AddBindings(const std::vector<std::unique_ptr<ast::Binding>>& names,
                 const std::vector<std::unique_ptr<ast::TypeRef>>& types, int kind,
                 const SourceManager& sources, const LineIndex& index, json& children) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i]) continue;
    const std::string type =
        i < types.size() && types[i] ? std::string(TextOf(sources, types[i]->range)) : "";
    children.push_back(
        Symbol(names[i]->name, type, kind, names[i]->range, names[i]->range, index));
  }
}

}  // namespace

json DocumentSymbols(const Document& doc, Encoding encoding) {
  json symbols = json::array();
  if (!doc.analysis || !doc.analysis->root_ast()) return symbols;
  const SourceManager& sources = doc.analysis->semantic().sources;
  const LineIndex index(doc.text, encoding);
  for (const auto& d : doc.analysis->root_ast()->decls) {
    if (!d) continue;
    json children = json::array();
    int kind = kConstant;
    if (auto* f = d->As<ast::FnDecl>()) {
      kind = kFunction;
      AddBindings(f->params, f->param_types, kVariable, sources, index, children);
    } else if (auto* g = d->As<ast::GraphDecl>()) {
      kind = kClass;
      AddBindings(g->params, g->param_types, kVariable, sources, index, children);
      AddBindings(g->outputs, g->output_types, kField, sources, index, children);
    } else if (d->As<ast::ImportDecl>()) {
      kind = kModule;
    }
    json s = Symbol(d->name, DescribeDecl(*d, sources), kind, d->range, d->name_range, index);
    if (!children.empty()) s["children"] = children;
    symbols.push_back(std::move(s));
  }
  return symbols;
}

}  // namespace uringc::lsp
