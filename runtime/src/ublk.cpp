// ublk's control plane (uringc/ublk.h): control commands are IORING_OP_URING_CMDs on
// /dev/ublk-control, each carrying a 32-byte struct ublksrv_ctrl_cmd, so they need an SQE128
// ring; one command at a time, each waited for. The driver's answers become errors a user can
// act on, naming the command and the device.
#include "uringc/ublk.h"

#include <fcntl.h>
#include <liburing.h>
#include <linux/ublk_cmd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <optional>

#include "uringc/host_engine.h"

namespace uringc::ublk {

namespace {

static_assert(sizeof(ublksrv_io_desc) == kDescBytes);
static_assert(UBLK_U_IO_FETCH_REQ == kFetchReq);
static_assert(UBLK_U_IO_COMMIT_AND_FETCH_REQ == kCommitAndFetchReq);
static_assert(UBLK_IO_RES_ABORT == kIoResAbort);
static_assert(sizeof(ublksrv_ctrl_cmd) <= 80, "must fit an SQE128's command area");

// The user_data of a control command and of the cancel that gives one up.
constexpr uint64_t kCommandTag = 1;
constexpr uint64_t kCancelTag = 2;

Error ErrnoError(DiagKind kind, int err, const std::string& what) {
  return MakeError(kind, err, what + ": " + std::strerror(err > 0 ? err : -err));
}

// The page-rounded bytes the driver reserves per queue in the character device's mmap space.
size_t QueueDescStride() {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (kMaxDepth * kDescBytes + page - 1) / page * page;
}

DeviceInfo FromDriver(const ublksrv_ctrl_dev_info& info) {
  DeviceInfo out;
  out.dev_id = static_cast<int>(info.dev_id);
  out.queues = info.nr_hw_queues;
  out.depth = info.queue_depth;
  out.max_io_bytes = info.max_io_buf_bytes;
  out.flags = info.flags;
  return out;
}

// What a refused command means, in words a user can act on.
std::string Advice(int err) {
  switch (-err) {
    case EPERM:
    case EACCES: return " (ublk's control commands need CAP_SYS_ADMIN)";
    case ENODEV:
    case ENOENT: return " (no such ublk device: `ls /dev/ublkc*` lists them)";
    case EEXIST: return " (that device number is taken)";
    case EBUSY: return " (the device is in use: stop it, or close its /dev/ublkcN, first)";
    case EOPNOTSUPP: return " (this ublk driver lacks the command)";
    default: return "";
  }
}

}  // namespace

Result<void> CheckDeviceOptions(const DeviceOptions& options) {
  if (options.size_bytes == 0 || options.size_bytes % 512 != 0) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "a ublk device's size must be a positive multiple of 512 bytes, not " +
                         std::to_string(options.size_bytes));
  }
  if (options.queues == 0 || options.queues > kMaxQueues || options.depth == 0 ||
      options.depth > kMaxDepth) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "a ublk device has 1 to " + std::to_string(kMaxQueues) + " queues of 1 to " +
                         std::to_string(kMaxDepth) + " tags each");
  }
  if (options.max_io_bytes == 0 || options.max_io_bytes % 4096 != 0) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "a ublk device's largest request must be a positive multiple of 4096 bytes");
  }
  return {};
}

struct Control::Impl {
  int fd = -1;
  io_uring ring{};
  bool ring_ready = false;
  ~Impl() {
    if (ring_ready) io_uring_queue_exit(&ring);
    if (fd >= 0) close(fd);
  }
};

Result<std::unique_ptr<Control>> Control::Open(const std::string& path) {
  std::unique_ptr<Control> control(new Control());
  control->impl_ = std::make_unique<Impl>();
  Impl& impl = *control->impl_;
  impl.fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (impl.fd < 0) {
    int err = errno;
    std::string hint = err == ENOENT ? " (load the driver: modprobe ublk_drv; Linux 6.0+ with "
                                       "CONFIG_BLK_DEV_UBLK)"
                       : (err == EACCES || err == EPERM) ? " (run as root)" : "";
    return MakeError(DiagKind::kUblkUnavailable, err,
                     "cannot open " + path + ": " + std::strerror(err) + hint);
  }
  int ret = io_uring_queue_init(4, &impl.ring, IORING_SETUP_SQE128);
  if (ret < 0) {
    return ErrnoError(DiagKind::kRingSetupFailed, ret,
                      "cannot create the SQE128 ring for ublk's control commands");
  }
  impl.ring_ready = true;
  return control;
}

