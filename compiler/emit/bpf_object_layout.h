// Where the BPF back end put a controller's globals: the data sections of a BPF object (".rodata",
// ".bss", ...), their bytes, and each global's section and offset, read from the object's section
// and symbol tables. The host target lays the graph's state out exactly so (host_module.h), which
// lets the runtime read and write the host engine's globals through the BTF of the BPF object,
// the same description the kernel engine's maps are read through.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace uringc {

struct BpfDataSection {
  std::string name;
  uint64_t size = 0;
  uint64_t align = 1;
  /// The section's bytes; empty for a NOBITS section (.bss), whose bytes are zero.
  std::string bytes;
};

struct BpfGlobalPlace {
  size_t section = 0;  ///< index into BpfObjectLayout::sections
  uint64_t offset = 0;
};

struct BpfObjectLayout {
  std::vector<BpfDataSection> sections;
  std::map<std::string, BpfGlobalPlace> globals;
};

/// True for the sections libbpf turns into global-data maps: .rodata, .data and .bss, and their
/// `.rodata.NAME` kinds.
bool IsBpfDataSection(std::string_view name);

/// The data sections and global symbols of the ELF object `elf`; nullopt with `error` set when it
/// is not a BPF ELF object.
std::optional<BpfObjectLayout> ReadBpfObjectLayout(std::string_view elf, std::string& error);

}  // namespace uringc
