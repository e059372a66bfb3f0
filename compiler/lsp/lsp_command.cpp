// See lsp_command.h. Standard output carries the protocol only: nothing else may be printed there.
#include "lsp/lsp_command.h"

#include <iostream>

#include "lsp/server.h"

namespace uringc::lsp {
namespace {

struct LspOptions {
  std::string stdlib;
  bool stdio = false;
};

driver::Runner DeclareLsp(CLI::App& cmd) {
  auto opts = std::make_shared<LspOptions>();
  driver::AddStdlibOption(cmd, opts->stdlib);
  cmd.add_flag("--stdio", opts->stdio,
               "accepted and ignored: standard input and output are the only transport");
  cmd.footer(
      "Speaks the Language Server Protocol 3.17 (JSON-RPC with Content-Length headers) on "
      "standard input and output: diagnostics, hover, go to definition, document symbols. "
      "See docs/lsp.md.\nExit status: 0 after `shutdown` then `exit`, 1 otherwise.");
  return [opts](driver::Io&) {
    std::ios::sync_with_stdio(false);
    const std::string stdlib =
        opts->stdlib.empty() ? driver::DefaultStdlibDir() : opts->stdlib;
    return Serve(std::cin, std::cout, stdlib);
  };
}

}  // namespace

driver::Subcommand LspSubcommand() {
  return {"lsp", "run the language server (LSP over standard input and output)", DeclareLsp};
}

}  // namespace uringc::lsp
