// Controller and the C API on the host: opening real objects, globals by name before load, and the
// failures that need no io_uring_bpf_ops (bad objects, wrong names, a kernel without the feature).
// Loading for real is tested in the VM (tests/kernel/runtime_test.cpp).
#include "uringc/controller.h"

#include <elf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "uringc/features.h"
#include "uringc/liburing_compat.h"
#include "uringc/uringc.h"

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool KernelHasBpfOps() {
  auto f = uringc::DetectKernelFeatures();
  return f.ok() && f->has_bpf_ops;
}

TEST(ControllerTest, OpensAFileAndSetsAndReadsGlobalsByName) {
  auto c = uringc::Controller::OpenFile(URINGC_NOP_NAMED_OBJECT);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ((*c)->ops_map_name(), "nop_named_ops");
  EXPECT_EQ((*c)->GetInt("inflight").value(), 1);  // the initial value
  ASSERT_TRUE((*c)->Set("inflight", "8").ok());
  ASSERT_TRUE((*c)->SetUint("total", 1000000).ok());
  EXPECT_EQ((*c)->GetInt("inflight").value(), 8);
  EXPECT_EQ((*c)->GetInt("total").value(), 1000000);
  EXPECT_EQ((*c)->Format("total").value(), "1000000");
  const uint32_t k = 3;
  ASSERT_TRUE((*c)->SetBytes("inflight", &k, sizeof(k)).ok());
  EXPECT_EQ((*c)->GetInt("inflight").value(), 3);
  EXPECT_EQ((*c)->SetBytes("inflight", &k, 2).error().code, -EINVAL);
  EXPECT_EQ((*c)->Set("nope", "1").error().code, -ENOENT);
}

// The objects uringc_object_fuzz found a bug with (tests/compiler/fuzz/regressions/object/), in
// this build too (no sanitizer needed: the reads they made were gigabytes off): each global reads
// back exactly its size or is refused, never read outside its section.
TEST(ControllerTest, FuzzerFoundObjectsReadOnlyInsideTheirSections) {
  int objects = 0;
  for (const auto& entry : std::filesystem::directory_iterator(URINGC_OBJECT_FUZZ_REGRESSIONS)) {
    if (entry.path().extension() != ".o") continue;
    ++objects;
    const std::string elf = Slurp(entry.path());
    uringc::ControllerOptions o;
    o.check_kernel = false;
    auto c = uringc::Controller::OpenMemory(elf.data(), elf.size(), o);
    if (!c.ok()) continue;
    for (const uringc::GlobalVar& v : (*c)->globals().vars()) {
      auto bytes = (*c)->GetBytes(v.name);
      if (bytes.ok()) {
        EXPECT_EQ(bytes->size(), v.size) << entry.path() << " " << v.name;
      }
      (void)(*c)->Format(v.name);
    }
  }
  EXPECT_GE(objects, 2);
}

