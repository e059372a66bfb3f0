// Sockets named by `--arg NAME=tcp-listen:HOST:PORT` and its kin, so that a server graph runs
// from the command line: the command makes the socket (listening, or connected), hands its fd to
// the fd parameter, and closes it when it ends. A listening socket's address is reported on
// stderr (port 0 picks a free one, which the line names). A Unix socket file the command bound is
// removed when it ends, also on SIGINT/SIGTERM before the run starts (interrupt.h); an existing
// file at that path is never replaced.
#pragma once

#include <string>
#include <vector>

#include "uringc/result.h"

namespace uringc {

/// The kinds `--arg NAME=KIND:ADDRESS` understands, or "" when `kind` is none of them.
bool IsSocketKind(const std::string& kind);
/// `tcp-addr` and `unix-addr`: no socket, the address itself (a `struct sockaddr`) as the bytes
/// of a buffers parameter, for a graph that makes its own connections.
bool IsAddressKind(const std::string& kind);
/// The `struct sockaddr_in`/`sockaddr_in6` (16 or 28 bytes; HOST resolved, the first answer) or
/// `struct sockaddr_un` (110 bytes) that ADDRESS names.
Result<std::string> SocketAddressBytes(const std::string& param, const std::string& kind,
                                       const std::string& address);

/// Checks ADDRESS for KIND without opening anything: HOST:PORT (HOST an IPv4 address, a name, or
/// an IPv6 address in brackets; PORT 0 to 65535) for tcp-*, a path of at most 107 bytes for
/// unix-*.
Result<void> CheckSocketAddress(const std::string& param, const std::string& kind,
                                const std::string& address);

class ArgSockets {
 public:
  ArgSockets() = default;
  ArgSockets(const ArgSockets&) = delete;
  ArgSockets& operator=(const ArgSockets&) = delete;
  /// Closes every socket and removes the Unix socket files it bound.
  ~ArgSockets();

  /// Makes the socket for parameter `param`; returns its fd. For a listening socket `where`
  /// says what it listens on: `tcp:127.0.0.1:40123`, `tcp:[::1]:8080`, `unix:/run/s.sock`.
  Result<int> Open(const std::string& param, const std::string& kind, const std::string& address,
                   std::string* where);

 private:
  std::vector<int> fds_;
  std::vector<std::string> bound_paths_;
};

}  // namespace uringc
