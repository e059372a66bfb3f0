// The code-size budget of a lowered graph (GraphTooLarge), decided on rgir: see budget.cpp.
#pragma once

#include <cstdint>

#include "uringc/diag/diagnostic.h"
#include "rgir/rgir.h"

namespace uringc::rgir {

/// The most BPF instructions a graph may lower to: 70 times the largest example, and where LLVM
/// starts to need tens of seconds (one `loop_step` function; register allocation and instruction
/// selection grow faster than linearly in its size: docs/codegen.md, "Compile time of large
/// graphs"). The kernel itself would load up to 1,000,000.
inline constexpr uint64_t kMaxCodeEstimate = 100000;

struct CodeEstimate {
  uint64_t total = 0;          ///< instructions, about (saturating)
  uint64_t largest = 0;        ///< of the largest construct
  SourceRange largest_range;   ///< that construct (a fork, or a task other than the root)
};

/// What `g` lowers to, about, in BPF instructions (-O2).
CodeEstimate EstimateCode(const Graph& g);

/// False with a GraphTooLarge error at the graph (and a note at its largest construct) when
/// EstimateCode(g) exceeds `budget`. Checked when the graph is lowered, so `check` reports it.
bool CheckCodeBudget(const Graph& g, DiagnosticList& diagnostics,
                     uint64_t budget = kMaxCodeEstimate);

}  // namespace uringc::rgir
