// The server benchmark's load generator: C connections to a server on 127.0.0.1, each a closed
// loop (send a request, wait for the whole reply, check it byte for byte, send the next), for a
// warm-up and then a measured window; requests/s and latency percentiles of the window. One
// thread and epoll, so it costs the same whichever server it drives.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace uringc_bench {

struct LoadSpec {
  std::string protocol;      ///< echo (a message comes back as sent) or file (fileserver.uring)
  uint16_t port = 0;
  int conns = 1;
  double warmup = 0.5;       ///< seconds before the window
  double seconds = 2;        ///< the measured window
  uint32_t message = 64;     ///< echo: bytes per request
  std::string key;           ///< file: the key asked for
  std::string expected;      ///< file: the file's contents, the reply's body
  /// Called when the first reply after the window's start, and after its end, comes in: the
  /// caller's readings of what the window cost.
  std::function<void()> window_opened, window_closed;
};

struct LoadResult {
  uint64_t requests = 0;     ///< replies completed inside the window
  double seconds = 0;        ///< the window's length
  double p50_us = 0, p99_us = 0, max_us = 0;
  double ready_ms = 0;       ///< the round trip before the clock starts: the server's start-up
  double first_reply_ms = 0; ///< from the clock's start to the first reply
  std::string error;         ///< empty when every reply was right
};

/// Drives the server at `spec.port`, once one round trip showed that it serves; when the window
/// ends, waits for every reply in flight (so the server never sees a connection cut
/// mid-request) and closes the connections.
LoadResult RunLoad(const LoadSpec& spec);

/// Whether a TCP connection to 127.0.0.1:`port` succeeds within `timeout` seconds (it is closed
/// at once): the server is up.
bool WaitForPort(uint16_t port, double timeout);

}  // namespace uringc_bench
