// Type names as the user writes them (see types.h).
#include "ast/types.h"

namespace uringc {

std::string Type::ToString() const {
  switch (kind) {
    case Kind::kError: return "<error>";
    case Kind::kVoid: return "void";
    case Kind::kInt: return (is_signed ? "i" : "u") + std::to_string(bits);
    case Kind::kIntLit: return "integer";
    case Kind::kBool: return "bool";
    case Kind::kFd: return "fd";
    case Kind::kDuration: return "duration";
    case Kind::kBytes:
      return mem == Mem::kShared ? "shared bytes" : mem == Mem::kConst ? "const bytes" : "bytes";
    case Kind::kBuffers:
      return std::string(mem == Mem::kShared     ? "shared "
                         : mem == Mem::kProvided ? "provided "
                                                 : "") +
             "buffers[" +
             std::to_string(count) + "] of " + std::to_string(size);
  }
  return "<error>";
}

}  // namespace uringc
