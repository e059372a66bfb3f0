// libFuzzer target: any byte string goes through parse, every sema pass and lowering. The bar is
// "diagnostics or success": no crash, hang, or sanitizer report, and every diagnostic has a
// location. Built with clang (-fsanitize=fuzzer,address) by the URINGC_FUZZ option.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "driver/compilation.h"
#include "driver/pipeline.h"
#include "rgir/rgir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;
  uringc::driver::Compilation c;
  c.options.stdlib_dir = URINGC_FUZZ_STDLIB;
  c.program.stdlib_dir = c.options.stdlib_dir;
  uringc::sema::Module root;
  root.path = "/nonexistent-fuzz-dir/input.uring";
  root.file_id = c.sources.Add(root.path, std::string(reinterpret_cast<const char*>(data), size));
  c.program.modules.push_back(std::move(root));
  uringc::driver::RunPipeline(c, "");
  for (const uringc::Diagnostic& d : c.diagnostics.items()) {
    if (d.range.file == 0 || c.sources.Get(d.range.file) == nullptr) abort();  // no location
  }
  if (c.rgir) {
    for (const auto& g : c.rgir->graphs) {
      if (!uringc::rgir::Verify(g).empty()) abort();
    }
  }
  return 0;
}
