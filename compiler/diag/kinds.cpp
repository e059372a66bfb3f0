// The table behind kinds.h, expanded from kinds.def.
#include "uringc/diag/kinds.h"

namespace uringc {
namespace {

constexpr DiagKindInfo kKinds[] = {
#define URINGC_DIAG_KIND(name, layer, summary) \
  {DiagKind::k##name, #name, DiagLayer::layer, summary},
#include "uringc/diag/kinds.def"
#undef URINGC_DIAG_KIND
};

}  // namespace

std::span<const DiagKindInfo> AllDiagKinds() { return kKinds; }

std::string_view DiagKindName(DiagKind kind) {
  const auto i = static_cast<size_t>(kind);
  return i < std::size(kKinds) ? kKinds[i].name : "UnknownKind";
}

std::optional<DiagKind> FindDiagKind(std::string_view name) {
  for (const DiagKindInfo& k : kKinds) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

}  // namespace uringc
