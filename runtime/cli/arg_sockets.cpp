// Sockets named by --arg (see arg_sockets.h).
#include "arg_sockets.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "interrupt.h"
#include "uringc/numbers.h"

namespace uringc {
namespace {

constexpr const char* kKinds[] = {"tcp-listen", "tcp-connect", "unix-listen", "unix-connect",
                                  "tcp-addr",   "unix-addr"};

bool IsTcp(const std::string& kind) { return kind.rfind("tcp-", 0) == 0; }
bool IsListen(const std::string& kind) {
  return kind.size() > 7 && kind.substr(kind.size() - 7) == "-listen";
}

Error SocketError(const std::string& param, const std::string& kind, const std::string& address,
                  int err, const std::string& what) {
  return MakeError(DiagKind::kFileError, err,
                   "--arg " + param + "=" + kind + ":" + address + ": " + what);
}

// HOST and PORT of `address` (HOST:PORT, [V6]:PORT), or an error naming what is wrong.
Result<std::pair<std::string, uint16_t>> SplitHostPort(const std::string& param,
                                                       const std::string& kind,
                                                       const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return SocketError(param, kind, address, EINVAL,
                       "expected HOST:PORT (for example 127.0.0.1:8080)");
  }
  std::string host = address.substr(0, colon);
  const std::string port_text = address.substr(colon + 1);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']')
      return SocketError(param, kind, address, EINVAL,
                         "an IPv6 address goes in brackets: [::1]:8080");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return SocketError(param, kind, address, EINVAL,
                       "an IPv6 address goes in brackets: [::1]:8080");
  }
  auto port = ParseUnsigned(port_text);
  if (!port || *port > 65535) {
    return SocketError(param, kind, address, EINVAL,
                       "`" + port_text + "` is not a port (0 to 65535; 0 picks a free one)");
  }
  return std::make_pair(host, static_cast<uint16_t>(*port));
}

// A Unix socket path: not empty, and short enough for sockaddr_un.
Result<void> CheckUnixPath(const std::string& param, const std::string& kind,
                           const std::string& path) {
  if (path.empty()) return SocketError(param, kind, path, EINVAL, "the path is empty");
  if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    return SocketError(param, kind, path, ENAMETOOLONG,
                       "a Unix socket path has at most " +
                           std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) + " bytes");
  }
  return {};
}

std::string Describe(const sockaddr_storage& ss) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (ss.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return "tcp:" + std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
  }
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&ss);
  inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
  return "tcp:[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
}

}  // namespace

bool IsAddressKind(const std::string& kind) {
  return kind == "tcp-addr" || kind == "unix-addr";
}

Result<std::string> SocketAddressBytes(const std::string& param, const std::string& kind,
                                       const std::string& address) {
  if (!IsTcp(kind)) {
    if (auto ok = CheckUnixPath(param, kind, address); !ok) return ok.error();
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    std::memcpy(un.sun_path, address.data(), address.size());
    return std::string(reinterpret_cast<const char*>(&un), sizeof un);
  }
  auto hp = SplitHostPort(param, kind, address);
  if (!hp) return hp.error();
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(hp->second);
  if (int rc = getaddrinfo(hp->first.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return SocketError(param, kind, address, rc == EAI_SYSTEM ? errno : EINVAL,
                       "cannot resolve `" + hp->first + "`: " + gai_strerror(rc));
  }
  std::string bytes(reinterpret_cast<const char*>(found->ai_addr), found->ai_addrlen);
  freeaddrinfo(found);
  return bytes;
}

bool IsSocketKind(const std::string& kind) {
  for (const char* k : kKinds)
    if (kind == k) return true;
  return false;
}

Result<void> CheckSocketAddress(const std::string& param, const std::string& kind,
                                const std::string& address) {
  if (IsTcp(kind)) {
    auto hp = SplitHostPort(param, kind, address);
    if (!hp) return hp.error();
    return {};
  }
  return CheckUnixPath(param, kind, address);
}

ArgSockets::~ArgSockets() {
  for (int fd : fds_) close(fd);
  for (const std::string& path : bound_paths_) {
    unlink(path.c_str());
    KeepOnSignal(path);
  }
}

Result<int> ArgSockets::Open(const std::string& param, const std::string& kind,
                             const std::string& address, std::string* where) {
  const bool listen_kind = IsListen(kind);
  // errno with `what` and its text; read first, as building the message may change errno.
  auto failed = [&](const std::string& what) {
    const int err = errno;
    return SocketError(param, kind, address, err, what + strerror(err));
  };
  if (!IsTcp(kind)) {
    if (auto ok = CheckUnixPath(param, kind, address); !ok) return ok.error();
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    std::memcpy(un.sun_path, address.data(), address.size());
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return failed("");
    fds_.push_back(fd);
    if (!listen_kind) {
      if (connect(fd, reinterpret_cast<sockaddr*>(&un), sizeof un) != 0)
        return failed("cannot connect: ");
      return fd;
    }
    {
      SignalBlock block;  // bound and registered for removal, or neither
      if (bind(fd, reinterpret_cast<sockaddr*>(&un), sizeof un) != 0) {
        const int err = errno;
        return SocketError(param, kind, address, err,
                           err == EADDRINUSE
                               ? "the path exists already (remove it, or name another)"
                               : "cannot bind: " + std::string(strerror(err)));
      }
      bound_paths_.push_back(address);
      RemoveOnSignal(address);
    }
    if (listen(fd, SOMAXCONN) != 0) return failed("cannot listen: ");
    *where = "unix:" + address;
    return fd;
  }

  auto hp = SplitHostPort(param, kind, address);
  if (!hp) return hp.error();
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (listen_kind ? AI_PASSIVE : 0);
  addrinfo* found = nullptr;
  const std::string port = std::to_string(hp->second);
  if (int rc = getaddrinfo(hp->first.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return SocketError(param, kind, address, rc == EAI_SYSTEM ? errno : EINVAL,
                       "cannot resolve `" + hp->first + "`: " + gai_strerror(rc));
  }
  int err = 0;
  int fd = -1;
  for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    const int one = 1;
    bool ok = listen_kind
                  ? setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
                        bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0
                  : connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    if (!ok) {
      err = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return SocketError(
        param, kind, address, err,
        std::string(listen_kind ? "cannot listen: " : "cannot connect: ") + strerror(err));
  }
  fds_.push_back(fd);
  if (listen_kind) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
    *where = Describe(ss);
  }
  return fd;
}

}  // namespace uringc
