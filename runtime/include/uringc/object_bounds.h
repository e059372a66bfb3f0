// Bounds checks on an untrusted BPF object before libbpf opens it. libbpf 1.4.6 (Debian 12's
// backport) trusts two offsets it reads from the object when it copies bytes out of a section: a
// program symbol's offset (bpf_object__init_prog: `sec_off + prog_sz` wraps, fixed upstream in
// libbpf 1.6, commit 806b4e0a) and a struct_ops variable's offset (init_struct_ops_maps:
// `vsi->offset + type->size` wraps 32 bits; the offset is the DATASEC's, or in a DATASEC of size
// 0 the value of the object symbol of the variable's name, whatever section that symbol names). A mutated object made either read outside the file
// (found by fuzz.object). Objects that compilers emit always pass; the runtime refuses the rest
// with a BadObject error instead of handing them to libbpf.
#pragma once

#include <string_view>

#include "uringc/result.h"

namespace uringc {

/// The section header table is whole, and every function and object symbol, and every variable a
/// BTF DATASEC places in an ELF section, lies inside its section. Bytes that are not a 64-bit
/// little-endian ELF file pass (libbpf refuses them itself, before it reads any section).
Result<void> CheckObjectBounds(std::string_view elf, const std::string& object_name);

}  // namespace uringc
