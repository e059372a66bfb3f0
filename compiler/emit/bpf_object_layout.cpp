// Reads the data sections and global symbols of a BPF object; see bpf_object_layout.h.
#include "emit/bpf_object_layout.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

namespace uringc {

bool IsBpfDataSection(std::string_view name) {
  for (std::string_view prefix : {".rodata", ".data", ".bss"}) {
    if (name.substr(0, prefix.size()) == prefix &&
        (name.size() == prefix.size() || name[prefix.size()] == '.'))
      return true;
  }
  return false;
}

std::optional<BpfObjectLayout> ReadBpfObjectLayout(std::string_view elf, std::string& error) {
  llvm::MemoryBufferRef ref(llvm::StringRef(elf.data(), elf.size()), "controller.bpf.o");
  auto file = llvm::object::ObjectFile::createObjectFile(ref);
  if (!file) {
    error = llvm::toString(file.takeError());
    return std::nullopt;
  }
  auto* obj = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(file->get());
  if (obj == nullptr || obj->getArch() != llvm::Triple::bpfel) {
    error = "not a little-endian BPF ELF object";
    return std::nullopt;
  }
  BpfObjectLayout layout;
  std::map<uint64_t, size_t> by_index;  // ELF section index -> layout.sections
  for (const llvm::object::SectionRef& s : obj->sections()) {
    auto name = s.getName();
    if (!name || !IsBpfDataSection(name->str())) continue;
    BpfDataSection out{.name = name->str(), .size = s.getSize(), .align = s.getAlignment().value()};
    if (!s.isBSS()) {
      auto contents = s.getContents();
      if (!contents) {
        error = llvm::toString(contents.takeError());
        return std::nullopt;
      }
      out.bytes = contents->str();
    }
    by_index[s.getIndex()] = layout.sections.size();
    layout.sections.push_back(std::move(out));
  }
  for (const llvm::object::SymbolRef& sym : obj->symbols()) {
    auto name = sym.getName();
    auto section = sym.getSection();
    auto value = sym.getValue();
    if (!name || !section || !value || *section == obj->section_end()) {
      if (!name) llvm::consumeError(name.takeError());
      if (!section) llvm::consumeError(section.takeError());
      if (!value) llvm::consumeError(value.takeError());
      continue;
    }
    auto it = by_index.find((*section)->getIndex());
    if (it == by_index.end() || name->empty()) continue;
    layout.globals[name->str()] = BpfGlobalPlace{.section = it->second, .offset = *value};
  }
  return layout;
}

}  // namespace uringc
