// The `calls` pass: user async functions are inlined into the calling task's state machine
// (static storage), so the call graph must be acyclic (RecursiveFunction). Also computes
// FnDecl::has_request: whether calling the fn awaits anything, directly or through callees.
#include <map>

#include "ast/visit.h"
#include "sema/passes.h"

namespace uringc::sema {
namespace {

using namespace ast;

struct FnInfo {
  std::vector<const CallExpr*> calls;  // calls to other fns
  bool direct_request = false;
};

class Calls {
 public:
  Calls(Program& p, DiagnosticList& d) : program_(p), diags_(d) {}

  void Run() {
    for (auto& m : program_.modules) {
      if (!m.ast) continue;
      for (auto& decl : m.ast->decls) {
        auto* f = decl->As<FnDecl>();
        if (!f) continue;
        order_.push_back(f);
        FnInfo& info = info_[f];
        VisitExprs(
            *f->body,
            [&](const Expr& e) {
              auto* c = e.As<CallExpr>();
              if (!c) return;
              if (c->resolved.kind == Resolution::Kind::kRequest) info.direct_request = true;
              if (c->resolved.kind == Resolution::Kind::kFn) info.calls.push_back(c);
            },
            [&](const Stmt& s) {
              if (s.kind == Stmt::Kind::kForEach) info.direct_request = true;
            });
      }
    }
    for (FnDecl* f : order_) Visit(f);
    // has_request: fixpoint over the (acyclic or not) call graph.
    for (FnDecl* f : order_) f->has_request = info_[f].direct_request;
    for (bool changed = true; changed;) {
      changed = false;
      for (FnDecl* f : order_) {
        if (f->has_request) continue;
        for (const CallExpr* c : info_[f].calls) {
          if (c->resolved.fn->has_request) {
            f->has_request = true;
            changed = true;
            break;
          }
        }
      }
    }
  }

 private:
  enum class Color { kWhite, kGrey, kBlack };

  // Iterative DFS: the call graph can be long (generated code), and recursion here would be
  // bounded only by the number of fns.
  void Visit(FnDecl* root) {
    if (color_[root] != Color::kWhite) return;
    struct Frame { FnDecl* fn; size_t next; };
    std::vector<Frame> stack = {{root, 0}};
    color_[root] = Color::kGrey;
    while (!stack.empty()) {
      Frame& top = stack.back();
      const auto& calls = info_[top.fn].calls;
      if (top.next == calls.size()) {
        color_[top.fn] = Color::kBlack;
        stack.pop_back();
        continue;
      }
      const CallExpr* call = calls[top.next++];
      auto* callee = const_cast<FnDecl*>(call->resolved.fn);
      if (color_[callee] == Color::kGrey) {
        Diagnostic& d = diags_.Error(
            DiagKind::kRecursiveFunction, call->range,
            "`" + top.fn->name + "` calls `" + callee->name +
                "` recursively; fns are inlined into a task with static storage, so recursion "
                "is not allowed (use a loop)");
        d.notes.push_back({callee->name_range, "`" + callee->name + "` defined here"});
        continue;
      }
      if (color_[callee] == Color::kWhite) {
        color_[callee] = Color::kGrey;
        stack.push_back({callee, 0});
      }
    }
  }

  Program& program_;
  DiagnosticList& diags_;
  std::vector<FnDecl*> order_;
  std::map<const FnDecl*, FnInfo> info_;
  std::map<const FnDecl*, Color> color_;
};

}  // namespace

void CheckCalls(Program& program, DiagnosticList& diagnostics) {
  Calls(program, diagnostics).Run();
}

}  // namespace uringc::sema
