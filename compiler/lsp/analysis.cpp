// See analysis.h.
#include "lsp/analysis.h"

#include "driver/pipeline.h"
#include "lsp/repair.h"

namespace uringc::lsp {
namespace {

// Runs the front end's rows over `text`; true when the `types` pass ran.
bool Check(driver::Compilation& c, const std::string& path, std::string text,
           const std::string& stdlib_dir) {
  c.options.stdlib_dir = stdlib_dir;
  c.SetRoot(path, std::move(text));
  bool checked = false;
  driver::RunPipeline(c, driver::FrontendPhases(), "", [&](const driver::Phase& p) {
    if (p.name == "types") checked = true;
  });
  return checked;
}

}  // namespace

std::unique_ptr<Analysis> Analyze(const std::string& path, std::string text,
                                  const std::string& stdlib_dir) {
  auto a = std::make_unique<Analysis>();
  a->checked = Check(a->compilation, path, text, stdlib_dir);
  const ast::File* f = a->compilation.program.root().ast.get();
  const bool parsed_nothing = !f || f->decls.empty();
  if (!parsed_nothing || !a->compilation.diagnostics.HasErrors()) return a;
  std::string repaired = BlankBrokenDecls(text, a->compilation.options.parse);
  if (!repaired.empty()) {
    a->repaired = std::make_unique<driver::Compilation>();
    a->checked = Check(*a->repaired, path, std::move(repaired), stdlib_dir);
  }
  return a;
}

}  // namespace uringc::lsp
