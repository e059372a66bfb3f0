// The load generator (loadgen.h): non-blocking sockets under one level-triggered epoll; each
// connection has one request in flight and compares the reply with the one it expects as the
// bytes arrive.
#include "loadgen.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace uringc_bench {
namespace {

using Clock = std::chrono::steady_clock;

int Connect(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0) {
    close(fd);
    return -1;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

struct Conn {
  int fd = -1;
  int index = 0;
  uint64_t seq = 0;
  std::string request, reply;  // what is sent, what must come back
  size_t got = 0;              // bytes of `reply` received so far
  bool waiting = false;
  Clock::time_point sent_at;
};

// The next request of `c` and the reply it expects.
void Prepare(const LoadSpec& spec, Conn& c) {
  if (spec.protocol == "file") {
    if (c.request.empty()) {
      const uint32_t l = static_cast<uint32_t>(spec.key.size());
      c.request.assign(reinterpret_cast<const char*>(&l), 4);
      c.request += spec.key;
      const int32_t status = 0;
      const uint32_t n = static_cast<uint32_t>(spec.expected.size());
      c.reply.assign(reinterpret_cast<const char*>(&status), 4);
      c.reply.append(reinterpret_cast<const char*>(&n), 4);
      c.reply += spec.expected;
    }
    return;
  }
  c.request.resize(spec.message);
  for (uint32_t i = 0; i < spec.message; ++i) {
    c.request[i] = static_cast<char>(c.index * 7 + c.seq * 13 + i);
  }
  c.reply = c.request;
}

// Sends the whole request (it is small: the socket's buffer takes it at once, or soon).
bool Send(Conn& c, std::string* error) {
  size_t off = 0;
  while (off < c.request.size()) {
    const ssize_t n = send(c.fd, c.request.data() + off, c.request.size() - off, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      std::this_thread::yield();
      continue;
    }
    if (n <= 0) {
      *error = "connection " + std::to_string(c.index) + ": send: " + strerror(errno);
      return false;
    }
    off += static_cast<size_t>(n);
  }
  c.sent_at = Clock::now();
  c.waiting = true;
  return true;
}

// Reads what is there; true with `*done` when the reply is complete. A byte that differs, or an
// EOF, is an error.
bool Receive(Conn& c, bool* done, std::string* error) {
  char buf[65536 + 16];
  *done = false;
  while (true) {
    const size_t want = std::min(sizeof(buf), c.reply.size() - c.got);
    const ssize_t n = recv(c.fd, buf, want, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    if (n <= 0) {
      *error = "connection " + std::to_string(c.index) + ": " +
               (n == 0 ? std::string("the server closed it") : "recv: " + std::string(strerror(errno))) +
               " after " + std::to_string(c.got) + " of " + std::to_string(c.reply.size()) +
               " reply bytes";
      return false;
    }
    if (std::memcmp(buf, c.reply.data() + c.got, static_cast<size_t>(n)) != 0) {
      *error = "connection " + std::to_string(c.index) + ": the reply to request " +
               std::to_string(c.seq) + " differs from what was expected near byte " +
               std::to_string(c.got);
      return false;
    }
    c.got += static_cast<size_t>(n);
    if (c.got == c.reply.size()) {
      *done = true;
      c.got = 0;
      c.waiting = false;
      return true;
    }
  }
}

double Percentile(std::vector<uint32_t>& v, double p) {
  if (v.empty()) return 0;
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(i), v.end());
  return v[i] / 1000.0;
}

}  // namespace

bool WaitForPort(uint16_t port, double timeout) {
  const auto end = Clock::now() + std::chrono::duration<double>(timeout);
  while (Clock::now() < end) {
    const int fd = Connect(port);
    if (fd >= 0) {
      close(fd);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

LoadResult RunLoad(const LoadSpec& spec) {
  LoadResult r;
  std::vector<Conn> conns(static_cast<size_t>(spec.conns));
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  for (size_t i = 0; i < conns.size() && r.error.empty(); ++i) {
    conns[i].index = static_cast<int>(i);
    conns[i].fd = Connect(spec.port);
    if (conns[i].fd < 0) {
      r.error = "cannot connect to 127.0.0.1:" + std::to_string(spec.port) + ": " + strerror(errno);
      break;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
  }
  // A server may listen before it serves (`uringc-run` opens the listener, then loads and
  // verifies the controller): one round trip on the first connection before the clock starts.
  if (r.error.empty()) {
    Conn& c = conns[0];
    Prepare(spec, c);
    const auto t0 = Clock::now();
    bool done = false;
    if (Send(c, &r.error)) {
      while (!done && r.error.empty()) {
        epoll_event ev;
        if (epoll_wait(ep, &ev, 1, 30'000) == 0) {
          r.error = "no reply to a first request within 30 s: the server does not serve";
          break;
        }
        Receive(c, &done, &r.error);
      }
    }
    r.ready_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    ++c.seq;
  }
  std::vector<uint32_t> latencies;  // ns, inside the window
  latencies.reserve(1 << 20);
  const auto start = Clock::now();
  const auto window_start = start + std::chrono::duration<double>(spec.warmup);
  const auto window_end = window_start + std::chrono::duration<double>(spec.seconds);
  for (Conn& c : conns) {
    if (!r.error.empty()) break;
    Prepare(spec, c);
    Send(c, &r.error);
  }
  size_t waiting = r.error.empty() ? conns.size() : 0;
  std::vector<epoll_event> events(conns.size());
  bool opened = false, closed = false;
  while (waiting > 0 && r.error.empty()) {
    const int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), 10'000);
    if (n == 0) {
      r.error = std::to_string(waiting) + " replies did not come within 10 s";
      break;
    }
    const auto now = Clock::now();
    if (r.first_reply_ms == 0) {
      r.first_reply_ms = std::chrono::duration<double, std::milli>(now - start).count();
    }
    if (!opened && now >= window_start) {
      opened = true;
      if (spec.window_opened) spec.window_opened();
    }
    if (!closed && now >= window_end) {
      closed = true;
      if (spec.window_closed) spec.window_closed();
    }
    for (int e = 0; e < n && r.error.empty(); ++e) {
      Conn& c = conns[events[e].data.u64];
      bool done = false;
      if (!Receive(c, &done, &r.error) || !done) continue;
      if (c.sent_at >= window_start && now <= window_end) {
        latencies.push_back(static_cast<uint32_t>(std::min<int64_t>(
            UINT32_MAX, std::chrono::duration_cast<std::chrono::nanoseconds>(now - c.sent_at)
                            .count())));
      }
      if (now >= window_end) {
        --waiting;  // the window is over: this connection stops here
        continue;
      }
      ++c.seq;
      Prepare(spec, c);
      Send(c, &r.error);
    }
  }
  for (Conn& c : conns) {
    if (c.fd >= 0) close(c.fd);
  }
  close(ep);
  r.requests = latencies.size();
  if (r.error.empty() && r.requests == 0) {
    r.error = "no reply to a request sent inside the " + std::to_string(spec.seconds) +
              " s window came back inside it";
  }
  r.seconds = spec.seconds;
  r.p50_us = Percentile(latencies, 0.50);
  r.p99_us = Percentile(latencies, 0.99);
  r.max_us = Percentile(latencies, 1.0);
  return r;
}

}  // namespace uringc_bench
