// examples/ublk/null.uring serving a real ublk device (ublk_server.h): its lanes fetch every tag,
// read each request's descriptor with copy_from_user and commit it with the next fetch, on the
// kernel engine (inside io_uring_enter) and, with URINGC_TEST_ENGINE=host, on the host engine
// (the same lowering as native code). Checked like the hand-written null target (ublk_test.cpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "host_programs.h"
#include "kernel_test_util.h"
#include "ublk_server.h"
#include "uringc/controller.h"

URINGC_EMBEDDED(ex_ublk_null_bpf);

namespace {

int64_t Out(uringc::Controller& c, const char* name) {
  auto v = c.GetInt(name);
  EXPECT_TRUE(v.ok()) << name << ": " << v.error().message;
  return v.ok() ? *v : -1;
}

TEST(CompiledUblk, NullTargetServesBlockIo) {
  const bool host = uringc_test::OnHostEngine();
  uringc_test::ServeBlockIo(
      8, uringc::RingMode::kAuto,
      [host]() -> uringc::Result<std::unique_ptr<uringc::Controller>> {
        uringc::ControllerOptions o;
        o.object_name = "null";
        if (host) {
          const uringc_program* p = uringc_test::HostProgramFor(ex_ublk_null_bpf_obj.begin);
          if (p == nullptr) return uringc::Error{-ENOENT, "examples/ublk/null.uring has no host build"};
          return uringc::Controller::OpenProgram(*p, uringc::Engine::kHost, o);
        }
        return uringc::Controller::OpenMemory(ex_ublk_null_bpf_obj.begin,
                                              ex_ublk_null_bpf_obj.size(), o);
      },
      nullptr,  // ublkc, queue, descs and buf are the server's standard parameters
      [host](uringc::Controller& c, const uringc::RunOutcome& o) {
        EXPECT_GE(Out(c, "writes"), 16);  // 1 MiB in requests of at most 64 KiB
        EXPECT_GE(Out(c, "reads"), 16);
        std::printf("ublk null (%s engine): %lld reads, %lld writes, %lld others, %llu steps\n",
                    host ? "host" : "kernel", static_cast<long long>(Out(c, "reads")),
                    static_cast<long long>(Out(c, "writes")),
                    static_cast<long long>(Out(c, "others")),
                    static_cast<unsigned long long>(o.stats.steps));
      });
}

}  // namespace
