// The file-driven test runner. Each .uring file under tests/compiler/files holds its expected
// results as comments: `// CHECK: error KindName @ line:col` for every diagnostic (in order), and,
// when the file contains `// EMIT: rgir`, `// RGIR: ...` lines with the printed IR. The runner
// compiles the file in-process and compares; `--regenerate` rewrites those lines from the actual
// output instead (review the diff before committing). Every lowered graph must also pass
// rgir::Verify.
//
// With `// EMIT: llvm` the file also holds hand-written `// LLVM:`, `// LLVM-NEXT:` and
// `// LLVM-NOT:` lines, checked as an ordered subset of its graphs' LLVM IR (syntax in
// llvm_check.h). The IR is what `uringc compile --emit=llvm -O0 --graph=G FILE -o -` prints
// (-O0: the lowering's own instructions, in its order, with its value names), each graph in
// source order after a line `; graph G`, with the DIFile's copy of the source (check lines
// included) elided. The runner runs this build's `uringc` (or --uringc=PATH) for it instead of
// linking the back end, so this binary stays free of LLVM like the front end's other tests.
// A `// FLAGS: ...` line adds options to that command (`--ring=any`).
// `--regenerate` leaves LLVM lines where they are: they are written and fixed by hand. Choose
// lines that say what makes the construct correct (opcodes, flags, constants, named values,
// block labels) and bind value numbers with `[[NAME:RE]]` instead of writing them.
//
// usage: uringc_file_tests [--regenerate] [--stdlib=DIR] [--uringc=PATH] FILE...
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "driver/compilation.h"
#include "driver/pipeline.h"
#include "llvm_check.h"
#include "rgir/printer.h"

namespace {

using uringc::driver::Compilation;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool IsExpectation(const std::string& line) {
  return line.rfind("// CHECK:", 0) == 0 || line.rfind("// RGIR:", 0) == 0;
}

std::vector<std::string> Actual(const std::string& path, const std::string& text,
                                const std::string& stdlib, std::string& verify_error,
                                std::vector<std::string>& graphs) {
  Compilation c;
  c.options.stdlib_dir = stdlib;
  std::string io_error;
  if (!c.LoadRoot(path, io_error)) return {"// CHECK: io-error " + io_error};
  uringc::driver::RunPipeline(c, uringc::driver::FrontendPhases(), "");
  std::vector<std::string> out;
  for (const uringc::Diagnostic& d : c.diagnostics.items()) {
    std::string where;
    if (const uringc::SourceFile* f = c.sources.Get(d.range.file)) {
      uringc::LineCol lc = f->LineColOf(d.range.begin);
      if (d.range.file != c.program.root().file_id) {
        where = f->name().substr(f->name().find_last_of('/') + 1) + ":";
      }
      where += std::to_string(lc.line) + ":" + std::to_string(lc.column);
    } else {
      where = "none";
    }
    const char* sev = d.severity == uringc::Severity::kError ? "error" : "warning";
    out.push_back("// CHECK: " + std::string(sev) + " " +
                  std::string(uringc::DiagKindName(d.kind)) + " @ " + where);
  }
  if (c.rgir) {
    for (const auto& g : c.rgir->graphs) {
      std::string problem = uringc::rgir::Verify(g);
      if (!problem.empty()) verify_error = "graph `" + g.name + "`: " + problem;
      graphs.push_back(g.name);
    }
    if (text.find("// EMIT: rgir") != std::string::npos) {
      std::istringstream ir(uringc::rgir::Print(*c.rgir));
      for (std::string line; std::getline(ir, line);) out.push_back("// RGIR: " + line);
    }
  }
  return out;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// The options of a `// FLAGS: ...` line (for example `--ring=any`), each quoted; "" without one.
std::string Flags(const std::string& path) {
  std::istringstream in(Read(path));
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("// FLAGS:", 0) != 0) continue;
    std::istringstream words(line.substr(9));
    for (std::string w; words >> w;) out += " " + ShellQuote(w);
  }
  return out;
}

std::string CompileCommand(const std::string& uringc, const std::string& stdlib,
                           const std::string& graph, const std::string& path) {
  return ShellQuote(uringc) + " compile --emit=llvm -O0 --stdlib=" + ShellQuote(stdlib) +
         Flags(path) + " --graph=" + ShellQuote(graph) + " " + ShellQuote(path);
}

// The DIFile embeds the `.uring` text, check lines included, which every check would match:
// its `source: "..."` becomes `source: "<elided>"` (LLVM writes a `"` in it as `\22`).
std::string ElideSource(std::string ir) {
  const std::string key = "source: \"";
  for (size_t at = ir.find(key); at != std::string::npos; at = ir.find(key, at + 1)) {
    const size_t from = at + key.size();
    const size_t to = ir.find('"', from);
    if (to == std::string::npos) break;
    ir.replace(from, to - from, "<elided>");
  }
  return ir;
}

