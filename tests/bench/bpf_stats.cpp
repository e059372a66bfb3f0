// StructOpsTime (bpf_stats.h): every loaded program's info, struct_ops ones summed.
#include "bpf_stats.h"

#include <bpf/bpf.h>
#include <unistd.h>

namespace uringc_bench {

ProgramTime StructOpsTime() {
  ProgramTime t;
  for (uint32_t id = 0; bpf_prog_get_next_id(id, &id) == 0;) {
    const int fd = bpf_prog_get_fd_by_id(id);
    if (fd < 0) continue;
    bpf_prog_info info{};
    uint32_t len = sizeof(info);
    if (bpf_prog_get_info_by_fd(fd, &info, &len) == 0 && info.type == BPF_PROG_TYPE_STRUCT_OPS) {
      t.ns += static_cast<int64_t>(info.run_time_ns);
      t.runs += static_cast<int64_t>(info.run_cnt);
    }
    close(fd);
  }
  return t;
}

}  // namespace uringc_bench
