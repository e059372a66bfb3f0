// uringc_nop_gen: writes a generated NOP controller (or, with --program=requests, the controller
// that issues one request of each kind, see request_program.h) to a file. Used by the build (objects the
// kernel tests embed), by the objdump check and by the codegen benchmark (scripts/bench-codegen.sh),
// which times it in a fresh process.
//   uringc_nop_gen [--program=requests] [--inflight=K] [--max-cqes=B] [--target-kernel=7.1|7.2|7.3] [-O0|-O2]
//                  [--emit=llvm|asm|obj] [--blow-stack] -o FILE
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "diag/formatter.h"
#include "nop_programs.h"
#include "request_program.h"

int main(int argc, char** argv) {
  using namespace uringc;
  testing::NopProgramSpec spec;
  CodegenOptions options;
  std::string out;
  bool requests = false;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (arg.rfind("--inflight=", 0) == 0) {
      spec.inflight = static_cast<uint32_t>(std::stoul(arg.substr(11)));
    } else if (arg.rfind("--target-kernel=", 0) == 0) {
      auto abi = ParseKernelAbi(arg.substr(16));
      if (!abi) {
        std::cerr << "uringc_nop_gen: unknown kernel `" << arg.substr(16) << "`\n";
        return 2;
      }
      spec.abi = *abi;
    } else if (arg == "-O0" || arg == "-O2") {
      options.opt = arg == "-O0" ? OptLevel::kO0 : OptLevel::kO2;
    } else if (arg == "--emit=llvm" || arg == "--emit=asm" || arg == "--emit=obj") {
      options.emit = arg == "--emit=llvm" ? EmitKind::kLlvm
                     : arg == "--emit=asm" ? EmitKind::kAsm
                                           : EmitKind::kObj;
    } else if (arg.rfind("--max-cqes=", 0) == 0) {
      spec.max_cqes = static_cast<uint32_t>(std::stoul(arg.substr(11)));
    } else if (arg == "--program=requests") {
      requests = true;
    } else if (arg == "--blow-stack") {
      spec.blow_stack = true;
    } else if (arg == "-o" && i + 1 < argc) {
      out = argv[++i];
    } else {
      std::cerr << "usage: uringc_nop_gen [--inflight=K] [--max-cqes=B] [--target-kernel=V] [-O0|-O2] "
                   "[--emit=llvm|asm|obj] [--blow-stack] -o FILE\n";
      return 2;
    }
  }
  if (out.empty()) {
    std::cerr << "uringc_nop_gen: -o FILE is required\n";
    return 2;
  }
  SourceManager sources;
  DiagnosticList diags;
  std::optional<std::string> bytes =
      requests ? testing::BuildRequestProgram(options, diags, &sources)
               : testing::BuildNopProgram(spec, options, diags, &sources);
  for (const Diagnostic& d : diags.items()) std::cerr << FormatText(d, sources);
  if (!bytes) return 1;
  std::ofstream file(out, std::ios::binary);
  file.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  return file ? 0 : 1;
}
