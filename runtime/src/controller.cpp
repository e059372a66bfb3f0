// Controller: libbpf open/load/attach for one io_uring_bpf_ops object, globals by name, the run
// loop against the real ring, and verifier reports on rejection.
#include "uringc/controller.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <new>
#include <sstream>

#include "source/read_file.h"
#include "uringc/explain.h"
#include "uringc/features.h"
#include "uringc/host_engine.h"
#include "uringc/libbpf_messages.h"
#include "uringc/object_bounds.h"

namespace uringc {
namespace {

constexpr const char* kOpsType = "io_uring_bpf_ops";

std::string ObjectNameFromPath(const std::string& path) {
  std::string name = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  for (const char* suffix : {".bpf.o", ".o"}) {
    const size_t n = strlen(suffix);
    if (name.size() > n && name.compare(name.size() - n, n, suffix) == 0) {
      name.resize(name.size() - n);
      break;
    }
  }
  return name;
}

// The struct_ops value type of a map, by name, from the object's BTF.
std::string OpsTypeName(const bpf_object* obj, const bpf_map* map) {
  const btf* b = bpf_object__btf(obj);
  const btf_type* t = b ? btf__type_by_id(b, bpf_map__btf_value_type_id(map)) : nullptr;
  return t ? btf__name_by_offset(b, t->name_off) : "";
}

// Byte offset of a member in the map's struct_ops value type, or -1.
int MemberOffset(const bpf_object* obj, const bpf_map* map, const char* member) {
  const btf* b = bpf_object__btf(obj);
  const btf_type* t = b ? btf__type_by_id(b, bpf_map__btf_value_type_id(map)) : nullptr;
  if (!t || !btf_is_struct(t)) return -1;
  const btf_member* m = btf_members(t);
  for (uint16_t i = 0; i < btf_vlen(t); ++i)
    if (strcmp(btf__name_by_offset(b, m[i].name_off), member) == 0)
      return static_cast<int>(btf_member_bit_offset(t, i) / 8);
  return -1;
}

// Writes the verifier log where the options say; returns a note when that failed (a full disk,
// a missing folder), so the caller is not told the log is there when it is not.
std::string WriteVerifierLog(const std::string& path, const std::string& log) {
  if (path.empty()) return "";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << log;
  out.close();
  if (out) return "";
  return "note: cannot write the verifier log to `" + path + "`\n";
}

// The most bytes of one variable GetBytes copies out (and Format prints): a section the object
// declares may be gigabytes that libbpf maps without touching.
constexpr uint64_t kMostVarBytes = 64ull << 20;

// A variable's bytes out of its section's; offset and size come from the object's BTF and may
// be anything, hence the 64-bit sum.
Result<std::vector<uint8_t>> VarBytes(const GlobalVar& v, const uint8_t* section, size_t size) {
  if (v.size > kMostVarBytes) {
    return MakeError(DiagKind::kBadObject, E2BIG,
                     "`" + v.name + "` is " + std::to_string(v.size) +
                         " bytes, more than the " + std::to_string(kMostVarBytes >> 20) +
                         " MiB a variable's value is read as");
  }
  if (uint64_t{v.offset} + v.size > size) {
    return MakeError(
        DiagKind::kBadObject, EINVAL,
        "`" + v.name + "` lies outside " + v.section + " (" + std::to_string(size) + " bytes)");
  }
  return std::vector<uint8_t>(section + v.offset, section + v.offset + v.size);
}

class ControllerLoop final : public LoopTarget {
 public:
  ControllerLoop(Controller& c, RingHandle& ring) : c_(c), ring_(ring) {
    has_status_ = c.globals().Has("uringc_status");
    has_error_ = c.globals().Has("uringc_error");
    has_steps_ = c.globals().Has("uringc_steps");
  }
  int Enter() override {
    if (ring_.fd < 0) return -EBADF;
    if (c_.host_engine() != nullptr) return c_.host_engine()->Enter(ring_);
    return ring_.kernel->IoUringEnter(ring_.fd, 0, 1, IORING_ENTER_GETEVENTS);
  }
  Result<ControllerState> ReadState() override {
    ControllerState s;
    if (has_status_) {
      auto v = c_.GetInt("uringc_status");
      if (!v) return v.error();
      s.has_status = true;
      s.status = static_cast<uint32_t>(*v);
    }
    if (has_error_) {
      auto v = c_.GetInt("uringc_error");
      if (!v) return v.error();
      s.error = static_cast<int32_t>(*v);
    }
    if (has_steps_) {
      auto v = c_.GetInt("uringc_steps");
      if (!v) return v.error();
      s.has_steps = true;
      s.steps = static_cast<uint64_t>(*v);
    }
    return s;
  }

