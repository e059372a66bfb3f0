// The C API (uringc.h) over the C++ classes: no exception or C++ type crosses it (an allocation
// that fails is -ENOMEM, with errno set for the constructors), options are read only up to the
// size the caller compiled against.
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "uringc/controller.h"
#include "uringc/engine.h"
#include "uringc/ring.h"
#include "uringc/uringc.h"
#include "c_api_internal.h"

namespace uringc::c_api {

// The error an escaping exception stands for.
Error FromException(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    return MakeError(DiagKind::kOutOfMemory, ENOMEM, "out of memory");
  } catch (const std::exception& x) {
    return MakeError(DiagKind::kInternalError, EIO,
                             std::string("internal error: ") + x.what());
  } catch (...) {
    return MakeError(DiagKind::kInternalError, EIO, "internal error");
  }
}

}  // namespace uringc::c_api

struct uringc_ring {
  std::unique_ptr<uringc::Ring> ring;
};


namespace {

thread_local std::string last_error;
thread_local std::string_view last_kind;

using uringc::c_api::FromException;
using uringc::c_api::ReadOpts;

int Fail(uringc_ctl* ctl, const uringc::Error& e) {
  if (ctl) {
    ctl->last_error = e.message;
    ctl->last_kind = uringc::DiagKindName(e.kind);
  }
  return e.code;
}

// In the catch of a function-try-block: the exception becomes its errno and the last error.
int Caught(uringc_ctl* ctl) {
  const uringc::Error e = FromException(std::current_exception());
  if (ctl) ctl->last_kind = uringc::DiagKindName(e.kind);
  try {
    if (ctl) ctl->last_error = e.message;
  } catch (...) {
    if (ctl) ctl->last_error.clear();
  }
  return e.code;
}

// The same for constructors: NULL with errno and uringc_last_error() set.
template <typename T>
T* CaughtNew() {
  uringc::c_api::SetConstructorError(FromException(std::current_exception()));
  return nullptr;
}

template <typename T>
int Check(uringc_ctl* ctl, const uringc::Result<T>& r) {
  if (r.ok()) {
    ctl->last_error.clear();
    ctl->last_kind = {};
    return 0;
  }
  return Fail(ctl, r.error());
}

}  // namespace

void uringc::c_api::SetConstructorError(const uringc::Error& e) {
  last_kind = uringc::DiagKindName(e.kind);
  try {
    last_error = e.message;
  } catch (...) {
    last_error.clear();
  }
  errno = -e.code;
}

