// What ublk_cli_test.cpp drives a real `uringc ublk add` with: the command as a child process
// whose stdout gives the device, tools (busybox dd, fio) run to their exit status, files with
// known bytes, and a writer that records which 4 KiB blocks the device acknowledged. Where the
// binaries are: URINGC_BIN, URINGC_FIO and URINGC_UBLK_TARGETS (the VM's copies), else the
// build's uringc, /usr/bin/fio and the source tree's examples/ublk.
#pragma once

#include <dirent.h>
#include <algorithm>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernel_test_util.h"

namespace uringc_test {

inline std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}
inline std::string Uringc() { return EnvOr("URINGC_BIN", URINGC_TEST_URINGC); }
inline std::string Fio() { return EnvOr("URINGC_FIO", "/usr/bin/fio"); }
inline std::string Target(const std::string& name) {
  return EnvOr("URINGC_UBLK_TARGETS", URINGC_TEST_UBLK_TARGETS) + "/" + name + ".uring";
}

inline std::string ToolsWhy() {
  for (const std::string& tool : {Uringc(), Fio(), std::string("/bin/busybox")}) {
    if (access(tool.c_str(), X_OK) != 0) return tool + " is missing (fio: apt-get install fio)";
  }
  return "";
}
inline bool ToolsPresent() { return ToolsWhy().empty(); }

