// One run of the compiler's front end over an editor's buffer, the same rows `uringc check` runs
// (driver/pipeline.h) with the buffer as the root module, so imports resolve against the stdlib
// and against files beside the document exactly as they do on the command line. When the buffer
// has a syntax error (and so no tree), a second run checks it with the broken declarations
// blanked out (repair.h), for hover, definition and symbols; diagnostics come from the first.
#pragma once

#include <memory>
#include <string>

#include "driver/compilation.h"

namespace uringc::lsp {

struct Analysis {
  /// The buffer as it is: what the diagnostics are.
  driver::Compilation compilation;
  /// The buffer without its unparsable declarations, when it has a syntax error; else null.
  std::unique_ptr<driver::Compilation> repaired;
  /// Names were resolved and types checked in semantic(): sema's annotations can be trusted.
  bool checked = false;

  /// Where the tree and sema's annotations come from: `repaired` if any, else `compilation`.
  /// Its byte offsets are the buffer's in both cases.
  const driver::Compilation& semantic() const { return repaired ? *repaired : compilation; }
  const sema::Module& root() const { return semantic().program.root(); }
  const ast::File* root_ast() const { return root().ast.get(); }
};

/// Checks `text` as the file `path` (an absolute path, or any name for a buffer not on disk).
std::unique_ptr<Analysis> Analyze(const std::string& path, std::string text,
                                  const std::string& stdlib_dir);

}  // namespace uringc::lsp
