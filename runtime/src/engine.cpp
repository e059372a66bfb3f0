// Choosing an engine; see engine.h.
#include "uringc/engine.h"

#include "uringc/features.h"

namespace uringc {

const char* EngineName(Engine engine) { return engine == Engine::kHost ? "host" : "kernel"; }

bool ParseEngineChoice(const std::string& text, EngineChoice* choice) {
  if (text == "auto")
    *choice = EngineChoice::kAuto;
  else if (text == "kernel")
    *choice = EngineChoice::kKernel;
  else if (text == "host")
    *choice = EngineChoice::kHost;
  else
    return false;
  return true;
}

EngineDecision ChooseEngine(EngineChoice choice, bool has_host_code) {
  if (choice == EngineChoice::kKernel) return {Engine::kKernel, "kernel: asked for"};
  if (choice == EngineChoice::kHost) return {Engine::kHost, "host: asked for"};
  std::string why_not;
  auto features = DetectKernelFeatures();
  if (!features) {
    why_not = features.error().message;
  } else if (auto ok = CheckKernelFeatures(*features); !ok) {
    why_not = ok.error().message;
  } else {
    why_not = MissingPrivileges(ReadPrivileges());
    if (why_not.empty()) {
      return {Engine::kKernel, "kernel: this kernel (" + ShortRelease(features->release) +
                                   ") has io_uring_bpf_ops and this process may load it"};
    }
  }
  if (!has_host_code) return {Engine::kKernel, "kernel: the object has no host code"};
  // The first line of the reason is the sentence; the rest (what to install), and the advice to
  // use a VM, are for someone who asked for the kernel engine.
  std::string why = why_not.substr(0, why_not.find('\n'));
  why = why.substr(0, why.find(" (try "));
  return {Engine::kHost, "host: " + why};
}

}  // namespace uringc