// Objects that libbpf 1.4.6 itself reads outside of (a program symbol's offset, or the struct_ops
// variable's BTF offset, wraps when its size is added) are refused before libbpf opens them.
TEST(ControllerTest, ObjectsWhoseOffsetsWrapAreRefusedBeforeLibbpfOpensThem) {
  const std::string dir = URINGC_OBJECT_FUZZ_REGRESSIONS;
  for (const auto& [file, what] :
       {std::pair{"symbol_offset_wraps.bpf.o", "symbol `nop_named_step` at offset"},
        std::pair{"struct_ops_offset_wraps.bpf.o", "BTF variable `nop_named_ops` at offset"},
        // A DATASEC of size 0 takes its variable's offset from the symbol of that name, in
        // whatever section the symbol names (here none: st_shndx 65535).
        std::pair{"struct_ops_symbol_of_no_section.bpf.o",
                  "BTF variable `sleep_once_ops` at offset 13194139533311"}}) {
    const std::string elf = Slurp(dir + "/" + file);
    ASSERT_FALSE(elf.empty()) << file;
    auto c = uringc::Controller::OpenMemory(elf.data(), elf.size());
    ASSERT_FALSE(c.ok()) << file;
    EXPECT_EQ(c.error().kind, uringc::DiagKind::kBadObject) << file;
    EXPECT_NE(c.error().message.find(what), std::string::npos) << c.error().message;
    EXPECT_NE(c.error().message.find("lies outside section"), std::string::npos)
        << c.error().message;
  }
  // The object they were made from opens.
  const std::string good = Slurp(URINGC_NOP_NAMED_OBJECT);
  EXPECT_TRUE(uringc::Controller::OpenMemory(good.data(), good.size()).ok());
  // libelf ignores e_shentsize, so a table this cannot read is refused, not passed on (the fuzzer
  // found the wrapping symbol again behind e_shentsize 0).
  std::string damaged = good;
  damaged[offsetof(Elf64_Ehdr, e_shentsize)] = 0;
  auto c = uringc::Controller::OpenMemory(damaged.data(), damaged.size());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, uringc::DiagKind::kBadObject);
  EXPECT_NE(c.error().message.find("section headers are damaged"), std::string::npos)
      << c.error().message;
}

TEST(ControllerTest, NotAnObject) {
  const std::string junk = "this is not ELF";
  auto c = uringc::Controller::OpenMemory(junk.data(), junk.size());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("not a BPF object"), std::string::npos);
  EXPECT_FALSE(uringc::Controller::OpenFile("/nonexistent/x.bpf.o").ok());
}

// Only a regular file of bounded size is read: /dev/zero used to be read until bad_alloc and a
// FIFO blocked forever (issue 10).
TEST(ControllerTest, OnlyARegularFileIsReadAsTheObject) {
  auto zero = uringc::Controller::OpenFile("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().code, -EINVAL);
  EXPECT_NE(zero.error().message.find("`/dev/zero` is a character device"), std::string::npos)
      << zero.error().message;
  const std::string fifo = "/tmp/uringc_controller_test_fifo_" + std::to_string(getpid());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto f = uringc::Controller::OpenFile(fifo);
  unlink(fifo.c_str());
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("is a FIFO"), std::string::npos) << f.error().message;
  auto dir = uringc::Controller::OpenFile("/tmp");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().code, -EISDIR);
}

// The kernel takes at most UINT_MAX >> 2 bytes of log; more used to allocate (and zero) it all,
// 16 GiB ending in an uncaught bad_alloc. The largest allowed one is not touched until used.
TEST(ControllerTest, VerifierLogSizeIsBoundedAndLazy) {
  uringc::ControllerOptions o;
  for (size_t bad : {size_t{16} << 30, size_t{4} << 30, uringc::kMaxVerifierLogSize + 1,
                     size_t{0}, uringc::kMinVerifierLogSize - 1}) {
    o.log_size = bad;
    auto c = uringc::Controller::OpenFile(URINGC_NOP_NAMED_OBJECT, o);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.error().code, -EINVAL);
    EXPECT_NE(c.error().message.find("to 1073741823 bytes (the kernel's limit)"),
              std::string::npos)
        << c.error().message;
  }
  o.log_size = uringc::kMaxVerifierLogSize;
  EXPECT_TRUE(uringc::Controller::OpenFile(URINGC_NOP_NAMED_OBJECT, o).ok());
  URINGC_OPTS(uringc_ctl_open_opts, copts, .log_size = size_t{16} << 30);
  errno = 0;
  EXPECT_EQ(uringc_ctl__open_file(URINGC_NOP_NAMED_OBJECT, &copts), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_NE(std::string(uringc_last_error()).find("the kernel's limit"), std::string::npos);
  EXPECT_STREQ(uringc_last_error_kind(), "ApiMisuse");
}

