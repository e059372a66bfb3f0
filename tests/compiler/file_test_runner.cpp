// The file-driven test runner. Each .uring file under tests/compiler/files holds its expected
// results as comments: `// CHECK: error KindName @ line:col` for every diagnostic (in order), and,
// when the file contains `// EMIT: rgir`, `// RGIR: ...` lines with the printed IR. The runner
// compiles the file in-process and compares; `--regenerate` rewrites those lines from the actual
// output instead (review the diff before committing). Every lowered graph must also pass
// rgir::Verify.
//
// usage: uringc_file_tests [--regenerate] [--stdlib=DIR] FILE...
#include <fstream>
#include <iostream>
#include <sstream>

#include "driver/compilation.h"
#include "driver/pipeline.h"
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
                                const std::string& stdlib, std::string& verify_error) {
  Compilation c;
  c.options.stdlib_dir = stdlib;
  std::string io_error;
  if (!c.LoadRoot(path, io_error)) return {"// CHECK: io-error " + io_error};
  uringc::driver::RunPipeline(c, "");
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
    out.push_back("// CHECK: " + std::string(sev) + " " + d.kind + " @ " + where);
  }
  if (c.rgir) {
    for (const auto& g : c.rgir->graphs) {
      std::string problem = uringc::rgir::Verify(g);
      if (!problem.empty()) verify_error = "graph `" + g.name + "`: " + problem;
    }
    if (text.find("// EMIT: rgir") != std::string::npos) {
      std::istringstream ir(uringc::rgir::Print(*c.rgir));
      for (std::string line; std::getline(ir, line);) out.push_back("// RGIR: " + line);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool regenerate = false;
  std::string stdlib = URINGC_TEST_STDLIB;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--regenerate") regenerate = true;
    else if (a.rfind("--stdlib=", 0) == 0) stdlib = a.substr(9);
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
    const std::vector<std::string> actual = Actual(path, text, stdlib, verify_error);
    if (!verify_error.empty()) {
      std::cerr << path << ": rgir::Verify failed: " << verify_error << "\n";
      ++failures;
    }
    if (regenerate) {
      while (!kept.empty() && kept.back().empty()) kept.pop_back();
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      for (const std::string& l : kept) out << l << "\n";
      out << "\n";
      for (const std::string& l : actual) out << l << "\n";
      std::cout << "regenerated " << path << "\n";
      continue;
    }
    if (expected != actual) {
      ++failures;
      std::cerr << path << ": expectations differ (run with --regenerate to update)\n";
      size_t n = std::max(expected.size(), actual.size());
      for (size_t i = 0; i < n; ++i) {
        const std::string e = i < expected.size() ? expected[i] : "<none>";
        const std::string a = i < actual.size() ? actual[i] : "<none>";
        if (e != a) std::cerr << "  expected: " << e << "\n  actual:   " << a << "\n";
      }
    } else {
      std::cout << "PASS " << path << " (" << actual.size() << " expectations)\n";
    }
  }
  return failures == 0 ? 0 : 1;
}
