// textDocument/hover (see features.h): a fenced `uring` block with the binding's type or the
// signature, then the comment written above the declaration (the stdlib documents its fns so).
#include "lsp/describe.h"
#include "lsp/features.h"
#include "lsp/target.h"

namespace uringc::lsp {

nlohmann::json Hover(const Document& doc, Position p, Encoding encoding) {
  if (!doc.analysis) return nullptr;
  const Analysis& a = *doc.analysis;
  const SourceManager& sources = a.semantic().sources;
  const LineIndex index(doc.text, encoding);
  const Target t = FindTarget(a, index.Offset(p));
  std::string code, comment;
  if (t.binding) {
    code = DescribeBinding(*t.binding);
  } else if (t.decl) {
    code = DescribeDecl(*t.decl, sources);
    comment = DocComment(*t.decl, sources);
    if (const SourceFile* f = sources.Get(t.decl->range.file);
        f && t.decl->range.file != a.root().file_id)
      comment = (comment.empty() ? "" : comment + "\n\n") + "from `" + f->name() + "`";
  } else if (t.request >= 0) {
    code = DescribeRequest(t.request);
  } else if (t.builtin_const >= 0) {
    code = DescribeBuiltinConst(t.builtin_const);
  } else if (!t.builtin.empty()) {
    code = DescribeBuiltinCallee(t.builtin);
  } else if (t.type) {
    code = DescribeType(*t.type, sources);
  }
  if (code.empty()) return nullptr;
  std::string markdown = "```uring\n" + code + "\n```";
  if (!comment.empty()) markdown += "\n\n" + comment;
  return {{"contents", {{"kind", "markdown"}, {"value", markdown}}},
          {"range", index.Range(t.range)}};
}

}  // namespace uringc::lsp
