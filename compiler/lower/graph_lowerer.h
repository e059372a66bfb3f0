// The state shared by the rgir lowering files (internal to compiler/lower/):
//   layout.cpp    slots, words, resume states, globals
//   step.cpp      the loop_step skeleton: prologue, reap, run loop, end of graph, wait
//   tasks.cpp     a task's code as segments between await points; fork/join/race/exit/fail
//   cancel.cpp    cancelling task subtrees and deadline expiry
//   exprs.cpp     rgir::Expr -> IR values, variables and parameters
//   requests.cpp  kRequest nodes -> SQEs (with linked timeouts), deadlines, timespecs, paths
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bpf_ir/reap.h"
#include "lower/lower.h"
#include "bpf_ir/ring.h"
#include "bpf_ir/step_builder.h"
#include "bpf_ir/submit.h"
#include "bpf_ir/task_table.h"

namespace uringc::lower {

// Control words at the start of every slot's vars (TaskTable var indices).
inline constexpr uint32_t kWordRes = 0;      ///< i64: result of the awaited request
inline constexpr uint32_t kWordSeq = 1;      ///< sequence number of the awaited request (0: none)
inline constexpr uint32_t kWordQueued = 2;   ///< 1 while on the ready queue
inline constexpr uint32_t kWordParent = 3;   ///< the parent task's slot index
inline constexpr uint32_t kWordCount = 4;    ///< join: children still running; race: 1 while open
inline constexpr uint32_t kWordChild = 5;    ///< join: errno of a failed child; race: winner arm + 1
inline constexpr uint32_t kWordExpired = 6;  ///< deadline scope that expired + 1 (0: none)
inline constexpr uint32_t kWordChildErr = 7; ///< race: errno of a failed arm
inline constexpr uint32_t kWordFailErr = 8;  ///< errno of the task's own failure (kStateFail)
inline constexpr uint32_t kWordDrain = 9;    ///< cancelled requests in flight in the slot's subtree
                                             ///< (low 32 bits); kDrainWaiting: parked until 0.
                                             ///< Last: graphs that cannot cancel leave it out.
inline constexpr uint32_t kControlWords = 10;

// The words of a deadline scope (`{...} within D`), from its ScopeWord (requests.cpp). The
// IORING_OP_TIMEOUT armed for it outlives the block: a block that ends leaves it armed, the next
// run of the block reuses it, and when it fires for a block whose deadline is later (a block
// run since), it is armed again for the rest.
inline constexpr uint32_t kDeadlineSeq = 0;   ///< sequence number of its armed timeout (0: none)
inline constexpr uint32_t kDeadlineAt = 1;    ///< when that timeout fires (CLOCK_MONOTONIC ns)
inline constexpr uint32_t kDeadlineDue = 2;   ///< the running block's deadline (0: not running)
inline constexpr uint32_t kDeadlineWords = 3;

// The words of a stream scope (rgir::Deadline::Kind::kStream), from its ScopeWord (streams.cpp).
inline constexpr uint32_t kStreamSeq = 0;      ///< sequence number of its armed recv (0: none)
inline constexpr uint32_t kStreamHead = 1;     ///< entries taken
inline constexpr uint32_t kStreamTail = 2;     ///< entries queued
inline constexpr uint32_t kStreamEnded = 3;    ///< 1 << 32 | res of its last CQE, until taken
inline constexpr uint32_t kStreamWaiting = 4;  ///< 1 while the slot waits in kStreamWait
inline constexpr uint32_t kStreamHeld = 5;     ///< buffer id + 1 of the chunk the loop holds
inline constexpr uint32_t kStreamSocket = 6;   ///< the socket
inline constexpr uint32_t kStreamQueue = 7;    ///< then one word per pool buffer: bid << 32 | len

/// Starting and cancelling a child task's instances: the verifier walks a loop with a constant
/// bound once per instance, and the loop once per walk of the event loop (one per iteration
/// while counted, at most kMostCountedIterations: EmitStepLoop), so a child task is started and
/// cancelled by such a loop only while its slots times those walks stay within this; beyond, by
/// an iterator loop (ForEachInstance), which costs about 14 BPF instructions more per loop
/// (echo's 64 lanes: 1,097 -> 1,139) but the same verification at every width. The event loop
/// of a graph with several tasks iterates (its bound, reap and run budgets together, is over 8),
/// so up to 32 slots are unrolled.
inline constexpr uint64_t kUnrolledWalks = 256;

/// kWordSeq of a slot whose awaited request was cancelled and has not completed yet.
inline constexpr uint64_t kSeqCancelled = uint64_t{1} << 32;
/// kWordSeq of a slot waiting on accept hub H (accept_hub.cpp): kSeqHub | H.
inline constexpr uint64_t kSeqHub = uint64_t{1} << 33;
/// Sockets an accept hub holds for accepts to come (accept_hub.cpp): it stops accepting with
/// kHubStopAt queued; the rest is room for those accepted before the stop takes effect (at most
/// the listener's backlog, which Linux caps at somaxconn, 4096 by default).
inline constexpr uint32_t kHubQueue = 4096;
inline constexpr uint32_t kHubStopAt = 64;
/// kWordDrain: the slot wanted to run while cancelled requests were in flight (cancel.cpp).
inline constexpr uint64_t kDrainWaiting = uint64_t{1} << 63;

// Transient states set by a segment and handled once per task after the state switch, so the
// code that ends a task (cancel, notify the parent) exists once per task, not once per `?`.
inline constexpr uint32_t kStateExit = 0xfffffff0u;
inline constexpr uint32_t kStateFail = 0xfffffff1u;

/// A value: integers/bools/fds/durations in `v` at their width; bytes as (v = user address i64,
/// len = i32 length).
struct Val {
  llvm::Value* v = nullptr;
  llvm::Value* len = nullptr;
};

/// Where code runs: the task and its slot index (an i64 the verifier knows is < slots).
struct Here {
  rgir::TaskId task = 0;
  llvm::Value* idx = nullptr;
};

struct TaskInfo {
  uint32_t slots = 1;  ///< instances of the task across all instances of its ancestors
  uint32_t words = 0;  ///< vars per slot (control words + scopes + variables)
  std::unique_ptr<TaskTable> table;
  std::vector<rgir::ScopeId> scopes;      ///< deadline scopes owned by the task
  std::vector<rgir::TaskId> children;     ///< tasks forked by this task
};

/// The most SQEs one path from `entry` through the blocks of `inside` pushes (`sqes` per block),
/// back edges left out (a counted loop's pushes carry its instances already, Push). step.cpp.
uint64_t MostSqesOnAPath(llvm::BasicBlock* entry, const std::set<llvm::BasicBlock*>& inside,
                         const std::map<llvm::BasicBlock*, uint64_t>& sqes);

class GraphLowerer {
 public:
  GraphLowerer(const rgir::Graph& g, BpfModule& m, const GraphLoweringOptions& o,
               DiagnosticList& diags)
      : g_(g), m_(m), opt_(o), diags_(diags) {}
  bool Run();

