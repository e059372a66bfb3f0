// libFuzzer target for the runtime's object loader: what `uringc run x.bpf.o` and the C API do
// with an untrusted object before the kernel sees it. Opens the bytes as a Controller (libbpf
// open, the io_uring_bpf_ops map, globals by BTF), reads, formats and sets every global as
// `--arg` would, reads the `.BTF.ext` line table, and builds a verifier report for a made-up
// rejection at one of its lines. Any error is fine; a crash, a sanitizer report, a leak or an
// uncaught exception is not. Seeded with the compiled examples and the C controllers; the custom
// mutator changes one ELF section at a time (the BTF, the line table, the data sections, the
// symbols), which reaches the runtime's own parsing more often than flips anywhere in the file.
// Built with clang (-fsanitize=fuzzer,address,undefined) by URINGC_FUZZ; no kernel load.
#include <elf.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "uringc/btf_lines.h"
#include "uringc/controller.h"
#include "uringc/verifier_report.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

struct Span {
  size_t offset, size;
};

// The file ranges of the object's sections (DWARF left out: the runtime never reads it) and of
// its section header table; empty when the bytes are not a 64-bit ELF file.
std::vector<Span> Sections(const uint8_t* data, size_t size) {
  std::vector<Span> out;
  Elf64_Ehdr eh;
  if (size < sizeof(eh)) return out;
  memcpy(&eh, data, sizeof(eh));
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_shentsize != sizeof(Elf64_Shdr)) return out;
  if (eh.e_shoff > size || (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum) return out;
  out.push_back({eh.e_shoff, size_t{eh.e_shnum} * sizeof(Elf64_Shdr)});
  Elf64_Shdr names;
  if (eh.e_shstrndx >= eh.e_shnum) return out;
  memcpy(&names, data + eh.e_shoff + size_t{eh.e_shstrndx} * sizeof(Elf64_Shdr), sizeof(names));
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    memcpy(&sh, data + eh.e_shoff + size_t{i} * sizeof(Elf64_Shdr), sizeof(sh));
    if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0 || sh.sh_offset > size ||
        size - sh.sh_offset < sh.sh_size) {
      continue;
    }
    if (names.sh_offset < size && sh.sh_name < size - names.sh_offset) {
      const size_t name = names.sh_offset + sh.sh_name;
      if (size - name >= 6 && memcmp(data + name, ".debug", 6) == 0) continue;
    }
    out.push_back({sh.sh_offset, sh.sh_size});
  }
  return out;
}

// What a host does with the globals before load: read and print each, set each from text and as
// an integer and raw bytes, as `--arg NAME=VALUE`, fd and buffer parameters do.
void ExerciseGlobals(uringc::Controller& ctl) {
  std::vector<uringc::GlobalVar> vars = ctl.globals().vars();
  if (vars.size() > 64) vars.resize(64);
  for (const uringc::GlobalVar& v : vars) {
    (void)ctl.Format(v.name);
    (void)ctl.GetBytes(v.name);
    (void)ctl.GetInt(v.name);
    for (const char* text : {"1", "-1", "0x7fffffffffffffff", "true", "A"}) (void)ctl.Set(v.name, text);
    (void)ctl.SetInt(v.name, -5);
    (void)ctl.SetUint(v.name, 7);
    if (v.size <= 4096) {
      const std::vector<uint8_t> zeros(v.size);
      (void)ctl.SetBytes(v.name, zeros.data(), zeros.size());
    }
    const uint64_t address = 0x1000;
    (void)ctl.SetBytes(v.name, &address, sizeof(address));
    (void)ctl.Set(v.name + ".x", "1");
  }
  (void)ctl.GetInt("uringc_mem_min");
  (void)ctl.Set("no_such_global", "1");
}

// A verifier rejection at the instruction of one line_info record, as a 7.2 kernel logs it.
void ExerciseVerifierReport(std::string_view elf, uint32_t pick) {
  auto lines = uringc::ReadLineInfo(elf);
  if (!lines || lines->empty()) return;
  const uringc::LineInfo& li = (*lines)[pick % lines->size()];
  const std::string base = li.file.substr(li.file.rfind('/') == std::string::npos
                                              ? 0
                                              : li.file.rfind('/') + 1);
  const std::string log = "func#0 @0\n0: R1=ctx() R10=fp0\n; " + li.text + " @ " + base + ":" +
                          std::to_string(li.line) + "\n" + std::to_string(li.insn) +
                          ": (61) r1 = *(u32 *)(r0 +64)\n"
                          "invalid access to map value, value_size=8 off=64 size=4\n"
                          "processed 12 insns (limit 1000000) max_states_per_insn 0\n";
  (void)uringc::BuildVerifierReport("fuzz_step", li.section, -EACCES, log, *lines);
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::minstd_rand rng(seed);
  if (rng() % 4 != 0) {
    const std::vector<Span> spans = Sections(data, size);
    if (!spans.empty()) {
      const Span s = spans[rng() % spans.size()];
      // Same size in place: the section keeps its offset, so the ELF structure stays intact.
      LLVMFuzzerMutate(data + s.offset, s.size, s.size);
      return size;
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (4u << 20)) return 0;
  const std::string_view elf(reinterpret_cast<const char*>(data), size);
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; i += 61) h = (h ^ data[i]) * 16777619u;
  ExerciseVerifierReport(elf, h);
  uringc::ControllerOptions o;
  o.object_name = "fuzz";
  o.log_size = 4096;
  o.check_kernel = false;
  auto ctl = uringc::Controller::OpenMemory(data, size, o);
  if (ctl) ExerciseGlobals(**ctl);
  return 0;
}
