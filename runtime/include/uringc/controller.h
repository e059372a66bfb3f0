// A controller: one BPF object with one io_uring_bpf_ops struct_ops map, loaded for one ring.
//
// Life cycle: Open (file or memory) -> set parameters by name (buffers parameters with a pointer
// and a length, checked against the size the object declares) -> Load(ring) (sets `ring_fd`, the
// ring-layout constants the object declares, verifies) -> Attach (BPF link) -> Run -> Detach ->
// Attach again... Destroying the Controller detaches and unloads; the Ring may be destroyed
// before or after it. One Controller serves one ring (CVE-2026-72112: a struct_ops map registered on
// two rings is a use-after-free on 7.1.0-7.1.4), so Load happens once.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "uringc/host_abi.h"
#include "uringc/engine.h"
#include "uringc/globals.h"
#include "uringc/program.h"
#include "uringc/result.h"
#include "uringc/ring.h"
#include "uringc/run_loop.h"
#include "uringc/verifier_report.h"

struct bpf_object;
struct bpf_map;
struct bpf_link;

namespace uringc {

class HostEngine;

/// The largest verifier log the kernel accepts (UINT_MAX >> 2, kernel/bpf/log.c), and the
/// smallest that holds a useful tail.
constexpr size_t kMaxVerifierLogSize = 0xffffffffu >> 2;
constexpr size_t kMinVerifierLogSize = 128;

struct ControllerOptions {
  /// Name libbpf gives the object (map name prefix); default: the file name without `.bpf.o`.
  std::string object_name;
  /// The struct_ops map to use when the object has several; default: the only one.
  std::string ops_map;
  /// Bytes of verifier log kept per program (the tail: that is where the error is), from
  /// kMinVerifierLogSize to kMaxVerifierLogSize; memory is committed only as the kernel fills it.
  size_t log_size = 1 << 20;
  /// Where to write the verifier log of a failed load; empty for nowhere.
  std::string verifier_log_path;
  /// Check the kernel's BTF before loading and say what is missing.
  bool check_kernel = true;
  /// The source texts the object was compiled from, when the caller holds them: a verifier
  /// report quotes these instead of reading the files back (BuildVerifierReport).
  SourceTexts source_texts;
};

/// A buffers parameter: a `__u64` global holding the address of host memory the kernel reads and
/// writes, whose size the object declares as `.rodata __u64 uringc_buffer_bytes_<name>` (compiled
/// `.uring` graphs do for every `buffers[N] of SIZE` parameter: N * SIZE).
struct BufferParam {
  std::string name;
  uint64_t bytes = 0;
};

/// A shared buffers parameter (`shared buffers[N] of SIZE`): N * SIZE bytes of the ring's
/// parameter region at `offset`, declared as `.rodata __u64 uringc_shared_off_<name>` and
/// `uringc_shared_bytes_<name>`. The graph reads and writes them; the host finds them with
/// Controller::SharedBuffer once the controller is loaded.
struct SharedBufferParam {
  std::string name;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

// The size constants' prefix (kBufferBytesGlobalPrefix) and the fd parameters' BTF type name
// (kFdTypeName; C controllers declare `const volatile uringc_fd NAME`) come from the compiler's
// emit/host_abi.h, so both sides use one spelling.

/// Ring-layout constants a controller may declare as `const volatile __u32` globals; Load fills
/// each one it finds from the ring.
const std::vector<std::string>& RingConstantNames();

/// The largest object file OpenFile reads (compiled controllers are a few hundred KiB at most).
inline constexpr size_t kMaxObjectFileSize = size_t{64} << 20;

class Controller {
 public:
  /// Reads a regular file of at most kMaxObjectFileSize bytes (else EINVAL, EFBIG) and opens it.
  static Result<std::unique_ptr<Controller>> OpenFile(const std::string& path,
                                                      const ControllerOptions& options = {});
  static Result<std::unique_ptr<Controller>> OpenMemory(const void* data, size_t size,
                                                        const ControllerOptions& options = {});
  /// A program compiled with --target=host (uringc/program.h): on kKernel its BPF object, loaded
  /// as OpenMemory would; on kHost its native loop_step, with the object's BTF describing the
  /// globals (nothing is loaded into the kernel; no BPF privileges are needed).
  static Result<std::unique_ptr<Controller>> OpenProgram(const uringc_program& program,
                                                         Engine engine,
                                                         const ControllerOptions& options = {});
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  const GlobalTable& globals() const { return globals_; }
  /// Sets a global (or `struct.member`) from text, checked against its BTF type. Buffers
  /// parameters are refused here and by SetInt, SetUint, SetBytes: only SetBuffer sets them.
  Result<void> Set(const std::string& name, const std::string& text);
  Result<void> SetInt(const std::string& name, int64_t value);
  Result<void> SetUint(const std::string& name, uint64_t value);
  /// Raw bytes; size must equal the variable's.
  Result<void> SetBytes(const std::string& name, const void* data, size_t size);

