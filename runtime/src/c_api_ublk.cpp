// The C API's ublk part (uringc.h): uringc_ublk over ublk::Server. The caller's open callback
// returns a uringc_ctl handle; the server takes its controller over and the handle stays, pointing
// at it, for the configure callback and for reading outputs after the stop.
#include <vector>

#include "c_api_internal.h"
#include "uringc/ublk_server.h"

struct uringc_ublk {
  std::unique_ptr<uringc::ublk::Control> control;
  std::unique_ptr<uringc::ublk::Server> server;
  std::vector<std::unique_ptr<uringc_ctl>> handles;  // by queue
  std::string last_error;
};

namespace {

uringc::Error LastConstructorError(const char* what) {
  return uringc::MakeError(uringc::DiagKind::kApiMisuse, errno ? errno : EINVAL,
                           std::string(what) + ": " + uringc_last_error());
}

}  // namespace

extern "C" {

uringc_ublk* uringc_ublk__start(const uringc_ublk_opts* opts) try {
  uringc_ublk_opts o;
  if (!uringc::c_api::ReadOpts(opts, &o) || !opts || !o.open) {
    uringc::c_api::SetConstructorError(uringc::MakeError(
        uringc::DiagKind::kApiMisuse, EINVAL,
        "uringc_ublk_opts: missing, bad sz, unknown fields set, or no open callback"));
    return nullptr;
  }
  auto ublk = std::make_unique<uringc_ublk>();
  auto control = uringc::ublk::Control::Open();
  if (!control) {
    uringc::c_api::SetConstructorError(control.error());
    return nullptr;
  }
  ublk->control = std::move(*control);
  uringc::ublk::ServerOptions so;
  so.device.size_bytes = o.size_bytes;
  if (o.queues) so.device.queues = o.queues;
  if (o.depth) so.device.depth = o.depth;
  if (o.max_io_bytes) so.device.max_io_bytes = o.max_io_bytes;
  uringc_ublk* self = ublk.get();
  so.open = [self, o](uint16_t q) -> uringc::Result<std::unique_ptr<uringc::Controller>> {
    errno = 0;
    uringc_ctl* handle = o.open(q, o.arg);
    if (handle == nullptr || handle->owned == nullptr) {
      return LastConstructorError("the open callback returned no controller");
    }
    self->handles.emplace_back(handle);
    return std::move(handle->owned);  // handle->ctl still points at it
  };
  if (o.configure) {
    so.configure = [self, o](uringc::Controller&,
                             const uringc::ublk::QueueContext& q) -> uringc::Result<void> {
      uringc_ctl* handle = self->handles.at(q.queue).get();
      const int r = o.configure(handle, q.queue, o.arg);
      if (r == 0) return {};
      return uringc::MakeError(uringc::DiagKind::kBadParameter, r,
                               "the configure callback failed: " +
                                   (handle->last_error.empty() ? std::string(strerror(-r))
                                                               : handle->last_error));
    };
  }
  auto server = uringc::ublk::Server::Start(*ublk->control, so);
  if (!server) {
    uringc::c_api::SetConstructorError(server.error());
    return nullptr;
  }
  ublk->server = std::move(*server);
  return ublk.release();
} catch (...) {
  uringc::c_api::SetConstructorError(uringc::c_api::FromException(std::current_exception()));
  return nullptr;
}

int uringc_ublk__dev_id(const uringc_ublk* ublk) {
  return ublk ? ublk->server->device().dev_id : -EINVAL;
}

uint16_t uringc_ublk__queues(const uringc_ublk* ublk) {
  return ublk ? ublk->server->device().queues : 0;
}

int uringc_ublk__stop(uringc_ublk* ublk) try {
  if (!ublk) return -EINVAL;
  auto r = ublk->server->Stop();
  if (r) return 0;
  ublk->last_error = r.error().message;
  return r.error().code;
} catch (...) {
  const uringc::Error e = uringc::c_api::FromException(std::current_exception());
  ublk->last_error = e.message;
  return e.code;
}

uringc_ctl* uringc_ublk__ctl(uringc_ublk* ublk, uint16_t queue) {
  if (!ublk || queue >= ublk->handles.size() || ublk->server->controller(queue) == nullptr) {
    return nullptr;
  }
  return ublk->handles[queue].get();
}

const char* uringc_ublk__last_error(const uringc_ublk* ublk) {
  return ublk ? ublk->last_error.c_str() : "";
}

void uringc_ublk__destroy(uringc_ublk* ublk) {
  if (!ublk) return;
  ublk->server.reset();  // stops, then the controllers go before their handles
  delete ublk;
}

int uringc_ublk__delete(int dev_id) try {
  auto control = uringc::ublk::Control::Open();
  if (!control) return control.error().code;
  auto removed = (*control)->Remove(dev_id);
  return removed ? 0 : removed.error().code;
} catch (...) {
  return uringc::c_api::FromException(std::current_exception()).code;
}

}  // extern "C"