// The IR of every graph of `path`, or "" with what went wrong in `error`.
std::string LlvmIr(const std::string& uringc, const std::string& stdlib, const std::string& path,
                   const std::vector<std::string>& graphs, std::string& error) {
  if (access(uringc.c_str(), X_OK) != 0) {
    error = "no `uringc` at " + uringc + " (build it: ninja uringc; or pass --uringc=PATH)";
    return "";
  }
  const char* tmpdir = std::getenv("TMPDIR");
  std::string tmp = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/uringc_file_test.XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) {
    error = "cannot create a temporary file like " + tmp;
    return "";
  }
  close(fd);
  std::string ir;
  for (const std::string& g : graphs) {
    const std::string cmd = CompileCommand(uringc, stdlib, g, path) + " -o " + ShellQuote(tmp);
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    std::string messages;
    char chunk[4096];
    for (size_t n; p && (n = fread(chunk, 1, sizeof chunk, p)) > 0;) messages.append(chunk, n);
    const int status = p ? pclose(p) : -1;
    if (status != 0) {
      error = "`" + cmd + "` failed (status " + std::to_string(status) + "):\n" + messages;
      ir.clear();
      break;
    }
    ir += "; graph " + g + "\n" + ElideSource(Read(tmp));
  }
  unlink(tmp.c_str());
  return ir;
}

// The `// LLVM:` lines of an `// EMIT: llvm` file against its IR: "" or the failure.
std::string CheckLlvm(const std::string& uringc, const std::string& stdlib,
                      const std::string& path, const std::string& text,
                      const std::vector<std::string>& graphs, size_t& count) {
  const bool emit = text.find("// EMIT: llvm") != std::string::npos;
  std::string error;
  const std::vector<uringc::testing::LlvmCheck> checks =
      uringc::testing::ParseLlvmChecks(text, error);
  if (!error.empty()) return path + ":" + error + "\n";
  count = checks.size();
  if (!emit) {
    return checks.empty() ? "" : path + ": `// LLVM:` lines without `// EMIT: llvm`\n";
  }
  if (checks.empty()) return path + ": `// EMIT: llvm` without `// LLVM:` lines\n";
  if (graphs.empty()) return path + ": `// EMIT: llvm` but no graph to compile (or errors)\n";
  const std::string ir = LlvmIr(uringc, stdlib, path, graphs, error);
  if (!error.empty()) return path + ": " + error;
  std::string failure = uringc::testing::MatchLlvmChecks(checks, ir, path);
  if (failure.empty()) return "";
  failure += "  the whole IR:\n";
  for (const std::string& g : graphs) {
    failure += "    " + CompileCommand(uringc, stdlib, g, path) + " -o -\n";
  }
  return failure;
}

}  // namespace

int main(int argc, char** argv) {
  bool regenerate = false;
  std::string stdlib = URINGC_TEST_STDLIB;
  std::string uringc = URINGC_TEST_URINGC;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--regenerate") regenerate = true;
    else if (a.rfind("--stdlib=", 0) == 0) stdlib = a.substr(9);
    else if (a.rfind("--uringc=", 0) == 0) uringc = a.substr(9);
    else files.push_back(a);
  }
  int failures = 0;
  for (const std::string& path : files) {
    const std::string text = Read(path);
    std::vector<std::string> expected, kept;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (IsExpectation(line)) expected.push_back(line);
      else kept.push_back(line);
    }
    std::string verify_error;
    std::vector<std::string> graphs;
    const std::vector<std::string> actual = Actual(path, text, stdlib, verify_error, graphs);
    if (!verify_error.empty()) {
      std::cerr << path << ": rgir::Verify failed: " << verify_error << "\n";
      ++failures;
    }
    if (regenerate) {
      while (!kept.empty() && kept.back().empty()) kept.pop_back();
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      for (const std::string& l : kept) out << l << "\n";
      if (!actual.empty()) out << "\n";
      for (const std::string& l : actual) out << l << "\n";
      std::cout << "regenerated " << path << "\n";
      continue;
    }
    bool ok = true;
    if (expected != actual) {
      ok = false;
      std::cerr << path << ": expectations differ (run with --regenerate to update)\n";
      size_t n = std::max(expected.size(), actual.size());
      for (size_t i = 0; i < n; ++i) {
        const std::string e = i < expected.size() ? expected[i] : "<none>";
        const std::string a = i < actual.size() ? actual[i] : "<none>";
        if (e != a) std::cerr << "  expected: " << e << "\n  actual:   " << a << "\n";
      }
    }
    size_t llvm_checks = 0;
    if (std::string e = CheckLlvm(uringc, stdlib, path, text, graphs, llvm_checks); !e.empty()) {
      ok = false;
      std::cerr << e;
    }
    if (!ok) {
      ++failures;
    } else {
      std::cout << "PASS " << path << " (" << actual.size() + llvm_checks << " expectations)\n";
    }
  }
  return failures == 0 ? 0 : 1;
}
