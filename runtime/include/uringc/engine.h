// The two engines a compiled graph runs on, and the choice between them (`uringc run
// --engine`, RunOptions of the C API): the kernel engine loads the BPF object into the ring
// (io_uring_bpf_ops, Linux 7.1+, BPF privileges); the host engine calls the same lowering's
// native loop_step in this process (host_engine.h), on any kernel with io_uring, unprivileged.
#pragma once

#include <string>

namespace uringc {

enum class Engine { kKernel, kHost };
enum class EngineChoice { kAuto, kKernel, kHost };

const char* EngineName(Engine engine);
/// "auto", "kernel" or "host"; false for anything else.
bool ParseEngineChoice(const std::string& text, EngineChoice* choice);

struct EngineDecision {
  Engine engine = Engine::kKernel;
  /// One line: which engine and why, e.g. "host: this kernel (6.18) has no io_uring_bpf_ops".
  std::string why;
};

/// What kAuto means here: the kernel engine when the running kernel has io_uring_bpf_ops and the
/// process may load struct_ops programs, else the host engine (when `has_host_code`; without it,
/// the kernel engine, whose load then says what is missing). kKernel and kHost are taken as asked.
EngineDecision ChooseEngine(EngineChoice choice, bool has_host_code);

}  // namespace uringc
