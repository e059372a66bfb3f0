// The parser: source text in, AST out. This directory is the only place that sees ANTLR types;
// syntax errors become SyntaxError diagnostics (several per run, thanks to ANTLR's recovery), and
// input nested too deeply for a recursive-descent parser becomes NestingTooDeep, never a crash.
#pragma once

#include <memory>

#include "ast/ast.h"
#include "uringc/diag/diagnostic.h"
#include "uringc/source_file.h"

namespace uringc {

struct ParseOptions {
  /// Deepest nesting of ( [ { and of parse-tree rules accepted before NestingTooDeep.
  uint32_t max_bracket_depth = 256;
  uint32_t max_tree_depth = 1500;
  /// Stop reporting after this many syntax errors (the rest are usually consequences).
  uint32_t max_errors = 50;
};

/// Parses file `file_id` of `sources`. Always returns a File; when diagnostics has new errors
/// the File holds whatever could be recovered (possibly nothing) and must not reach sema.
std::unique_ptr<ast::File> ParseFile(const SourceManager& sources, uint32_t file_id,
                                     DiagnosticList& diagnostics, const ParseOptions& options = {});

}  // namespace uringc