 private:
  // ----- layout.cpp -----
  bool PlanLayout();
  void DeclareGlobals();
  uint32_t ScopeWord(rgir::ScopeId s) const { return scope_word_.at(s); }
  uint32_t VarWord(rgir::VarId v) const { return var_word_.at(v); }
  TaskTable& Table(rgir::TaskId t) { return *tasks_[t].table; }
  uint32_t StartState(rgir::NodeId n) const { return start_state_.at(n); }
  uint32_t AfterState(rgir::NodeId n) const { return after_state_.at(n); }
  static std::vector<rgir::NodeId> Successors(const rgir::Node& node);
  /// The node's code goes on to a successor in the same segment (it neither awaits nor ends).
  bool Continues(rgir::NodeId n) const;
  void MarkYieldEdges();

  // ----- liveness.cpp -----
  /// Fills in_register_: variables whose values never cross an await and stay in one task.
  void PlanRegisterVars();
  std::vector<rgir::VarId> UsesOf(const rgir::Node& n) const;
  /// The alloca (two for a `bytes` view: address, length) of a variable kept in registers.
  llvm::AllocaInst* RegisterVar(StepBuilder& b, rgir::VarId v, uint32_t word);
  /// Turns the register variables' allocas into SSA values (PromoteMemToReg).
  void PromoteRegisterVars();

  // ----- step.cpp -----
  void EmitStep();
  /// One task: reap up to reap_budget_ CQEs (each unparks the slot), then run it while it is
  /// runnable, up to run_budget_ times.
  ReapResult EmitReapThenRun(StepBuilder& b, const RingRegions& regions);
  /// `running`: Running(), read by the caller (once before the reap loop, which cannot end the
  /// graph; per CQE in the event loop, whose runs can).
  void EmitReapHandler(StepBuilder& b, const Cqe& cqe, llvm::Value* running);
  /// The CQE to its slot (EmitReapSlot) when its user_data names one and the graph runs.
  void EmitReapDispatch(StepBuilder& b, const Cqe& cqe, llvm::Value* running);
  /// The CQE to the slot its user_data names (several tasks).
  void EmitReapTask(StepBuilder& b, const Cqe& cqe, llvm::Value* seq);
  /// The in-flight count drops by `count` (i32) CQEs reaped, never below 0.
  void DropInflight(StepBuilder& b, llvm::Value* count);
  /// A CQE for slot (t, idx) with sequence number `seq` (i64): the awaited result or a deadline.
  void EmitReapSlot(StepBuilder& b, rgir::TaskId t, llvm::Value* idx, const Cqe& cqe,
                    llvm::Value* seq);
  void EmitEnding(StepBuilder& b, const ReapResult& reaped);
  /// With drain_: once the graph ended, ASYNC_CANCEL (all, any) of what is still in flight;
  /// after the submission, STOP once nothing is in flight any more.
  void EmitCancelAllOnce(StepBuilder& b);
  void EmitStopWhenDrained(StepBuilder& b);
  /// i1: the graph has not ended.
  llvm::Value* Running(StepBuilder& b);
  /// A run loop's room check (i1): nothing is pending, or the SQ has room for the most SQEs one
  /// run pushes, so a large budget never overfills the SQ (kSqFull). That number is known once
  /// the run's code is emitted: BeginRun marks where it starts, SettleRoomForARun counts it
  /// (MostSqesOnAPath) and puts RoomFor that many SQEs in place of the check's placeholder.
  llvm::Value* RoomForARun(StepBuilder& b);
  /// i1: the SQ has room for `sqes` more SQEs, or (more than one) nothing is pending.
  llvm::Value* RoomFor(StepBuilder& b, uint64_t sqes);
  void BeginRun(StepBuilder& b);
  void SettleRoomForARun(StepBuilder& b);

