// The request-graph IR (rgir): what a checked `graph` means, in a form code generation can turn
// into a BPF controller without looking at the AST. One rgir::Graph per `graph` declaration.
//
// Execution model (docs/language.md):
//  - A graph runs as a set of TASKS. Task 0 is the graph body. `parallel`, `all` and `any` fork
//    child tasks (kFork) and wait for them (kJoin, kRace). A `parallel` task has `instances`
//    copies, each with its own storage for the task's variables.
//  - Each task is a control-flow graph of NODES. Control starts at the task's `entry` and follows
//    `next` (and `alt` where a node has two successors). User `fn` calls are inlined, so a task
//    never calls anything; loops are back edges to a kNop or kBranch node.
//  - AWAIT POINTS are kRequest, kJoin, kRace and kStreamWait (and the implicit wait of a
//    kDeadlineStart scope).
//    At an await the task's state is saved; the controller continues it when the awaited CQE(s)
//    arrive. All other nodes run to completion inside one `loop_step`.
//  - VARIABLES (Var) hold integers, fds, durations, bools or `bytes` views. A variable belongs to
//    the task that declares it; tasks forked inside can read and write it (one loop_step runs
//    one task at a time, so there are no races). Outputs are variables of task 0 with kind
//    kOutput: storage the host reads after the run.
//  - ERRORS: kRaise sets a `catch` variable and jumps to a handler in the same task, or, with no
//    handler, fails the task. A failed child task cancels its siblings and makes the parent's
//    kJoin or kRace take its `alt` edge, with the errno in `Node::var`. A failed task 0 fails
//    the graph (status = -errno). kStop ends the whole graph successfully.
//  - TIMEOUTS: a kRequest with `timeout` is followed by an IORING_OP_LINK_TIMEOUT; when it fires,
//    the request's result variable gets -ETIME and control goes to `alt` (or `next` when alt is
//    kNone). A Deadline scope (block `within`) is armed by kDeadlineStart (IORING_OP_TIMEOUT) and
//    disarmed by kDeadlineEnd; on expiry every request in flight in nodes of that scope (and in
//    tasks forked inside it) is cancelled and the task continues at `Deadline::on_expire`. A fn
//    call's `within` is such a scope whose on_expire first assigns -ETIME to the call's result.
//  - CANCELLATION (a race's losers, a failed child's siblings, an expired scope) completes before
//    the task that cancelled continues: it resumes only after the cancelled requests' CQEs.
//
// Invariants (checked by rgir::Verify in tests): every id is in range or kNone; every node is
// reachable from its task's entry; kExit, kRaise-without-handler and kStop have no successors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ast/operators.h"
#include "ast/types.h"
#include "uringc/diag/diagnostic.h"
#include "sema/requests.h"
#include "uringc/source_file.h"

namespace uringc::rgir {

using VarId = uint32_t;    ///< index into Graph::vars
using ParamId = uint32_t;  ///< index into Graph::params
using NodeId = uint32_t;   ///< index into Graph::nodes
using TaskId = uint32_t;   ///< index into Graph::tasks
using ScopeId = uint32_t;  ///< index into Graph::deadlines
inline constexpr uint32_t kNone = UINT32_MAX;

/// A value computed inside the controller (no awaits: requests inside expressions were lowered
/// to kRequest nodes whose results are read back through variables).
struct Expr {
  enum class Op : uint8_t {
    kConst,   ///< `value` (64-bit pattern of `type`)
    kVar,     ///< variable `id`
    kParam,   ///< scalar graph parameter `id` (.rodata)
    kUnary,   ///< `unary_op` applied to operands[0]
    kBinary,  ///< operands[0] `binary_op` operands[1] (`&&`, `||`: operands[1] only if needed)
    kCast,    ///< operands[0] converted to `type`
    kMin,     ///< min(operands[0], operands[1])
    kMax,     ///< max(operands[0], operands[1])
    kLen,     ///< length of the bytes value operands[0] (u32)
    kBuffer,  ///< bytes: buffer operands[0] of buffers parameter `id`, whole buffer
    kSlice,   ///< bytes: operands[0] from operands[1] to operands[2] (relative offsets)
    kLiteral, ///< const bytes: Graph::literals[id], in the parameter region
    kLoad,    ///< the integer `type` at offset operands[1] of view operands[0]; `value` is
              ///< DataAccessCode (width, endianness). The build checked it is inside the view.
    kStore,   ///< void: write operands[2] at offset operands[1] of view operands[0] (as kLoad)
    kCopy,    ///< u32: copy min(len) bytes of view operands[1] into view operands[0] (memmove)
    kEqual,   ///< bool: views operands[0] and operands[1] have the same length and bytes
    kCopyFromUser,  ///< i32: the bytes at user address operands[1] into view operands[0]; 0 or
                    ///< -EFAULT (what could be read is copied)
    kAddressOf,     ///< u64: the user address of host view operands[0]
  };
  Op op = Op::kConst;
  Type type;
  uint64_t value = 0;
  uint32_t id = kNone;
  UnaryOp unary_op = UnaryOp::kNeg;     ///< kUnary only
  BinaryOp binary_op = BinaryOp::kAdd;  ///< kBinary only
  /// kBuffer: the index needs a run-time check (< count, else the graph fails with EFAULT).
  /// kSlice: the bounds need a run-time clamp (start <= end <= length). False = proven by sema.
  bool runtime_check = false;
  std::vector<Expr> operands;
  SourceRange range;

