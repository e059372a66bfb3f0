// The line table of a BPF object: for each instruction that starts a source line, the ELF section,
// instruction index, file, line, column and line text, read from `.BTF.ext` (line_info) and
// `.BTF` (strings). libbpf has no public API to iterate them, and the format is small and stable
// (include/uapi/linux/btf.h, Documentation/bpf/btf.rst), so it is parsed here. The file name is
// whatever the compiler recorded, so `.c` and `.uring` sources map the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uringc/result.h"

namespace uringc {

struct LineInfo {
  std::string section;  // ELF section of the program, e.g. "struct_ops.s/nop_inflight_step"
  uint32_t insn = 0;    // instruction index within the section
  std::string file;     // as recorded (often an absolute path)
  uint32_t line = 0;
  uint32_t column = 0;
  std::string text;     // the source line, when the compiler embedded it
};

/// The NUL-terminated string at `off` of a string table (ELF or BTF), cut at the table's end;
/// empty when `off` lies outside it.
std::string_view CString(std::string_view strings, uint32_t off);

/// One entry of an ELF file's section header table; `bytes` is empty for SHT_NOBITS sections.
struct ElfSectionHeader {
  std::string_view name;
  uint32_t type = 0;
  uint64_t size = 0;    // sh_size: the section's size in memory, also for SHT_NOBITS
  uint32_t link = 0;    // sh_link (a symbol table's string table)
  std::string_view bytes;  // empty also when the header places them outside the file
  bool outside_file = false;
};

/// Every section header of a 64-bit little-endian ELF file, in index order (section 0 included).
/// An error when the header table or the section names lie outside the file.
Result<std::vector<ElfSectionHeader>> ElfSections(std::string_view elf);

/// A section's bytes by name in a 64-bit little-endian ELF file; empty view if absent.
Result<std::string_view> ElfSection(std::string_view elf, std::string_view name);

/// Every line_info record of an ELF BPF object. An object without `.BTF.ext` gives an empty list.
Result<std::vector<LineInfo>> ReadLineInfo(std::string_view elf);

}  // namespace uringc
