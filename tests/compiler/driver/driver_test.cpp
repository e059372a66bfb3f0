// driver/: the `uringc` command run in-process: subcommands, flags, exit codes, output formats.
#include "driver/driver.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace uringc::driver {
namespace {

struct Outcome {
  int code;
  std::string out, err;
};

Outcome Uringc(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = Main(args, out, err);
  return {code, out.str(), err.str()};
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = "/tmp/uringc-driver-test-" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Driver, HelpVersionAndUsageErrors) {
  Outcome help = Uringc({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("check"), std::string::npos);
  Outcome check_help = Uringc({"check", "--help"});  // each subcommand has its own
  EXPECT_EQ(check_help.code, 0);
  EXPECT_NE(check_help.out.find("--dump-after"), std::string::npos);
  EXPECT_NE(check_help.out.find("bounds"), std::string::npos);  // the pass list
  EXPECT_EQ(check_help.out.find("Subcommands:"), std::string::npos) << check_help.out;
  EXPECT_EQ(Uringc({"--version"}).out.rfind("uringc ", 0), 0u);
  EXPECT_EQ(Uringc({}).code, 2);
  EXPECT_EQ(Uringc({"frobnicate", "x.uring"}).code, 2);
  EXPECT_EQ(Uringc({"check"}).code, 2);
  Outcome bogus = Uringc({"check", "--bogus=1", "x.uring"});
  EXPECT_EQ(bogus.code, 2);
  EXPECT_EQ(bogus.err,
            "uringc: error: `check` does not take `--bogus`\nsee `uringc check --help`\n");
  EXPECT_EQ(Uringc({"check", "--emit=llvm", "x.uring"}).code, 2);
  EXPECT_EQ(Uringc({"check", "--dump-after=nope", "x.uring"}).code, 2);
  EXPECT_EQ(Uringc({"check", "/nonexistent/file.uring"}).code, 2);
  EXPECT_EQ(Uringc({"check", "/tmp"}).code, 2);
}

TEST(Driver, CheckExitCodes) {
  EXPECT_EQ(Uringc({"check", Write("ok.uring", "graph g() { nop() }\n")}).code, 0);
  EXPECT_EQ(Uringc({"check", Write("warn.uring", "graph g() { let x = 1 }\n")}).code, 0);
  Outcome bad = Uringc({"check", Write("bad.uring", "graph g() { nop(\n")});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("[SyntaxError]"), std::string::npos);
  EXPECT_NE(bad.err.find("1 error generated."), std::string::npos);
}

TEST(Driver, JsonDiagnosticsSpanAllFiles) {
  Outcome r = Uringc({"check", "--diagnostics-format=json", Write("j1.uring", "graph g() { zz() }\n"),
                  Write("j2.uring", "graph g() { yy() }\n")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.front(), '[');
  EXPECT_NE(r.err.find("\"kind\":\"UndefinedName\""), std::string::npos);
  EXPECT_NE(r.err.find("j1.uring"), std::string::npos);
  EXPECT_NE(r.err.find("j2.uring"), std::string::npos);
  EXPECT_EQ(Uringc({"check", "--diagnostics-format=json", Write("j3.uring", "graph g() { nop() }\n")}).err,
            "[]\n");
}

TEST(Driver, EmitAndDumpAfter) {
  const std::string f = Write("emit.uring", "graph g(n: u64) { repeat n { nop() } }\n");
  Outcome ast = Uringc({"check", "--emit=ast", f});
  EXPECT_NE(ast.out.find("Repeat"), std::string::npos);
  Outcome ir = Uringc({"check", "--emit=rgir", f});
  EXPECT_NE(ir.out.find("request nop()"), std::string::npos);
  Outcome parsed = Uringc({"check", "--dump-after=parse", f});
  EXPECT_NE(parsed.out.find("Call nop"), std::string::npos);
  EXPECT_EQ(parsed.out.find(": i32"), std::string::npos);  // no types before the types pass
  Outcome typed = Uringc({"check", "--dump-after", "types", f});  // a value after a space too
  EXPECT_NE(typed.out.find("Call nop @1:30 : i32"), std::string::npos) << typed.out;
  EXPECT_EQ(Uringc({"check", "--dump-after=lower", f}).code, 2);  // a back-end row: not in check
}

// -D NAME=VALUE (parse/defines.h): VALUE replaces the value of the root's top-level constant and
// keeps its type; mistakes in VALUE are diagnostics located in the <define> source.
TEST(Driver, DefineOverridesATopLevelConstant) {
  const std::string f = Write("define.uring",
                              "const DEPTH = 8\nconst SIZE: u32 = 4\n"
                              "graph g() -> (x: u64, y: u64) {\n    x = DEPTH\n    y = SIZE\n}\n");
  EXPECT_NE(Uringc({"check", "--emit=rgir", f}).out.find("x#0 = 8 "), std::string::npos);
  Outcome defined = Uringc({"check", "--emit=rgir", "-D", "DEPTH=64", "-DSIZE=2 * 3", f});
  EXPECT_EQ(defined.code, 0) << defined.err;
  EXPECT_NE(defined.out.find("x#0 = 64 "), std::string::npos) << defined.out;
  EXPECT_NE(defined.out.find("y#1 = 6 "), std::string::npos) << defined.out;
  Outcome last = Uringc({"check", "--emit=rgir", "--define=DEPTH=1", "--define", "DEPTH=2", f});
  EXPECT_NE(last.out.find("x#0 = 2 "), std::string::npos) << last.out;  // the last one wins
  Outcome typed = Uringc({"check", "-D", "SIZE=5000000000", f});  // SIZE stays a u32
  EXPECT_NE(typed.err.find("<define>:1:14: error: `5000000000` does not fit in `u32`"),
            std::string::npos)
      << typed.err;

  Outcome unknown = Uringc({"check", "-D", "WIDTH=64", f});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("<define>:1:7: error: `-D WIDTH=64`: the program has no top-level "
                             "`const WIDTH` [UndefinedName]"),
            std::string::npos)
      << unknown.err;
  Outcome syntax = Uringc({"check", "-D", "DEPTH=64 +", f});
  EXPECT_EQ(syntax.code, 1);
  EXPECT_NE(syntax.err.find("<define>:1:19: error: "), std::string::npos) << syntax.err;
  EXPECT_NE(syntax.err.find("[SyntaxError]\nconst DEPTH = 64 +\n"), std::string::npos);
  Outcome more = Uringc({"check", "-D", "DEPTH=1\ngraph h() { nop() }", f});
  EXPECT_NE(more.err.find("<define>:2:1: error: "), std::string::npos) << more.err;
  EXPECT_NE(more.err.find("[SyntaxError]"), std::string::npos);

  for (const char* bad : {"DEPTH", "=64", "1DEPTH=64", "DE-PTH=64"}) {
    Outcome usage = Uringc({"check", "-D", bad, f});
    EXPECT_EQ(usage.code, 2) << bad;
    EXPECT_EQ(usage.err.rfind("uringc: error: --define: `", 0), 0u) << usage.err;
  }
}

TEST(Driver, GraphPrintsDotAndWritesSvg) {
  const std::string f = Write("graph.uring", "graph g() { all { nop(); nop() } }\n");
  const std::string svg = "/tmp/uringc-driver-test.svg";
  std::remove(svg.c_str());
  Outcome r = Uringc({"graph", "-o", svg, f});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("digraph uringc {", 0), 0u);
  std::ifstream in(svg);
  if (!in) GTEST_SKIP() << "`dot` is not installed: no SVG to check";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("<svg"), std::string::npos);
}

}  // namespace
}  // namespace uringc::driver