  static Expr Const(Type t, uint64_t v) {
    Expr e;
    e.type = t;
    e.value = v;
    return e;
  }
  static Expr Var(Type t, VarId id) {
    Expr e;
    e.op = Op::kVar;
    e.type = t;
    e.id = id;
    return e;
  }
};

struct Param {
  std::string name;
  Type type;  ///< scalar, or kBuffers (count, size): host memory
  SourceRange range;
};

struct Var {
  enum class Kind : uint8_t {
    kLocal,   ///< a `let`/`var`, fn parameter, loop/task variable, catch or arm name
    kOutput,  ///< a graph output (task 0, read by the host after the run)
    kTemp,    ///< made by lowering: request results, loop counters, fn results
  };
  std::string name;  ///< source name, or a descriptive name for temps (`read.result`)
  Type type;
  Kind kind = Kind::kLocal;
  TaskId task = 0;  ///< the task whose storage holds it
  SourceRange range;
};

struct Task {
  enum class Kind : uint8_t { kRoot, kParallel, kBranch, kArm };
  Kind kind = Kind::kRoot;
  std::string name;        ///< "main", "parallel", "all.1", "any.0" (see `range` for where)
  TaskId parent = kNone;
  NodeId fork = kNone;     ///< the kFork node in `parent` that starts this task
  NodeId entry = kNone;    ///< its kEntry node
  uint32_t instances = 1;  ///< kParallel: number of copies
  VarId index_var = kNone; ///< kParallel: the task variable, = index_base + copy number
  int64_t index_base = 0;
  VarId result_var = kNone;  ///< kArm: holds the arm call's result when the task exits
  SourceRange range;
};

/// A scope of a task that holds something in flight while its nodes run: a block deadline
/// (`{ ... } within D else ACTION`), or a stream (`for chunk in recv_each(s, pool) { ... }`, a
/// multishot recv whose completions queue in the slot until the loop takes them). Both are
/// opened by kDeadlineStart and closed by kDeadlineEnd on every way out (break, raise, return).
struct Deadline {
  enum class Kind : uint8_t { kDeadline, kStream };
  Kind kind = Kind::kDeadline;
  ScopeId parent = kNone;  ///< enclosing scope in the same task
  TaskId task = 0;
  Expr duration;           ///< kDeadline: nanoseconds
  NodeId start = kNone;    ///< kDeadlineStart
  NodeId on_expire = kNone;  ///< kDeadline: first node run after the scope's requests were cancelled
  Expr socket;             ///< kStream: the socket it receives from
  ParamId pool = kNone;    ///< kStream: the `provided buffers` parameter
  VarId chunk = kNone;     ///< kStream: the loop variable (a shared view of the chunk)
  SourceRange range;
};

/// A `fn` call the build inlined (fns have no frames: their nodes are copied into the caller).
/// Kept so a picture can show where a request inside a fn was called from (`uringc graph`);
/// code generation does not read it.
struct InlinedCall {
  SourceRange range;        ///< the call expression
  uint32_t parent = kNone;  ///< the inlined call it is inside, kNone in the graph's own body
  TaskId task = 0;          ///< the task the call runs in
};

struct Node {
  enum class Kind : uint8_t {
    kEntry,          ///< first node of a task -> next
    kExit,           ///< the task ends successfully
    kNop,            ///< no effect (loop heads, merge points) -> next
    kAssign,         ///< var = value -> next (var kNone: value evaluated for its effect, kStore)
    kBranch,         ///< value (bool) ? next : alt
    kRequest,        ///< submit `request(args)`, await its CQE, var = res (kNone: dropped)
    kFork,           ///< start `tasks` -> next (their kJoin or kRace)
    kJoin,           ///< await all tasks of `fork` -> next; a failed child -> alt, var = errno
    kRace,           ///< await the first task of `fork` to end, cancel the rest -> arms[i];
                     ///< a failed child ends it too -> alt, var = errno
    kDeadlineStart,  ///< arm deadline `scope` (IORING_OP_TIMEOUT) -> next
    kDeadlineEnd,    ///< disarm deadline `scope` (IORING_OP_TIMEOUT_REMOVE) -> next
    kRaise,          ///< errno = value (positive); handler: var = errno -> next; else fail task
    kStop,           ///< end the whole graph successfully (cancel everything in flight)
    kStreamWait,     ///< await the next completion of stream `scope`: var (i32) = 1 and the
                     ///< chunk var set; 0 at end of stream; 2 when re-armed; -errno -> next
    kStreamRelease,  ///< give the chunk of stream `scope` back to its pool (if one is held) -> next
  };
  Kind kind = Kind::kNop;
  TaskId task = 0;
  ScopeId deadline = kNone;  ///< innermost deadline scope around this node (same task)
  uint32_t call = kNone;     ///< innermost inlined fn call it comes from (Graph::calls)
  NodeId next = kNone;
  NodeId alt = kNone;
  VarId var = kNone;
  std::optional<Expr> value;
  SourceRange range;

