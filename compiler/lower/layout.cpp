// Storage layout of a lowered graph: how many slots each task has (its instances times those of
// its ancestors), which words of a slot hold what, which nodes are resume points (and their state
// numbers), which edges are back edges (a loop: the task yields through the ready queue there),
// and the globals (parameters in .rodata with each buffers parameter's byte size, outputs and run
// state in .bss).
#include "lower/graph_lowerer.h"

namespace uringc {

ScalarType StorageTypeOf(const Type& t) {
  switch (t.kind) {
    case Type::Kind::kBool: return ScalarType::kU8;
    case Type::Kind::kFd: return ScalarType::kS32;
    case Type::Kind::kDuration: return ScalarType::kU64;
    case Type::Kind::kBuffers: return ScalarType::kU64;
    case Type::Kind::kInt:
    case Type::Kind::kIntLit:
      if (t.bits <= 8) return t.is_signed ? ScalarType::kS8 : ScalarType::kU8;
      if (t.bits <= 16) return t.is_signed ? ScalarType::kS16 : ScalarType::kU16;
      if (t.bits <= 32) return t.is_signed ? ScalarType::kS32 : ScalarType::kU32;
      return t.is_signed ? ScalarType::kS64 : ScalarType::kU64;
    default: return ScalarType::kU64;
  }
}

}  // namespace uringc

namespace uringc::lower {

bool GraphLowerer::PlanLayout() {
  const size_t nt = g_.tasks.size();
  tasks_.resize(nt);
  // The front end refused graphs past the limits (rgir::CheckTaskLimits, in BuildRgir); the
  // check is repeated for rgir built by other means (tests).
  if (!rgir::CheckTaskLimits(g_, diags_)) return false;
  const std::vector<uint64_t> slots = rgir::TaskSlots(g_);
  for (rgir::TaskId t = 0; t < nt; ++t) {
    tasks_[t].slots = static_cast<uint32_t>(slots[t]);
    if (g_.tasks[t].parent != rgir::kNone) tasks_[g_.tasks[t].parent].children.push_back(t);
  }

  // Words: control words (kWordDrain only where requests can be cancelled), those of each
  // deadline scope of the task (kDeadlineWords; a stream's more), then the variables.
  // Slots are cancelled one by one (with a drain word each, and checks of it at reap and run)
  // only where a deadline expires, a child can end its fork early (an arm that wins a race, a
  // failure that is caught), or a failing task with children does not end the graph: a failure
  // nothing catches ends the graph (FailureEndsGraph), whose end cancels everything at once.
  cancels_ = !g_.deadlines.empty() || AnyForkCanEndEarly();
  for (rgir::TaskId t = 0; t < nt; ++t) {
    cancels_ |= !tasks_[t].children.empty() && !FailureEndsGraph(t);
  }
  PlanHubs();
  for (rgir::TaskId t = 0; t < nt; ++t) tasks_[t].words = cancels_ ? kControlWords : kWordDrain;
  scope_word_.resize(g_.deadlines.size());
  for (rgir::ScopeId s = 0; s < g_.deadlines.size(); ++s) {
    TaskInfo& ti = tasks_[g_.deadlines[s].task];
    ti.scopes.push_back(s);
    scope_word_[s] = ti.words;
    ti.words += IsStream(s) ? kStreamQueue + g_.params[g_.deadlines[s].pool].type.count
                            : kDeadlineWords;
  }

  // Resume points and back edges, per task, by an iterative depth-first search from the entry
  // and from every deadline's on_expire node (reached only through an expiry).
  const size_t nn = g_.nodes.size();
  back_edge_.assign(nn, {});
  auto succs = [&](rgir::NodeId n) { return Successors(g_.nodes[n]); };
  for (rgir::NodeId n = 0; n < nn; ++n) back_edge_[n].assign(succs(n).size(), false);
  std::vector<uint8_t> color(nn, 0);  // 0 new, 1 on the stack, 2 finished
  uint32_t next_state = kFirstResumeState;
  auto add_start = [&](rgir::NodeId n) {
    if (!start_state_.count(n)) start_state_[n] = next_state++;
  };
  auto dfs = [&](rgir::NodeId root) {
    if (root == rgir::kNone || color[root] != 0) return;
    std::vector<std::pair<rgir::NodeId, size_t>> stack = {{root, 0}};
    color[root] = 1;
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      std::vector<rgir::NodeId> s = succs(n);
      if (i == s.size()) {
        color[n] = 2;
        stack.pop_back();
        continue;
      }
      const size_t k = i++;
      const rgir::NodeId to = s[k];
      if (to == rgir::kNone) continue;
      if (color[to] == 1) {
        back_edge_[n][k] = true;
      } else if (color[to] == 0) {
        color[to] = 1;
        stack.push_back({to, 0});
      }
    }
  };
  single_ = nt == 1;
  if (single_) start_state_[g_.tasks[0].entry] = kTaskNotStarted;  // the zeroed .bss (ready.cpp)
  for (rgir::TaskId t = 0; t < nt; ++t) {
    add_start(g_.tasks[t].entry);
    dfs(g_.tasks[t].entry);
  }
  for (const rgir::Deadline& d : g_.deadlines) {
    if (d.kind == rgir::Deadline::Kind::kStream) continue;
    add_start(d.on_expire);
    dfs(d.on_expire);
  }
  MarkYieldEdges();
  for (rgir::NodeId n = 0; n < nn; ++n) {
    for (size_t k = 0; k < yield_edge_[n].size(); ++k) {
      if (yield_edge_[n][k]) add_start(succs(n)[k]);
    }
  }
  for (rgir::NodeId n = 0; n < nn; ++n) {
    const rgir::Node& node = g_.nodes[n];
    if (node.kind == rgir::Node::Kind::kRequest || node.kind == rgir::Node::Kind::kJoin ||
        node.kind == rgir::Node::Kind::kRace || node.kind == rgir::Node::Kind::kStreamWait) {
      after_state_[n] = next_state++;
    }
  }

