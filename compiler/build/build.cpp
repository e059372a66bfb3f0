// Building rgir, graphs and statements (see build.h and builder.h). Each construct becomes the nodes
// listed in rgir.h: loops are a kNop head with a back edge from a latch, `parallel`/`all`/`any`
// are kFork + child tasks + kJoin/kRace, `try` routes kRaise nodes to its handler, and a block
// `within` brackets the block with kDeadlineStart/kDeadlineEnd.
#include "build/build.h"

#include "rgir/budget.h"
#include "build/builder.h"

namespace uringc::build {
namespace internal {
namespace {

constexpr int64_t kEtime = 62, kEio = 5;

Expr Errno(int64_t e) { return Expr::Const(Type::Int(32, true), static_cast<uint64_t>(e)); }

}  // namespace

NodeId Builder::NewNode(Node::Kind kind, SourceRange range) {
  if (g_.nodes.size() >= max_nodes_) throw TooLarge{};
  Node n;
  n.kind = kind;
  n.task = task_.task;
  n.deadline = task_.scopes.empty() ? kNone : task_.scopes.back();
  n.call = call_ids_.empty() ? kNone : call_ids_.back();
  n.range = range;
  g_.nodes.push_back(std::move(n));
  return static_cast<NodeId>(g_.nodes.size() - 1);
}

void Builder::Link(const std::vector<Exit>& exits, NodeId to) {
  for (const Exit& e : exits) (e.alt ? g_.nodes[e.node].alt : g_.nodes[e.node].next) = to;
}

NodeId Builder::Emit(Node::Kind kind, SourceRange range) {
  NodeId n = NewNode(kind, range);
  Link(pending_, n);
  pending_ = {{n, false}};
  return n;
}

VarId Builder::NewVar(std::string name, Type type, Var::Kind kind, SourceRange range) {
  if (type.kind == Type::Kind::kIntLit) type = Type::Int(64, type.is_signed);
  g_.vars.push_back({std::move(name), type, kind, task_.task, range});
  return static_cast<VarId>(g_.vars.size() - 1);
}

TaskId Builder::NewTask(Task::Kind kind, std::string name, SourceRange range) {
  Task t;
  t.kind = kind;
  t.name = std::move(name);
  t.parent = g_.tasks.empty() ? kNone : task_.task;
  t.range = range;
  g_.tasks.push_back(std::move(t));
  return static_cast<TaskId>(g_.tasks.size() - 1);
}

void Builder::BuildGraph(const ast::GraphDecl& decl) {
  g_.name = decl.name;
  g_.range = decl.range;
  for (auto& p : decl.params) {
    params_[p.get()] = static_cast<ParamId>(g_.params.size());
    g_.params.push_back({p->name, p->type, p->range});
  }
  task_ = {NewTask(Task::Kind::kRoot, "main", decl.range), {}, {}, {}};
  fns_.push_back({kNone, {}, 0, 0, 0, {}});
  for (auto& o : decl.outputs) Declare(*o, Var::Kind::kOutput);
  g_.tasks[0].entry = Emit(Node::Kind::kEntry, decl.range);
  default_errno_.push_back(Errno(kEio));
  Block(*decl.body);
  if (!Dead()) Emit(Node::Kind::kExit, {decl.range.file, decl.range.end, decl.range.end});
  ComputeEdges(g_);
}

void Builder::Block(const ast::Block& b) {
  for (auto& s : b.stmts) {
    if (Dead()) return;
    Stmt(*s);
  }
}

ScopeId Builder::OpenScope(Deadline d, SourceRange range) {
  const ScopeId sc = static_cast<ScopeId>(g_.deadlines.size());
  d.parent = task_.scopes.empty() ? kNone : task_.scopes.back();
  d.task = task_.task;
  g_.deadlines.push_back(std::move(d));
  const NodeId start = Emit(Node::Kind::kDeadlineStart, range);
  g_.nodes[start].scope = sc;
  g_.deadlines[sc].start = start;
  task_.scopes.push_back(sc);
  return sc;
}

void Builder::Deadlined(const ast::Within& w, SourceRange range,
                        const std::function<void()>& body, VarId call_result) {
  Deadline d;
  d.duration = Value(*w.duration);
  d.range = w.range;
  const ScopeId sc = OpenScope(std::move(d), range);
  body();
  task_.scopes.pop_back();
  if (!Dead()) g_.nodes[Emit(Node::Kind::kDeadlineEnd, w.range)].scope = sc;
  std::vector<Exit> after = pending_;
  pending_.clear();
  g_.deadlines[sc].on_expire = Emit(Node::Kind::kNop, w.range);
  default_errno_.push_back(Errno(kEtime));
  if (call_result != kNone) {
    // A fn call's `within`, like a request's: the call's value is -ETIME, then ACTION (if any)
    // runs, and without one the caller goes on with that value.
    const NodeId a = Emit(Node::Kind::kAssign, w.range);
    g_.nodes[a].var = call_result;
    g_.nodes[a].value = Expr::Const(g_.vars[call_result].type, static_cast<uint64_t>(-kEtime));
    if (w.action) Stmt(*w.action);
  } else if (w.action) {
    Stmt(*w.action);
  } else {
    RaiseErrno(Errno(kEtime), w.range);
  }
  default_errno_.pop_back();
  pending_.insert(pending_.end(), after.begin(), after.end());
}

void Builder::Stmt(const ast::Stmt& s) {
  if (Dead()) return;
  Nest nest(*this, s.range);
  if (s.within) {
    Deadlined(*s.within, s.range, [&] { StmtInner(s); });
  } else {
    StmtInner(s);
  }
}

void Builder::StmtInner(const ast::Stmt& s) {
  using K = ast::Stmt::Kind;
  switch (s.kind) {
    case K::kDecl: {
      auto& x = *s.As<ast::DeclStmt>();
      const VarId v = Declare(*x.binding);
      if (!x.init) break;
      auto* call = x.init->As<ast::CallExpr>();
      if (call && call->IsAwait()) {
        if (call->resolved.kind == ast::Resolution::Kind::kRequest) Request(*call, v);
        else InlineFn(*call, v);
        break;
      }
      Expr val = Value(*x.init);
      const NodeId n = Emit(Node::Kind::kAssign, s.range);
      g_.nodes[n].var = v;
      g_.nodes[n].value = std::move(val);
      break;
    }
    case K::kAssign: {
      auto& x = *s.As<ast::AssignStmt>();
      const VarId v = VarOf(*x.target->As<ast::NameExpr>()->resolved.binding);
      Expr val = Value(*x.value);
      if (x.compound_op) {
        Expr bin;
        bin.op = Expr::Op::kBinary;
        bin.binary_op = *x.compound_op;
        bin.type = g_.vars[v].type;
        bin.range = s.range;
        bin.operands = {Expr::Var(g_.vars[v].type, v), std::move(val)};
        val = std::move(bin);
      }
      const NodeId n = Emit(Node::Kind::kAssign, s.range);
      g_.nodes[n].var = v;
      g_.nodes[n].value = std::move(val);
      break;
    }
    case K::kExpr: {
      auto& e = *s.As<ast::ExprStmt>()->expr;
      auto* call = e.As<ast::CallExpr>();
      if (call && call->resolved.kind == ast::Resolution::Kind::kRequest) {
        Request(*call, kNone);
      } else {
        Value(e);
      }
      break;
    }
    case K::kIf: {
      auto& x = *s.As<ast::IfStmt>();
      Expr cond = Value(*x.cond);
      const NodeId br = Emit(Node::Kind::kBranch, x.cond->range);
      g_.nodes[br].value = std::move(cond);
      Block(*x.then_block);
      std::vector<Exit> then_exits = pending_;
      pending_ = {{br, true}};
      if (x.else_stmt) Stmt(*x.else_stmt);
      pending_.insert(pending_.end(), then_exits.begin(), then_exits.end());
      break;
    }
    case K::kBlock: Block(*s.As<ast::Block>()); break;
    case K::kWhile: {
      auto& x = *s.As<ast::WhileStmt>();
      Loop(s, *x.body, x.cond.get(), nullptr, nullptr);
      break;
    }
    case K::kLoop: Loop(s, *s.As<ast::LoopStmt>()->body, nullptr, nullptr, nullptr); break;
    case K::kRepeat: {
      // A countdown: one variable, and each turn reads it once for the test and once for the
      // decrement (a counter beside a limit would read both for every test).
      auto& x = *s.As<ast::RepeatStmt>();
      const Type u64 = Type::Int(64, false);
      VarId left = NewVar("repeat.left", u64, Var::Kind::kTemp, s.range);
      loop_cond_ = [=, this] {
        Expr c;
        c.op = Expr::Op::kBinary;
        c.binary_op = BinaryOp::kNe;
        c.type = Type::Bool();
        c.operands = {Expr::Var(u64, left), Expr::Const(u64, 0)};
        return c;
      };
      Loop(s, *x.body, nullptr,
           [&] {
             Expr n = Value(*x.count);
             Expr cast;
             cast.op = Expr::Op::kCast;
             cast.type = u64;
             cast.operands = {std::move(n)};
             NodeId a = Emit(Node::Kind::kAssign, x.count->range);
             g_.nodes[a].var = left;
             g_.nodes[a].value = std::move(cast);
           },
           [&] { Increment(left, s.range, /*by=*/-1); });
      break;
    }
    case K::kFor: {
      auto& x = *s.As<ast::ForStmt>();
      const VarId v = Declare(*x.var);
      const Type t = g_.vars[v].type;
      VarId limit = NewVar("for.end", t, Var::Kind::kTemp, x.hi->range);
      loop_cond_ = [=] {
        Expr c;
        c.op = Expr::Op::kBinary;
        c.binary_op = BinaryOp::kLt;
        c.type = Type::Bool();
        c.operands = {Expr::Var(t, v), Expr::Var(t, limit)};
        return c;
      };
      Loop(s, *x.body, nullptr,
           [&] {
             Expr lo = Value(*x.lo);
             Expr hi = Value(*x.hi);
             NodeId a = Emit(Node::Kind::kAssign, x.lo->range);
             g_.nodes[a].var = v;
             g_.nodes[a].value = std::move(lo);
             a = Emit(Node::Kind::kAssign, x.hi->range);
             g_.nodes[a].var = limit;
             g_.nodes[a].value = std::move(hi);
           },
           [&] { Increment(v, s.range); });
      break;
    }
    case K::kForEach: ForEach(*s.As<ast::ForEachStmt>()); break;
    case K::kParallel: Parallel(*s.As<ast::ParallelStmt>()); break;
    case K::kAll: All(*s.As<ast::AllStmt>()); break;
    case K::kAny: Any(*s.As<ast::AnyStmt>()); break;
    case K::kTry: Try(*s.As<ast::TryStmt>()); break;
    case K::kJump: Jump(*s.As<ast::JumpStmt>()); break;
  }
}

void Builder::Increment(VarId v, SourceRange range, int by) {
  const Type t = g_.vars[v].type;
  Expr inc;
  inc.op = Expr::Op::kBinary;
  inc.binary_op = by < 0 ? BinaryOp::kSub : BinaryOp::kAdd;
  inc.type = t;
  inc.operands = {Expr::Var(t, v), Expr::Const(t, by < 0 ? -static_cast<uint64_t>(by) : by)};
  const NodeId a = Emit(Node::Kind::kAssign, range);
  g_.nodes[a].var = v;
  g_.nodes[a].value = std::move(inc);
}

NodeId Builder::Latch(SourceRange range) {
  LoopCtx& l = task_.loops.back();
  if (l.latch == kNone) {
    l.latch = NewNode(Node::Kind::kNop, range);
    g_.nodes[l.latch].deadline = l.scope_depth == 0 ? kNone : task_.scopes[l.scope_depth - 1];
  }
  return l.latch;
}

void Builder::Loop(const ast::Stmt& s, const ast::Block& body, const ast::Expr* cond,
                   const std::function<void()>& init, const std::function<void()>& step) {
  std::function<Expr()> counted = std::move(loop_cond_);
  loop_cond_ = nullptr;
  if (init) init();
  const NodeId head = Emit(Node::Kind::kNop, s.range);
  std::vector<Exit> exits;
  if (cond || counted) {
    Expr c = cond ? Value(*cond) : counted();
    const NodeId br = Emit(Node::Kind::kBranch, cond ? cond->range : s.range);
    g_.nodes[br].value = std::move(c);
    exits.push_back({br, true});
  }
  task_.loops.push_back({kNone, {}, task_.scopes.size()});
  Block(body);
  if (!Dead()) Link(pending_, Latch(body.range));
  LoopCtx ctx = std::move(task_.loops.back());
  task_.loops.pop_back();
  if (ctx.latch != kNone) {
    pending_ = {{ctx.latch, false}};
    if (step) step();
    Link(pending_, head);
  }
  pending_ = std::move(exits);
  pending_.insert(pending_.end(), ctx.breaks.begin(), ctx.breaks.end());
}

// A stream scope around a loop: start (arm the multishot recv), then per chunk: release the
// previous chunk, wait, and on status 1 run the body; 2 (re-armed) waits again, 0 (the peer
// closed) leaves the loop, a negative status raises its errno. `break`, a raise and the loop's
// end all close the scope (kDeadlineEnd: cancel the recv, give back the chunks it holds);
// `continue` goes to the release.
void Builder::ForEach(const ast::ForEachStmt& s) {
  const ast::CallExpr& src = *s.source;
  Deadline d;
  d.kind = Deadline::Kind::kStream;
  d.socket = Value(*src.args[0]);
  d.pool = params_.at(src.args[1]->As<ast::NameExpr>()->resolved.binding);
  d.chunk = Declare(*s.var);
  d.range = src.range;
  const ScopeId sc = OpenScope(std::move(d), src.range);

  const Type i32 = Type::Int(32, true);
  const VarId status = NewVar("recv_each.status", i32, Var::Kind::kTemp, src.range);
  auto status_is = [&](BinaryOp op, int64_t v) {
    Expr c;
    c.op = Expr::Op::kBinary;
    c.binary_op = op;
    c.type = Type::Bool();
    c.operands = {Expr::Var(i32, status), Expr::Const(i32, static_cast<uint64_t>(v))};
    return c;
  };
  task_.loops.push_back({kNone, {}, task_.scopes.size()});
  const NodeId head = Emit(Node::Kind::kStreamRelease, s.range);
  g_.nodes[head].scope = sc;
  const NodeId wait = StreamWait(sc, status, src);
  const NodeId got = Emit(Node::Kind::kBranch, src.range);
  g_.nodes[got].value = status_is(BinaryOp::kEq, 1);
  Block(*s.body);
  if (!Dead()) Link(pending_, Latch(s.body->range));
  LoopCtx ctx = std::move(task_.loops.back());
  task_.loops.pop_back();
  if (ctx.latch != kNone) g_.nodes[ctx.latch].next = head;

  pending_ = {{got, true}};
  const NodeId again = Emit(Node::Kind::kBranch, src.range);
  g_.nodes[again].value = status_is(BinaryOp::kEq, 2);
  g_.nodes[again].next = wait;
  pending_ = {{again, true}};
  const NodeId eof = Emit(Node::Kind::kBranch, src.range);
  g_.nodes[eof].value = status_is(BinaryOp::kEq, 0);
  pending_ = {{eof, true}};
  Expr err;
  err.op = Expr::Op::kUnary;
  err.unary_op = UnaryOp::kNeg;
  err.type = i32;
  err.operands = {Expr::Var(i32, status)};
  RaiseErrno(std::move(err), src.range);

  pending_ = {{eof, false}};
  pending_.insert(pending_.end(), ctx.breaks.begin(), ctx.breaks.end());
  task_.scopes.pop_back();
  g_.nodes[Emit(Node::Kind::kDeadlineEnd, s.range)].scope = sc;
}

// The wait for stream `sc`'s next completion; with `recv_each(...) within D else ACTION`, under a
// deadline of its own (armed while it waits: the time allowed between chunks). On expiry ACTION
// runs (default: raise ETIME); an ACTION that completes waits again. Returns the first node.
NodeId Builder::StreamWait(ScopeId sc, VarId status, const ast::CallExpr& src) {
  auto wait = [&] {
    const NodeId w = Emit(Node::Kind::kStreamWait, src.range);
    g_.nodes[w].scope = sc;
    g_.nodes[w].var = status;
    return w;
  };
  if (!src.within) return wait();
  const ast::Within& w = *src.within;
  Deadline d;
  d.duration = Value(*w.duration);
  d.range = w.range;
  const ScopeId ds = OpenScope(std::move(d), w.range);  // inside the stream's scope
  const NodeId start = g_.deadlines[ds].start;
  wait();
  task_.scopes.pop_back();
  g_.nodes[Emit(Node::Kind::kDeadlineEnd, w.range)].scope = ds;
  std::vector<Exit> after = pending_;
  pending_.clear();
  g_.deadlines[ds].on_expire = Emit(Node::Kind::kNop, w.range);
  default_errno_.push_back(Errno(kEtime));
  if (w.action) {
    Stmt(*w.action);
  } else {
    RaiseErrno(Errno(kEtime), w.range);
  }
  default_errno_.pop_back();
  Link(pending_, start);
  pending_ = std::move(after);
  return start;
}

void Builder::JoinAfterFork(NodeId fork, SourceRange range) {
  pending_ = {{fork, false}};
  const NodeId join = Emit(Node::Kind::kJoin, range);
  g_.nodes[join].fork = fork;
  const VarId err = NewVar("join.errno", Type::Int(32, true), Var::Kind::kTemp, range);
  g_.nodes[join].var = err;
  pending_ = {{join, true}};
  RaiseErrno(Expr::Var(Type::Int(32, true), err), range);
  pending_ = {{join, false}};
}

void Builder::Parallel(const ast::ParallelStmt& s) {
  const NodeId fork = Emit(Node::Kind::kFork, s.range);
  const TaskId child = NewTask(Task::Kind::kParallel,
                               "parallel", s.range);
  TaskCtx saved = std::move(task_);
  std::vector<Exit> saved_pending = std::move(pending_);
  task_ = {child, {}, {}, {}};
  pending_.clear();
  Task& t = g_.tasks[child];
  t.fork = fork;
  t.instances = static_cast<uint32_t>(s.hi->constant->AsSigned() - s.lo->constant->AsSigned());
  t.index_base = s.lo->constant->AsSigned();
  const VarId index = Declare(*s.var);
  g_.tasks[child].index_var = index;
  g_.tasks[child].entry = Emit(Node::Kind::kEntry, s.range);
  Block(*s.body);
  if (!Dead()) Emit(Node::Kind::kExit, s.body->range);
  task_ = std::move(saved);
  pending_ = std::move(saved_pending);
  g_.nodes[fork].tasks = {child};
  JoinAfterFork(fork, s.range);
}

void Builder::All(const ast::AllStmt& s) {
  const NodeId fork = Emit(Node::Kind::kFork, s.range);
  TaskCtx saved = std::move(task_);
  std::vector<Exit> saved_pending = std::move(pending_);
  std::vector<TaskId> children;
  for (size_t i = 0; i < s.body->stmts.size(); ++i) {
    const ast::Stmt& branch = *s.body->stmts[i];
    task_.task = saved.task;  // NewTask takes the parent from task_
    const TaskId child = NewTask(Task::Kind::kBranch, "all." + std::to_string(i), branch.range);
    task_ = {child, {}, {}, {}};
    pending_.clear();
    g_.tasks[child].fork = fork;
    g_.tasks[child].entry = Emit(Node::Kind::kEntry, branch.range);
    Stmt(branch);
    if (!Dead()) Emit(Node::Kind::kExit, branch.range);
    children.push_back(child);
  }
  task_ = std::move(saved);
  pending_ = std::move(saved_pending);
  g_.nodes[fork].tasks = children;
  JoinAfterFork(fork, s.range);
}

void Builder::Any(const ast::AnyStmt& s) {
  const NodeId fork = Emit(Node::Kind::kFork, s.range);
  TaskCtx saved = std::move(task_);
  std::vector<Exit> saved_pending = std::move(pending_);
  std::vector<TaskId> children;
  std::vector<VarId> results;
  for (size_t i = 0; i < s.arms.size(); ++i) {
    const ast::AnyArm& arm = *s.arms[i];
    task_.task = saved.task;
    // The result lives in the parent: the parent reads it after the race.
    const VarId result = NewVar("any." + std::to_string(i) + ".result", arm.call->type,
                                Var::Kind::kTemp, arm.call->range);
    const TaskId child = NewTask(Task::Kind::kArm, "any." + std::to_string(i), arm.range);
    task_ = {child, {}, {}, {}};
    pending_.clear();
    g_.tasks[child].fork = fork;
    g_.tasks[child].result_var = result;
    g_.tasks[child].entry = Emit(Node::Kind::kEntry, arm.range);
    if (arm.call->resolved.kind == ast::Resolution::Kind::kRequest) {
      Request(*arm.call, result);
    } else {
      InlineFn(*arm.call, result);
    }
    if (!Dead()) Emit(Node::Kind::kExit, arm.call->range);
    children.push_back(child);
    results.push_back(result);
  }
  task_ = std::move(saved);
  pending_ = std::move(saved_pending);
  g_.nodes[fork].tasks = children;
  pending_ = {{fork, false}};
  const NodeId race = Emit(Node::Kind::kRace, s.range);
  g_.nodes[race].fork = fork;
  // A failing arm ends the race like a winner would (the other arms are cancelled), and its
  // errno is raised at the `any`, as a failed branch's is at an `all`.
  const VarId err = NewVar("race.errno", Type::Int(32, true), Var::Kind::kTemp, s.range);
  g_.nodes[race].var = err;
  pending_ = {{race, true}};
  RaiseErrno(Expr::Var(Type::Int(32, true), err), s.range);
  std::vector<Exit> exits;
  for (size_t i = 0; i < s.arms.size(); ++i) {
    const ast::AnyArm& arm = *s.arms[i];
    pending_.clear();
    const NodeId start = Emit(Node::Kind::kNop, arm.range);
    g_.nodes[race].arms.push_back(start);
    if (arm.binding) {
      const VarId v = Declare(*arm.binding);
      const NodeId a = Emit(Node::Kind::kAssign, arm.binding->range);
      g_.nodes[a].var = v;
      g_.nodes[a].value = Expr::Var(g_.vars[results[i]].type, results[i]);
    }
    Block(*arm.body);
    exits.insert(exits.end(), pending_.begin(), pending_.end());
  }
  pending_ = std::move(exits);
}

void Builder::Try(const ast::TryStmt& s) {
  const VarId err = Declare(*s.error);
  task_.tries.push_back({kNone, err, task_.scopes.size()});
  Block(*s.body);
  const TryCtx ctx = task_.tries.back();
  task_.tries.pop_back();
  if (ctx.handler == kNone) return;  // nothing can raise: the handler is dead code
  std::vector<Exit> after = std::move(pending_);
  pending_ = {{ctx.handler, false}};
  default_errno_.push_back(Expr::Var(Type::Int(32, true), err));
  Block(*s.handler);
  default_errno_.pop_back();
  pending_.insert(pending_.end(), after.begin(), after.end());
}

void Builder::CloseScopes(size_t depth, SourceRange range) {
  for (size_t i = task_.scopes.size(); i > depth; --i) {
    const NodeId n = Emit(Node::Kind::kDeadlineEnd, range);
    g_.nodes[n].scope = task_.scopes[i - 1];
  }
}

void Builder::RaiseErrno(Expr errno_value, SourceRange range) {
  FnCtx& fn = fns_.back();
  const bool fn_here = fns_.size() > 1 && fn.task == task_.task;
  if (!task_.tries.empty() && (!fn_here || task_.tries.size() > fn.try_depth)) {
    TryCtx& t = task_.tries.back();
    CloseScopes(t.scope_depth, range);
    const NodeId r = Emit(Node::Kind::kRaise, range);
    g_.nodes[r].value = std::move(errno_value);
    g_.nodes[r].var = t.error_var;
    if (t.handler == kNone) {
      // The handler's first node sits outside the scopes and loops of the try body.
      std::vector<ScopeId> scopes = std::move(task_.scopes);
      task_.scopes.assign(scopes.begin(), scopes.begin() + t.scope_depth);
      t.handler = NewNode(Node::Kind::kNop, range);
      task_.scopes = std::move(scopes);
    }
    g_.nodes[r].next = t.handler;
    pending_.clear();
    return;
  }
  if (fn_here) {
    CloseScopes(fn.scope_depth, range);
    Expr neg;
    neg.op = Expr::Op::kUnary;
    neg.unary_op = UnaryOp::kNeg;
    neg.type = g_.vars[fn.result].type;
    Expr cast;
    cast.op = Expr::Op::kCast;
    cast.type = neg.type;
    cast.operands = {std::move(errno_value)};
    neg.operands = {std::move(cast)};
    const NodeId a = Emit(Node::Kind::kAssign, range);
    g_.nodes[a].var = fn.result;
    g_.nodes[a].value = std::move(neg);
    fn.returns.insert(fn.returns.end(), pending_.begin(), pending_.end());
    pending_.clear();
    return;
  }
  CloseScopes(0, range);
  const NodeId r = Emit(Node::Kind::kRaise, range);
  g_.nodes[r].value = std::move(errno_value);
  pending_.clear();
}

void Builder::Jump(const ast::JumpStmt& s) {
  using J = ast::JumpStmt::Jump;
  switch (s.jump) {
    case J::kBreak: {
      CloseScopes(task_.loops.back().scope_depth, s.range);
      auto& breaks = task_.loops.back().breaks;
      breaks.insert(breaks.end(), pending_.begin(), pending_.end());
      pending_.clear();
      return;
    }
    case J::kContinue:
      CloseScopes(task_.loops.back().scope_depth, s.range);
      Link(pending_, Latch(s.range));
      pending_.clear();
      return;
    case J::kStop:
      Emit(Node::Kind::kStop, s.range);
      pending_.clear();
      return;
    case J::kFail: RaiseErrno(s.value ? Value(*s.value) : default_errno_.back(), s.range); return;
    case J::kReturn: {
      if (fns_.size() > 1 && fns_.back().task == task_.task) {
        // Value() may inline calls, which push onto fns_ and can move it: no reference to our
        // FnCtx may live across it (a fuzzer-found use-after-free).
        const size_t fn_index = fns_.size() - 1;
        if (s.value) {
          Expr v = Value(*s.value);
          const NodeId a = Emit(Node::Kind::kAssign, s.range);
          g_.nodes[a].var = fns_[fn_index].result;
          g_.nodes[a].value = std::move(v);
        }
        FnCtx& fn = fns_[fn_index];
        CloseScopes(fn.scope_depth, s.range);
        fn.returns.insert(fn.returns.end(), pending_.begin(), pending_.end());
      } else {
        CloseScopes(0, s.range);
        Emit(Node::Kind::kExit, s.range);
      }
      pending_.clear();
      return;
    }
  }
}

}  // namespace internal

std::unique_ptr<rgir::Module> BuildRgir(const sema::Program& program,
                                        DiagnosticList& diagnostics, uint32_t max_nodes) {
  auto module = std::make_unique<rgir::Module>();
  if (program.modules.empty() || !program.root().ast) return module;
  for (auto& decl : program.root().ast->decls) {
    auto* g = decl->As<ast::GraphDecl>();
    if (!g) continue;
    module->graphs.emplace_back();
    try {
      internal::Builder(module->graphs.back(), max_nodes).BuildGraph(*g);
      if (!rgir::CheckTaskLimits(module->graphs.back(), diagnostics)) return nullptr;
      if (!rgir::CheckCodeBudget(module->graphs.back(), diagnostics)) return nullptr;
    } catch (const internal::TooDeep& deep) {
      Diagnostic& d = diagnostics.Error(
          DiagKind::kNestingTooDeep, deep.at,
          "fn calls nest too deeply once inlined into graph `" + g->name + "`: more than " +
              std::to_string(internal::kMaxNesting) +
              " statements and expressions inside one another; call fewer fns from fns");
      if (deep.outer.file != deep.at.file || deep.outer.begin != deep.at.begin) {
        d.notes.push_back({deep.outer, "the outermost of these calls"});
      }
      return nullptr;
    } catch (const internal::TooLarge&) {
      diagnostics.Error(DiagKind::kGraphTooLarge, g->name_range,
                        "graph `" + g->name + "` needs more than " + std::to_string(max_nodes) +
                            " IR nodes once its fns are inlined; call fewer fns from fns");
      return nullptr;
    }
  }
  return module;
}

}  // namespace uringc::build