TEST(ControllerTest, ChoosingAnOpsMapThatDoesNotExist) {
  uringc::ControllerOptions o;
  o.ops_map = "other_ops";
  auto c = uringc::Controller::OpenFile(URINGC_NOP_NAMED_OBJECT, o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("has no controller `other_ops` (it has nop_named_ops)"),
            std::string::npos)
      << c.error().message;
}

TEST(ControllerTest, RunBeforeAttachAndAttachBeforeLoadAreErrors) {
  auto c = uringc::Controller::OpenFile(URINGC_NOP_NAMED_OBJECT);
  ASSERT_TRUE(c.ok());
  EXPECT_NE((*c)->Attach().error().message.find("load()"), std::string::npos);
  EXPECT_NE((*c)->Run().error().message.find("attach()"), std::string::npos);
  EXPECT_FALSE((*c)->Detach().ok());
}

// On an SQ_REWIND ring the kernel takes sqes[0..n) and ignores the SQ tail: a controller that
// advances the tail (nop_named) is refused before anything is loaded; a compiled one, which
// reads uringc_ring.sq_rewind, handles both rings. The borrowed ring only carries the flags, which is
// all Load looks at before it checks the kernel.
TEST(ControllerTest, ATailControllerIsRefusedOnARewindRing) {
  io_uring_params p{};
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_NO_SQARRAY |
            IORING_SETUP_SQ_REWIND;
  p.sq_entries = 8;
  p.cq_entries = 16;
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  auto ring = uringc::Ring::Borrow(fd, p);
  ASSERT_TRUE(ring.ok());
  EXPECT_TRUE((*ring)->rewind());
  auto c = uringc::Controller::OpenFile(URINGC_NOP_NAMED_OBJECT);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE((*c)->HandlesRewindRings());
  auto r = (*c)->Load(**ring);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, uringc::DiagKind::kRingNotSupported);
  EXPECT_NE(r.error().message.find("SQ_REWIND"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("--ring tail"), std::string::npos) << r.error().message;
  auto compiled = uringc::Controller::OpenFile(URINGC_EX_COPY_OBJECT);
  ASSERT_TRUE(compiled.ok());
  EXPECT_TRUE((*compiled)->HandlesRewindRings());
  close(fd);
}

TEST(ControllerTest, LoadOnAKernelWithoutTheFeatureSaysWhatIsMissing) {
  if (KernelHasBpfOps()) GTEST_SKIP() << "this kernel has io_uring_bpf_ops";
  auto ring = uringc::Ring::Create({});
  ASSERT_TRUE(ring.ok());
  auto c = uringc::Controller::OpenFile(URINGC_NOP_NAMED_OBJECT);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Load(**ring);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -ESRCH);
  EXPECT_NE(r.error().message.find("has no io_uring_bpf_ops: Linux 7.1+ with "
                                   "CONFIG_IO_URING_BPF_OPS is needed"),
            std::string::npos);
  // Without the pre-check, libbpf's own failure is explained the same way.
  uringc::ControllerOptions o;
  o.check_kernel = false;
  auto c2 = uringc::Controller::OpenFile(URINGC_NOP_NAMED_OBJECT, o);
  ASSERT_TRUE(c2.ok());
  auto r2 = (*c2)->Load(**ring);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("io_uring_bpf_ops"), std::string::npos) << r2.error().message;
}

