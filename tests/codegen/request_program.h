// Test-only generator of the "requests" controller: one task issues the request(s) of one
// RequestOp (chosen at load time through `.rodata` `op`) with operands from `.rodata` (`fd`,
// `addr`, `len`, `off`, `flags`, `aux`), records each result in `.bss` (`res1`, `res2`) and stops
// when all completions arrived. It proves on a real kernel that the SQEs bpf_ir/sqe.h and
// bpf_ir/submit.h write for every request kind are the ones the kernel expects.
#pragma once

#include <optional>
#include <string>

#include "diag/diagnostic.h"
#include "emit/codegen.h"

namespace uringc::testing {

/// The fake `.uring` source of the program.
std::string RequestProgramSource();

/// Builds the "requests" controller (program `requests`, ops `requests_ops`).
std::optional<std::string> BuildRequestProgram(const CodegenOptions& options,
                                               DiagnosticList& diags,
                                               SourceManager* sources = nullptr);

}  // namespace uringc::testing
