// Completions find their owner through user_data: the low 32 bits name the await point (a place
// in the program where a task waits for a request), the high 32 bits the task (a slot index in
// its TaskTable). EmitDispatch switches on the await point and hands the case the raw task
// index, which the case bounds-checks against its table (TaskTable::CheckedIndex) before use.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "bpf_ir/reap.h"

namespace uringc {

/// user_data of a request issued by `task` at await point `point`.
constexpr uint64_t EncodeUserData(uint32_t task, uint32_t point) {
  return (static_cast<uint64_t>(task) << 32) | point;
}

/// The same in IR: `task` is an i32 or i64 value.
llvm::Value* EmitUserData(StepBuilder& sb, llvm::Value* task, uint32_t point);

struct AwaitCase {
  uint32_t point = 0;
  /// Emits the continuation after the request of `point` completed; `task` is the unchecked
  /// i32 task index from user_data.
  std::function<void(StepBuilder&, llvm::Value* task, const Cqe&)> body;
};

/// Switches on cqe.user_data's await point. An unknown point runs `unknown`, or stops with
/// kBadCqe when `unknown` is empty. Emission continues after the join of all cases.
void EmitDispatch(StepBuilder& sb, const Cqe& cqe, const std::vector<AwaitCase>& cases,
                  const std::function<void(StepBuilder&, const Cqe&)>& unknown = {});

}  // namespace uringc