 private:
  Controller& c_;
  RingHandle& ring_;
  bool has_status_ = false, has_error_ = false, has_steps_ = false;
};

}  // namespace

const std::vector<std::string>& RingConstantNames() {
  static const std::vector<std::string> names = {
      "uringc_sq_entries",  "uringc_cq_entries",  "uringc_sq_head_off", "uringc_sq_tail_off",
      "uringc_cq_head_off", "uringc_cq_tail_off", "uringc_cqes_off",    "uringc_rings_size",
      "uringc_sqes_size",   "uringc_mem_size",    "uringc_mem_addr",    kSqRewindGlobal};
  return names;
}

Result<std::unique_ptr<Controller>> Controller::OpenFile(const std::string& path,
                                                         const ControllerOptions& options) {
  // A regular file only (a FIFO would block, /dev/zero never ends), and bounded.
  std::string bytes, error;
  if (const int e = ReadRegularFile(path, kMaxObjectFileSize, "a controller object", bytes, error))
    return MakeError(DiagKind::kFileError, e, "cannot load controller object: " + error);
  ControllerOptions o = options;
  if (o.object_name.empty()) o.object_name = ObjectNameFromPath(path);
  return OpenMemory(bytes.data(), bytes.size(), o);
}

Result<std::unique_ptr<Controller>> Controller::OpenMemory(const void* data, size_t size,
                                                           const ControllerOptions& options) {
  if (options.log_size < kMinVerifierLogSize || options.log_size > kMaxVerifierLogSize) {
    return MakeError(DiagKind::kApiMisuse, EINVAL,
                     "the verifier log size must be " + std::to_string(kMinVerifierLogSize) +
                         " to " + std::to_string(kMaxVerifierLogSize) +
                         " bytes (the kernel's limit), not " + std::to_string(options.log_size));
  }
  std::unique_ptr<Controller> c(new (std::nothrow) Controller());
  if (!c) return MakeError(DiagKind::kOutOfMemory, ENOMEM, "out of memory");
  try {
    c->elf_.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
  } catch (const std::bad_alloc&) {
    return MakeError(
        DiagKind::kOutOfMemory, ENOMEM,
        "a controller object of " + std::to_string(size) + " bytes does not fit in memory");
  }
  c->options_ = options;
  if (c->options_.object_name.empty()) c->options_.object_name = "controller";
  URINGC_TRY(c->Init(options));
  return c;
}

Result<std::unique_ptr<Controller>> Controller::OpenProgram(const uringc_program& program,
                                                            Engine engine,
                                                            const ControllerOptions& options) {
  if (program.bpf_object == nullptr || program.bpf_object_size == 0) {
    return MakeError(DiagKind::kBadObject, EINVAL, "the host program holds no BPF object");
  }
  ControllerOptions o = options;
  if (o.object_name.empty() && program.name != nullptr) o.object_name = program.name;
  auto c = OpenMemory(program.bpf_object, program.bpf_object_size, o);
  if (!c) return c.error();
  if (engine == Engine::kHost) {
    if (program.loop_step == nullptr) {
      // A skeleton of a BPF object (uringc compile --emit-skeleton without --target=host).
      return MakeError(DiagKind::kApiMisuse, EOPNOTSUPP,
                       "graph `" + std::string(program.name ? program.name : "?") +
                           "` was compiled without host code, so it runs on the kernel engine "
                           "only: compile it with `uringc compile --target=host` and link that "
                           "object to run it on the host engine");
    }
    auto host = HostEngine::Create(program);
    if (!host) return host.error();
    (*c)->host_ = std::move(*host);
  }
  return c;
}

Result<void> Controller::Init(const ControllerOptions&) {
  URINGC_TRY(CheckObjectBounds(
      std::string_view(reinterpret_cast<const char*>(elf_.data()), elf_.size()),
      options_.object_name));
  LibbpfCapture capture(&libbpf_messages_);
  LIBBPF_OPTS(bpf_object_open_opts, open_opts, .object_name = options_.object_name.c_str());
  object_ = bpf_object__open_mem(elf_.data(), elf_.size(), &open_opts);
  if (!object_) {
    const int err = -errno;
    return MakeError(DiagKind::kBadObject, err,
                     "`" + options_.object_name + "` is not a BPF object libbpf can open (" +
                         strerror(-err) + ")\n" + libbpf_messages_);
  }
  // The io_uring_bpf_ops map: the one named, or the only one.
  std::vector<bpf_map*> ops;
  bpf_map* map;
  bpf_object__for_each_map(map, object_) {
    if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS && OpsTypeName(object_, map) == kOpsType)
      ops.push_back(map);
  }
  if (ops.empty()) {
    return MakeError(DiagKind::kBadObject, EINVAL,
                     "`" + options_.object_name +
                         "` has no `struct io_uring_bpf_ops` "
                         "variable in a `.struct_ops.link` section, so it is not a "
                         "controller");
  }
  for (bpf_map* m : ops) {
    if (options_.ops_map.empty() ? ops.size() == 1 : options_.ops_map == bpf_map__name(m)) ops_ = m;
  }
  if (!ops_) {
    std::string names;
    for (bpf_map* m : ops) names += std::string(names.empty() ? "" : ", ") + bpf_map__name(m);
    return MakeError(DiagKind::kBadObject, EINVAL,
                     options_.ops_map.empty()
                         ? "`" + options_.object_name + "` has several controllers (" + names +
                               "): choose one (ops_map)"
                         : "`" + options_.object_name + "` has no controller `" + options_.ops_map +
                               "` (it has " + names + ")");
  }
  ops_name_ = bpf_map__name(ops_);
  // One struct_ops map per ring: the others are not created.
  for (bpf_map* m : ops)
    if (m != ops_) bpf_map__set_autocreate(m, false);
  if (MemberOffset(object_, ops_, "ring_fd") < 0) {
    return MakeError(DiagKind::kBadObject, EINVAL,
                     "`" + ops_name_ +
                         "` has no `ring_fd` member: declare struct "
                         "io_uring_bpf_ops as runtime/bpf/uringc_controller.bpf.h does");
  }
  auto table = GlobalTable::FromBtf(bpf_object__btf(object_));
  if (!table) return table.error();
  globals_ = std::move(*table);
  URINGC_TRY(ReadBufferParams());
  // A bounded log buffer per program: libbpf fills it only when a load fails, and the kernel
  // (6.4+) keeps the log's tail when it does not fit.
  bpf_program* prog;
  bpf_object__for_each_program(prog, object_) {
    // Not zeroed: the pages cost memory only once the kernel writes a log into them.
    std::unique_ptr<char[]> buf(new (std::nothrow) char[options_.log_size]);
    if (!buf) {
      return MakeError(
          DiagKind::kOutOfMemory, ENOMEM,
          "cannot allocate a verifier log of " + std::to_string(options_.log_size) + " bytes");
    }
    buf[0] = '\0';
    bpf_program__set_log_buf(prog, buf.get(), options_.log_size);
    log_bufs_.emplace_back(bpf_program__name(prog), std::move(buf));
  }
  return {};
}

