// Between the lexer and the parser: decides which newlines end statements (docs/language.md
// section 1) and measures bracket nesting before the recursive-descent parser could overflow the
// stack on it. Internal to parse/.
#pragma once

#include <antlr4-runtime.h>

#include <memory>
#include <vector>

namespace uringc::parse_internal {

/// Drops the NL tokens that cannot end a statement: inside ( ) and [ ], after a token that needs
/// a right operand (`,`, `=`, `+`, `{`, `else`, ...), before `else`, `)` or `]`, and repeats.
std::vector<std::unique_ptr<antlr4::Token>> FilterNewlines(
    std::vector<std::unique_ptr<antlr4::Token>> tokens, size_t nl_type);

/// The first token at which ( [ { nesting, or a run of prefix operators, exceeds `limit`, or
/// nullptr when none does.
const antlr4::Token* FindTooDeep(const std::vector<std::unique_ptr<antlr4::Token>>& tokens,
                                 uint32_t limit);

}  // namespace uringc::parse_internal
