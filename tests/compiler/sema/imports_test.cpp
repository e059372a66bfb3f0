// sema/imports.cpp: stdlib modules, the user's own modules, missing modules and cycles.
#include <gtest/gtest.h>

#include "compile_helper.h"

namespace uringc::testing {
namespace {

TEST(Imports, StdlibModulesLoadAndTheirFnsAreVisible) {
  auto r = Compile("import std.net\ngraph g(s: fd, buf: buffers[1] of 64) { send_all(s, buf[0])? }\n");
  EXPECT_TRUE(r.kinds.empty()) << r.diags.at(0);
  ASSERT_EQ(r.c->program.modules.size(), 2u);
  EXPECT_EQ(r.c->program.modules[1].name, "std.net");
  EXPECT_TRUE(r.c->program.modules[1].is_stdlib);
}

TEST(Imports, UserModulesResolveFromTheMainFileDirectory) {
  auto r = Compile("import lib.util\ngraph g() { twice()? }\n", "",
                   {{"lib/util.uring", "import lib.base\nfn twice() -> i32 { one()?\n return one() }\n"},
                    {"lib/base.uring", "fn one() -> i32 { return nop() }\n"}});
  EXPECT_TRUE(r.kinds.empty()) << (r.diags.empty() ? "" : r.diags[0]);
  EXPECT_EQ(r.c->program.modules.size(), 3u);
  EXPECT_FALSE(r.c->program.modules[1].is_stdlib);
}

TEST(Imports, MissingModuleIsReportedAtTheImport) {
  auto r = Compile("import nowhere.at_all\ngraph g() { nop() }\n", "imports");
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0], "error ImportNotFound@1:8");
}

TEST(Imports, CyclesAreReportedOnceWithTheChain) {
  auto r = Compile("import a\ngraph g() { nop() }\n", "imports",
                   {{"a.uring", "import b\n"}, {"b.uring", "import c\n"}, {"c.uring", "import a\n"}});
  EXPECT_EQ(r.Count("ImportCycle"), 1);
  const auto& d = r.c->diagnostics.items().at(0);
  EXPECT_NE(d.message.find("a -> b -> c -> a"), std::string::npos) << d.message;
}

TEST(Imports, DiamondImportsLoadAModuleOnce) {
  auto r = Compile("import a\nimport b\nimport c\ngraph g() { x()? }\n", "",
                   {{"a.uring", "import c\n"}, {"b.uring", "import c\n"},
                    {"c.uring", "fn x() -> i32 { return nop() }\n"}});
  EXPECT_TRUE(r.kinds.empty());
  EXPECT_EQ(r.c->program.modules.size(), 4u);
}

TEST(Imports, SyntaxErrorsInImportedFilesPointIntoThem) {
  auto r = Compile("import bad\ngraph g() { nop() }\n", "imports", {{"bad.uring", "fn ( {\n"}});
  ASSERT_TRUE(r.HasKind("SyntaxError"));
  const auto& d = r.c->diagnostics.items().at(0);
  EXPECT_NE(r.c->sources.Get(d.range.file)->name().find("bad.uring"), std::string::npos);
}

}  // namespace
}  // namespace uringc::testing