Controller::~Controller() {
  if (link_) bpf_link__destroy(link_);
  if (object_) bpf_object__close(object_);
}

Result<uint64_t> Controller::VerifiedInsns() const {
  if (!loaded_) return MakeError(DiagKind::kApiMisuse, EINVAL, "the controller is not loaded");
  if (host_) {
    return MakeError(DiagKind::kApiMisuse, EOPNOTSUPP,
                     "the host engine runs native code, which no verifier sees");
  }
  uint64_t total = 0;
  bpf_program* prog;
  bpf_object__for_each_program(prog, object_) {
    if (bpf_program__fd(prog) < 0) continue;  // not loaded (autoload off)
    bpf_prog_info info{};
    uint32_t len = sizeof(info);
    if (bpf_prog_get_info_by_fd(bpf_program__fd(prog), &info, &len) != 0) {
      return MakeError(
          DiagKind::kMapAccessFailed, -errno,
          std::string("cannot read the program info of `") + bpf_program__name(prog) + "`");
    }
    total += info.verified_insns;
  }
  return total;
}

bpf_map* Controller::SectionMap(const std::string& section) const {
  bpf_map* map;
  bpf_object__for_each_map(map, object_) {
    if (!bpf_map__is_internal(map)) continue;
    const std::string name = bpf_map__name(map);
    if (name.size() >= section.size() &&
        name.compare(name.size() - section.size(), section.size(), section) == 0)
      return map;
  }
  return nullptr;
}

