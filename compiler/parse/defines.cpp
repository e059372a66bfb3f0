// -D NAME=VALUE (see defines.h): each define is parsed with the normal parser as the one-line
// source `const NAME = VALUE`, and the value of that constant replaces the value of the root's.
#include "parse/defines.h"

namespace uringc {
namespace {

ast::ConstDecl* FindTopLevelConst(ast::File& root, const std::string& name) {
  for (auto& decl : root.decls) {
    if (auto* c = decl->As<ast::ConstDecl>(); c != nullptr && c->name == name) return c;
  }
  return nullptr;
}

void ApplyDefine(const Define& define, SourceManager& sources, ast::File& root,
                 DiagnosticList& diagnostics, const ParseOptions& options) {
  const std::string prefix = "const " + define.name + " = ";
  const uint32_t file = sources.Add(kDefineSourceName, prefix + define.value);
  const std::string option = "`-D " + define.name + "=" + define.value + "`";
  ast::ConstDecl* target = FindTopLevelConst(root, define.name);
  if (target == nullptr) {
    const uint32_t name_begin = 6;  // after "const "
    const SourceRange name{file, name_begin, name_begin + uint32_t(define.name.size())};
    diagnostics.Error(DiagKind::kUndefinedName, name,
                      option + ": the program has no top-level `const " + define.name + "`");
    return;
  }
  const size_t errors_before = diagnostics.ErrorCount();
  std::unique_ptr<ast::File> parsed = ParseFile(sources, file, diagnostics, options);
  if (diagnostics.ErrorCount() != errors_before) return;
  // VALUE holding a line break and more declarations parses, but is not one expression.
  if (parsed->decls.size() != 1) {
    const SourceRange rest = parsed->decls[1]->range;
    diagnostics.Error(DiagKind::kSyntaxError, rest,
                      "`-D " + define.name + "`: the value is one expression, not more "
                      "declarations");
    return;
  }
  if (auto* parsed_const = parsed->decls[0]->As<ast::ConstDecl>()) {
    target->value = std::move(parsed_const->value);
  }
}

}  // namespace

void ApplyDefines(const std::vector<Define>& defines, SourceManager& sources, ast::File& root,
                  DiagnosticList& diagnostics, const ParseOptions& options) {
  for (const Define& d : defines) ApplyDefine(d, sources, root, diagnostics, options);
}

}  // namespace uringc
