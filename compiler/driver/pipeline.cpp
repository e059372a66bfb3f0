// The pipeline table (see pipeline.h). Sema passes keep running after errors so one run reports
// independent problems; only parse/import failures, which leave nothing to check, stop early,
// and building rgir needs an error-free program.
#include "driver/pipeline.h"

#include "sema/passes.h"
#include "build/build.h"

namespace uringc::driver {
namespace {

bool Parse(Compilation& c) {
  sema::Module& root = c.program.root();
  root.ast = ParseFile(c.sources, root.file_id, c.diagnostics, c.options.parse);
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

const std::vector<Phase>& Pipeline() {
  using D = Phase::Dump;
  static const std::vector<Phase> kPhases = {
      {"parse", "text to AST; syntax errors with recovery", D::kAst, Parse},
      {"imports", "load imported modules (stdlib, then user files); report cycles", D::kAst,
       Imports},
      {"resolve", "scopes: bind every name to its declaration; break/return placement", D::kAst,
       Resolve},
      {"types", "types, constants, request signatures, `?` and assignment rules", D::kAst, Types},
      {"calls", "user async functions: recursion, which functions await requests", D::kAst,
       Calls},
      {"loops", "loops without a request need a constant bound", D::kAst, Loops},
      {"bounds", "buffer indices and slice lengths: proven, clamped, or an error", D::kAst,
       Bounds},
      {"flow", "reachability, definite assignment, unused variables", D::kAst, Flow},
      {"fds", "file descriptors from accept/openat/socket closed on every path", D::kAst, Fds},
      {"build", "AST to the request-graph IR (rgir)", D::kRgir, Build},
  };
  return kPhases;
}

const Phase* FindPhase(std::string_view name) {
  for (const Phase& p : Pipeline())
    if (p.name == name) return &p;
  return nullptr;
}

bool RunPipeline(Compilation& c, std::string_view last,
                 const std::function<void(const Phase&)>& after) {
  for (const Phase& p : Pipeline()) {
    const bool ok = p.run(c);
    if (after) after(p);
    if (!ok) return false;
    if (p.name == last) break;
  }
  return true;
}

}  // namespace uringc::driver