uint8_t* Controller::LocalSection(const std::string& section, size_t* size) const {
  *size = 0;
  if (host_) return host_->Section(section, size);
  if (loaded_) return nullptr;
  bpf_map* map = SectionMap(section);
  return map ? static_cast<uint8_t*>(bpf_map__initial_value(map, size)) : nullptr;
}

Result<void> Controller::Write(const GlobalVar& v, const std::vector<uint8_t>& bytes) {
  if (!host_ && !SectionMap(v.section))
    return MakeError(DiagKind::kBadObject, ENOENT, "no map for section " + v.section);
  if (loaded_ && v.read_only()) {
    return MakeError(DiagKind::kApiMisuse, EPERM,
                     "`" + v.name + "` is a load-time constant (`const volatile`, in " + v.section +
                         "): set it before load()");
  }
  if (host_ || !loaded_) {
    size_t size = 0;
    uint8_t* data = LocalSection(v.section, &size);
    if (!data || v.offset + bytes.size() > size) {
      return MakeError(DiagKind::kBadParameter, EINVAL,
                       "cannot write `" + v.name + "` in " + v.section);
    }
    // A global of no bytes (an object's BTF may say so) has nothing to copy, and memcpy from
    // an empty vector's null data() is undefined (found by uringc_object_fuzz).
    if (!bytes.empty()) memcpy(data + v.offset, bytes.data(), bytes.size());
    return {};
  }
  bpf_map* map = SectionMap(v.section);
  std::vector<uint8_t> value(bpf_map__value_size(map));
  const uint32_t zero = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, value.data()) != 0 ||
      v.offset + bytes.size() > value.size()) {
    return MakeError(DiagKind::kMapAccessFailed, -errno,
                     "cannot read " + v.section + " back from the kernel");
  }
  if (!bytes.empty()) memcpy(value.data() + v.offset, bytes.data(), bytes.size());
  if (bpf_map_update_elem(bpf_map__fd(map), &zero, value.data(), BPF_ANY) != 0) {
    return MakeError(DiagKind::kMapAccessFailed, -errno,
                     "cannot write `" + v.name + "` into the kernel's " + v.section);
  }
  return {};
}

Result<void> Controller::Set(const std::string& name, const std::string& text) {
  auto v = globals_.Find(name);
  if (!v) return v.error();
  URINGC_TRY(CheckNotBuffer(*v));
  auto bytes = globals_.Encode(*v, text);
  if (!bytes) return bytes.error();
  return Write(*v, *bytes);
}

Result<void> Controller::SetInt(const std::string& name, int64_t value) {
  auto v = globals_.Find(name);
  if (!v) return v.error();
  URINGC_TRY(CheckNotBuffer(*v));
  auto bytes = globals_.EncodeInt(*v, value);
  if (!bytes) return bytes.error();
  return Write(*v, *bytes);
}

Result<void> Controller::SetUint(const std::string& name, uint64_t value) {
  auto v = globals_.Find(name);
  if (!v) return v.error();
  URINGC_TRY(CheckNotBuffer(*v));
  auto bytes = globals_.EncodeUint(*v, value);
  if (!bytes) return bytes.error();
  return Write(*v, *bytes);
}

Result<void> Controller::SetBytes(const std::string& name, const void* data, size_t size) {
  auto v = globals_.Find(name);
  if (!v) return v.error();
  URINGC_TRY(CheckNotBuffer(*v));
  if (size != v->size) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "`" + name + "` is " + v->type_name + " (" + std::to_string(v->size) +
                         " bytes), not " + std::to_string(size) + " bytes");
  }
  const auto* p = static_cast<const uint8_t*>(data);
  return Write(*v, std::vector<uint8_t>(p, p + size));
}

