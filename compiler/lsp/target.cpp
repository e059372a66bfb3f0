// See target.h.
#include "lsp/target.h"

#include "sema/requests.h"

namespace uringc::lsp {
namespace {

using Kind = ast::Resolution::Kind;

// A const or fn called `name` in the root module or one it imports.
const ast::Decl* FindDecl(const Analysis& a, const std::string& name) {
  for (const sema::Module& m : a.semantic().program.modules) {
    if (!m.ast) continue;
    for (const auto& d : m.ast->decls)
      if (d && d->name == name && (d->As<ast::FnDecl>() || d->As<ast::ConstDecl>()))
        return d.get();
  }
  return nullptr;
}

// By name, when sema did not resolve it (the file did not get that far).
void ByName(const Analysis& a, const std::string& name, bool callee, Target& t) {
  if (const ast::Decl* d = FindDecl(a, name)) {
    t.decl = d;
  } else if (const sema::RequestSignature* r = callee ? sema::FindRequest(name) : nullptr) {
    t.request = static_cast<int>(r->kind);
  } else if (callee && (sema::FindBuiltinFn(name) || sema::TypeByName(name) ||
                        name == "recv_each")) {
    t.builtin = name;
  } else if (int index = -1; !callee && sema::FindBuiltinConst(name, &index)) {
    t.builtin_const = index;
  }
}

void FromResolution(const Analysis& a, const ast::Resolution& r, const std::string& name,
                    bool callee, Target& t) {
  switch (r.kind) {
    case Kind::kUnresolved: ByName(a, name, callee, t); break;
    case Kind::kBinding: t.binding = r.binding; break;
    case Kind::kConst: t.decl = r.constant; break;
    case Kind::kBuiltinConst: t.builtin_const = r.builtin_id; break;
    case Kind::kFn: t.decl = r.fn; break;
    case Kind::kRequest: t.request = r.builtin_id; break;
    case Kind::kBuiltinFn:
    case Kind::kTypeCast: t.builtin = name; break;
  }
}

}  // namespace

Target FindTarget(const Analysis& a, uint32_t offset) {
  Target t;
  if (!a.root_ast()) return t;
  const ast::Located at = ast::Locate(*a.root_ast(), offset);
  t.range = at.range;
  switch (at.kind) {
    case ast::Located::Kind::kNone: break;
    case ast::Located::Kind::kBinding: t.binding = at.binding; break;
    case ast::Located::Kind::kDecl: t.decl = at.decl; break;
    case ast::Located::Kind::kType: t.type = at.type; break;
    case ast::Located::Kind::kName:
      FromResolution(a, at.name->resolved, at.name->name, /*callee=*/false, t);
      break;
    case ast::Located::Kind::kCallee:
      FromResolution(a, at.call->resolved, at.call->callee, /*callee=*/true, t);
      break;
  }
  return t;
}

}  // namespace uringc::lsp
