// The runtime's libbpf print callback (see libbpf_messages.h).
#include "uringc/libbpf_messages.h"

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace uringc {
namespace {

thread_local std::string* current_sink = nullptr;

int Print(enum libbpf_print_level level, const char* format, va_list args) {
  static const bool debug = [] {
    const char* v = std::getenv("URINGC_LIBBPF_DEBUG");
    return v && strcmp(v, "1") == 0;
  }();
  if (debug) {
    va_list copy;
    va_copy(copy, args);
    vfprintf(stderr, format, copy);
    va_end(copy);
  }
  if (level == LIBBPF_DEBUG || !current_sink) return 0;
  va_list copy;
  va_copy(copy, args);
  const int n = vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (n <= 0) return 0;
  std::string line(static_cast<size_t>(n), '\0');
  vsnprintf(line.data(), line.size() + 1, format, args);
  // Keep the sink bounded: libbpf can print whole verifier logs.
  constexpr size_t kMax = 1 << 20;
  if (current_sink->size() + line.size() > kMax) current_sink->erase(0, line.size());
  *current_sink += line;
  return n;
}

}  // namespace

LibbpfCapture::LibbpfCapture(std::string* sink) : previous_(current_sink) {
  static std::once_flag once;
  std::call_once(once, [] { libbpf_set_print(Print); });
  current_sink = sink;
}

LibbpfCapture::~LibbpfCapture() { current_sink = previous_; }

}  // namespace uringc
