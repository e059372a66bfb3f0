// The front end on one fuzzer input: the bytes become the root module of a Compilation (a path
// that does not exist, so imports resolve only against the stdlib) and the whole pipeline runs
// over it. Shared by the front-end and back-end fuzzers.
//
// The pipeline runs on a thread with a 64 MiB stack. The parser lets expressions nest 1,500 deep
// (parse/parser.h), which the compiler as built checks in under 2 MiB of the 8 MiB main stack;
// AddressSanitizer's redzones make each frame several times larger, and the fuzzer found a chain
// of 1,480 `+` that overflowed the fuzz binary's stack only. The limit is the compiler's, the
// stack is the sanitizer's cost.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
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
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64u << 20);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    driver::RunPipeline(*static_cast<driver::Compilation*>(arg), driver::FrontendPhases(), "");
    return nullptr;
  };
  if (pthread_create(&thread, &attr, run, &c) != 0) abort();
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

}  // namespace uringc::fuzz
