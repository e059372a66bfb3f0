// Diagnostic kinds as an enum, made from the registry in kinds.def: a pass names the kind it
// reports with `DiagKind::kBufferOverrun`, so a misspelt kind does not compile and every kind
// that can be reported is listed (and documented) in one place, for the compiler and the runtime.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace uringc {

enum class DiagKind : uint16_t {
#define URINGC_DIAG_KIND(name, layer, summary) k##name,
#include "uringc/diag/kinds.def"
#undef URINGC_DIAG_KIND
};

/// Where a kind comes from.
enum class DiagLayer { kCompiler, kBackend, kVerifier, kRuntime };

struct DiagKindInfo {
  DiagKind kind;
  std::string_view name;  // "BufferOverrun": what the text and JSON forms print
  DiagLayer layer;
  std::string_view summary;
};

/// Every kind, in registry order.
std::span<const DiagKindInfo> AllDiagKinds();

/// The kind's stable name.
std::string_view DiagKindName(DiagKind kind);

/// The kind called `name`, if any.
std::optional<DiagKind> FindDiagKind(std::string_view name);

}  // namespace uringc