Control::~Control() = default;

Result<int> Control::Command(const char* what, uint32_t op, int dev_id, uint64_t addr,
                             uint16_t len, uint64_t data, const std::function<bool()>& give_up) {
  io_uring_sqe* sqe = io_uring_get_sqe(&impl_->ring);
  if (sqe == nullptr) {
    return MakeError(DiagKind::kInternalError, EBUSY, "ublk control ring full");
  }
  std::memset(sqe, 0, 2 * sizeof(*sqe));  // an SQE128
  sqe->opcode = IORING_OP_URING_CMD;
  sqe->fd = impl_->fd;
  sqe->cmd_op = op;
  sqe->user_data = kCommandTag;
  ublksrv_ctrl_cmd cmd{};
  cmd.dev_id = static_cast<uint32_t>(dev_id);
  cmd.queue_id = static_cast<uint16_t>(-1);
  cmd.addr = addr;
  cmd.len = len;
  cmd.data[0] = data;
  std::memcpy(sqe->cmd, &cmd, sizeof(cmd));
  int ret = io_uring_submit(&impl_->ring);
  if (ret != 1) {
    return ErrnoError(DiagKind::kUblkCommandFailed, ret < 0 ? ret : -EIO,
                      std::string("cannot submit ublk's ") + what + " command");
  }
  auto res = WaitCommand(what, give_up);
  if (!res.ok()) return res.error();
  if (*res < 0) {
    std::string device = dev_id >= 0 ? " of device " + std::to_string(dev_id) : "";
    return MakeError(DiagKind::kUblkCommandFailed, *res,
                     std::string("the ublk driver refused ") + what + device + ": " +
                         std::strerror(-*res) + Advice(*res));
  }
  return *res;
}

// The command's result. The driver runs control commands on an io-wq worker, so a signal to
// this thread cannot end one that waits (START_DEV waits for every tag's FETCH): with `give_up`,
// it is polled every 50 ms and, once true, the command is cancelled, which interrupts the worker.
Result<int> Control::WaitCommand(const char* what, const std::function<bool()>& give_up) {
  bool cancelled = false;        // a cancel was submitted...
  bool cancel_answered = false;  // ...and its own completion reaped
  std::optional<int> result;
  while (!result || (cancelled && !cancel_answered)) {
    io_uring_cqe* cqe = nullptr;
    __kernel_timespec poll{0, 50 * 1000 * 1000};
    int ret = give_up ? io_uring_wait_cqe_timeout(&impl_->ring, &cqe, &poll)
                      : io_uring_wait_cqe(&impl_->ring, &cqe);
    if (ret == -EINTR) continue;
    if (ret == -ETIME) {
      if (cancelled || !give_up()) continue;
      io_uring_sqe* sqe = io_uring_get_sqe(&impl_->ring);
      if (sqe == nullptr) continue;
      std::memset(sqe, 0, 2 * sizeof(*sqe));
      io_uring_prep_cancel64(sqe, kCommandTag, 0);
      sqe->user_data = kCancelTag;
      cancelled = io_uring_submit(&impl_->ring) == 1;
      continue;
    }
    if (ret < 0) {
      return ErrnoError(DiagKind::kUblkCommandFailed, ret,
                        std::string("waiting for ublk's ") + what + " command");
    }
    if (cqe->user_data == kCommandTag) result = cqe->res;
    if (cqe->user_data == kCancelTag) cancel_answered = true;
    io_uring_cqe_seen(&impl_->ring, cqe);
  }
  if (cancelled && *result < 0) {
    return MakeError(DiagKind::kUblkCommandFailed, ECANCELED,
                     std::string("ublk's ") + what + " command was given up");
  }
  return *result;
}

Result<uint64_t> Control::Features() {
  uint64_t features = 0;
  URINGC_TRY(Command("GET_FEATURES", UBLK_U_CMD_GET_FEATURES, -1,
                     reinterpret_cast<uint64_t>(&features), sizeof(features), 0));
  return features;
}

