// Error numbers turned into sentences: what the kernel or libbpf refused, and what to do. Kept apart
// from the code that calls the kernel so each explanation can be unit-tested.
#pragma once

#include <string>

#include "uringc/features.h"
#include "uringc/result.h"

namespace uringc {

/// bpf_map__attach_struct_ops failed with err (negative errno): the Error to return, its kind
/// saying which case (RingNotSupported, RingBusy, MissingPrivileges...).
Error ExplainAttachError(int err);

/// bpf_object__load failed with err without a verifier log; `libbpf_messages` is what libbpf said
/// (used to recognise unknown kfuncs and missing kernel types).
Error ExplainLoadError(int err, const std::string& libbpf_messages, const Privileges& privs);

}  // namespace uringc