  // kRequest
  sema::RequestKind request = sema::RequestKind::kNop;
  std::vector<Expr> args;       ///< in signature order, defaults filled in
  std::optional<Expr> timeout;  ///< `within D` on this request (IORING_OP_LINK_TIMEOUT)

  // kFork, kJoin, kRace
  std::vector<TaskId> tasks;  ///< kFork: the children
  NodeId fork = kNone;        ///< kJoin/kRace: their kFork
  std::vector<NodeId> arms;   ///< kRace: successor when tasks[i] of the fork wins

  // kDeadlineStart, kDeadlineEnd
  ScopeId scope = kNone;
};

/// Derived edges for printing and drawing (Graph::edges; code generation uses Node fields).
struct Edge {
  enum class Kind : uint8_t {
    kControl,  ///< next
    kAlt,      ///< branch false, timeout action, child failure
    kSpawn,    ///< fork -> child entry
    kDone,     ///< child exit -> join/race
    kData,     ///< a request's result var -> a node reading it
  };
  Kind kind;
  NodeId from, to;
};

struct Graph {
  std::string name;
  SourceRange range;
  std::vector<Param> params;
  std::vector<Var> vars;
  std::vector<Task> tasks;
  std::vector<Node> nodes;
  std::vector<Deadline> deadlines;
  std::vector<InlinedCall> calls;  ///< the fn calls inlined into it (Node::call)
  std::vector<Edge> edges;  ///< filled by ComputeEdges
  std::vector<std::string> literals;  ///< byte strings (kLiteral), each once
};

/// kLoad/kStore's `value`: the width in bytes (1, 2, 4, 8) | 0x100 when big endian.
inline uint64_t DataAccessCode(uint8_t bits, bool big_endian) {
  return (bits / 8) | (big_endian ? 0x100u : 0u);
}
inline uint32_t DataAccessBytes(uint64_t code) { return static_cast<uint32_t>(code & 0xff); }
inline bool DataAccessBigEndian(uint64_t code) { return (code & 0x100) != 0; }

struct Module {
  std::vector<Graph> graphs;  ///< in source order of the root module
};

/// The most task instances (slots) one task of a controller can have: the slot index has 16 bits
/// in `user_data` and in the ready queue; and the most tasks a graph can have.
inline constexpr uint64_t kMaxTaskSlots = 65535;
inline constexpr uint64_t kMaxTasks = 65535;

/// Instances of each task across all instances of its ancestors (a `parallel` of 4096 inside
/// one of 4096: 16,777,216), saturating at UINT64_MAX.
std::vector<uint64_t> TaskSlots(const Graph& g);

/// The task limits above: false with a TooManyTasks error at the first task past them. Checked
/// when the graph is lowered (so `uringc check` reports it) and again by code generation.
bool CheckTaskLimits(const Graph& g, DiagnosticList& diagnostics);

/// Fills `g.edges` from the nodes (control, alt, spawn, done, data), sorted and deduplicated.
void ComputeEdges(Graph& g);

/// Checks the invariants listed at the top; returns an empty string or the first violation.
std::string Verify(const Graph& g);

}  // namespace uringc::rgir
