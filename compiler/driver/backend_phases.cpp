// The back end's rows (see backend_phases.h). `lower` chooses the graph, lowers it into a new
// BpfModule and finishes the module (so its dump is the IR LLVM's passes start from); `optimize`
// and `codegen` are emit/codegen.h's two steps. For the host target, `lower` also keeps a copy
// of the lowered module, and `host` rewrites that copy (emit/host_module.h, which needs the BPF
// object `codegen` made) and optimizes it; `host-codegen` emits it.
#include "driver/backend_phases.h"

#include "emit/host_module.h"
#include "lower/lower.h"

namespace uringc::driver {
namespace {

Backend& Mutable(Compilation& c) { return static_cast<Backend&>(*c.backend); }

// Picks request.graph, or the only graph; false with usage_error set when that is impossible.
bool ChooseGraph(Compilation& c, Backend& b) {
  // The root's name as diagnostics give it (`<stdin>` for `-`, `<command-line>` for -e).
  const std::string& file = c.program.modules.empty() ? b.request.file : c.program.modules[0].path;
  if (b.request.graph.empty()) {
    if (c.rgir->graphs.size() == 1) {
      b.graph = &c.rgir->graphs[0];
      return true;
    }
    b.usage_error = c.rgir->graphs.empty()
                        ? "`" + file + "` declares no `graph` to compile"
                        : "`" + file + "` declares " + std::to_string(c.rgir->graphs.size()) +
                              " graphs; choose one with --graph=NAME";
    return false;
  }
  for (const rgir::Graph& g : c.rgir->graphs) {
    if (g.name == b.request.graph) b.graph = &g;
  }
  if (b.graph == nullptr) {
    b.usage_error = "`" + file + "` has no graph called `" + b.request.graph + "`";
  }
  return b.graph != nullptr;
}

bool Lower(Compilation& c) {
  Backend& b = Mutable(c);
  if (b.graph == nullptr && !ChooseGraph(c, b)) return false;
  const rgir::Graph& g = *b.graph;
  b.module = std::make_unique<BpfModule>(
      BpfModuleOptions{.name = g.name,
                       .sources = &c.sources,
                       .main_file = g.range.file,
                       .abi = b.request.abi,
                       .optimized = b.request.codegen.opt != OptLevel::kO0});
  GraphLoweringOptions options;
  options.break_region_null_check = b.request.break_region_null_check;
  options.break_instruction_selection = b.request.break_instruction_selection;
  options.sq_ring = b.request.target == CodeTarget::kHost ? SqRing::kAny : b.request.sq_ring;
  if (!LowerGraphToBpf(g, *b.module, options, c.diagnostics) || !b.module->Finalize(c.diagnostics))
    return false;
  if (b.request.target == CodeTarget::kHost) b.module->CloneForHost();
  return true;
}

bool Optimize(Compilation& c) {
  Backend& b = Mutable(c);
  return OptimizeModule(*b.module, b.request.codegen.opt, c.diagnostics);
}

bool Codegen(Compilation& c) {
  Backend& b = Mutable(c);
  const bool host = b.request.target == CodeTarget::kHost;
  CodegenOptions options = b.request.codegen;
  if (host) options.emit = EmitKind::kObj;  // the host object embeds it
  std::optional<std::string> out = EmitModule(*b.module, options, c.diagnostics);
  if (!out) return false;
  (host ? b.bpf_object : b.output) = std::move(*out);
  return true;
}

bool Host(Compilation& c) {
  Backend& b = Mutable(c);
  if (b.request.target != CodeTarget::kHost) return true;
  const HostModuleSpec spec{.graph = b.graph->name,
                            .program = b.graph->name,
                            .symbol = b.request.host_symbol,
                            .bpf_object = b.bpf_object};
  return RetargetModuleToHost(*b.module->host_module(), spec, c.diagnostics) &&
         OptimizeModule(*b.module, b.request.codegen.opt, c.diagnostics, CodeTarget::kHost);
}

bool HostCodegen(Compilation& c) {
  Backend& b = Mutable(c);
  if (b.request.target != CodeTarget::kHost) return true;
  std::optional<std::string> out =
      EmitModule(*b.module, b.request.codegen, c.diagnostics, CodeTarget::kHost);
  if (out) b.output = std::move(*out);
  return out.has_value();
}

void DumpLlvmIr(const Compilation& c, std::ostream& out) {
  const Backend* b = BackendOf(c);
  if (b != nullptr && b->module != nullptr) out << PrintModuleIr(*b->module);
}

void DumpHostIr(const Compilation& c, std::ostream& out) {
  const Backend* b = BackendOf(c);
  if (b != nullptr && b->module != nullptr && b->module->host_module() != nullptr)
    out << PrintModuleIr(*b->module, CodeTarget::kHost);
}

}  // namespace

Backend& StartBackend(Compilation& c, const CompileRequest& request) {
  auto b = std::make_unique<Backend>();
  b->request = request;
  Backend& started = *b;
  c.backend = std::move(b);
  return started;
}

const Backend* BackendOf(const Compilation& c) {
  return static_cast<const Backend*>(c.backend.get());
}

const std::vector<Phase>& BackendPhases() {
  static const std::vector<Phase> kPhases = {
      {"lower", "one graph of the rgir to LLVM IR for BPF: its loop_step controller", DumpLlvmIr,
       Lower},
      {"optimize", "LLVM's passes: what the BPF target needs, at -O2 uringc's pipeline", DumpLlvmIr,
       Optimize},
      {"codegen", "BPF code generation: the object, assembly or IR that --emit asks for", nullptr,
       Codegen},
      {"host",
       "--target=host: the same lowering for x86-64, its state laid out as the BPF "
       "object's sections, optimized",
       DumpHostIr, Host},
      {"host-codegen", "--target=host: x86-64 code generation, the object embedding the BPF one",
       nullptr, HostCodegen},
  };
  return kPhases;
}

const std::vector<Phase>& CompilePhases() {
  static const std::vector<Phase> kPhases = [] {
    std::vector<Phase> all = FrontendPhases();
    all.insert(all.end(), BackendPhases().begin(), BackendPhases().end());
    return all;
  }();
  return kPhases;
}

}  // namespace uringc::driver