  // ----- ready.cpp -----
  /// Makes (task, idx) runnable: on the ready queue unless already there (one task: unparked).
  void Enqueue(StepBuilder& b, rgir::TaskId task, llvm::Value* idx);
  /// The subprogram Enqueue calls (ready.cpp), built on first use.
  llvm::Function* EnqueueHelper(StepBuilder& b);
  llvm::Function* enqueue_helper_ = nullptr;
  /// The first step's start of the root task.
  void EmitStartGraph(StepBuilder& b);
  /// i1: some slot is runnable.
  llvm::Value* AnyReady(StepBuilder& b);
  /// Nothing runs any more (the graph ended).
  void ClearReady(StepBuilder& b);
  /// One task: runs its slot up to its next await (several tasks: the event loop's run blocks).
  void EmitRunOne(StepBuilder& b);
  /// Several tasks: takes the ready queue's first entry (i32: task << 16 | slot).
  llvm::Value* PopReady(StepBuilder& b);

  // ----- event_loop.cpp -----
  /// Several tasks: one loop over events, each a CQE (its slot, when that was waiting for it,
  /// runs at once, without a turn through the ready queue) or, with no CQE left, the ready
  /// queue's first slot.
  ReapResult EmitEventLoop(StepBuilder& b, const RingRegions& regions);
  /// Makes (t, idx) runnable after its awaited CQE: inside the event loop the handler ends here
  /// and the slot runs at once (when the SQ has room for a run and it is not queued already),
  /// else Enqueue. Nothing the handler would do after the wake may matter but EndCqeBuffer.
  /// With `res` (i32, the CQE's result), the wake also delivers the request's result: a
  /// straight wake hands it to the resume code in a register (`woken_res`), every other way
  /// stores it in the slot's kWordRes first.
  void Wake(StepBuilder& b, rgir::TaskId t, llvm::Value* idx, llvm::Value* res = nullptr);
  /// Wake for a handler that goes on after the wake (an accept hub's): the slot runs once the
  /// handler is done.
  void WakeAfterHandler(StepBuilder& b, rgir::TaskId t, llvm::Value* idx);
  void WakeFrom(StepBuilder& b, rgir::TaskId t, llvm::Value* idx, bool at_once,
                llvm::Value* res = nullptr);
  /// The event loop's run block of each task, entered with a checked slot index (a phi).
  void OpenRunBlocks(StepBuilder& b);
  /// Branches into task t's run block with slot index `idx` (checked); the builder goes on in
  /// an unreachable block.
  void EnterRunBlock(StepBuilder& b, rgir::TaskId t, llvm::Value* idx);
  /// Branches to `to` with `idx` for its slot-index phi; the builder goes on in an unreachable
  /// block.
  void BranchWithIndex(StepBuilder& b, llvm::BasicBlock* to, llvm::PHINode* idx_phi,
                       llvm::Value* idx);
  /// The same into task t's `woken` block, with `res` (i32) for its result phi.
  void BranchToWoken(StepBuilder& b, rgir::TaskId t, llvm::Value* idx, llvm::Value* res);
  /// A slot of task t that the CQE it awaited woke needs none of the run block's checks when
  /// the task owns no deadline or stream scope (event_loop.cpp): it can be neither queued,
  /// finished, expired nor draining. Such a wake enters `woken[t]`, straight at its state switch.
  bool WakesStraightIn(rgir::TaskId t) const;
  /// Fills the run blocks: each runs its slot up to its next await, then the cancellation of a
  /// fork one of its children ended; all go on to `next`.
  void EmitRunBlocks(StepBuilder& b, llvm::BasicBlock* next);
  /// body(task, checked slot index) for the (task, slot) named by two i32 values: a switch over
  /// the tasks; a task number out of range does nothing, a slot out of range stops (bad CQE).
  /// Returns the switch.
  llvm::SwitchInst* EmitForSlot(
      StepBuilder& b, llvm::Value* task, llvm::Value* slot,
      const std::function<void(StepBuilder&, rgir::TaskId, llvm::Value* idx)>& body);
  /// Takes out of the reaper's switches the cases of tasks that no user_data names (a task
  /// that only forks and joins, such as the root of a `parallel`, never gets a CQE) and the
  /// code only they reached.
  void DropUnnamedReapCases();
  /// Ends the graph: status 1 (done) or 2 (failed with `neg_errno`, an i32 < 0).
  void EndGraph(StepBuilder& b, bool failed, llvm::Value* neg_errno);
  /// Writes one SQE and counts it in flight.
  void Push(StepBuilder& b, const SqeFields& f);
  /// The same for an SQE that names another request by its user_data (SubmitQueue::
  /// PushByUserData): an IORING_OP_ASYNC_CANCEL or IORING_OP_TIMEOUT_REMOVE.
  void PushByUserData(StepBuilder& b, uint8_t opcode, llvm::Value* addr);
  /// Push's bookkeeping around `push`, which writes the SQE and returns its SQ-full check.
  void PushWith(StepBuilder& b, const std::function<llvm::Instruction*()>& push);
  /// A loop bound per step: `asked` if set, else the graph's task slots within [least, 4096].
  uint32_t Budget(uint32_t asked, uint32_t least) const;
  llvm::Value* NextSeq(StepBuilder& b);
  llvm::Value* UserData(StepBuilder& b, rgir::TaskId task, llvm::Value* idx, llvm::Value* seq);

