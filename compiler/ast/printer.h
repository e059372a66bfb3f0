// `uringc check --emit=ast`: the AST as indented text, one node per line with its source position
// and, after sema, its type and resolution. A debugging aid; its format may change.
#pragma once

#include <string>

#include "ast/ast.h"
#include "uringc/source_file.h"

namespace uringc::ast {

std::string PrintAst(const File& file, const SourceManager& sources);

}  // namespace uringc::ast
