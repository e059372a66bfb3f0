// ublk's control plane: creating, starting, stopping and deleting a ublk block device whose I/O a
// controller serves (issue 16, docs/ublk.md).
//
// A ublk device has a control side (`/dev/ublk-control`, commands on an SQE128 ring) and, per
// device, a character device `/dev/ublkcN` that its server opens: each queue's I/O descriptors are
// a read-only mmap of it, and its I/O commands (FETCH, COMMIT_AND_FETCH) are uring_cmds on that fd,
// issued on the queue's own ring by the controller attached to it. The block device `/dev/ublkbN`
// appears once START_DEV returns, which the driver lets happen only after every tag of every queue
// has a FETCH pending: so START runs on another thread than the queues' loops.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "uringc/result.h"

namespace uringc::ublk {

/// The ublk I/O command opcodes (ioctl-encoded, `_IOWR('u', 0x20/0x21, struct ublksrv_io_cmd)`),
/// what a controller puts into an IORING_OP_URING_CMD SQE's cmd_op.
inline constexpr uint32_t kFetchReq = 0xC0107520u;
inline constexpr uint32_t kCommitAndFetchReq = 0xC0107521u;
/// A FETCH/COMMIT_AND_FETCH completion's result when the device stops: the tag gets no more
/// requests (UBLK_IO_RES_ABORT).
inline constexpr int kIoResAbort = -19;  // -ENODEV
/// Bytes of one I/O descriptor (struct ublksrv_io_desc: op_flags, nr_sectors, start_sector, addr).
inline constexpr uint32_t kDescBytes = 24;
/// The driver's limits: tags per queue (UBLK_MAX_QUEUE_DEPTH) and queues per device.
inline constexpr uint32_t kMaxDepth = 4096;
inline constexpr uint32_t kMaxQueues = 4096;

struct DeviceOptions {
  /// Bytes of the block device; a multiple of 512.
  uint64_t size_bytes = 0;
  uint16_t queues = 1;
  /// Tags per queue: requests in flight per queue (1..kMaxDepth).
  uint16_t depth = 64;
  /// The largest request in bytes (the per-tag buffer's size); a multiple of 4096.
  uint32_t max_io_bytes = 512 << 10;
  /// -1: the driver picks the number N of /dev/ublkbN.
  int dev_id = -1;
  /// Whether the device says it has a volatile write cache, so the block layer sends FLUSH
  /// requests (op 2) when a file system or an fsync of the device needs data durable: a target
  /// over files answers them with an fsync, one that keeps nothing answers 0.
  bool volatile_cache = true;
};

/// Whether the driver can take `options` (kBadParameter saying what is wrong); Control::Add
/// checks this first.
Result<void> CheckDeviceOptions(const DeviceOptions& options);

/// What ADD_DEV created.
struct DeviceInfo {
  int dev_id = -1;
  uint16_t queues = 0;
  uint16_t depth = 0;
  uint32_t max_io_bytes = 0;
  uint64_t flags = 0;
  std::string char_path() const { return "/dev/ublkc" + std::to_string(dev_id); }
  std::string block_path() const { return "/dev/ublkb" + std::to_string(dev_id); }
};

/// `/dev/ublk-control` and the ring its commands go through. Every call blocks until the driver
/// answers; errors name the command and say what to do (kUblkUnavailable when the driver is not
/// there, kUblkCommandFailed when it refuses a command).
class Control {
 public:
  /// Opens the control device; ENOENT (kUblkUnavailable) when the ublk_drv module is not loaded.
  static Result<std::unique_ptr<Control>> Open(const std::string& path = "/dev/ublk-control");
  ~Control();
  Control(const Control&) = delete;
  Control& operator=(const Control&) = delete;

  /// The UBLK_F_* flags the running driver supports (GET_FEATURES).
  Result<uint64_t> Features();
  /// ADD_DEV then SET_PARAMS (a plain disk of options.size_bytes, 512-byte sectors).
  Result<DeviceInfo> Add(const DeviceOptions& options);
  /// START_DEV: blocks until every tag of every queue has a FETCH pending, then the block device
  /// appears. `server_pid` is the process serving the queues. `give_up`, when set, is asked
  /// every 50 ms while it waits; once it says true the command is cancelled (ECANCELED).
  Result<void> Start(int dev_id, pid_t server_pid, const std::function<bool()>& give_up = {});
  /// STOP_DEV: removes the block device; pending FETCHes complete with kIoResAbort.
  Result<void> Stop(int dev_id);
  /// DEL_DEV: forgets the device; blocks until its character device is closed by everyone.
  Result<void> Delete(int dev_id);
  /// STOP_DEV when the device is live, then DEL_DEV: removes a device a killed server left.
  Result<void> Remove(int dev_id);
  /// GET_DEV_INFO of an existing device (its state: 0 dead, 1 live, 2 quiesced).
  Result<DeviceInfo> Info(int dev_id, uint16_t* state = nullptr);

 private:
  Control() = default;
  Result<int> Command(const char* what, uint32_t op, int dev_id, uint64_t addr, uint16_t len,
                      uint64_t data, const std::function<bool()>& give_up = {});
  Result<int> WaitCommand(const char* what, const std::function<bool()>& give_up);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One queue's view of the device for its server: the character device and the queue's
/// descriptor array, mapped read-only. The controller reads descriptor `tag` at
/// `descs_address() + tag * kDescBytes` (bpf_copy_from_user on the kernel engine).
class QueueMapping {
 public:
  static Result<std::unique_ptr<QueueMapping>> Open(const DeviceInfo& device, uint16_t queue);
  ~QueueMapping();
  QueueMapping(const QueueMapping&) = delete;
  QueueMapping& operator=(const QueueMapping&) = delete;

  int char_fd() const { return fd_; }
  uint64_t descs_address() const { return reinterpret_cast<uint64_t>(descs_); }
  uint16_t queue() const { return queue_; }

 private:
  QueueMapping() = default;
  int fd_ = -1;
  void* descs_ = nullptr;
  size_t descs_bytes_ = 0;
  uint16_t queue_ = 0;
  bool registered_ = false;  ///< with RegisterReadableMemory
};

}  // namespace uringc::ublk
