// The host target's half of "one lowering, two targets": rewrites a copy of a lowered controller
// module (the IR `lower` made, before any BPF pass) into x86-64 code the runtime's host engine
// calls exactly as the kernel calls the struct_ops program (runtime/include/uringc/program.h).
//   - the kfuncs become calls into the runtime (uringc_host_get_region, uringc_host_submit_sqes,
//     uringc_host_copy_from_user_str), and so do the calls of the BPF helpers bpf_copy_from_user
//     and bpf_ktime_get_ns (uringc_host_copy_from_user, uringc_host_ktime_get_ns); the may_goto
//     loop heads always go on;
//   - the globals become one block of state laid out as the BPF object's data sections (read
//     from the object compiled from the same IR), reached through args[0]->state, so every run
//     has its own state and the runtime reads it through the BPF object's BTF;
//   - the struct_ops variable, license and `.ksyms` externs go; the descriptor
//     `uringc_program_<graph>` comes, holding the step function, the state's initial bytes and
//     the BPF object itself, so one linked object serves both engines.
#pragma once

#include <string>
#include <string_view>

#include "uringc/diag/diagnostic.h"
#include "emit/bpf_object_layout.h"
#include "llvm/IR/Module.h"

namespace uringc {

/// The BPF helper numbers of bpf_copy_from_user and bpf_ktime_get_ns. The lowering calls them
/// through these constant addresses, as clang emits helper calls; RetargetForHost turns those
/// calls into calls of uringc_host_copy_from_user and uringc_host_ktime_get_ns.
inline constexpr uint64_t kCopyFromUserHelper = 148;
inline constexpr uint64_t kKtimeGetNsHelper = 5;

struct HostModuleSpec {
  std::string graph;    ///< the graph's name: the descriptor is uringc_program_<graph>
  std::string program;  ///< the struct_ops program function in the module
  /// The descriptor's symbol; empty for HostProgramSymbol(graph). One application (or test)
  /// that links two builds of one graph names them apart.
  std::string symbol;
  std::string_view bpf_object;  ///< the BPF object compiled from the same lowering
};

/// The descriptor's symbol for `graph`.
std::string HostProgramSymbol(std::string_view graph);

/// Rewrites `module` (a clone of the lowered BPF module) for the host. False with an
/// InternalCompilerError in `diags` when the module is not what lowering makes.
bool RetargetModuleToHost(llvm::Module& module, const HostModuleSpec& spec, DiagnosticList& diags);

}  // namespace uringc
