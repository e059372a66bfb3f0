// Buffers parameters at the host boundary, on the host (no kernel feature needed): a compiled
// `.uring` object declares each buffers parameter's size, the C++ and C APIs take a pointer and a
// length and refuse shorter memory, numbers and raw bytes are refused for buffers parameters, the
// declared size cannot be changed, and Load refuses a buffers parameter that has no memory.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "uringc/controller.h"
#include "uringc/uringc.h"

namespace {

// examples/copy.uring: `buf: buffers[4] of 64 KiB`, `size: u64`.
constexpr uint64_t kCopyBufBytes = 4 * 64 * 1024;

std::unique_ptr<uringc::Controller> OpenCopy() {
  auto c = uringc::Controller::OpenFile(URINGC_EX_COPY_OBJECT);
  EXPECT_TRUE(c.ok()) << c.error().message;
  return c.ok() ? std::move(*c) : nullptr;
}

TEST(BufferParams, TheCompiledObjectDeclaresEachBuffersParametersBytes) {
  auto c = OpenCopy();
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->buffer_params().size(), 1u);
  EXPECT_EQ(c->buffer_params()[0].name, "buf");
  EXPECT_EQ(c->buffer_params()[0].bytes, kCopyBufBytes);
  EXPECT_EQ(c->BufferBytes("buf").value(), kCopyBufBytes);
  EXPECT_EQ(c->BufferBytes("size").error().code, -EINVAL);
  EXPECT_EQ(c->BufferBytes("nope").error().code, -ENOENT);
}

TEST(BufferParams, ShorterMemoryIsRefusedAndEnoughIsAccepted) {
  auto c = OpenCopy();
  ASSERT_NE(c, nullptr);
  std::vector<char> mem(kCopyBufBytes);
  auto short_one = c->SetBuffer("buf", mem.data(), 4096);
  ASSERT_FALSE(short_one.ok());
  EXPECT_EQ(short_one.error().code, -ENOBUFS);
  EXPECT_NE(short_one.error().message.find("needs 262144 bytes"), std::string::npos)
      << short_one.error().message;
  EXPECT_EQ(c->GetInt("buf").value(), 0);  // nothing written
  EXPECT_EQ(c->SetBuffer("buf", nullptr, kCopyBufBytes).error().code, -EINVAL);
  EXPECT_EQ(c->SetBuffer("size", mem.data(), kCopyBufBytes).error().code, -EINVAL);
  ASSERT_TRUE(c->SetBuffer("buf", mem.data(), kCopyBufBytes).ok());
  EXPECT_EQ(static_cast<uint64_t>(c->GetInt("buf").value()),
            reinterpret_cast<uintptr_t>(mem.data()));
}

TEST(BufferParams, NumbersAndRawBytesAreNoMemory) {
  auto c = OpenCopy();
  ASSERT_NE(c, nullptr);
  const uint64_t addr = 4096;
  for (const auto& r : {c->Set("buf", "4096"), c->SetUint("buf", addr), c->SetInt("buf", 4096),
                        c->SetBytes("buf", &addr, sizeof(addr))}) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, -EINVAL);
    EXPECT_NE(r.error().message.find("SetBuffer"), std::string::npos) << r.error().message;
  }
  EXPECT_EQ(c->SetUint("uringc_buffer_bytes_buf", 1u << 30).error().code, -EPERM);
  EXPECT_EQ(c->BufferBytes("buf").value(), kCopyBufBytes);
  EXPECT_TRUE(c->SetUint("size", 100).ok());  // other parameters as before
}

TEST(BufferParams, LoadRefusesABuffersParameterWithoutMemory) {
  auto c = OpenCopy();
  ASSERT_NE(c, nullptr);
  uringc::RingOptions ro;
  ro.mem_region_size = static_cast<size_t>(c->GetInt("uringc_mem_min").value());
  auto ring = uringc::Ring::Create(ro);
  ASSERT_TRUE(ring.ok()) << ring.error().message;
  auto r = c->Load(**ring);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EINVAL);
  EXPECT_NE(r.error().message.find("buffers parameter `buf` has no memory"), std::string::npos)
      << r.error().message;
}

TEST(BufferParams, TheCApiTakesAPointerAndALength) {
  uringc_ctl* ctl = uringc_ctl__open_file(URINGC_EX_COPY_OBJECT, nullptr);
  ASSERT_NE(ctl, nullptr) << uringc_last_error();
  uint64_t need = 0;
  EXPECT_EQ(uringc_ctl__buffer_size(ctl, "buf", &need), 0);
  EXPECT_EQ(need, kCopyBufBytes);
  EXPECT_EQ(uringc_ctl__buffer_size(ctl, "size", &need), -EINVAL);
  std::vector<char> mem(kCopyBufBytes);
  EXPECT_EQ(uringc_ctl__set_buffer(ctl, "buf", mem.data(), kCopyBufBytes - 1), -ENOBUFS);
  EXPECT_NE(std::string(uringc_ctl__last_error(ctl)).find("needs 262144 bytes"), std::string::npos);
  EXPECT_STREQ(uringc_ctl__last_error_kind(ctl), "BadParameter");
  EXPECT_EQ(uringc_ctl__set_buffer(ctl, "buf", nullptr, kCopyBufBytes), -EINVAL);
  EXPECT_EQ(uringc_ctl__set_buffer(ctl, "nope", mem.data(), kCopyBufBytes), -ENOENT);
  EXPECT_EQ(uringc_ctl__set_uint(ctl, "buf", 4096), -EINVAL);
  EXPECT_EQ(uringc_ctl__set_int(ctl, "buf", 4096), -EINVAL);
  EXPECT_EQ(uringc_ctl__set(ctl, "buf", "4096"), -EINVAL);
  const uint64_t addr = 4096;
  EXPECT_EQ(uringc_ctl__set_bytes(ctl, "buf", &addr, sizeof(addr)), -EINVAL);
  EXPECT_EQ(uringc_ctl__set_buffer(ctl, "buf", mem.data(), kCopyBufBytes), 0);
  int64_t got = 0;
  EXPECT_EQ(uringc_ctl__get_int(ctl, "buf", &got), 0);
  EXPECT_EQ(static_cast<uint64_t>(got), reinterpret_cast<uintptr_t>(mem.data()));
  uringc_ctl__destroy(ctl);
}

}  // namespace
