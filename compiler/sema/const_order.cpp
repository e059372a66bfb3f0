// The order in which the `types` pass checks constants (see type_checker.h): each constant after
// those its value names, so checking a constant never has to check another first. The search is
// iterative because generated code can chain thousands of constants (`const A = B + 1`, ...),
// and one C++ frame per link overflowed the stack.
#include "ast/visit.h"
#include "sema/type_checker.h"

namespace uringc::sema::types_internal {

std::vector<ConstDecl*> OrderConstants(Program& program, std::set<const NameExpr*>& cycle_names) {
  // The constants each constant's value names, in source order.
  std::map<const ConstDecl*, std::vector<const NameExpr*>> uses;
  std::vector<ConstDecl*> all;
  for (auto& m : program.modules) {
    if (!m.ast) continue;
    for (auto& decl : m.ast->decls) {
      auto* c = decl->As<ConstDecl>();
      if (!c) continue;
      all.push_back(c);
      auto& u = uses[c];
      VisitExprs(*c->value, [&](const Expr& e) {
        auto* n = e.As<NameExpr>();
        if (n && n->resolved.kind == Resolution::Kind::kConst) u.push_back(n);
      });
    }
  }
  enum class Color : uint8_t { kNew, kOpen, kDone };
  std::map<const ConstDecl*, Color> color;
  std::vector<ConstDecl*> order;
  struct Frame {
    ConstDecl* c;
    size_t next;
  };
  for (ConstDecl* root : all) {
    if (color[root] != Color::kNew) continue;
    std::vector<Frame> stack = {{root, 0}};
    color[root] = Color::kOpen;
    while (!stack.empty()) {
      Frame& top = stack.back();
      const auto& u = uses[top.c];
      if (top.next == u.size()) {
        color[top.c] = Color::kDone;
        order.push_back(top.c);
        stack.pop_back();
        continue;
      }
      const NameExpr* use = u[top.next++];
      auto* dep = const_cast<ConstDecl*>(use->resolved.constant);
      auto it = color.find(dep);
      if (it != color.end() && it->second == Color::kOpen) {
        cycle_names.insert(use);
      } else if (it == color.end() || it->second == Color::kNew) {
        color[dep] = Color::kOpen;
        stack.push_back({dep, 0});
      }
    }
  }
  return order;
}

}  // namespace uringc::sema::types_internal
