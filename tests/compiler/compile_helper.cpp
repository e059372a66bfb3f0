// See compile_helper.h.
#include "compile_helper.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "driver/pipeline.h"

namespace uringc::testing {
namespace {

void WriteFile(const std::string& path, const std::string& text) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    mkdir(path.substr(0, slash).c_str(), 0755);
  }
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

bool Compiled::HasKind(const std::string& k) const {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

int Compiled::Count(const std::string& k) const {
  return static_cast<int>(std::count(kinds.begin(), kinds.end(), k));
}

Compiled Compile(const std::string& text, const std::string& last,
                 const std::map<std::string, std::string>& extra) {
  char dir_template[] = "/tmp/uringc-test-XXXXXX";
  std::string dir = mkdtemp(dir_template);
  WriteFile(dir + "/main.uring", text);
  for (const auto& [rel, body] : extra) WriteFile(dir + "/" + rel, body);
  Compiled r;
  r.c = std::make_unique<driver::Compilation>();
  r.c->options.stdlib_dir = URINGC_TEST_STDLIB;
  std::string error;
  if (!r.c->LoadRoot(dir + "/main.uring", error)) {
    r.kinds.push_back("io-error");
    return r;
  }
  driver::RunPipeline(*r.c, driver::FrontendPhases(), last);
  for (const Diagnostic& d : r.c->diagnostics.items()) {
    LineCol lc{0, 0};
    if (const SourceFile* f = r.c->sources.Get(d.range.file)) lc = f->LineColOf(d.range.begin);
    r.kinds.emplace_back(DiagKindName(d.kind));
    r.diags.push_back(std::string(d.severity == Severity::kError ? "error " : "warning ") +
                      std::string(DiagKindName(d.kind)) + "@" + std::to_string(lc.line) + ":" +
                      std::to_string(lc.column));
  }
  std::string cmd = "rm -rf '" + dir + "'";
  (void)!system(cmd.c_str());
  return r;
}

const ast::GraphDecl* FirstGraph(const Compiled& r) {
  if (!r.c || r.c->program.modules.empty() || !r.c->program.root().ast) return nullptr;
  for (auto& d : r.c->program.root().ast->decls)
    if (auto* g = d->As<ast::GraphDecl>()) return g;
  return nullptr;
}

}  // namespace uringc::testing
