// Turns ANTLR's syntax errors into SyntaxError diagnostics with our wording (lowercase, code in
// backticks, "unexpected X, expected Y") and byte ranges. Internal to parse/.
#pragma once

#include <antlr4-runtime.h>

#include "uringc/diag/diagnostic.h"

namespace uringc::parse_internal {

class SyntaxErrorListener : public antlr4::BaseErrorListener {
 public:
  SyntaxErrorListener(uint32_t file_id, uint32_t file_size, DiagnosticList& diagnostics,
                      uint32_t max_errors)
      : file_id_(file_id), file_size_(file_size), diagnostics_(diagnostics),
        max_errors_(max_errors) {}

  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line,
                   size_t column, const std::string& msg, std::exception_ptr e) override;

  uint32_t count() const { return count_; }

 private:
  uint32_t file_id_;
  uint32_t file_size_;
  DiagnosticList& diagnostics_;
  uint32_t max_errors_;
  uint32_t count_ = 0;
  size_t last_token_index_ = static_cast<size_t>(-1);
};

/// The byte range of a token (its text; an empty range at the end for EOF).
SourceRange TokenRange(const antlr4::Token* t, uint32_t file_id, uint32_t file_size);

/// How a token reads in a message: `foo`, "end of line", "end of file".
std::string DescribeToken(const antlr4::Token* t);

}  // namespace uringc::parse_internal
