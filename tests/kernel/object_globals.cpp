// BTF-driven access to named globals of a BPF object; see object_globals.h.
#include "object_globals.h"

#include <bpf/btf.h>

#include <cstring>
#include <string>

namespace uringc::testing {

bool FindGlobal(const bpf_object* object, const char* section, const char* name,
                GlobalSlot* slot) {
  const btf* types = bpf_object__btf(object);
  if (types == nullptr) return false;
  int id = btf__find_by_name_kind(types, section, BTF_KIND_DATASEC);
  if (id < 0) return false;
  const btf_type* datasec = btf__type_by_id(types, id);
  const btf_var_secinfo* vars = btf_var_secinfos(datasec);
  for (int i = 0; i < btf_vlen(datasec); i++) {
    const btf_type* var = btf__type_by_id(types, vars[i].type);
    if (std::strcmp(btf__name_by_offset(types, var->name_off), name) == 0) {
      slot->offset = vars[i].offset;
      slot->size = vars[i].size;
      return true;
    }
  }
  return false;
}

bpf_map* FindInternalMap(bpf_object* object, const char* suffix) {
  bpf_map* map;
  bpf_object__for_each_map(map, object) {
    const char* name = bpf_map__name(map);
    size_t n = std::strlen(name), s = std::strlen(suffix);
    if (n >= s && std::strcmp(name + n - s, suffix) == 0) return map;
  }
  return nullptr;
}

bool SetRodataWord(bpf_object* object, const char* name, size_t index, uint32_t value,
                   std::string* error) {
  GlobalSlot slot;
  if (!FindGlobal(object, ".rodata", name, &slot) || 4 * (index + 1) > slot.size) {
    *error = std::string("no .rodata global `") + name + "` with word " + std::to_string(index);
    return false;
  }
  bpf_map* rodata = FindInternalMap(object, ".rodata");
  size_t size = 0;
  auto* data =
      rodata ? static_cast<unsigned char*>(bpf_map__initial_value(rodata, &size)) : nullptr;
  if (data == nullptr || slot.offset + slot.size > size) {
    *error = "no writable .rodata map";
    return false;
  }
  std::memcpy(data + slot.offset + 4 * index, &value, 4);
  return true;
}

bool SetRodata(bpf_object* object, const char* name, uint64_t value, std::string* error) {
  GlobalSlot slot;
  if (!FindGlobal(object, ".rodata", name, &slot)) {
    *error = std::string("no .rodata global `") + name + "`";
    return false;
  }
  bpf_map* rodata = FindInternalMap(object, ".rodata");
  size_t size = 0;
  auto* data = rodata ? static_cast<unsigned char*>(bpf_map__initial_value(rodata, &size)) : nullptr;
  if (data == nullptr || slot.offset + slot.size > size) {
    *error = "no writable .rodata map";
    return false;
  }
  if (slot.size == 4) {
    uint32_t v = static_cast<uint32_t>(value);
    std::memcpy(data + slot.offset, &v, 4);
  } else if (slot.size == 8) {
    std::memcpy(data + slot.offset, &value, 8);
  } else {
    *error = std::string("`") + name + "` is neither 4 nor 8 bytes";
    return false;
  }
  return true;
}

}  // namespace uringc::testing
