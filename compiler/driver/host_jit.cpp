// Links a host object into the process with ORC; see host_jit.h.
#include "driver/host_jit.h"

#include "emit/host_module.h"
#include "emit/host_target.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"

namespace uringc::driver {

HostJit::~HostJit() = default;

std::unique_ptr<HostJit> HostJit::Link(std::string_view object, std::string_view graph,
                                       std::string& error) {
  InitializeHostTarget();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) {
    error = llvm::toString(jit.takeError());
    return nullptr;
  }
  llvm::orc::JITDylib& lib = (*jit)->getMainJITDylib();
  const auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
  llvm::orc::SymbolMap runtime;
  runtime[(*jit)->mangleAndIntern("uringc_host_get_region")] = {
      llvm::orc::ExecutorAddr::fromPtr(&uringc_host_get_region), flags};
  runtime[(*jit)->mangleAndIntern("uringc_host_submit_sqes")] = {
      llvm::orc::ExecutorAddr::fromPtr(&uringc_host_submit_sqes), flags};
  runtime[(*jit)->mangleAndIntern("uringc_host_copy_from_user")] = {
      llvm::orc::ExecutorAddr::fromPtr(&uringc_host_copy_from_user), flags};
  runtime[(*jit)->mangleAndIntern("uringc_host_ktime_get_ns")] = {
      llvm::orc::ExecutorAddr::fromPtr(&uringc_host_ktime_get_ns), flags};
  runtime[(*jit)->mangleAndIntern("uringc_host_copy_from_user_str")] = {
      llvm::orc::ExecutorAddr::fromPtr(&uringc_host_copy_from_user_str), flags};
  if (auto e = lib.define(llvm::orc::absoluteSymbols(std::move(runtime)))) {
    error = llvm::toString(std::move(e));
    return nullptr;
  }
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    error = llvm::toString(process.takeError());
    return nullptr;
  }
  lib.addGenerator(std::move(*process));
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()),
                                                     std::string(graph) + ".o");
  if (auto e = (*jit)->addObjectFile(std::move(buffer))) {
    error = llvm::toString(std::move(e));
    return nullptr;
  }
  auto symbol = (*jit)->lookup(HostProgramSymbol(graph));
  if (!symbol) {
    error = llvm::toString(symbol.takeError());
    return nullptr;
  }
  std::unique_ptr<HostJit> out(new HostJit());
  out->program_ = symbol->toPtr<const uringc_program*>();
  out->jit_ = std::move(*jit);
  return out;
}

}  // namespace uringc::driver