  // ----- tasks.cpp -----
  /// The slot's run: the checks a slot taken from the ready queue needs (finished, expired
  /// deadline, cancelled requests still draining), then `resume` (default EmitTaskResume).
  void EmitTaskRun(StepBuilder& b, Here h,
                   const std::function<void(StepBuilder&, Here)>& resume = nullptr);
  /// The slot's code from its state (the switch over resume states), then its end if it ended.
  void EmitTaskResume(StepBuilder& b, Here h);
  void EmitSegment(StepBuilder& b, Here h, rgir::NodeId start, bool after_await);
  void EmitNode(StepBuilder& b, Here h, rgir::NodeId n, llvm::BasicBlock* done,
                const std::function<llvm::BasicBlock*(rgir::NodeId from, rgir::NodeId to)>& edge);
  void EmitFork(StepBuilder& b, Here h, const rgir::Node& fork);
  /// Instances of child task `c` per slot of its parent (a `parallel`'s count, else 1).
  uint32_t Instances(rgir::TaskId c) const;
  /// body(k) for every instance k (an i32) of child task `c` of one parent slot (starting or
  /// cancelling them): in place for one instance, a loop with a constant bound while the
  /// verifier can walk it per instance (kUnrolledWalks), else an iterator loop (EmitIterLoop),
  /// whose verification costs the same at every width: the verifier walks a constant-bound loop
  /// once per iteration, and 750 instances of a NOP already passed its 1,000,000 instructions.
  void ForEachInstance(StepBuilder& b, rgir::TaskId c,
                       const std::function<void(StepBuilder&, llvm::Value*)>& body);
  /// ForEachInstance uses an iterator loop for child task `c` (kUnrolledWalks).
  bool IteratesInstances(rgir::TaskId c) const;
  /// The checked slot index (i64) of instance `k` (i32) of child task `c` of the parent's slot.
  llvm::Value* ChildSlot(StepBuilder& b, rgir::TaskId c, llvm::Value* parent_idx, llvm::Value* k);
  /// Ends the segment's task successfully / with errno `err` (i32 > 0), via the transient states.
  void RequestExit(StepBuilder& b, Here h);
  /// The task's end is a STOP (one task, nothing to drain): emitted where the task ends, with no
  /// transient state, since it is only a few instructions.
  bool EndsInPlace() const { return single_ && !drain_; }
  void RequestFail(StepBuilder& b, Here h, llvm::Value* err);
  void ExitTask(StepBuilder& b, Here h);
  void FailTask(StepBuilder& b, Here h, llvm::Value* err /* i32 > 0 */);
  /// Whether task t failing fails the graph: t is the root, or its fork's join passes the
  /// errno on uncaught (no error edge, or one that only raises it again) and its parent's
  /// failure fails the graph. Such a
  /// failure ends the graph at once (FailTask): the graph's end cancels everything in flight,
  /// so cancelling the siblings and ancestors one by one first would be code that changes
  /// nothing.
  bool FailureEndsGraph(rgir::TaskId t) const;
  /// Whether a child of this fork can end it early (RequestForkEnd): it is a race, or its
  /// children's failures do not end the graph.
  bool ForkCanEndEarly(const rgir::Node& fork) const;
  bool AnyForkCanEndEarly() const;
  /// What a child task's end reports to: the parent's slot and the fork that started the child.
  struct ParentSlot {
    rgir::TaskId task;
    llvm::Value* idx;
    const rgir::Node* fork;
    bool race;  // the parent awaits the first child (`any`), not all of them
  };
  /// Marks slot (h.task, h.idx) finished, disarms its deadline scopes, and finds its parent's slot.
  ParentSlot FinishChildSlot(StepBuilder& b, Here h);
  /// The fork node of `child`'s parent that started it, and what the parent awaits there.
  const rgir::Node& AwaitOf(rgir::TaskId child) const;

