// `-D NAME=VALUE` (--define): the command line overrides the value of a top-level constant of
// the root module, as clang's -D defines a macro, so `uringc ublk add --depth 64` can compile a
// target that declares `const DEPTH = 8` with DEPTH = 64. VALUE is source text: it is parsed as
// `const NAME = VALUE` in a source of its own, named <define>, so a mistake in it is an ordinary
// diagnostic with a location and a caret.
#pragma once

#include <string>
#include <vector>

#include "ast/ast.h"
#include "parse/parser.h"
#include "uringc/diag/diagnostic.h"
#include "uringc/source_file.h"

namespace uringc {

/// One `-D NAME=VALUE`.
struct Define {
  std::string name;
  std::string value;  ///< source text of an expression
};

/// The name of the source each define is parsed from in diagnostics (clang's `<command line>`;
/// `<command-line>` is already -e's program).
inline constexpr const char* kDefineSourceName = "<define>";

/// Gives the top-level `const NAME` of `root` (the root module, parsed without errors) each
/// define's VALUE in order, so the last of several for one NAME wins; its declared type stays.
/// A NAME `root` does not declare is UndefinedName; VALUE that is not one expression is
/// SyntaxError.
void ApplyDefines(const std::vector<Define>& defines, SourceManager& sources, ast::File& root,
                  DiagnosticList& diagnostics, const ParseOptions& options);

}  // namespace uringc