  /// The controller can run on an SQ_REWIND ring: it reads `uringc_sq_rewind`, or never reads
  /// `uringc_sq_tail_off` (compiled controllers read the `sq_rewind` field of `uringc_ring`).
  /// Load refuses other controllers on such rings (kRingNotSupported); `uringc run --ring auto`
  /// gives them a tail ring.
  bool HandlesRewindRings() const;
  /// The controller runs only on an SQ_REWIND ring: it declares `uringc_needs_sq_rewind` = 1
  /// (`uringc compile --ring=rewind`, the default). Load refuses it on a ring with an SQ tail
  /// (kRingNotSupported; kNoBpfOps when the kernel refused RingMode::kAuto's SQ_REWIND ring).
  /// RingMode::kAuto makes SQ_REWIND rings wherever the kernel has them.
  bool NeedsRewindRing();

  /// `base` made to fit this controller (what Load's ring checks then accept): kAuto becomes
  /// kTail unless it HandlesRewindRings, and the parameter region grows to the `uringc_mem_min`
  /// a compiled controller declares. `uringc run` and ublk::Server create their rings with it.
  RingOptions FitRingOptions(RingOptions base);

  /// The buffers parameters the object declares, in declaration order.
  const std::vector<BufferParam>& buffer_params() const { return buffers_; }
  /// The bytes buffers parameter `name` needs (ENOENT/EINVAL when it is none).
  Result<uint64_t> BufferBytes(const std::string& name) const;
  /// Points buffers parameter `name` at `size` bytes at `data`, which must stay mapped while the
  /// controller is loaded. ENOBUFS when `size` is less than the declared bytes; EINVAL for a
  /// null `data` or a name that is no buffers parameter. Every buffers parameter must be set
  /// before Load.
  Result<void> SetBuffer(const std::string& name, void* data, size_t size);
  /// The shared buffers parameters the object declares, in declaration order.
  const std::vector<SharedBufferParam>& shared_buffer_params() const { return shared_; }
  /// The bytes of shared buffers parameter `name` in the ring's parameter region, which the host
  /// may read and write between runs (they start zeroed). Valid once loaded and while the ring
  /// lives; EINVAL before Load or for a name that is no shared buffers parameter.
  Result<std::span<uint8_t>> SharedBuffer(const std::string& name) const;
  /// Current value: the initial value before load, the kernel's after.
  Result<std::vector<uint8_t>> GetBytes(const std::string& name);
  Result<int64_t> GetInt(const std::string& name);
  Result<std::string> Format(const std::string& name);

  /// Binds to the ring and loads into the kernel. On a verifier rejection the error message holds
  /// the formatted diagnostic and verifier_report() the details.
  Result<void> Load(const Ring& ring);
  Result<void> Attach();
  Result<void> Detach();
  Result<RunOutcome> Run(const RunOptions& options = {});

  /// Instructions the verifier processed for the loaded programs, summed (the kernel's
  /// bpf_prog_info.verified_insns, the "processed N insns" of its log); EINVAL before Load.
  Result<uint64_t> VerifiedInsns() const;