Result<std::vector<uint8_t>> Controller::GetBytes(const std::string& name) {
  auto v = globals_.Find(name);
  if (!v) return v.error();
  bpf_map* map = SectionMap(v->section);
  if (!map && !host_)
    return MakeError(DiagKind::kBadObject, ENOENT, "no map for section " + v->section);
  if (!loaded_ || host_) {
    // Only the variable's bytes are copied: the section's size comes from the object and may be
    // gigabytes (libbpf maps it without touching it).
    size_t size = 0;
    const uint8_t* data = LocalSection(v->section, &size);
    if (!data) return MakeError(DiagKind::kBadObject, EINVAL, "cannot read " + v->section);
    return VarBytes(*v, data, size);
  }
  std::vector<uint8_t> value(bpf_map__value_size(map));
  const uint32_t zero = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, value.data()) != 0) {
    return MakeError(DiagKind::kMapAccessFailed, -errno,
                     "cannot read " + v->section + " from the kernel");
  }
  return VarBytes(*v, value.data(), value.size());
}

Result<int64_t> Controller::GetInt(const std::string& name) {
  auto v = globals_.Find(name);
  if (!v) return v.error();
  auto bytes = GetBytes(name);
  if (!bytes) return bytes.error();
  return globals_.DecodeInt(*v, bytes->data());
}

Result<std::string> Controller::Format(const std::string& name) {
  auto v = globals_.Find(name);
  if (!v) return v.error();
  auto bytes = GetBytes(name);
  if (!bytes) return bytes.error();
  return globals_.Format(*v, bytes->data());
}

Result<void> Controller::SetRingConstants(const Ring& ring) {
  const RingLayout& l = ring.layout();
  const uint64_t values[] = {l.sq_entries,
                             l.cq_entries,
                             l.sq_head_off,
                             l.sq_tail_off,
                             l.cq_head_off,
                             l.cq_tail_off,
                             l.cqes_off,
                             l.rings_size,
                             l.sqes_size,
                             ring.mem_region_size(),
                             reinterpret_cast<uintptr_t>(ring.mem_region()),
                             l.sq_rewind};
  for (size_t i = 0; i < RingConstantNames().size(); ++i) {
    const std::string& name = RingConstantNames()[i];
    // Compiled controllers keep the ring layout in one struct (kRingLayoutGlobal), hand-written
    // ones in a global per constant; the fields are named after the globals.
    const std::string field =
        std::string(kRingLayoutGlobal) + "." + name.substr(std::string("uringc_").size());
    if (globals_.Has(kRingLayoutGlobal) && globals_.Find(field).ok()) {
      auto r = SetUint(field, values[i]);
      if (!r) return r.error();
      continue;
    }
    if (!globals_.Has(name)) continue;
    auto v = globals_.Find(name);
    if (!v->read_only()) {
      return MakeError(DiagKind::kBadObject, EINVAL,
                       "`" + name +
                           "` must be a load-time constant: declare it "
                           "`const volatile " +
                           std::string(name == "uringc_mem_addr" ? "__u64 " : "__u32 ") + name +
                           ";`");
    }
    auto r = SetUint(name, values[i]);
    if (!r) return r.error();
  }
  return {};
}

bool Controller::HandlesRewindRings() const {
  return !globals_.Has("uringc_sq_tail_off") || globals_.Has(kSqRewindGlobal);
}

bool Controller::DeclaresFlag(const char* name) {
  if (!globals_.Has(name)) return false;
  auto value = GetInt(name);
  return value && *value != 0;
}

bool Controller::NeedsRewindRing() { return DeclaresFlag(kNeedsSqRewindGlobal); }

RingOptions Controller::FitRingOptions(RingOptions base) {
  if (base.mode == RingMode::kAuto && !HandlesRewindRings()) base.mode = RingMode::kTail;
  // Compiled .uring controllers declare the parameter region they need (timespecs live there).
  if (globals_.Has("uringc_mem_min")) {
    auto need = GetInt("uringc_mem_min");
    if (need && static_cast<size_t>(*need) > base.mem_region_size) {
      base.mem_region_size = static_cast<size_t>(*need);
    }
  }
  return base;
}