extern "C" {

uringc_ring* uringc_ring__create(const uringc_ring_opts* opts) try {
  uringc_ring_opts o;
  if (!ReadOpts(opts, &o)) {
    last_error = "uringc_ring_opts: bad sz or unknown fields set";
    last_kind = uringc::DiagKindName(uringc::DiagKind::kApiMisuse);
    errno = EINVAL;
    return nullptr;
  }
  uringc::RingOptions ro;
  ro.sq_entries = o.sq_entries ? o.sq_entries : 64;
  ro.cq_entries = o.cq_entries;
  ro.extra_flags = o.extra_flags;
  ro.mem_region_size = o.mem_region_size;
  switch (o.ring_mode) {
    case URINGC_RING_AUTO:
      ro.mode = uringc::RingMode::kAuto;
      break;
    case URINGC_RING_REWIND:
      ro.mode = uringc::RingMode::kRewind;
      break;
    case URINGC_RING_TAIL:
      ro.mode = uringc::RingMode::kTail;
      break;
    default:
      last_error = "uringc_ring_opts: ring_mode " + std::to_string(o.ring_mode) +
                   " is none of URINGC_RING_AUTO, URINGC_RING_REWIND, URINGC_RING_TAIL";
      last_kind = uringc::DiagKindName(uringc::DiagKind::kApiMisuse);
      errno = EINVAL;
      return nullptr;
  }
  auto r = uringc::Ring::Create(ro);
  if (!r) {
    last_error = r.error().message;
    last_kind = uringc::DiagKindName(r.error().kind);
    errno = -r.error().code;
    return nullptr;
  }
  return new uringc_ring{std::move(*r)};
} catch (...) {
  return CaughtNew<uringc_ring>();
}

int uringc_ring__fd(const uringc_ring* ring) { return ring ? ring->ring->fd() : -EINVAL; }

void* uringc_ring__mem_region(const uringc_ring* ring, size_t* size) {
  if (size) *size = ring ? ring->ring->mem_region_size() : 0;
  return ring ? ring->ring->mem_region() : nullptr;
}

void uringc_ring__destroy(uringc_ring* ring) { delete ring; }

// program != nullptr: a --target=host program on `engine`; else the object at path or buf.
static uringc_ctl* OpenCommon(const uringc_ctl_open_opts* opts, const char* path, const void* buf,
                              size_t size, const uringc_program* program = nullptr,
                              uringc_engine engine = URINGC_ENGINE_KERNEL) try {
  uringc_ctl_open_opts o;
  if (!ReadOpts(opts, &o)) {
    last_error = "uringc_ctl_open_opts: bad sz or unknown fields set";
    last_kind = uringc::DiagKindName(uringc::DiagKind::kApiMisuse);
    errno = EINVAL;
    return nullptr;
  }
  uringc::ControllerOptions co;
  if (o.object_name) co.object_name = o.object_name;
  if (o.ops_map) co.ops_map = o.ops_map;
  if (o.log_size) co.log_size = o.log_size;
  if (o.verifier_log_path) co.verifier_log_path = o.verifier_log_path;
  uringc::EngineDecision decision{uringc::Engine::kKernel, "kernel: a BPF object"};
  if (program) {
    const uringc::EngineChoice choice = engine == URINGC_ENGINE_HOST ? uringc::EngineChoice::kHost
                                        : engine == URINGC_ENGINE_KERNEL
                                            ? uringc::EngineChoice::kKernel
                                            : uringc::EngineChoice::kAuto;
    decision = uringc::ChooseEngine(choice, /*has_host_code=*/program->loop_step != nullptr);
  }
  auto r = program ? uringc::Controller::OpenProgram(*program, decision.engine, co)
           : path  ? uringc::Controller::OpenFile(path, co)
                   : uringc::Controller::OpenMemory(buf, size, co);
  if (!r) {
    last_error = r.error().message;
    last_kind = uringc::DiagKindName(r.error().kind);
    errno = -r.error().code;
    return nullptr;
  }
  auto* ctl = new uringc_ctl;
  ctl->owned = std::move(*r);
  ctl->ctl = ctl->owned.get();
  ctl->engine_reason = decision.why;
  return ctl;
} catch (...) {
  return CaughtNew<uringc_ctl>();
}

uringc_ctl* uringc_ctl__open_file(const char* path, const uringc_ctl_open_opts* opts) {
  if (!path) {
    errno = EINVAL;
    return nullptr;
  }
  return OpenCommon(opts, path, nullptr, 0);
}

uringc_ctl* uringc_ctl__open_mem(const void* buf, size_t size, const uringc_ctl_open_opts* opts) {
  if (!buf) {
    errno = EINVAL;
    return nullptr;
  }
  return OpenCommon(opts, nullptr, buf, size);
}

uringc_ctl* uringc_ctl__open_program(const uringc_program* program, uringc_engine engine,
                                     const uringc_ctl_open_opts* opts) {
  if (!program || engine < URINGC_ENGINE_AUTO || engine > URINGC_ENGINE_HOST) {
    last_error = !program ? "uringc_ctl__open_program: no program"
                          : "uringc_ctl__open_program: engine is not one of URINGC_ENGINE_*";
    last_kind = uringc::DiagKindName(uringc::DiagKind::kApiMisuse);
    errno = EINVAL;
    return nullptr;
  }
  return OpenCommon(opts, nullptr, nullptr, 0, program, engine);
}

const char* uringc_ctl__engine(const uringc_ctl* ctl) {
  return ctl ? uringc::EngineName(ctl->ctl->engine()) : "";
}

const char* uringc_ctl__engine_reason(const uringc_ctl* ctl) {
  return ctl ? ctl->engine_reason.c_str() : "";
}

const char* uringc_ctl__kernel_warning(const uringc_ctl* ctl) {
  if (!ctl || ctl->ctl->kernel_warning().empty()) return nullptr;
  return ctl->ctl->kernel_warning().c_str();
}

int uringc_ctl__set(uringc_ctl* ctl, const char* name, const char* value) try {
  if (!ctl || !name || !value) return -EINVAL;
  return Check(ctl, ctl->ctl->Set(name, value));
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__set_int(uringc_ctl* ctl, const char* name, int64_t value) try {
  if (!ctl || !name) return -EINVAL;
  return Check(ctl, ctl->ctl->SetInt(name, value));
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__set_uint(uringc_ctl* ctl, const char* name, uint64_t value) try {
  if (!ctl || !name) return -EINVAL;
  return Check(ctl, ctl->ctl->SetUint(name, value));
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__set_bytes(uringc_ctl* ctl, const char* name, const void* data, size_t size) try {
  if (!ctl || !name || !data) return -EINVAL;
  return Check(ctl, ctl->ctl->SetBytes(name, data, size));
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__set_buffer(uringc_ctl* ctl, const char* name, void* data, size_t size) try {
  if (!ctl || !name) return -EINVAL;
  return Check(ctl, ctl->ctl->SetBuffer(name, data, size));
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__buffer_size(uringc_ctl* ctl, const char* name, uint64_t* size) try {
  if (!ctl || !name || !size) return -EINVAL;
  auto r = ctl->ctl->BufferBytes(name);
  if (r) *size = *r;
  return Check(ctl, r);
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__shared_buffer(uringc_ctl* ctl, const char* name, void** data, size_t* size) try {
  if (!ctl || !name || !data || !size) return -EINVAL;
  auto r = ctl->ctl->SharedBuffer(name);
  if (r) {
    *data = r->data();
    *size = r->size();
  }
  return Check(ctl, r);
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__get_int(uringc_ctl* ctl, const char* name, int64_t* value) try {
  if (!ctl || !name || !value) return -EINVAL;
  auto r = ctl->ctl->GetInt(name);
  if (!r) return Fail(ctl, r.error());
  *value = *r;
  return 0;
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__get_bytes(uringc_ctl* ctl, const char* name, void* data, size_t size) try {
  if (!ctl || !name || !data) return -EINVAL;
  auto r = ctl->ctl->GetBytes(name);
  if (!r) return Fail(ctl, r.error());
  if (r->size() != size) {
    return Fail(ctl,
                uringc::MakeError(uringc::DiagKind::kBadParameter, EINVAL,
                                  "`" + std::string(name) + "` has " + std::to_string(r->size()) +
                                      " bytes, not " + std::to_string(size)));
  }
  memcpy(data, r->data(), size);
  return 0;
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__load(uringc_ctl* ctl, uringc_ring* ring) try {
  if (!ctl || !ring) return -EINVAL;
  return Check(ctl, ctl->ctl->Load(*ring->ring));
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__attach(uringc_ctl* ctl) try {
  if (!ctl) return -EINVAL;
  return Check(ctl, ctl->ctl->Attach());
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__detach(uringc_ctl* ctl) try {
  if (!ctl) return -EINVAL;
  return Check(ctl, ctl->ctl->Detach());
} catch (...) {
  return Caught(ctl);
}

int uringc_ctl__run(uringc_ctl* ctl, const uringc_run_opts* opts, uringc_run_result* result) try {
  if (!ctl) return -EINVAL;
  uringc_run_opts o;
  if (!ReadOpts(opts, &o))
    return Fail(ctl, uringc::MakeError(uringc::DiagKind::kApiMisuse, EINVAL, "uringc_run_opts: bad sz"));
  if (result && result->sz < sizeof(size_t)) {
    return Fail(ctl,
                uringc::MakeError(uringc::DiagKind::kApiMisuse, EINVAL, "uringc_run_result: sz not set"));
  }
  uringc::RunOptions ro;
  ro.return_on_interrupt = o.return_on_interrupt;
  ro.max_enters = o.max_enters;
  auto r = ctl->ctl->Run(ro);
  if (!r) return Fail(ctl, r.error());
  ctl->last_error.clear();
  ctl->last_kind = {};
  if (result) {
    uringc_run_result out{};
    out.sz = result->sz;
    out.status = r->status == uringc::RunStatus::kDone     ? URINGC_RUN_DONE
                 : r->status == uringc::RunStatus::kFailed ? URINGC_RUN_FAILED
                                                           : URINGC_RUN_INTERRUPTED;
    out.controller_error = r->controller_error;
    out.enters = r->stats.enters;
    out.interrupts = r->stats.interrupts;
    out.steps_known = r->stats.steps_known;
    out.steps = r->stats.steps;
    out.wall_seconds = r->stats.wall_seconds;
    memcpy(result, &out, result->sz < sizeof(out) ? result->sz : sizeof(out));
  }
  return 0;
} catch (...) {
  return Caught(ctl);
}

const char* uringc_ctl__last_error(const uringc_ctl* ctl) {
  return ctl ? ctl->last_error.c_str() : "";
}

const char* uringc_last_error(void) { return last_error.c_str(); }

const char* uringc_ctl__last_error_kind(const uringc_ctl* ctl) {
  return ctl && !ctl->last_kind.empty() ? ctl->last_kind.data() : "";
}

const char* uringc_last_error_kind(void) { return last_kind.empty() ? "" : last_kind.data(); }

void uringc_ctl__destroy(uringc_ctl* ctl) { delete ctl; }

}  // extern "C"
