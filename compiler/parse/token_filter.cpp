// Newline significance and the nesting pre-check, on the token list (see token_filter.h).
#include "parse/token_filter.h"

#include <string_view>
#include <unordered_set>

namespace uringc::parse_internal {
namespace {

// Tokens after which a line cannot end: the statement continues on the next line.
bool ContinuesAfter(std::string_view t) {
  static const std::unordered_set<std::string_view> kSet = {
      "(", "[", "{", ",", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
      "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">", ">=",
      "&&", "||", "!", "=>", "->", ":", ".", "..", "else", "within", "as", "in", "of"};
  return kSet.count(t) != 0;
}

// Tokens that cannot start a statement, so a newline before them is not a statement end (`->`:
// a long graph or fn header may put its results on the next line).
bool ContinuesBefore(std::string_view t) {
  return t == "else" || t == ")" || t == "]" || t == "->";
}

}  // namespace

std::vector<std::unique_ptr<antlr4::Token>> FilterNewlines(
    std::vector<std::unique_ptr<antlr4::Token>> tokens, size_t nl_type) {
  std::vector<std::unique_ptr<antlr4::Token>> out;
  out.reserve(tokens.size());
  int paren_depth = 0;  // ( and [ only: newlines inside braces are statement ends
  for (size_t i = 0; i < tokens.size(); ++i) {
    antlr4::Token* t = tokens[i].get();
    if (t->getType() == nl_type) {
      if (paren_depth > 0) continue;
      if (!out.empty() && out.back()->getType() == nl_type) continue;
      if (!out.empty() && ContinuesAfter(out.back()->getText())) continue;
      // Look past further newlines to the next real token.
      size_t j = i + 1;
      while (j < tokens.size() && tokens[j]->getType() == nl_type) ++j;
      if (j < tokens.size() && ContinuesBefore(tokens[j]->getText())) continue;
      out.push_back(std::move(tokens[i]));
      continue;
    }
    const std::string text = t->getText();
    if (text == "(" || text == "[") ++paren_depth;
    if ((text == ")" || text == "]") && paren_depth > 0) --paren_depth;
    // A brace ends any unbalanced ( [ so that a missing `)` does not swallow the rest of the file.
    if (text == "{" || text == "}") paren_depth = 0;
    out.push_back(std::move(tokens[i]));
  }
  return out;
}

const antlr4::Token* FindTooDeep(const std::vector<std::unique_ptr<antlr4::Token>>& tokens,
                                 uint32_t limit) {
  int64_t depth = 0;
  uint32_t prefix_run = 0;
  for (const auto& tok : tokens) {
    const std::string text = tok->getText();
    if (text == "(" || text == "[" || text == "{") {
      if (++depth > limit) return tok.get();
    } else if (text == ")" || text == "]" || text == "}") {
      if (depth > 0) --depth;
    }
    if (text == "-" || text == "!") {
      if (++prefix_run > limit) return tok.get();
    } else {
      prefix_run = 0;
    }
  }
  return nullptr;
}

}  // namespace uringc::parse_internal
