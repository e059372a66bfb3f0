// Finds a BPF global variable inside its section's internal map (`.rodata`, `.bss`) through the
// object's BTF DATASEC, the way a loader without a generated skeleton must: compiled objects
// keep each constant and output as its own named global, not as one struct.
#pragma once

#include <bpf/libbpf.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace uringc::testing {

struct GlobalSlot {
  size_t offset = 0;
  size_t size = 0;
};

/// The offset and size of variable `name` in section `section` of an opened object; false when
/// the object has no such variable.
bool FindGlobal(const bpf_object* object, const char* section, const char* name, GlobalSlot* slot);

/// The internal map whose name ends in `suffix` (".rodata", ".bss"), or nullptr.
bpf_map* FindInternalMap(bpf_object* object, const char* suffix);

/// Writes an integer of the global's size into a `.rodata` global before load.
bool SetRodata(bpf_object* object, const char* name, uint64_t value, std::string* error);
/// Writes the `index`-th `__u32` of a `.rodata` struct or array (a compiled controller's
/// `uringc_ring`) before load.
bool SetRodataWord(bpf_object* object, const char* name, size_t index, uint32_t value,
                   std::string* error);

}  // namespace uringc::testing
