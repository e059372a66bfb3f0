// The front end on one fuzzer input: the bytes become the root module of a Compilation (a path
// that does not exist, so imports resolve only against the stdlib) and the whole pipeline runs
// over it. Shared by the front-end and back-end fuzzers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "driver/compilation.h"
#include "driver/pipeline.h"

namespace uringc::fuzz {

inline void RunFrontEnd(driver::Compilation& c, const uint8_t* data, size_t size) {
  c.options.stdlib_dir = URINGC_FUZZ_STDLIB;
  c.program.stdlib_dir = c.options.stdlib_dir;
  sema::Module root;
  root.path = "/nonexistent-fuzz-dir/input.uring";
  root.file_id = c.sources.Add(root.path, std::string(reinterpret_cast<const char*>(data), size));
  c.program.modules.push_back(std::move(root));
  driver::RunPipeline(c, driver::FrontendPhases(), "");
}

}  // namespace uringc::fuzz
