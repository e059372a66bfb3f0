// libFuzzer target: any byte string goes through parse, every sema pass and lowering. The bar is
// "diagnostics or success": no crash, hang, or sanitizer report, and every diagnostic has a
// location. Built with clang (-fsanitize=fuzzer,address) by the URINGC_FUZZ option.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "driver/compilation.h"
#include "front_end_input.h"
#include "rgir/rgir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;
  uringc::driver::Compilation c;
  uringc::fuzz::RunFrontEnd(c, data, size);
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