Result<void> Controller::CheckRingFits(const Ring& ring) {
  // Compiled .uring controllers declare what they need of the ring; without these checks a
  // too-small parameter region fails the run with EFAULT, and a ring with more SQ entries than
  // timespec slots could give two timeouts of one step the same slot. A controller that
  // advances the SQ tail would, on an SQ_REWIND ring, submit stale SQEs from sqes[0]; one
  // compiled for SQ_REWIND rings only would, on a ring with an SQ tail, submit nothing new.
  if (ring.rewind() && !HandlesRewindRings()) {
    return MakeError(DiagKind::kRingNotSupported, EINVAL,
                     "`" + ops_name_ +
                         "` writes its SQEs at the SQ tail (it reads `uringc_sq_tail_off` and "
                         "not `" +
                         kSqRewindGlobal +
                         "`), and the ring is an SQ_REWIND ring, whose kernel takes sqes[0..n) "
                         "and ignores the tail: create the ring with RingMode::kTail (`uringc "
                         "run --ring tail`), or make the controller read `" +
                         kSqRewindGlobal + "`");
  }
  if (!(ring.params().flags & IORING_SETUP_SUBMIT_ALL) && DeclaresFlag(kSubmitAllGlobal)) {
    return MakeError(DiagKind::kRingNotSupported, EINVAL,
                     "`" + ops_name_ +
                         "` submits each batch of SQEs with one call and needs a ring with "
                         "IORING_SETUP_SUBMIT_ALL, so that an SQE whose preparation fails does "
                         "not stop the rest: create the ring with RingOptions::submit_all "
                         "(the default)");
  }
  if (globals_.Has("uringc_mem_min")) {
    auto need = GetInt("uringc_mem_min");
    if (need && static_cast<uint64_t>(*need) > ring.mem_region_size()) {
      return MakeError(DiagKind::kRingNotSupported, EINVAL,
                       "`" + ops_name_ + "` needs a parameter region of at least " +
                           std::to_string(*need) + " bytes (timeouts, sleeps, deadlines, " +
                           "openat paths, literals, shared buffers) and the ring has " +
                           std::to_string(ring.mem_region_size()) +
                           ": create the ring with mem_region_size = uringc_mem_min");
    }
  }
  if (globals_.Has("uringc_sq_max")) {
    auto max = GetInt("uringc_sq_max");
    if (max && *max > 0 && ring.layout().sq_entries > static_cast<uint64_t>(*max)) {
      return MakeError(
          DiagKind::kRingNotSupported, EINVAL,
          "`" + ops_name_ + "` handles rings of at most " + std::to_string(*max) +
              " SQ entries (one timespec slot per " + "SQE of a step) and the ring has " +
              std::to_string(ring.layout().sq_entries) + ": create it with fewer (--sq-entries)");
    }
  }
  // Last: on a kernel before 7.0 (no SQ_REWIND) the checks above still say what else is wrong.
  if (!ring.rewind() && NeedsRewindRing()) {
    if (ring.sq_rewind_refused()) {
      return MakeError(DiagKind::kNoBpfOps, ESRCH,
                       "`" + ops_name_ +
                           "` was compiled for SQ_REWIND rings and this kernel refuses them "
                           "(they came with Linux 7.0), so it has no io_uring_bpf_ops either: "
                           "Linux 7.1+ with CONFIG_IO_URING_BPF_OPS is needed (try `uringc run "
                           "--vm`)");
    }
    return MakeError(DiagKind::kRingNotSupported, EINVAL,
                     "`" + ops_name_ +
                         "` was compiled for SQ_REWIND rings only (it writes its SQEs at "
                         "sqes[0..n) and never publishes an SQ tail), and this ring has an SQ "
                         "tail: create the ring with RingMode::kRewind or kAuto (`uringc run "
                         "--ring rewind`), or compile the program with `uringc compile "
                         "--ring=any` to run it on both kinds of ring");
  }
  return {};
}

