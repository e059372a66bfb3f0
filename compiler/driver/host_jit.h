// `uringc run`'s way to the host engine without a linker: the object `uringc compile
// --target=host` writes is linked into this process by LLVM's ORC JIT (JITLink), its calls into
// the runtime (uringc_host_*) bound to the runtime linked into uringc, the C library's (memcpy,
// memset) to the process's own. An application links the same object at build time instead and
// needs no LLVM (docs/embedding.md).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "uringc/program.h"

namespace llvm::orc {
class LLJIT;
}

namespace uringc::driver {

class HostJit {
 public:
  /// Links `object` (an x86-64 ELF relocatable object made for graph `graph`) and finds its
  /// `uringc_program_<graph>`; nullptr with `error` set when that fails.
  static std::unique_ptr<HostJit> Link(std::string_view object, std::string_view graph,
                                       std::string& error);
  ~HostJit();
  HostJit(const HostJit&) = delete;
  HostJit& operator=(const HostJit&) = delete;

  const uringc_program& program() const { return *program_; }

 private:
  HostJit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  const uringc_program* program_ = nullptr;
};

}  // namespace uringc::driver
