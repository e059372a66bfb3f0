// Symbols and BTF variables inside their sections, before libbpf sees the object; see
// object_bounds.h.
#include "uringc/object_bounds.h"

#include <bpf/btf.h>
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "uringc/btf_lines.h"

namespace uringc {
namespace {

std::string Describe(const std::string& object_name, std::string_view what, uint64_t offset,
                     uint64_t size, const ElfSectionHeader& section) {
  return "`" + object_name + "` is damaged: " + std::string(what) + " at offset " +
         std::to_string(offset) + " (" + std::to_string(size) + " bytes) lies outside section " +
         std::string(section.name) + " (" + std::to_string(section.size) + " bytes)";
}

// [offset, offset + size) within a section of `section_size` bytes, without wrapping.
bool Inside(uint64_t offset, uint64_t size, uint64_t section_size) {
  return offset <= section_size && size <= section_size - offset;
}

struct Symbol {
  std::string_view name;
  Elf64_Sym sym;
};

// The symbols of every symbol table, with their names.
std::vector<Symbol> ReadSymbols(const std::vector<ElfSectionHeader>& sections) {
  std::vector<Symbol> out;
  for (const ElfSectionHeader& symtab : sections) {
    if (symtab.type != SHT_SYMTAB) continue;
    const std::string_view names =
        symtab.link < sections.size() ? sections[symtab.link].bytes : std::string_view();
    for (size_t off = 0; symtab.bytes.size() - off >= sizeof(Elf64_Sym); off += sizeof(Elf64_Sym)) {
      Symbol s;
      memcpy(&s.sym, symtab.bytes.data() + off, sizeof(s.sym));
      s.name = CString(names, s.sym.st_name);
      out.push_back(s);
    }
  }
  return out;
}

// Functions and objects lie inside the section they name (libbpf copies a program's
// instructions from its symbol's offset).
Result<void> CheckSymbols(const std::vector<ElfSectionHeader>& sections,
                          const std::vector<Symbol>& symbols, const std::string& object_name) {
  for (const Symbol& s : symbols) {
    const unsigned type = ELF64_ST_TYPE(s.sym.st_info);
    if ((type != STT_FUNC && type != STT_OBJECT) || s.sym.st_shndx == SHN_UNDEF ||
        s.sym.st_shndx >= sections.size()) {
      continue;  // SHN_ABS, SHN_COMMON and the like are not offsets into a section
    }
    const ElfSectionHeader& home = sections[s.sym.st_shndx];
    if (Inside(s.sym.st_value, s.sym.st_size, home.size)) continue;
    return MakeError(DiagKind::kBadObject, EINVAL,
                     Describe(object_name, "symbol `" + std::string(s.name) + "`", s.sym.st_value,
                              s.sym.st_size, home));
  }
  return {};
}

// Where libbpf will place a DATASEC's variable: its BTF offset, or, in a DATASEC of size 0 (as
// clang leaves them), the value of the first global or weak object symbol of its name, whatever
// section that symbol names (btf_fixup_datasec, find_elf_var_sym); nullopt when there is none
// (libbpf refuses the object then).
std::optional<uint64_t> PlacedOffset(const btf_type* datasec, const btf_var_secinfo& var,
                                     std::string_view var_name,
                                     const std::vector<Symbol>& symbols) {
  if (datasec->size != 0) return var.offset;
  for (const Symbol& s : symbols) {
    const unsigned bind = ELF64_ST_BIND(s.sym.st_info);
    if (ELF64_ST_TYPE(s.sym.st_info) == STT_OBJECT && (bind == STB_GLOBAL || bind == STB_WEAK) &&
        s.name == var_name) {
      return s.sym.st_value;
    }
  }
  return std::nullopt;
}

// Variables lie inside the section their DATASEC describes (libbpf copies a struct_ops variable
// from its offset, with a 32-bit sum that can wrap).
Result<void> CheckDataSections(const std::vector<ElfSectionHeader>& sections,
                               const std::vector<Symbol>& symbols,
                               const std::string& object_name) {
  std::string_view raw;
  for (const ElfSectionHeader& s : sections)
    if (s.name == ".BTF") raw = s.bytes;
  if (raw.empty()) return {};
  std::unique_ptr<btf, void (*)(btf*)> types(btf__new(raw.data(), raw.size()), btf__free);
  if (!types) return {};  // libbpf reports a BTF it cannot parse when it opens the object
  const uint32_t count = btf__type_cnt(types.get());
  for (uint32_t id = 1; id < count; ++id) {
    const btf_type* t = btf__type_by_id(types.get(), id);
    if (t == nullptr || !btf_is_datasec(t)) continue;
    const std::string_view name = btf__name_by_offset(types.get(), t->name_off);
    const ElfSectionHeader* home = nullptr;
    for (const ElfSectionHeader& s : sections)
      if (s.name == name) home = &s;
    if (home == nullptr) continue;  // .ksyms, .kconfig: externs with no ELF section
    const btf_var_secinfo* vars = btf_var_secinfos(t);
    for (uint16_t i = 0; i < btf_vlen(t); ++i) {
      const btf_type* var = btf__type_by_id(types.get(), vars[i].type);
      const std::string var_name = var ? btf__name_by_offset(types.get(), var->name_off) : "";
      const std::optional<uint64_t> offset = PlacedOffset(t, vars[i], var_name, symbols);
      if (!offset) continue;
      const long long resolved = btf__resolve_size(types.get(), vars[i].type);
      const uint64_t size = std::max<uint64_t>(vars[i].size, resolved < 0 ? 0 : resolved);
      if (Inside(*offset, size, home->size)) continue;
      return MakeError(DiagKind::kBadObject, EINVAL,
                       Describe(object_name, "BTF variable `" + var_name + "`", *offset, size,
                                *home));
    }
  }
  return {};
}

}  // namespace

Result<void> CheckObjectBounds(std::string_view elf, const std::string& object_name) {
  if (elf.size() < EI_NIDENT || memcmp(elf.data(), ELFMAG, SELFMAG) != 0 ||
      elf[EI_CLASS] != ELFCLASS64 || elf[EI_DATA] != ELFDATA2LSB) {
    return {};  // not a 64-bit little-endian ELF file: libbpf refuses it with its own words
  }
  // Strict where libelf is lenient (it ignores e_shentsize, for one): an ELF file whose section
  // table this cannot read is not handed to libbpf.
  auto sections = ElfSections(elf);
  if (!sections) {
    return MakeError(DiagKind::kBadObject, EINVAL,
                     "`" + object_name + "` is damaged: " + sections.error().message);
  }
  const std::vector<Symbol> symbols = ReadSymbols(*sections);
  URINGC_TRY(CheckSymbols(*sections, symbols, object_name));
  return CheckDataSections(*sections, symbols, object_name);
}

}  // namespace uringc