Result<void> Controller::ProvidePool(const Ring& ring) {
  if (!globals_.Has(kPbufCountGlobal)) return {};
  auto count = GetInt(kPbufCountGlobal);
  auto ring_off = GetInt(kPbufRingOffGlobal);
  auto off = GetInt(kPbufOffGlobal);
  auto size = GetInt(kPbufSizeGlobal);
  if (!count || !ring_off || !off || !size) {
    return MakeError(DiagKind::kLoadFailed, EINVAL,
                     "`" + ops_name_ + "` declares a provided pool but not all of " +
                         kPbufCountGlobal + ", " + kPbufRingOffGlobal + ", " + kPbufOffGlobal +
                         " and " + kPbufSizeGlobal);
  }
  if (*count == 0) return {};
  return ring.ProvideBufferRing(static_cast<uint64_t>(*ring_off), static_cast<uint32_t>(*count),
                                static_cast<uint64_t>(*off), static_cast<uint64_t>(*size));
}

Result<void> Controller::RegisterFixedBuffers(const Ring& ring) {
  // Pinning costs memory: buffers of `uringc run` are reserved lazily and may be declared far
  // larger than what is touched, so only up to kMostFixedBytes in all (each at most 1 GiB, the
  // kernel's limit) are registered; the others stay plain reads and writes.
  constexpr uint64_t kMostFixedBytes = 256ull << 20;
  std::vector<std::pair<void*, size_t>> iov;
  std::vector<std::string> names;
  uint64_t total = 0;
  for (const BufferParam& b : buffers_) {
    if (!globals_.Has(kFixedIndexGlobalPrefix + b.name)) continue;
    auto addr = GetBytes(b.name);
    if (!addr || addr->size() != 8 || b.bytes > (1ull << 30) || total + b.bytes > kMostFixedBytes)
      continue;
    uint64_t p = 0;
    memcpy(&p, addr->data(), 8);
    iov.emplace_back(reinterpret_cast<void*>(p), static_cast<size_t>(b.bytes));
    names.push_back(b.name);
    total += b.bytes;
  }
  if (iov.empty()) return {};
  // A kernel that refuses (memlock limit, an old kernel) leaves the controller on plain reads
  // and writes: the fixed opcodes are only an optimisation.
  fixed_buffers_error_.clear();
  if (auto r = ring.RegisterFixedBuffers(iov); !r) {
    fixed_buffers_error_ = r.error().message;
    return {};
  }
  for (size_t i = 0; i < names.size(); ++i) {
    URINGC_TRY(SetUint(kFixedIndexGlobalPrefix + names[i], kFixedBufferFlag | i));
  }
  return {};
}

Result<void> Controller::Load(const Ring& ring) {
  if (loaded_) {
    return MakeError(DiagKind::kApiMisuse, EALREADY,
                     "the controller is already loaded for a ring; open the object "
                     "again for another ring (one struct_ops map per ring)");
  }
  URINGC_TRY(CheckBuffersSet());
  URINGC_TRY(CheckRingFits(ring));
  URINGC_TRY(ProvidePool(ring));
  URINGC_TRY(RegisterFixedBuffers(ring));
  if (host_) return LoadOnHost(ring);
  if (ring.mem_region() != nullptr && !ring.mem_region_registered()) {
    return MakeError(DiagKind::kRingNotSupported, EINVAL,
                     "the kernel did not take the ring's parameter region "
                     "(IORING_REGISTER_MEM_REGION needs Linux 6.13+), which the kernel engine "
                     "reads as IOU_REGION_MEM: run on a kernel with io_uring_bpf_ops, or on the "
                     "host engine");
  }
  libbpf_messages_.clear();
  LibbpfCapture capture(&libbpf_messages_);
  kernel_warning_ = KernelReleaseWarning(RunningKernelRelease());
  if (options_.check_kernel) {
    auto features = DetectKernelFeatures();
    if (!features) return features.error();
    URINGC_TRY(CheckKernelFeatures(*features));
  }
  size_t size = 0;
  auto* value = static_cast<uint8_t*>(bpf_map__initial_value(ops_, &size));
  const int off = MemberOffset(object_, ops_, "ring_fd");
  if (!value || off < 0 || static_cast<size_t>(off) + 4 > size) {
    return MakeError(DiagKind::kLoadFailed, EINVAL,
                     "cannot set `ring_fd` in `" + ops_name_ + "` (libbpf >= 1.2 needed)");
  }
  const uint32_t fd = static_cast<uint32_t>(ring.fd());
  memcpy(value + off, &fd, sizeof(fd));
  URINGC_TRY(SetRingConstants(ring));

  const int err = bpf_object__load(object_);
  if (err) return ReportLoadFailure(err);
  loaded_ = true;
  ring_ = ring.handle();
  region_ = static_cast<uint8_t*>(ring.mem_region());
  region_size_ = ring.mem_region_size();
  return {};
}

