// The parser returns no tree at all for a file with a syntax error, but an editor's buffer has
// one most of the time. To still answer hover, definition and symbols there, the buffer is split
// into its top-level declarations (lines that start with `graph`, `fn`, `const` or `import`),
// each is parsed alone, and those that fail are blanked out (spaces, newlines kept, so every
// byte offset stays where it was); the rest can be checked as usual.
#pragma once

#include <string>

#include "parse/parser.h"

namespace uringc::lsp {

/// `text` with each top-level declaration that does not parse on its own replaced by spaces;
/// empty when no declaration parses, or when parsing each alone would read more than
/// `max_bytes` (each parse reads the whole, mostly blank, text), so a keystroke in a large file
/// stays fast.
std::string BlankBrokenDecls(const std::string& text, const ParseOptions& options,
                             size_t max_bytes = 64u << 20);

}  // namespace uringc::lsp