  run_budget_ = Budget(opt_.run_budget, 4);
  reap_budget_ = Budget(opt_.reap_budget, 8);
  // Any fork of several instances: cancelling them pushes an SQE or more each, which the run
  // loop's room check (step.cpp) would otherwise have to keep free before every slot it runs, so
  // with K lanes on a K-entry SQ only one lane would run per step.
  for (rgir::TaskId t = 0; t < nt; ++t) wide_ |= Instances(t) > 1;

  // Slot words for the variables whose values cross an await (liveness.cpp).
  PlanRegisterVars();
  var_word_.assign(g_.vars.size(), 0);
  for (rgir::VarId v = 0; v < g_.vars.size(); ++v) {
    const rgir::Var& var = g_.vars[v];
    if (var.kind == rgir::Var::Kind::kOutput || in_register_[v]) continue;
    TaskInfo& ti = tasks_[var.task];
    var_word_[v] = ti.words;
    ti.words += var.type.kind == Type::Kind::kBytes ? 2 : 1;
  }
  return true;
}

bool GraphLowerer::Continues(rgir::NodeId n) const {
  switch (g_.nodes[n].kind) {
    case rgir::Node::Kind::kEntry:
    case rgir::Node::Kind::kNop:
    case rgir::Node::Kind::kAssign:
    case rgir::Node::Kind::kBranch:
    case rgir::Node::Kind::kDeadlineStart:
    case rgir::Node::Kind::kDeadlineEnd:
    case rgir::Node::Kind::kStreamRelease:
      return true;
    case rgir::Node::Kind::kRaise:
      return g_.nodes[n].var != rgir::kNone;  // `else e =>` binds the errno and goes on
    default:
      return false;  // awaits (request, fork, join, race) and ends (exit, stop, fail)
  }
}