Result<void> Controller::LoadOnHost(const Ring& ring) {
  URINGC_TRY(SetRingConstants(ring));
  URINGC_TRY(host_->Bind(ring));
  loaded_ = true;
  ring_ = ring.handle();
  region_ = static_cast<uint8_t*>(ring.mem_region());
  region_size_ = ring.mem_region_size();
  return {};
}

Result<void> Controller::ReportLoadFailure(int err) {
  // The rejected program is the one whose log buffer the load filled.
  for (auto& [name, buf] : log_bufs_) {
    if (buf[0] == '\0') continue;
    bpf_program* prog = bpf_object__find_program_by_name(object_, name.c_str());
    const std::string section = prog ? bpf_program__section_name(prog) : "";
    std::string log(buf.get(), strnlen(buf.get(), options_.log_size));
    const std::string log_note = WriteVerifierLog(options_.verifier_log_path, log);
    auto lines = ReadLineInfo(std::string_view(reinterpret_cast<const char*>(elf_.data()),
                                               elf_.size()));
    report_ = BuildVerifierReport(name, section, err, std::move(log),
                                  lines ? *lines : std::vector<LineInfo>{}, options_.source_texts);
    has_report_ = true;
    std::string text = report_.text + log_note;
    if (err == -ENOSPC) {
      text += "note: the verifier log did not fit in " + std::to_string(options_.log_size) +
              " bytes; its tail was kept\n";
    }
    return MakeError(report_.hint.kind, err, text);
  }
  // libbpf's unresolved kfunc message also comes without a kernel log.
  const std::string log_note = WriteVerifierLog(options_.verifier_log_path, libbpf_messages_);
  Error e = ExplainLoadError(err, libbpf_messages_, ReadPrivileges());
  if (!log_note.empty() && !e.message.empty() && e.message.back() != '\n') e.message += '\n';
  e.message += log_note;
  return e;
}

Result<void> Controller::Attach() {
  if (!loaded_)
    return MakeError(DiagKind::kApiMisuse, EINVAL, "load() the controller before attaching it");
  if (attached())
    return MakeError(DiagKind::kApiMisuse, EALREADY, "the controller is already attached");
  if (!ring_ || ring_->fd < 0) {
    return MakeError(DiagKind::kApiMisuse, EBADF,
                     "the controller's ring was closed; create a new ring and open the "
                     "controller again");
  }
  if (host_) {
    host_attached_ = true;
    return {};
  }
  LibbpfCapture capture(&libbpf_messages_);
  link_ = bpf_map__attach_struct_ops(ops_);
  if (!link_) {
    const int err = -errno;
    return ExplainAttachError(err);
  }
  return {};
}

Result<void> Controller::Detach() {
  if (!attached()) return MakeError(DiagKind::kApiMisuse, EINVAL, "the controller is not attached");
  if (host_) {
    host_attached_ = false;
    return {};
  }
  const int err = bpf_link__destroy(link_);
  link_ = nullptr;
  if (err)
    return MakeError(DiagKind::kAttachFailed, err,
                     "detaching the controller failed (" + std::string(strerror(-err)) + ")");
  return {};
}

Result<RunOutcome> Controller::Run(const RunOptions& options) {
  if (!attached())
    return MakeError(DiagKind::kApiMisuse, EINVAL, "attach() the controller before running it");
  if (!ring_ || ring_->fd < 0) {
    return MakeError(DiagKind::kApiMisuse, EBADF,
                     "the controller's ring was closed; nothing to run");
  }
  ControllerLoop loop(*this, *ring_);
  return RunLoop(loop, options);
}

}  // namespace uringc