  Engine engine() const { return host_ ? Engine::kHost : Engine::kKernel; }
  bool loaded() const { return loaded_; }
  bool attached() const { return link_ != nullptr || host_attached_; }
  const std::string& ops_map_name() const { return ops_name_; }
  /// The host engine running this controller; nullptr on the kernel engine.
  HostEngine* host_engine() const { return host_.get(); }
  /// Set after a load the verifier rejected.
  const VerifierReport* verifier_report() const {
    return has_report_ ? &report_ : nullptr;
  }
  /// Everything libbpf said during the last operation.
  const std::string& libbpf_messages() const { return libbpf_messages_; }
  /// After a load on the kernel engine: empty, or a known defect of the running kernel that
  /// concerns controllers (KernelReleaseWarning). Callers show it; the load went ahead.
  const std::string& kernel_warning() const { return kernel_warning_; }

 private:
  Controller() = default;
  Result<void> Init(const ControllerOptions& options);
  bpf_map* SectionMap(const std::string& section) const;
  Result<void> Write(const GlobalVar& v, const std::vector<uint8_t>& bytes);
  /// Finds the buffers parameters (the uringc_buffer_bytes_* constants) at open.
  Result<void> ReadBufferParams();
  /// EINVAL/EPERM when `v` is a buffers parameter or its size: only SetBuffer sets those.
  Result<void> CheckNotBuffer(const GlobalVar& v) const;
  /// Every buffers parameter has been given memory.
  Result<void> CheckBuffersSet();
  Result<void> SetRingConstants(const Ring& ring);
  /// The ring meets what a compiled controller declares (uringc_mem_min, uringc_sq_max), an
  /// SQ_REWIND ring only a controller that HandlesRewindRings, and a ring with an SQ tail only
  /// one that does not NeedsRewindRing.
  Result<void> CheckRingFits(const Ring& ring);
  /// The object declares the `.rodata` flag `name` (uringc_needs_submit_all,
  /// uringc_needs_sq_rewind) and it is not 0.
  bool DeclaresFlag(const char* name);
  Result<void> ReportLoadFailure(int err);
  /// The bytes of `section` where the globals live now: the host engine's state, else libbpf's
  /// copy before load; nullptr after a kernel load (the kernel's map holds them then).
  uint8_t* LocalSection(const std::string& section, size_t* size) const;
  Result<void> LoadOnHost(const Ring& ring);

  std::vector<uint8_t> elf_;
  std::string name_;
  ControllerOptions options_;
  bpf_object* object_ = nullptr;
  bpf_map* ops_ = nullptr;
  std::string ops_name_;
  bpf_link* link_ = nullptr;
  GlobalTable globals_;
  std::vector<BufferParam> buffers_;
  std::vector<SharedBufferParam> shared_;
  /// Registers and fills the buffer ring of the graph's `provided` pool, if it has one.
  Result<void> ProvidePool(const Ring& ring);
  /// Registers the host buffers parameters that declare `uringc_fixed_<p>` as fixed buffers
  /// and sets those globals (kFixedBufferFlag | their index), so reads and writes use the fixed
  /// opcodes.
  Result<void> RegisterFixedBuffers(const Ring& ring);
  std::string fixed_buffers_error_;  ///< why the kernel refused them, if it did
  uint8_t* region_ = nullptr;  ///< the ring's parameter region, once loaded
  size_t region_size_ = 0;
  bool loaded_ = false;
  std::shared_ptr<RingHandle> ring_;
  std::vector<std::pair<std::string, std::unique_ptr<char[]>>> log_bufs_;  // program -> log
  VerifierReport report_;
  bool has_report_ = false;
  std::string libbpf_messages_;
  std::string kernel_warning_;
  std::unique_ptr<HostEngine> host_;  ///< the host engine's, for Engine::kHost
  bool host_attached_ = false;
};

}  // namespace uringc
