// The builder's state machine shared by build.cpp (graphs, tasks, statements) and build_expr.cpp
// (expressions, calls, `?`). Internal to build/.
//
// Construction works on "pending exits": (node, slot) pairs whose successor is the next node to
// be emitted. Emit() links every pending exit to the new node. Branching constructs save and
// merge pending lists; dead ends (raise, exit, stop, break) leave none.
#pragma once

#include <functional>
#include <map>

#include "ast/ast.h"
#include "uringc/diag/diagnostic.h"
#include "rgir/rgir.h"

namespace uringc::build::internal {

// The builder speaks rgir throughout (Graph, Node, Expr, VarId ...).
using namespace ::uringc::rgir;

struct TooLarge {};  // thrown when the node budget is exceeded; caught in BuildRgir
/// Thrown when statements and expressions nest deeper than kMaxNesting once fns are inlined
/// (each inlined body nests inside its call); caught in BuildRgir. `at` is where it went past,
/// `outer` the outermost fn call being inlined there.
struct TooDeep {
  SourceRange at;
  SourceRange outer;
};

/// Statements plus expressions open at once while building (a C++ frame or more each). A chain
/// of 4,000 fns each calling the next overflowed an 8 MiB stack; one fn body nests at most a few
/// hundred deep (the parser's limits), so this leaves room for a chain of several hundred fns.
inline constexpr uint32_t kMaxNesting = 1000;

struct Exit {
  NodeId node;
  bool alt;
};

class Builder {
 public:
  Builder(Graph& g, uint32_t max_nodes) : g_(g), max_nodes_(max_nodes) {}
  void BuildGraph(const ast::GraphDecl& decl);

 private:
  // ----- nodes -----
  NodeId NewNode(Node::Kind kind, SourceRange range);
  NodeId Emit(Node::Kind kind, SourceRange range);  // links pending exits, becomes the only one
  void Link(const std::vector<Exit>& exits, NodeId to);
  VarId NewVar(std::string name, Type type, Var::Kind kind, SourceRange range);
  bool Dead() const { return pending_.empty(); }

  // ----- statements (build.cpp) -----
  void Block(const ast::Block& b);
  void Stmt(const ast::Stmt& s);
  void StmtInner(const ast::Stmt& s);
  void Loop(const ast::Stmt& s, const ast::Block& body, const ast::Expr* cond,
            const std::function<void()>& init, const std::function<void()>& step);
  void ForEach(const ast::ForEachStmt& s);
  NodeId StreamWait(ScopeId sc, VarId status, const ast::CallExpr& src);
  void Parallel(const ast::ParallelStmt& s);
  void All(const ast::AllStmt& s);
  void Any(const ast::AnyStmt& s);
  void Try(const ast::TryStmt& s);
  void Jump(const ast::JumpStmt& s);
  void RaiseErrno(Expr errno_value, SourceRange range);
  /// `body` under a deadline scope. A block's expiry runs ACTION (default `fail ETIME`); a fn
  /// call's (`call_result` set) gives the call the value -ETIME first, and ACTION is optional.
  void Deadlined(const ast::Within& w, SourceRange range, const std::function<void()>& body,
                 VarId call_result = kNone);
  NodeId Latch(SourceRange range);
  /// Adds scope `d` (its parent and task filled in), emits its kDeadlineStart and opens it.
  ScopeId OpenScope(Deadline d, SourceRange range);
  /// `v = v + by` (`v - |by|` for a negative `by`), at `range`.
  void Increment(VarId v, SourceRange range, int by = 1);
  void CloseScopes(size_t depth, SourceRange range);
  TaskId NewTask(Task::Kind kind, std::string name, SourceRange range);
  void JoinAfterFork(NodeId fork, SourceRange range);

  // ----- expressions (build_expr.cpp) -----
  Expr Value(const ast::Expr& e);
  Expr Call(const ast::CallExpr& c);
  Expr Request(const ast::CallExpr& c, VarId into);
  Expr InlineFn(const ast::CallExpr& c, VarId into);
  Expr Propagate(const ast::PropagateExpr& p);
  // `a && b` / `a || b` whose `b` awaits or indexes a buffer: `b` is built on the branch where
  // it is evaluated, into a bool temporary, so neither its requests nor its index check run
  // when `a` decides the result.
  Expr ShortCircuit(const ast::BinaryExpr& x);
  /// A buffer index sema could not prove below `count`: checked before use, EFAULT raised where
  /// it is not (see build_expr.cpp). Returns the index to use.
  Expr CheckedIndex(Expr index, uint32_t count, SourceRange range);
  /// `value` in a temporary (unless it is a constant, a parameter or a literal), to be read twice.
  Expr Once(Expr value, const char* name, SourceRange range);
  /// get_T, put_T, copy_bytes, equal_bytes (docs/language.md, "Data in buffers").
  Expr DataBuiltin(const ast::CallExpr& c);
  VarId VarOf(const ast::Binding& b);
  VarId Declare(const ast::Binding& b, Var::Kind kind = Var::Kind::kLocal);

  /// Counts one level of nesting for its lifetime; throws TooDeep past kMaxNesting.
  class Nest {
   public:
    Nest(Builder& l, SourceRange at) : l_(l) {
      if (++l_.nesting_ > kMaxNesting) {
        --l_.nesting_;
        throw TooDeep{at, l_.inline_calls_.empty() ? at : l_.inline_calls_.front()};
      }
    }
    ~Nest() { --l_.nesting_; }
   private:
    Builder& l_;
  };

  // ----- context -----
  struct LoopCtx {
    NodeId latch = kNone;  // created on first use: continue and the end of the body go here
    std::vector<Exit> breaks;
    size_t scope_depth;  // deadline scopes open when the loop began
  };
  struct TryCtx {
    NodeId handler = kNone;  // created by the first raise that reaches it
    VarId error_var;
    size_t scope_depth;
  };
  struct FnCtx {
    VarId result;
    std::vector<Exit> returns;
    TaskId task;         // the task the fn was inlined into
    size_t try_depth;    // task_.tries size at entry: raises below this leave the fn
    size_t scope_depth;
    std::map<const ast::Binding*, VarId> vars;
  };
  struct TaskCtx {
    TaskId task;
    std::vector<LoopCtx> loops;
    std::vector<TryCtx> tries;
    std::vector<ScopeId> scopes;
  };

  Graph& g_;
  uint32_t max_nodes_;
  std::vector<Exit> pending_;
  TaskCtx task_;
  std::vector<FnCtx> fns_;  // fns_[0]: the graph body
  std::vector<Expr> default_errno_;  // what a bare `fail` raises
  std::map<const ast::Binding*, ParamId> params_;
  std::function<Expr()> loop_cond_;  // a counted loop's condition, consumed by Loop()
  uint32_t nesting_ = 0;                   // see Nest
  std::vector<SourceRange> inline_calls_;  // the fn calls being inlined, outermost first
  std::vector<uint32_t> call_ids_;         // their indices in Graph::calls, outermost first
};

}  // namespace uringc::build::internal
