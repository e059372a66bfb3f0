// ReadLineInfo on real objects built by clang on the host: every record's line text must be the
// line of the source file it names, and the program's section must be covered.
#include "uringc/btf_lines.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "uringc/source_file.h"

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(BtfLinesTest, RecordsMatchTheSourceFile) {
  auto lines = uringc::ReadLineInfo(Slurp(URINGC_NOP_NAMED_OBJECT));
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_GT(lines->size(), 20u);
  const std::string path = (*lines)[0].file;
  ASSERT_NE(path.find("nop_named.bpf.c"), std::string::npos) << path;
  const uringc::SourceFile source(path, Slurp(path));
  uint32_t prev_insn = 0;
  size_t with_column = 0;
  for (const uringc::LineInfo& li : *lines) {
    EXPECT_EQ(li.section, "struct_ops.s/nop_named_step");
    ASSERT_LE(li.line, source.LineCount());
    EXPECT_EQ(std::string(source.Line(li.line)), li.text) << "line " << li.line;
    with_column += li.column > 0;
    EXPECT_GE(li.insn, prev_insn);  // sorted by instruction
    prev_insn = li.insn;
  }
  EXPECT_EQ((*lines)[0].insn, 0u);
  EXPECT_GT(with_column, lines->size() / 2);
}

TEST(BtfLinesTest, NotAnElfFileIsAnError) {
  EXPECT_FALSE(uringc::ReadLineInfo("definitely not ELF").ok());
  EXPECT_EQ(uringc::ReadLineInfo("definitely not ELF").error().kind, uringc::DiagKind::kBadObject);
  EXPECT_FALSE(uringc::ElfSection(std::string(70, '\0'), ".BTF").ok());
}

TEST(BtfLinesTest, TruncatedObjectIsAnErrorNotACrash) {
  const std::string elf = Slurp(URINGC_NOP_NAMED_OBJECT);
  for (size_t cut : {size_t{64}, elf.size() / 2, elf.size() - 1}) {
    auto r = uringc::ReadLineInfo(elf.substr(0, cut));
    (void)r;  // either an error or a (possibly empty) list; never out-of-bounds reads (ASan)
  }
}

}  // namespace
