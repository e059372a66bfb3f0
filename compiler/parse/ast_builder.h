// Walks a complete ANTLR parse tree and builds our AST (ast/ast.h). Internal to parse/; called
// only when the parse reported no syntax error, but still tolerates missing children.
#pragma once

#include <memory>

#include "UringParser.h"
#include "ast/ast.h"

namespace uringc::parse_internal {

std::unique_ptr<ast::File> BuildAst(uringc_antlr::UringParser::FileContext* tree, uint32_t file_id,
                                    uint32_t file_size);

}  // namespace uringc::parse_internal