Result<DeviceInfo> Control::Add(const DeviceOptions& options) {
  URINGC_TRY(CheckDeviceOptions(options));
  ublksrv_ctrl_dev_info info{};
  info.nr_hw_queues = options.queues;
  info.queue_depth = options.depth;
  info.max_io_buf_bytes = options.max_io_bytes;
  info.dev_id = static_cast<uint32_t>(options.dev_id);
  info.ublksrv_pid = getpid();
  info.flags = UBLK_F_CMD_IOCTL_ENCODE;
  URINGC_TRY(Command("ADD_DEV", UBLK_U_CMD_ADD_DEV, options.dev_id,
                     reinterpret_cast<uint64_t>(&info), sizeof(info), 0));
  DeviceInfo out = FromDriver(info);

  ublk_params params{};
  params.len = sizeof(params);
  params.types = UBLK_PARAM_TYPE_BASIC;
  params.basic.logical_bs_shift = 9;
  params.basic.physical_bs_shift = 12;
  params.basic.io_opt_shift = 12;
  params.basic.io_min_shift = 9;
  params.basic.max_sectors = options.max_io_bytes >> 9;
  params.basic.dev_sectors = options.size_bytes >> 9;
  if (options.volatile_cache) params.basic.attrs = UBLK_ATTR_VOLATILE_CACHE;
  auto set = Command("SET_PARAMS", UBLK_U_CMD_SET_PARAMS, out.dev_id,
                     reinterpret_cast<uint64_t>(&params), sizeof(params), 0);
  if (!set.ok()) {
    (void)Delete(out.dev_id);  // no device left behind
    return set.error();
  }
  return out;
}

Result<void> Control::Start(int dev_id, pid_t server_pid,
                            const std::function<bool()>& give_up) {
  URINGC_TRY(Command("START_DEV", UBLK_U_CMD_START_DEV, dev_id, 0, 0,
                     static_cast<uint64_t>(server_pid), give_up));
  return {};
}

Result<void> Control::Stop(int dev_id) {
  URINGC_TRY(Command("STOP_DEV", UBLK_U_CMD_STOP_DEV, dev_id, 0, 0, 0));
  return {};
}

Result<void> Control::Delete(int dev_id) {
  URINGC_TRY(Command("DEL_DEV", UBLK_U_CMD_DEL_DEV, dev_id, 0, 0, 0));
  return {};
}

Result<void> Control::Remove(int dev_id) {
  uint16_t state = 0;
  URINGC_TRY(Info(dev_id, &state));
  if (state != UBLK_S_DEV_DEAD) URINGC_TRY(Stop(dev_id));
  return Delete(dev_id);
}

Result<DeviceInfo> Control::Info(int dev_id, uint16_t* state) {
  ublksrv_ctrl_dev_info info{};
  URINGC_TRY(Command("GET_DEV_INFO", UBLK_U_CMD_GET_DEV_INFO, dev_id,
                     reinterpret_cast<uint64_t>(&info), sizeof(info), 0));
  if (state != nullptr) *state = info.state;
  DeviceInfo out = FromDriver(info);
  return out;
}

Result<std::unique_ptr<QueueMapping>> QueueMapping::Open(const DeviceInfo& device,
                                                         uint16_t queue) {
  if (queue >= device.queues) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "queue " + std::to_string(queue) + " of a device with " +
                         std::to_string(device.queues) + " queues");
  }
  std::unique_ptr<QueueMapping> q(new QueueMapping());
  q->queue_ = queue;
  std::string path = device.char_path();
  // The driver creates the node asynchronously (udev-less systems get it from devtmpfs): retry
  // briefly while it does not exist yet.
  for (int attempt = 0; attempt < 100; attempt++) {
    q->fd_ = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (q->fd_ >= 0 || errno != ENOENT) break;
    usleep(10000);
  }
  if (q->fd_ < 0) {
    return ErrnoError(DiagKind::kUblkUnavailable, errno, "cannot open " + path);
  }
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  q->descs_bytes_ = (size_t{device.depth} * kDescBytes + page - 1) / page * page;
  void* descs = mmap(nullptr, q->descs_bytes_, PROT_READ, MAP_SHARED | MAP_POPULATE, q->fd_,
                     static_cast<off_t>(UBLKSRV_CMD_BUF_OFFSET + queue * QueueDescStride()));
  if (descs == MAP_FAILED) {
    return ErrnoError(DiagKind::kUblkUnavailable, errno,
                      "cannot map the I/O descriptors of queue " + std::to_string(queue) +
                          " of " + path);
  }
  q->descs_ = descs;
  // The host engine reads the descriptors without a system call (the mapping has no pages
  // process_vm_readv could pin).
  q->registered_ = RegisterReadableMemory(descs, q->descs_bytes_);
  return q;
}

QueueMapping::~QueueMapping() {
  if (registered_) UnregisterReadableMemory(descs_);
  if (descs_ != nullptr) munmap(descs_, descs_bytes_);
  if (fd_ >= 0) close(fd_);
}

}  // namespace uringc::ublk