// A segment follows a back edge n -> h in place (h's code is emitted again inside the segment)
// unless that would close a cycle inside the segment: h reaches n through nodes that all continue
// the segment. Only then does the task yield there (store h's state, go back on the ready queue).
// So a loop whose body awaits runs from one await to the next without a queue turn.
void GraphLowerer::MarkYieldEdges() {
  const size_t nn = g_.nodes.size();
  yield_edge_.assign(nn, {});
  std::vector<uint32_t> seen(nn, 0);
  uint32_t round = 0;
  for (rgir::NodeId n = 0; n < nn; ++n) {
    const rgir::Node& node = g_.nodes[n];
    const std::vector<rgir::NodeId> out = Successors(node);
    yield_edge_[n].assign(out.size(), false);
    for (size_t k = 0; k < out.size(); ++k) {
      if (!back_edge_[n][k]) continue;
      if (!Continues(n)) continue;  // taken only where a segment starts after an await
      // Does out[k] reach n through continuing nodes?
      ++round;
      std::vector<rgir::NodeId> work = {out[k]};
      bool cycle = false;
      while (!work.empty() && !cycle) {
        const rgir::NodeId m = work.back();
        work.pop_back();
        if (m == rgir::kNone || seen[m] == round || !Continues(m)) continue;
        seen[m] = round;
        if (m == n) {
          cycle = true;
          break;
        }
        for (rgir::NodeId x : Successors(g_.nodes[m])) work.push_back(x);
      }
      yield_edge_[n][k] = cycle;
    }
  }
}

std::vector<rgir::NodeId> GraphLowerer::Successors(const rgir::Node& node) {
  std::vector<rgir::NodeId> out = {node.next, node.alt};
  for (rgir::NodeId a : node.arms) out.push_back(a);
  return out;
}

