// ANTLR error messages rewritten in the project's wording (see syntax_errors.h).
#include "parse/syntax_errors.h"

#include "UringLexer.h"

namespace uringc::parse_internal {
namespace {

// A vocabulary entry as users read it: 'graph' -> `graph`, NAME -> a name.
std::string DescribeTokenType(const antlr4::dfa::Vocabulary& vocab, size_t type) {
  if (type == antlr4::Token::EOF) return "end of file";
  if (type == uringc_antlr::UringLexer::NL) return "end of line";
  if (type == uringc_antlr::UringLexer::NAME) return "a name";
  if (type == uringc_antlr::UringLexer::INT) return "a number";
  std::string lit = vocab.getLiteralName(type);
  if (lit.size() >= 2 && lit.front() == '\'') return "`" + lit.substr(1, lit.size() - 2) + "`";
  return vocab.getSymbolicName(type);
}

std::string Expected(antlr4::Parser* parser) {
  antlr4::misc::IntervalSet set;
  try {
    set = parser->getExpectedTokens();
  } catch (...) {
    return "";
  }
  std::vector<std::string> names;
  for (ssize_t t : set.toList()) {
    if (t == uringc_antlr::UringLexer::NL) continue;
    if (parser->getVocabulary().getLiteralName(static_cast<size_t>(t)) == "';'") continue;
    names.push_back(DescribeTokenType(parser->getVocabulary(), static_cast<size_t>(t)));
  }
  if (names.empty() || names.size() > 6) return "";
  std::string out = names.size() == 1 ? ", expected " : ", expected one of ";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

}  // namespace

SourceRange TokenRange(const antlr4::Token* t, uint32_t file_id, uint32_t file_size) {
  if (t == nullptr || t->getType() == antlr4::Token::EOF) return {file_id, file_size, file_size};
  const uint32_t begin = static_cast<uint32_t>(t->getStartIndex());
  uint32_t end = static_cast<uint32_t>(t->getStopIndex()) + 1;
  if (end < begin) end = begin;
  return {file_id, begin, end};
}

std::string DescribeToken(const antlr4::Token* t) {
  if (t == nullptr || t->getType() == antlr4::Token::EOF) return "end of file";
  if (t->getType() == uringc_antlr::UringLexer::NL) return "end of line";
  std::string text = t->getText();
  if (text.size() > 40) text = text.substr(0, 40) + "...";
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return "`" + text + "`";
}

void SyntaxErrorListener::syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending,
                                      size_t, size_t, const std::string& msg,
                                      std::exception_ptr) {
  // One error per token: ANTLR's recovery may report the same spot twice.
  if (offending != nullptr) {
    if (offending->getTokenIndex() == last_token_index_) return;
    last_token_index_ = offending->getTokenIndex();
  }
  if (++count_ > max_errors_) return;
  SourceRange range = TokenRange(offending, file_id_, file_size_);
  std::string message;
  auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
  if (offending != nullptr && offending->getType() == uringc_antlr::UringLexer::ERROR_CHAR) {
    message = "unexpected character " + DescribeToken(offending);
    if (offending->getText() == "\"") {
      message += ": a byte string ends with `\"` on the line it starts, and its escapes are "
                 "\\n \\r \\t \\0 \\\\ \\\" \\xHH";
    }
  } else if (msg.rfind("missing ", 0) == 0 && parser != nullptr) {
    message = "missing token before " + DescribeToken(offending) + Expected(parser);
  } else {
    message = "unexpected " + DescribeToken(offending);
    if (parser != nullptr) message += Expected(parser);
  }
  diagnostics_.Error(DiagKind::kSyntaxError, range, message);
  if (count_ == max_errors_) {
    diagnostics_.Error(DiagKind::kTooManyErrors, range, "too many syntax errors, stopping here");
  }
}

}  // namespace uringc::parse_internal
