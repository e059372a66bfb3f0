// `uringc lsp`: the language server on standard input and output, as a row of the subcommand
// table (driver/subcommands.h), registered by BackendMain beside `compile` and `run`.
#pragma once

#include "driver/subcommands.h"

namespace uringc::lsp {

/// The `lsp` row of the subcommand table.
driver::Subcommand LspSubcommand();

}  // namespace uringc::lsp
