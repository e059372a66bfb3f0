// libbpf reports through one process-wide print callback. The runtime installs its own once and
// collects messages per thread into whichever LibbpfCapture is active, so each error can quote what
// libbpf said instead of libbpf printing to stderr. URINGC_LIBBPF_DEBUG=1 echoes everything.
#pragma once

#include <string>

namespace uringc {

/// Collects libbpf's warnings and info lines on this thread while it lives.
class LibbpfCapture {
 public:
  explicit LibbpfCapture(std::string* sink);
  ~LibbpfCapture();
  LibbpfCapture(const LibbpfCapture&) = delete;
  LibbpfCapture& operator=(const LibbpfCapture&) = delete;

 private:
  std::string* previous_;
};

}  // namespace uringc