  // ----- cancel.cpp -----
  /// Cancels what slot (task, idx) awaits and every task instance below it; their slots end.
  void CancelSlot(StepBuilder& b, rgir::TaskId task, llvm::Value* idx, bool finish);
  /// Cancels the instances of `which` below slot (task, idx), which waits for them (counted).
  void CancelChildren(StepBuilder& b, rgir::TaskId task, llvm::Value* idx,
                      const std::vector<rgir::TaskId>& which);
  void DisarmScopes(StepBuilder& b, rgir::TaskId task, llvm::Value* idx);
  /// With wide_: submits the pending SQEs when the SQ is full, before a cancellation's SQE.
  void FlushIfFull(StepBuilder& b);
  /// ASYNC_CANCEL of the request slot (task, idx) awaits, if any, counted in `cancelled_`.
  void CancelAwaited(StepBuilder& b, rgir::TaskId task, llvm::Value* idx);
  /// Adds the requests counted in `cancelled_` to kWordDrain of the slot that cancelled them and
  /// of its ancestors (cancel.cpp).
  void CountCancelled(StepBuilder& b, rgir::TaskId task, llvm::Value* idx);
  /// Cancels the instances of `which` below slot idx (no counting: the caller's CountCancelled).
  void CancelChildSlots(StepBuilder& b, llvm::Value* idx, const std::vector<rgir::TaskId>& which);
  /// Sends control to `done` when the CQE with sequence number `seq` (i64) is that of the slot's
  /// cancelled request, after UncountCancelled; else continues in a new block.
  void ReapCancelled(StepBuilder& b, rgir::TaskId task, llvm::Value* idx, llvm::Value* seq,
                     llvm::BasicBlock* done);
  /// One cancelled request completed: takes 1 off kWordDrain of slot (task, idx) and of all its
  /// ancestors (never below 0); a slot whose count reaches 0 while it waits is made runnable.
  void UncountCancelled(StepBuilder& b, rgir::TaskId task, llvm::Value* idx);
  /// i1: no cancelled request is in flight below the slot; else marks it as waiting.
  llvm::Value* Drained(StepBuilder& b, Here h);
  void EmitExpiry(StepBuilder& b, Here h, llvm::Value* expired /* i64 scope + 1 */);
  /// A child of `fork` ended it (won the race, or failed): after the slot's run, the fork's other
  /// children are cancelled and the parent's slot `parent_idx` resumes (EmitForkEnds).
  void RequestForkEnd(StepBuilder& b, rgir::NodeId fork, llvm::Value* parent_idx);
  /// The code for RequestForkEnd, once per fork: a switch over the fork named in `fork_end_`.
  void EmitForkEnds(StepBuilder& b);

  // ----- exprs.cpp -----
  Val Eval(StepBuilder& b, Here h, const rgir::Expr& e);
  llvm::Value* EvalScalar(StepBuilder& b, Here h, const rgir::Expr& e) { return Eval(b, h, e).v; }
  Val LoadVar(StepBuilder& b, Here h, rgir::VarId v);
  void StoreVar(StepBuilder& b, Here h, rgir::VarId v, Val val);
  /// The slot index of `owner` (h.task or an ancestor) seen from h.
  llvm::Value* SlotOf(StepBuilder& b, Here h, rgir::TaskId owner);
  llvm::Type* IrType(const Type& t);
  llvm::Value* Convert(StepBuilder& b, llvm::Value* v, const Type& from, const Type& to);
  Val Binary(StepBuilder& b, Here h, const rgir::Expr& e);
  /// Fails the task (EFAULT) unless cond holds; continues after.
  void CheckOrFail(StepBuilder& b, Here h, llvm::Value* ok, int err);

  // ----- requests.cpp -----
  void EmitRequest(StepBuilder& b, Here h, const rgir::Node& n);
  void EmitRequestDone(StepBuilder& b, Here h, rgir::NodeId n,
                       const std::function<llvm::BasicBlock*(rgir::NodeId, rgir::NodeId)>& edge);
  /// Writes a timespec for `ns` (i64) into the parameter region; returns its user address.
  llvm::Value* Timespec(StepBuilder& b, llvm::Value* ns);
  /// An openat path copied into the parameter region: its user address, and 0 or the negative
  /// errno (i32) the kernel would have completed the openat with (ENAMETOOLONG, EFAULT).
  struct PathCopy {
    llvm::Value* addr;
    llvm::Value* err;
    llvm::Value* slot;  ///< i32: the path slot (openat2 keeps its open_how in the paired slot)
  };
  PathCopy CopyPath(StepBuilder& b, Val path);
  // Data in shared buffers and literals (data.cpp).
  llvm::Value* RegionOffset(StepBuilder& b, Here h, llvm::Value* user_addr, uint32_t width);
  Val Literal(StepBuilder& b, const rgir::Expr& e);
  Val DataLoad(StepBuilder& b, Here h, const rgir::Expr& e);
  void DataStore(StepBuilder& b, Here h, const rgir::Expr& e);
  Val CopyBytes(StepBuilder& b, Here h, const rgir::Expr& e);
  Val EqualBytes(StepBuilder& b, Here h, const rgir::Expr& e);
  Val CopyFromUser(StepBuilder& b, Here h, const rgir::Expr& e);
  void EachBytePair(StepBuilder& b, llvm::Value* ra, llvm::Value* rb, llvm::AllocaInst* stop,
                    const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& index,
                    llvm::Value* n,
                    const std::function<void(StepBuilder&, llvm::Value*, llvm::Value*)>& body);
  void EmitWriteLiterals(StepBuilder& b);
  void EmitDeadlineStart(StepBuilder& b, Here h, const rgir::Node& n);