/// `size` bytes that differ from seed to seed and from place to place.
inline std::string Pattern(size_t size, uint32_t seed) {
  std::string out(size, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (char& c : out) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  return out;
}

/// What BlockWriter writes into 4 KiB block `b`.
inline std::string BlockPattern(uint64_t b) {
  std::string out(4096, '\0');
  for (size_t i = 0; i < out.size(); i += 8) {
    const uint64_t w = (b + 1) * 0x9E3779B97F4A7C15ull ^ i;
    std::memcpy(&out[i], &w, 8);
  }
  return out;
}

/// Writes `content` to `path` and makes it `size` bytes long (at least the content).
inline void MakeFile(const std::string& path, size_t size, const std::string& content = "") {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  if (size > content.size()) {
    if (truncate(path.c_str(), static_cast<off_t>(size)) != 0) ADD_FAILURE() << path;
  }
}

/// `len` bytes of `path` at `off` (fewer at its end).
inline std::string FileBytes(const std::string& path, uint64_t off, size_t len) {
  std::string out(len, '\0');
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  ssize_t n = pread(fd, out.data(), len, static_cast<off_t>(off));
  close(fd);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

inline std::vector<std::string> UblkCharDevices() {
  std::vector<std::string> out;
  if (DIR* d = opendir("/dev")) {
    while (dirent* e = readdir(d)) {
      if (std::strncmp(e->d_name, "ublkc", 5) == 0) out.push_back(e->d_name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline int ExitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/// Starts `argv` with stdout on `out` (-1: the log too) and stderr on the file `log`.
inline pid_t Spawn(const std::vector<std::string>& argv, int out, const std::string& log) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out >= 0 ? out : fd, 1);
    dup2(fd, 2);
    std::vector<char*> c;
    for (const std::string& a : argv) c.push_back(const_cast<char*>(a.c_str()));
    c.push_back(nullptr);
    execv(c[0], c.data());
    _exit(127);
  }
  return pid;
}

/// Runs `argv` to its end; its output goes to a log printed when it fails. The exit status.
inline int RunTool(const std::vector<std::string>& argv) {
  const std::string log = "/tmp/tool.log";
  pid_t pid = Spawn(argv, -1, log);
  int status = 0;
  waitpid(pid, &status, 0);
  const int code = ExitStatus(status);
  if (code != 0) {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    ADD_FAILURE() << argv[0] << " " << (argv.size() > 1 ? argv[1] : "") << " exited with " << code
                  << ":\n" << text.str().substr(0, 4000);
  }
  return code;
}

/// `uringc ublk ARGS... --engine E` as a child process (E from URINGC_TEST_ENGINE unless ARGS
/// name one).
class ServerProcess {
 public:
  explicit ServerProcess(std::vector<std::string> args) {
    args.insert(args.begin(), {Uringc(), "ublk"});
    if (std::find(args.begin(), args.end(), "--engine") == args.end()) {
      args.insert(args.end(), {"--engine", OnHostEngine() ? "host" : "kernel"});
    }
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return;
    log_path_ = "/tmp/ublk-server-" + std::to_string(getpid()) + "-" +
                std::to_string(counter_++) + ".log";
    pid_ = Spawn(args, out[1], log_path_);
    close(out[1]);
    out_ = out[0];
    // The first line is the device, once it exists (compiling and loading come first).
    ReadUntil([this] { return stdout_.find('\n') != std::string::npos; }, 120);
    const std::string first = stdout_.substr(0, stdout_.find('\n'));
    if (first.rfind("/dev/ublkb", 0) == 0) {
      device_ = first;
      dev_id_ = std::atoi(first.c_str() + 10);
    }
  }
  ~ServerProcess() {
    if (pid_ > 0) Kill();
    if (out_ >= 0) close(out_);
  }

  bool started() const { return !device_.empty(); }
  const std::string& device() const { return device_; }
  int dev_id() const { return dev_id_; }
  std::string char_device() const { return "/dev/ublkc" + std::to_string(dev_id_); }
  /// What it printed on stdout after the device (each queue's outputs, once stopped).
  std::string output() const { return stdout_; }
  /// Its stderr.
  std::string log() const {
    std::ifstream in(log_path_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  /// Sends `sig` (0: none, it ends by itself) and waits up to 60 s: the exit status.
  int Stop(int sig) {
    if (pid_ <= 0) return -1;
    if (sig != 0) kill(pid_, sig);
    ReadUntil([] { return false; }, 60);
    int status = 0;
    for (int i = 0; i < 100 && waitpid(pid_, &status, WNOHANG) == 0; ++i) usleep(100000);
    if (waitpid(pid_, &status, WNOHANG) == 0) {
      ADD_FAILURE() << "uringc ublk did not end within 70 s";
      Kill();
      return -1;
    }
    pid_ = -1;
    return ExitStatus(status);
  }

  void Kill() {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  // Reads stdout until `done` or EOF or `seconds` pass.
  template <class Done>
  void ReadUntil(Done done, int seconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    char buf[4096];
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      ssize_t n = read(out_, buf, sizeof buf);
      if (n <= 0) break;
      stdout_.append(buf, static_cast<size_t>(n));
    }
  }

  static inline int counter_ = 0;
  pid_t pid_ = -1;
  int out_ = -1;
  std::string log_path_;
  std::string stdout_;
  std::string device_;
  int dev_id_ = -1;
};

/// Writes BlockPattern(b) to 4 KiB block b of `device` (O_DIRECT, one at a time, wrapping
/// around) until a write fails; acked() is how many blocks are on the device for sure.
class BlockWriter {
 public:
  BlockWriter(const std::string& device, uint64_t blocks)
      : thread_([this, device, blocks] { Write(device, blocks); }) {}
  ~BlockWriter() {
    if (thread_.joinable()) Join();
  }
  void WaitFor(uint64_t n) {
    for (int i = 0; i < 2000 && acked_ < n && !ended_; ++i) usleep(10000);
  }
  /// Waits for the first failed write (20 s at most): the blocks acknowledged.
  uint64_t Join() {
    for (int i = 0; i < 2000 && !ended_; ++i) usleep(10000);
    if (!ended_) ADD_FAILURE() << "writes still succeed 20 s after the device should be gone";
    stop_ = true;
    thread_.join();
    return acked_;
  }
  const std::string& end() const { return end_; }

 private:
  void Write(const std::string& device, uint64_t blocks) {
    int fd = open(device.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    void* buf = std::aligned_alloc(4096, 4096);
    if (fd < 0) end_ = std::string("open: ") + std::strerror(errno);
    for (uint64_t i = 0; fd >= 0 && !stop_; ++i) {
      const uint64_t b = i % blocks;
      std::memcpy(buf, BlockPattern(b).data(), 4096);
      if (pwrite(fd, buf, 4096, static_cast<off_t>(b * 4096)) != 4096) {
        end_ = std::string("write failed: ") + std::strerror(errno);
        break;
      }
      if (acked_ < blocks) acked_ = std::min(i + 1, blocks);
    }
    if (fd >= 0) close(fd);
    std::free(buf);
    ended_ = true;
  }

  std::atomic<uint64_t> acked_{0};
  std::atomic<bool> ended_{false};
  std::atomic<bool> stop_{false};
  std::string end_;
  std::thread thread_;
};

}  // namespace uringc_test