void GraphLowerer::DeclareGlobals() {
  const SourceRange at = g_.range;
  rc_ = DeclareRingConstants(m_, at);
  if (opt_.sq_ring == SqRing::kRewind) {  // no tail-ring code; the runtime needs to know
    rc_.FixSqRewind(m_.context());
    m_.AddRodata(kNeedsSqRewindGlobal, ScalarType::kU32, 1, at);
  }
  mem_addr_ = m_.AddRodata("uringc_mem_addr", ScalarType::kU64, 0, at);
  mem_layout_ = GraphMemLayout(g_);
  mem_size_ = mem_layout_.size;
  needs_mem_ = mem_size_ != 0;
  needs_paths_ = mem_layout_.paths;
  bool linked_timeouts = false;
  for (const rgir::Node& n : g_.nodes) {
    linked_timeouts |= n.kind == rgir::Node::Kind::kRequest && n.timeout;
  }
  // One task awaiting one request at a time: every CQE is the awaited one, so none is in flight
  // when the task ends the graph. Link timeouts and deadlines add CQEs nobody awaits.
  drain_ = !single_ || linked_timeouts || !g_.deadlines.empty();
  // And so at most one CQE is ever pending: the reap loop is one CQE long (straight code). A CQE
  // the graph did not cause would wait for the next step (the wait index sees it).
  if (EndsInPlace() && opt_.reap_budget == 0) reap_budget_ = 1;
  m_.AddRodata("uringc_mem_min", ScalarType::kU32, mem_size_, at);
  // The runtime refuses a ring whose SQ could hold more SQEs in one step than there are
  // timespec slots (`Timespec` picks slot `pending % kTimespecSlots`); 0: no limit.
  m_.AddRodata("uringc_sq_max", ScalarType::kU32, needs_mem_ ? kTimespecSlots : 0, at);
  m_.AddRodata(kSubmitAllGlobal, ScalarType::kU32, 1, at);  // one submit call per batch
  if (mem_layout_.pool != rgir::kNone) {
    const rgir::Param& p = g_.params[mem_layout_.pool];
    m_.AddRodata(kPbufOffGlobal, ScalarType::kU64, mem_layout_.pool_at, p.range);
    m_.AddRodata(kPbufRingOffGlobal, ScalarType::kU64, mem_layout_.ring_at, p.range);
    m_.AddRodata(kPbufSizeGlobal, ScalarType::kU64, p.type.size, p.range);
    m_.AddRodata(kPbufCountGlobal, ScalarType::kU32, p.type.count, p.range);
  }
  // Multishot requests (a stream's recv, a hub's accept) post CQEs that leave them in flight.
  if (mem_layout_.pool != rgir::kNone || !hubs_.empty())
    more_cqes_ = m_.AddBss("uringc_" + g_.name + "_more_cqes", ScalarType::kU32, at);
  DeclareHubGlobals();
  for (rgir::ParamId id = 0; id < g_.params.size(); ++id) {
    const rgir::Param& p = g_.params[id];
    if (p.type.IsBuffers(Type::Mem::kProvided)) {
      params_.push_back(nullptr);  // in the region, described by the uringc_pbuf_* globals
      continue;
    }
    if (p.type.IsBuffers(Type::Mem::kShared)) {
      // In the region: nothing for the host to set; where it is, for the host to find it.
      params_.push_back(nullptr);
      m_.AddRodata(kSharedOffsetGlobalPrefix + p.name, ScalarType::kU64, mem_layout_.shared_at[id],
                   p.range);
      m_.AddRodata(kSharedBytesGlobalPrefix + p.name, ScalarType::kU64,
                   uint64_t{p.type.count} * p.type.size, p.range);
      continue;
    }
    params_.push_back(m_.AddRodata(p.name, StorageTypeOf(p.type), 0, p.range,
                                   p.type.kind == Type::Kind::kFd ? kFdTypeName : ""));
    if (p.type.kind == Type::Kind::kBuffers) {
      m_.AddRodata(kBufferBytesGlobalPrefix + p.name, ScalarType::kU64, p.type.count * p.type.size,
                   p.range);
      fixed_index_[id] = m_.AddRodata(kFixedIndexGlobalPrefix + p.name, ScalarType::kU32, 0, p.range);
    }
  }
  for (rgir::VarId v = 0; v < g_.vars.size(); ++v) {
    const rgir::Var& var = g_.vars[v];
    if (var.kind == rgir::Var::Kind::kOutput) {
      outputs_[v] = m_.AddBss(var.name, StorageTypeOf(var.type), var.range);
    }
  }
  steps_ = m_.AddBss("uringc_steps", ScalarType::kU64, at);
  const std::string prefix = "uringc_" + g_.name + "_";
  for (rgir::TaskId t = 0; t < g_.tasks.size(); ++t) {
    tasks_[t].table = std::make_unique<TaskTable>(m_, prefix + "task" + std::to_string(t),
                                                   tasks_[t].slots, tasks_[t].words,
                                                   g_.tasks[t].range);
  }
  if (!single_) {
    uint64_t total = 0;
    for (const TaskInfo& ti : tasks_) total += ti.slots;
    while (ready_size_ < total) ready_size_ *= 2;
    DebugTypes& types = m_.types();
    ready_ = m_.AddBss(prefix + "ready",
                       llvm::ArrayType::get(llvm::Type::getInt32Ty(m_.context()), ready_size_),
                       types.Array(types.Scalar(ScalarType::kU32), 32, 32, ready_size_), 4, at);
    ready_head_ = m_.AddBss(prefix + "ready_head", ScalarType::kU32, at);
    ready_tail_ = m_.AddBss(prefix + "ready_tail", ScalarType::kU32, at);
  }
  if (drain_) inflight_ = m_.AddBss(prefix + "inflight", ScalarType::kU32, at);
  if (drain_) seq_ = m_.AddBss(prefix + "seq", ScalarType::kU32, at);
  if (drain_) {
    ending_ = m_.AddBss(prefix + "ending", ScalarType::kU32, at);
    end_error_ = m_.AddBss(prefix + "end_error", ScalarType::kS32, at);
  }
  if (drain_) cancel_sent_ = m_.AddBss(prefix + "cancel_sent", ScalarType::kU32, at);
  if (cancels_) cancelled_ = m_.AddBss(prefix + "cancelled", ScalarType::kU32, at);
  if (AnyForkCanEndEarly()) {  // RequestForkEnd names only such a fork
    fork_end_ = m_.AddBss(prefix + "fork_end", ScalarType::kU32, at);
    fork_end_slot_ = m_.AddBss(prefix + "fork_end_slot", ScalarType::kU64, at);
  }
}

}  // namespace uringc::lower
