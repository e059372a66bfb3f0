// libFuzzer target for the back end: every input the front end accepts goes on through rgir ->
// LLVM lowering and code generation to a BPF object in memory (no kernel), and the runtime opens
// that object as `uringc run` would. The bar is docs/codegen.md's "if it checks, it compiles":
// once parse + sema + rgir lowering report no error, the back end may only report a limit it
// documents (TooManyTasks, GraphTooLarge), at a source location. A crash, an LLVM verifier or
// fatal error (BackendError, InternalCompilerError), a BpfStackLimit, a diagnostic without a
// location, or an object libbpf cannot open or whose globals and line table are not what the
// graph declares, aborts. Inputs that fail the front end cost only the front end (uringc_fuzz
// covers those). Built with clang (-fsanitize=fuzzer,address,undefined) by URINGC_FUZZ.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "driver/compilation.h"
#include "driver/compile_command.h"
#include "uringc/host_abi.h"
#include "front_end_input.h"
#include "rgir/rgir.h"
#include "uringc/btf_lines.h"
#include "uringc/controller.h"

namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "backend fuzzer: %s\n", what.c_str());
  std::abort();
}

bool Located(const uringc::driver::Compilation& c, const uringc::Diagnostic& d) {
  return d.range.file != 0 && c.sources.Get(d.range.file) != nullptr;
}

// The limits lowering may report for a program sema accepted (docs/codegen.md).
bool DocumentedLimit(const uringc::Diagnostic& d) {
  return d.kind == uringc::DiagKind::kTooManyTasks || d.kind == uringc::DiagKind::kGraphTooLarge;
}

// The object is one the runtime opens (libbpf, the io_uring_bpf_ops map, globals by BTF), with
// every parameter and output of the graph as a global of the right size (a shared buffers
// parameter as its offset and size, a provided pool as its uringc_pbuf_* globals), and a line table that maps to the `.uring` source.
void CheckObject(const uringc::rgir::Graph& g, const std::string& obj) {
  uringc::ControllerOptions o;
  o.object_name = g.name;
  auto ctl = uringc::Controller::OpenMemory(obj.data(), obj.size(), o);
  if (!ctl) Fail("the runtime cannot open the object: " + ctl.error().message);
  const uringc::GlobalTable& globals = (*ctl)->globals();
  for (const char* name : {"uringc_status", "uringc_error", "uringc_mem_min", "uringc_mem_addr"}) {
    if (!globals.Has(name)) Fail(std::string("the object has no global `") + name + "`");
  }
  for (const uringc::rgir::Param& p : g.params) {
    if (p.type.kind == uringc::Type::Kind::kBuffers && p.type.mem == uringc::Type::Mem::kShared) {
      // In the parameter region: no global, but the runtime must find where and how large.
      const auto& shared = (*ctl)->shared_buffer_params();
      auto it = std::find_if(shared.begin(), shared.end(),
                             [&](const uringc::SharedBufferParam& s) { return s.name == p.name; });
      if (it == shared.end()) Fail("shared buffers parameter `" + p.name + "` is not declared");
      if (it->bytes != uint64_t{p.type.count} * p.type.size) {
        Fail("shared buffers parameter `" + p.name + "` declares the wrong size");
      }
      continue;
    }
    if (p.type.kind == uringc::Type::Kind::kBuffers &&
        p.type.mem == uringc::Type::Mem::kProvided) {
      // The pool: in the region, described by the uringc_pbuf_* globals the runtime registers.
      for (const char* name : {uringc::kPbufOffGlobal, uringc::kPbufRingOffGlobal,
                               uringc::kPbufSizeGlobal, uringc::kPbufCountGlobal}) {
        if (!globals.Has(name)) Fail(std::string("the provided pool has no global `") + name + "`");
      }
      auto count = (*ctl)->GetInt(uringc::kPbufCountGlobal);
      if (!count || *count != p.type.count) Fail("the provided pool declares the wrong count");
      continue;
    }
    auto v = globals.Find(p.name);
    if (!v) Fail("parameter `" + p.name + "` is not a global: " + v.error().message);
    if (v->size == 0 || v->size > 8 || !v->read_only()) {
      Fail("parameter `" + p.name + "` is " + v->type_name + " in " + v->section);
    }
  }
  for (const uringc::rgir::Var& var : g.vars) {
    if (var.kind != uringc::rgir::Var::Kind::kOutput) continue;
    auto v = globals.Find(var.name);
    if (!v) Fail("output `" + var.name + "` is not a global: " + v.error().message);
    if (v->read_only()) Fail("output `" + var.name + "` is read-only");
    if (!(*ctl)->Format(var.name)) Fail("output `" + var.name + "` cannot be read");
  }
  auto lines = uringc::ReadLineInfo(obj);
  if (!lines) Fail("the object's line table is unreadable: " + lines.error().message);
  if (lines->empty()) Fail("the object has no line table");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 16)) return 0;
  uringc::driver::Compilation c;
  uringc::fuzz::RunFrontEnd(c, data, size);
  if (c.diagnostics.HasErrors() || !c.rgir) return 0;
  // Both kernel ABIs and both optimisation levels, chosen by the input so a crash reproduces.
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  uringc::driver::CompileRequest req;
  req.codegen.opt = (h & 1) ? uringc::OptLevel::kO0 : uringc::OptLevel::kO2;
  req.abi = (h & 2) ? uringc::KernelAbi::kLinux7_1 : uringc::kDefaultKernelAbi;
  int compiled = 0;
  for (const uringc::rgir::Graph& g : c.rgir->graphs) {
    if (compiled++ == 2) break;  // a third graph adds little but time
    const size_t before = c.diagnostics.items().size();
    auto obj = uringc::driver::CompileGraph(g, req, c);
    for (size_t i = before; i < c.diagnostics.items().size(); ++i) {
      const uringc::Diagnostic& d = c.diagnostics.items()[i];
      if (!Located(c, d))
        Fail("diagnostic without a location: [" + std::string(uringc::DiagKindName(d.kind)) + "] " +
             d.message);
      if (d.severity == uringc::Severity::kError && !DocumentedLimit(d)) {
        Fail("the back end rejected a checked program: [" +
             std::string(uringc::DiagKindName(d.kind)) + "] " + d.message);
      }
    }
    if (obj) CheckObject(g, *obj);
  }
  return 0;
}