  // ----- accept_hub.cpp -----
  /// Finds the accepts that share a multishot accept (hub_of_, hubs_): several tasks only.
  void PlanHubs();
  void DeclareHubGlobals();
  std::optional<uint32_t> HubOf(const rgir::Node& n) const;
  /// The accept of slot h, from hub `hub`: a queued socket at once, else the slot waits.
  void EmitHubTake(StepBuilder& b, Here h, uint32_t hub);
  void ArmHub(StepBuilder& b, uint32_t hub);
  bool TakesFromHub(rgir::TaskId task) const;
  /// Slot (task, idx), whose seq word `seq` (i64) says it waits on a hub, stops waiting.
  void StopHubWait(StepBuilder& b, rgir::TaskId task, llvm::Value* idx, llvm::Value* seq);
  llvm::Value* DeliverFromHub(StepBuilder& b, uint32_t hub, llvm::Value* res);
  void CloseFromHub(StepBuilder& b, llvm::Value* fd);
  /// A CQE whose user_data names a hub is handled here; others go to `not_hub`. False (no code)
  /// when the graph has no hub.
  bool EmitHubCqe(StepBuilder& b, const Cqe& cqe, llvm::Value* running, llvm::BasicBlock* not_hub);
  /// At the graph's end: closes the sockets the hubs still hold.
  void EmitHubsCloseQueued(StepBuilder& b);
  /// Push where no room was kept for it: submits a full SQ first.
  void PushFromAnywhere(StepBuilder& b, const SqeFields& f);
  /// Room for one push outside a run: a full SQ is submitted first.
  void RoomFromAnywhere(StepBuilder& b);
  struct Hub {
    rgir::ParamId param;
    uint32_t flags;
    std::set<rgir::TaskId> tasks;  ///< the tasks whose accepts take from it
    llvm::GlobalVariable* armed = nullptr;    ///< u32: seq of the armed multishot (0: none)
    llvm::GlobalVariable* waiting = nullptr;  ///< u32: slots waiting on it
    llvm::GlobalVariable* head = nullptr;     ///< u32: queued sockets taken
    llvm::GlobalVariable* tail = nullptr;     ///< u32: sockets queued
    llvm::GlobalVariable* queue = nullptr;    ///< s32 [kHubQueue]
  };
  std::vector<Hub> hubs_;
  std::map<rgir::NodeId, uint32_t> hub_of_;

  // ----- streams.cpp -----
  void EmitStreamStart(StepBuilder& b, Here h, const rgir::Node& n);
  /// kStreamWait's await: runnable again at once when an entry waits, else marked waiting.
  void EmitStreamWait(StepBuilder& b, Here h, const rgir::Node& n);
  /// After kStreamWait: the next entry into the chunk variable, and the status (rgir.h).
  void EmitStreamTake(StepBuilder& b, Here h, const rgir::Node& n);
  void EmitStreamRelease(StepBuilder& b, Here h, rgir::ScopeId s, llvm::Value* idx);
  /// Leaving the loop: cancels the recv, gives back the chunk held and those queued.
  void EmitStreamEnd(StepBuilder& b, Here h, rgir::ScopeId s, llvm::Value* idx);
  /// A CQE of stream s of slot (task, idx): queued, and the slot woken if it waits.
  void EmitStreamCqe(StepBuilder& b, rgir::TaskId task, llvm::Value* idx, rgir::ScopeId s,
                     const Cqe& cqe);
  void ArmStream(StepBuilder& b, Here h, rgir::ScopeId s);
  /// Buffer `bid` (any integer) back into the pool's buffer ring.
  void GiveBack(StepBuilder& b, llvm::Value* bid);
  /// GiveBack's subprogram, `<graph>_give_back(mem, bid)` (built on first use).
  llvm::Function* GiveBackHelper(StepBuilder& b);
  llvm::Function* give_back_helper_ = nullptr;
  /// The slot word (i64) of the queue entry at position `pos`.
  llvm::Value* StreamEntryWord(StepBuilder& b, rgir::ScopeId s, llvm::Value* pos);
  /// Around each CQE's dispatch (with a pool): counts IORING_CQE_F_MORE CQEs, and gives back a
  /// buffer no stream kept.
  void BeginCqeBuffer(StepBuilder& b, const Cqe& cqe);
  void EndCqeBuffer(StepBuilder& b, const Cqe& cqe);
  /// The F_MORE CQEs counted since the last call (i32), which leave their request in flight.
  llvm::Value* TakeMoreCqes(StepBuilder& b);
  /// Whether slot word `word` of task `c` is a queue entry of one of its streams: written
  /// before it is read, so a fork does not zero it.
  bool InStreamQueue(rgir::TaskId c, uint32_t word) const;
  bool IsStream(rgir::ScopeId s) const {
    return g_.deadlines[s].kind == rgir::Deadline::Kind::kStream;
  }
  /// The block of scope `s` ends: its timeout stays armed for the block's next run.
  void EmitDeadlineEnd(StepBuilder& b, Here h, rgir::ScopeId s, llvm::Value* idx);
  /// The slot ends or is cancelled: the timeout armed for `s` is removed (a stream: cancelled).
  void EmitDeadlineDisarm(StepBuilder& b, Here h, rgir::ScopeId s, llvm::Value* idx);
  /// The timeout armed for `s` fired: the block expires if it runs and its deadline has come,
  /// else the timeout is armed again for what is left, or (no block running) not at all.
  void EmitDeadlineFired(StepBuilder& b, rgir::TaskId t, llvm::Value* idx, rgir::ScopeId s);
  /// CLOCK_MONOTONIC in ns (i64): the BPF helper bpf_ktime_get_ns.
  llvm::Value* Now(StepBuilder& b);