TEST(CApiTest, OpenSetGetAndDestroy) {
  const std::string elf = Slurp(URINGC_NOP_NAMED_OBJECT);
  URINGC_OPTS(uringc_ctl_open_opts, opts, .object_name = "nop_named");
  uringc_ctl* ctl = uringc_ctl__open_mem(elf.data(), elf.size(), &opts);
  ASSERT_NE(ctl, nullptr) << uringc_last_error();
  EXPECT_EQ(uringc_ctl__set(ctl, "total", "42"), 0);
  int64_t v = 0;
  EXPECT_EQ(uringc_ctl__get_int(ctl, "total", &v), 0);
  EXPECT_EQ(v, 42);
  EXPECT_EQ(uringc_ctl__set_int(ctl, "inflight", -1), -ERANGE);
  EXPECT_NE(std::string(uringc_ctl__last_error(ctl)).find("unsigned"), std::string::npos);
  EXPECT_STREQ(uringc_ctl__last_error_kind(ctl), "BadParameter");
  uint32_t k = 0;
  EXPECT_EQ(uringc_ctl__get_bytes(ctl, "inflight", &k, sizeof(k)), 0);
  EXPECT_EQ(k, 1u);
  EXPECT_EQ(uringc_ctl__attach(ctl), -EINVAL);
  EXPECT_STREQ(uringc_ctl__last_error_kind(ctl), "ApiMisuse");
  uringc_ctl__destroy(ctl);
  uringc_ctl__destroy(nullptr);
}

TEST(CApiTest, OptionsMustCarryTheirSize) {
  uringc_ctl_open_opts bad{};  // sz == 0
  EXPECT_EQ(uringc_ctl__open_file(URINGC_NOP_NAMED_OBJECT, &bad), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(uringc_ctl__open_file("/nonexistent.bpf.o", nullptr), nullptr);
  EXPECT_NE(std::string(uringc_last_error()).find("cannot open"), std::string::npos);
  EXPECT_STREQ(uringc_last_error_kind(), "FileError");
}

TEST(CApiTest, RingAndLoadWithoutTheFeature) {
  if (KernelHasBpfOps()) GTEST_SKIP() << "this kernel has io_uring_bpf_ops";
  URINGC_OPTS(uringc_ring_opts, ro, .sq_entries = 16, .mem_region_size = 4096);
  uringc_ring* ring = uringc_ring__create(&ro);
  ASSERT_NE(ring, nullptr) << uringc_last_error();
  size_t size = 0;
  EXPECT_NE(uringc_ring__mem_region(ring, &size), nullptr);
  EXPECT_EQ(size, 4096u);
  uringc_ctl* ctl = uringc_ctl__open_file(URINGC_NOP_NAMED_OBJECT, nullptr);
  ASSERT_NE(ctl, nullptr);
  EXPECT_EQ(uringc_ctl__load(ctl, ring), -ESRCH);
  EXPECT_NE(std::string(uringc_ctl__last_error(ctl)).find("io_uring_bpf_ops"), std::string::npos);
  EXPECT_STREQ(uringc_ctl__last_error_kind(ctl), "NoBpfOps");
  uringc_ring__destroy(ring);  // ring first, then the controller: any order is fine
  uringc_ctl__destroy(ctl);
}

// ring_mode picks the SQ (uringc::RingMode); a value outside the enum is the caller's mistake.
TEST(CApiTest, RingModeIsChosenOrRefused) {
  URINGC_OPTS(uringc_ring_opts, tail, .ring_mode = URINGC_RING_TAIL);
  uringc_ring* ring = uringc_ring__create(&tail);
  ASSERT_NE(ring, nullptr) << uringc_last_error();
  uringc_ring__destroy(ring);
  URINGC_OPTS(uringc_ring_opts, rewind, .ring_mode = URINGC_RING_REWIND);
  ring = uringc_ring__create(&rewind);
  if (ring == nullptr) {  // kernels before 7.0
    EXPECT_EQ(errno, EINVAL);
    EXPECT_NE(std::string(uringc_last_error()).find("SQ_REWIND"), std::string::npos)
        << uringc_last_error();
  }
  uringc_ring__destroy(ring);
  URINGC_OPTS(uringc_ring_opts, bad, .ring_mode = 7);
  EXPECT_EQ(uringc_ring__create(&bad), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_STREQ(uringc_last_error_kind(), "ApiMisuse");
  EXPECT_NE(std::string(uringc_last_error()).find("ring_mode 7"), std::string::npos);
}

}  // namespace
