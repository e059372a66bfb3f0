// The front end's rows of the pipeline (see pipeline.h). Sema passes keep running after errors
// so one run reports independent problems; only parse/import failures, which leave nothing to
// check, stop early, and building rgir needs an error-free program.
#include "driver/pipeline.h"

#include "ast/printer.h"
#include "build/build.h"
#include "parse/defines.h"
#include "rgir/printer.h"
#include "sema/passes.h"

namespace uringc::driver {
namespace {

bool Parse(Compilation& c) {
  sema::Module& root = c.program.root();
  root.ast = ParseFile(c.sources, root.file_id, c.diagnostics, c.options.parse);
  if (c.diagnostics.HasErrors()) return false;
  ApplyDefines(c.options.defines, c.sources, *root.ast, c.diagnostics, c.options.parse);
  return !c.diagnostics.HasErrors();
}
bool Imports(Compilation& c) {
  sema::LoadImports(c.program, c.sources, c.diagnostics, c.options.parse);
  return !c.diagnostics.HasErrors();
}
bool Resolve(Compilation& c) { sema::ResolveNames(c.program, c.diagnostics); return true; }
bool Types(Compilation& c) { sema::CheckTypes(c.program, c.diagnostics); return true; }
bool Calls(Compilation& c) { sema::CheckCalls(c.program, c.diagnostics); return true; }
bool Loops(Compilation& c) { sema::CheckLoops(c.program, c.diagnostics); return true; }
bool Bounds(Compilation& c) { sema::CheckBounds(c.program, c.diagnostics); return true; }
bool Flow(Compilation& c) { sema::CheckFlow(c.program, c.diagnostics); return true; }
bool Fds(Compilation& c) { sema::CheckFds(c.program, c.diagnostics); return true; }
bool Build(Compilation& c) {
  if (c.diagnostics.HasErrors()) return false;
  c.rgir = build::BuildRgir(c.program, c.diagnostics);
  return c.rgir != nullptr;
}

}  // namespace

void DumpAst(const Compilation& c, std::ostream& out) {
  for (const sema::Module& m : c.program.modules) {
    if (!m.ast) continue;
    if (c.program.modules.size() > 1) {
      out << "// module " << (m.name.empty() ? m.path : m.name) << "\n";
    }
    out << ast::PrintAst(*m.ast, c.sources);
  }
}

void DumpRgir(const Compilation& c, std::ostream& out) {
  if (c.rgir) out << rgir::Print(*c.rgir);
}

const std::vector<Phase>& FrontendPhases() {
  static const std::vector<Phase> kPhases = {
      {"parse", "text to AST; syntax errors with recovery; -D values for constants", DumpAst,
       Parse},
      {"imports", "load imported modules (stdlib, then user files); report cycles", DumpAst,
       Imports},
      {"resolve", "scopes: bind every name to its declaration; break/return placement", DumpAst,
       Resolve},
      {"types", "types, constants, request signatures, `?` and assignment rules", DumpAst, Types},
      {"calls", "user async functions: recursion, which functions await requests", DumpAst,
       Calls},
      {"loops", "loops without a request need a constant bound", DumpAst, Loops},
      {"bounds", "buffer indices and slice lengths: proven, clamped, or an error", DumpAst,
       Bounds},
      {"flow", "reachability, definite assignment, unused variables", DumpAst, Flow},
      {"fds", "file descriptors from accept/openat/socket closed on every path", DumpAst, Fds},
      {"build", "AST to the request-graph IR (rgir)", DumpRgir, Build},
  };
  return kPhases;
}

const Phase* FindPhase(const std::vector<Phase>& phases, std::string_view name) {
  for (const Phase& p : phases)
    if (p.name == name) return &p;
  return nullptr;
}

bool RunPipeline(Compilation& c, const std::vector<Phase>& phases, std::string_view last,
                 const std::function<void(const Phase&)>& after) {
  for (const Phase& p : phases) {
    const bool ok = p.run(c);
    if (after) after(p);
    if (!ok) return false;
    if (p.name == last) break;
  }
  return true;
}

}  // namespace uringc::driver