  const rgir::Graph& g_;
  BpfModule& m_;
  const GraphLoweringOptions& opt_;
  DiagnosticList& diags_;

  std::vector<TaskInfo> tasks_;
  std::vector<uint32_t> var_word_;
  std::vector<bool> in_register_;  ///< by VarId (liveness.cpp)
  std::map<std::pair<rgir::VarId, uint32_t>, llvm::AllocaInst*> var_alloca_;
  std::vector<uint32_t> scope_word_;
  std::map<rgir::NodeId, uint32_t> start_state_;  ///< resume by running the node
  std::map<rgir::NodeId, uint32_t> after_state_;  ///< resume after the node's await completed
  std::vector<std::vector<bool>> back_edge_;      ///< [node][0 next, 1 alt, 2+ arm]
  std::vector<std::vector<bool>> yield_edge_;     ///< back edges the task yields at (same shape)

  // Globals.
  RingConstants rc_;
  llvm::GlobalVariable* mem_addr_ = nullptr;   ///< .rodata u64: user address of the region
  bool needs_mem_ = false;  ///< timespecs, paths, literals or shared buffers: the region is mapped
  uint32_t mem_size_ = 0;                      ///< GraphMemRegionSize(g_)
  MemLayout mem_layout_;                       ///< where literals and shared buffers sit
  bool needs_paths_ = false;                   ///< the graph has openat requests
  std::vector<llvm::GlobalVariable*> params_;  ///< by ParamId
  /// Host buffers parameters: `.rodata uringc_fixed_<p>`, its fixed-buffer index + 1 (0: none).
  std::map<rgir::ParamId, llvm::GlobalVariable*> fixed_index_;
  /// read/write on a host buffers view: READ_FIXED/WRITE_FIXED when the host registered it.
  void UseFixedBuffer(StepBuilder& b, const rgir::Expr& view, SqeFields& f, uint8_t fixed_op);
  std::map<rgir::VarId, llvm::GlobalVariable*> outputs_;
  llvm::GlobalVariable* ready_ = nullptr;       ///< u32 [ready_size_]
  uint32_t ready_size_ = 16;
  uint32_t run_budget_ = 4;   ///< ready slots run per step (Budget; set by PlanLayout)
  uint32_t reap_budget_ = 8;  ///< CQEs reaped per step (Budget; set by PlanLayout)
  /// Enqueue calls emitted since BeginRun: a one-task run that makes no such call leaves its
  /// slot parked, so its run loop needs one turn, not run_budget_ (EmitReapThenRun).
  uint32_t wakes_in_run_ = 0;
  uint32_t pushes_emitted_ = 0;   ///< Push calls emitted so far in the step
  bool pushes_in_loops_ = false;  ///< a Push inside a counted or iterator loop (SettlePending)
  /// EmitReapThenRun proved that no slot is ready once its run loop ends (EmitEnding).
  bool none_ready_after_run_ = false;
  llvm::AllocaInst* pending_alloca_ = nullptr;  ///< the SQ's pending count kept in a register
  /// SQEs pushed by each block (Push, where it starts), each counted `push_weight_` times: the
  /// instances of the counted loops around it (pushes in iterator loops flush a full SQ first,
  /// FlushIfFull). The run loop takes a slot only while the SQ has room for the most SQEs one
  /// path through the run dispatch pushes (step.cpp, MostSqesOnAPath).
  std::map<llvm::BasicBlock*, uint64_t> block_sqes_;
  std::vector<llvm::Instruction*> room_needed_;  ///< RoomForARun's placeholders
  /// True while a task's run code is emitted (EmitRunBlocks, EmitRunOne): every way into it
  /// checked the SQ's room for a run first (RoomForARun; a one-task step's first turn starts
  /// with an empty SQ).
  bool in_run_code_ = false;
  /// The SQ-full checks of pushes in run code since BeginRun that may be the first of their run
  /// (the first push in their block, outside any loop). The run's room check proved room for
  /// one SQE, so SettleRoomForARun folds the check of each that no other push precedes on any
  /// path from where the run was entered (FirstPushOfRun).
  std::vector<llvm::Instruction*> run_full_checks_;
  std::set<llvm::BasicBlock*> push_blocks_;  ///< blocks that push, since BeginRun
  /// Where runs are entered after their room check: the run loop's body (one task), the run
  /// blocks and straight wakes (event loop).
  std::set<llvm::BasicBlock*> run_entries_;
  /// No push but the one in `bb` can come before it on a path from a run entry (step.cpp).
  bool FirstPushOfRun(llvm::BasicBlock* bb, const std::set<llvm::BasicBlock*>& run_blocks) const;
  llvm::BasicBlock* run_entry_ = nullptr;     ///< BeginRun: the run's first block
  llvm::BasicBlock* run_last_ = nullptr;      ///< BeginRun: the block before the run's others
  /// How the event loop runs the slot a CQE woke (event_loop.cpp): `run[t]`, entered with the
  /// slot's index `run_idx[t]`; (task, slot) allocas, promoted with the register variables, for
  /// the ready queue's entry and a hub's wake (`go`, only with hubs). `active` and `cqe` only
  /// while the event loop handles a CQE.
  struct DirectRun {
    llvm::AllocaInst* go = nullptr;    ///< i32: 1 when (task, slot) runs after this CQE
    llvm::AllocaInst* task = nullptr;  ///< i32
    llvm::AllocaInst* slot = nullptr;  ///< i32
    std::vector<llvm::BasicBlock*> run;
    std::vector<llvm::PHINode*> run_idx;  ///< i64
    /// Per task that WakesStraightIn (else null): its state switch, entered past the run
    /// block's checks (a straight wake) or after them.
    std::vector<llvm::BasicBlock*> woken;
    std::vector<llvm::PHINode*> woken_idx;  ///< i64
    /// i32: the result of the request the woken slot awaited, in a register (a straight wake's
    /// CQE res, or kWordRes read on the way from the run block): the store at reap and the load
    /// at resume of the common case are gone. EmitRequestDone reads it while `resume_res` is set.
    std::vector<llvm::PHINode*> woken_res;
    llvm::PHINode* resume_res = nullptr;
    const Cqe* cqe = nullptr;
    bool active = false;
  } direct_;
  uint64_t push_weight_ = 1;
  bool push_has_room_ = false;  ///< FlushIfFull just made room for the next Push
  llvm::GlobalVariable* ready_head_ = nullptr;
  llvm::GlobalVariable* ready_tail_ = nullptr;
  llvm::GlobalVariable* inflight_ = nullptr;
  llvm::GlobalVariable* seq_ = nullptr;
  llvm::GlobalVariable* ending_ = nullptr;      ///< 0 running, 1 done, 2 failed
  llvm::GlobalVariable* end_error_ = nullptr;
  llvm::GlobalVariable* cancel_sent_ = nullptr;
  llvm::GlobalVariable* cancelled_ = nullptr;   ///< requests cancelled by the construct at hand
  llvm::GlobalVariable* fork_end_ = nullptr;    ///< u32: fork node + 1 a child ended (0: none)
  llvm::GlobalVariable* fork_end_slot_ = nullptr;  ///< u64: that fork's slot in its task
  llvm::GlobalVariable* steps_ = nullptr;
  llvm::GlobalVariable* more_cqes_ = nullptr;  ///< u32: F_MORE CQEs reaped this step (streams)
  llvm::AllocaInst* buffer_kept_ = nullptr;    ///< i1: a stream queued this CQE's buffer

