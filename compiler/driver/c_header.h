// The C header of a compiled graph (`uringc compile --emit-header`): the program and ops names,
// the parameter region's size, and a typedef per parameter and output, so a host written in C
// can set and read them by name (docs/embedding.md).
#pragma once

#include <string>

#include "rgir/rgir.h"

namespace uringc::driver {

/// The UAPI name of a parameter's or output's type in the object (its BTF): `__s16` for `i16`,
/// `__u8` for `bool`, `__s32` for `fd`, `__u64` for `duration` and a buffers address.
std::string CTypeName(const Type& t);

/// The same type as an application declares it (<stdint.h>, <stdbool.h>): `int16_t` for `i16`,
/// `bool`, `int` for `fd`, `uint64_t` for `duration`. Same width and signedness as CTypeName.
std::string StdintTypeName(const Type& t);

/// `name` in capitals, for a macro: `nop_chain` -> `NOP_CHAIN`.
std::string CMacroCase(std::string name);

/// The header for graph `g`, compiled from `file` (named in its first comment). With a
/// `host_symbol` (an object made with --target=host) it also declares that descriptor.
std::string CHeader(const rgir::Graph& g, const std::string& file,
                    const std::string& host_symbol = "");

}  // namespace uringc::driver
