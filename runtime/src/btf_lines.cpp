// ELF section lookup and the .BTF.ext line_info parser (see btf_lines.h).
#include "uringc/btf_lines.h"

#include <elf.h>

#include <cstring>

namespace uringc {
namespace {

template <typename T>
bool ReadAt(std::string_view data, size_t off, T* out) {
  if (off > data.size() || data.size() - off < sizeof(T)) return false;
  memcpy(out, data.data() + off, sizeof(T));
  return true;
}

}  // namespace

std::string_view CString(std::string_view strings, uint32_t off) {
  if (off >= strings.size()) return {};
  const char* p = strings.data() + off;
  return std::string_view(p, strnlen(p, strings.size() - off));
}

Result<std::vector<ElfSectionHeader>> ElfSections(std::string_view elf) {
  Elf64_Ehdr eh;
  if (!ReadAt(elf, 0, &eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64) {
    return MakeError(DiagKind::kBadObject, EINVAL, "not a 64-bit ELF object");
  }
  // The table must be whole and name its string section; extended numbering (e_shnum 0 with
  // e_shoff set) is not something a BPF compiler writes, so it counts as damage too.
  const bool table_inside = eh.e_shoff <= elf.size() &&
                            (elf.size() - eh.e_shoff) / sizeof(Elf64_Shdr) >= eh.e_shnum;
  Elf64_Shdr names;
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || !table_inside ||
      (eh.e_shnum == 0 && eh.e_shoff != 0) || eh.e_shstrndx >= eh.e_shnum ||
      !ReadAt(elf, eh.e_shoff + size_t{eh.e_shstrndx} * sizeof(Elf64_Shdr), &names) ||
      names.sh_offset > elf.size() || elf.size() - names.sh_offset < names.sh_size) {
    return MakeError(DiagKind::kBadObject, EINVAL, "the ELF object's section headers are damaged");
  }
  const std::string_view strtab = elf.substr(names.sh_offset, names.sh_size);
  std::vector<ElfSectionHeader> out;
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    ReadAt(elf, eh.e_shoff + size_t{i} * sizeof(Elf64_Shdr), &sh);  // inside: checked above
    ElfSectionHeader h{CString(strtab, sh.sh_name), sh.sh_type, sh.sh_size, sh.sh_link, {}};
    if (sh.sh_type != SHT_NOBITS) {
      h.outside_file = sh.sh_offset > elf.size() || elf.size() - sh.sh_offset < sh.sh_size;
      if (!h.outside_file) h.bytes = elf.substr(sh.sh_offset, sh.sh_size);
    }
    out.push_back(h);
  }
  return out;
}

Result<std::string_view> ElfSection(std::string_view elf, std::string_view name) {
  auto sections = ElfSections(elf);
  if (!sections) return sections.error();
  for (const ElfSectionHeader& s : *sections) {
    if (s.name != name) continue;
    if (s.outside_file) {
      return MakeError(DiagKind::kBadObject, EINVAL,
                       "ELF section " + std::string(name) + " lies outside the file");
    }
    return s.bytes;
  }
  return std::string_view();
}

Result<std::vector<LineInfo>> ReadLineInfo(std::string_view elf) {
  auto btf = ElfSection(elf, ".BTF");
  if (!btf) return btf.error();
  auto ext = ElfSection(elf, ".BTF.ext");
  if (!ext) return ext.error();
  std::vector<LineInfo> out;
  if (btf->empty() || ext->empty()) return out;

  // .BTF header: magic, version, flags, hdr_len, type_off, type_len, str_off, str_len.
  struct {
    uint16_t magic;
    uint8_t version, flags;
    uint32_t hdr_len, type_off, type_len, str_off, str_len;
  } bh;
  if (!ReadAt(*btf, 0, &bh) || bh.magic != 0xeB9F)
    return MakeError(DiagKind::kBadObject, EINVAL, "bad .BTF header");
  const size_t str_start = size_t{bh.hdr_len} + bh.str_off;
  if (str_start > btf->size() || btf->size() - str_start < bh.str_len) {
    return MakeError(DiagKind::kBadObject, EINVAL, ".BTF string section out of range");
  }
  const std::string_view strings = btf->substr(str_start, bh.str_len);

  // .BTF.ext header: magic, version, flags, hdr_len, func_info_off/len, line_info_off/len.
  struct {
    uint16_t magic;
    uint8_t version, flags;
    uint32_t hdr_len, func_info_off, func_info_len, line_info_off, line_info_len;
  } eh;
  if (!ReadAt(*ext, 0, &eh) || eh.magic != 0xeB9F)
    return MakeError(DiagKind::kBadObject, EINVAL, "bad .BTF.ext header");
  size_t pos = size_t{eh.hdr_len} + eh.line_info_off;
  const size_t end = pos + eh.line_info_len;
  if (end > ext->size())
    return MakeError(DiagKind::kBadObject, EINVAL, ".BTF.ext line_info out of range");
  uint32_t rec_size = 0;
  if (eh.line_info_len == 0) return out;
  if (!ReadAt(*ext, pos, &rec_size) || rec_size < 16) {
    return MakeError(DiagKind::kBadObject, EINVAL, ".BTF.ext line_info record size is wrong");
  }
  pos += 4;
  while (pos + 8 <= end) {
    uint32_t sec_name_off = 0, num = 0;
    ReadAt(*ext, pos, &sec_name_off);
    ReadAt(*ext, pos + 4, &num);
    pos += 8;
    const std::string section(CString(strings, sec_name_off));
    for (uint32_t i = 0; i < num; ++i, pos += rec_size) {
      struct {
        uint32_t insn_off, file_name_off, line_off, line_col;
      } r;
      if (pos + rec_size > end || !ReadAt(*ext, pos, &r)) {
        return MakeError(DiagKind::kBadObject, EINVAL, ".BTF.ext line_info is truncated");
      }
      out.push_back({section, r.insn_off / 8, std::string(CString(strings, r.file_name_off)),
                     r.line_col >> 10, r.line_col & 0x3ff,
                     std::string(CString(strings, r.line_off))});
    }
  }
  return out;
}

}  // namespace uringc