  /// One task (no fork): no ready queue; slot 0 at a constant address (ready.cpp).
  bool single_ = false;
  /// Completions can arrive that no task awaits (several tasks, link timeouts, deadlines): the
  /// controller counts requests in flight and drains them before it stops (step.cpp).
  bool drain_ = true;
  /// Slots can be cancelled one by one (deadlines, races, caught failures; layout.cpp): a
  /// construct that cancelled goes on only once the cancelled requests completed (kWordDrain,
  /// cancel.cpp).
  bool cancels_ = true;
  /// Some task has several instances (`parallel`): cancelling them can push more SQEs than the SQ
  /// has room for, so cancellation submits a full SQ in the middle of the step (FlushIfFull) and
  /// the run loop keeps no room for it.
  bool wide_ = false;

  // Per step.
  std::unique_ptr<SubmitQueue> queue_;
  llvm::Value* mem_ = nullptr;  ///< kernel pointer to the parameter region
  llvm::BasicBlock* seg_done_ = nullptr;  ///< where the segment being emitted ends
  llvm::BasicBlock* seg_entry_ = nullptr;  ///< its first block (null outside segments)
  std::set<std::pair<rgir::VarId, uint32_t>> seg_zeroed_;  ///< register words zeroed there
  /// The reaper's switches over the task number of a CQE's user_data (EmitReapTask), and the
  /// tasks some user_data names (UserData): DropUnnamedReapCases.
  std::vector<llvm::SwitchInst*> reap_switches_;
  /// The tasks that RequestExit / RequestFail ever puts in a transient state, and the tests of
  /// those states after each state switch (EmitTaskResume): once the step is emitted, a task's
  /// tests of a state it never takes are folded to false with the code behind them
  /// (DropUntakenEnds): a server lane that loops until the graph ends has no exit code.
  std::set<rgir::TaskId> tasks_exiting_;
  std::set<rgir::TaskId> tasks_failing_;
  struct EndCheck {
    rgir::TaskId task;
    bool fail;
    llvm::Instruction* check;
  };
  std::vector<EndCheck> end_checks_;
  void DropUntakenEnds();
  std::set<rgir::TaskId> named_tasks_;
  /// The block of each node of the task being emitted, shared by all its segments (tasks.cpp).
  std::map<rgir::NodeId, llvm::BasicBlock*> node_blocks_;
};

}  // namespace uringc::lower
