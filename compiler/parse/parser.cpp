// Drives ANTLR: lex, filter newlines, check nesting, parse (fast SLL first, full LL with error
// recovery when SLL fails), check the tree depth, build the AST. See parser.h.
#include "parse/parser.h"

#include <antlr4-runtime.h>

#include "UringLexer.h"
#include "UringParser.h"
#include "parse/ast_builder.h"
#include "parse/syntax_errors.h"
#include "parse/token_filter.h"

namespace uringc {
namespace {

using parse_internal::TokenRange;

// Thrown from inside the ANTLR parser when rule nesting passes the limit; caught in ParseFile
// and never crosses this file.
struct TooDeep {
  const antlr4::Token* at;
};

class DepthGuard : public antlr4::tree::ParseTreeListener {
 public:
  explicit DepthGuard(uint32_t limit) : limit_(limit) {}
  void enterEveryRule(antlr4::ParserRuleContext* ctx) override {
    uint32_t depth = 0;
    for (antlr4::tree::ParseTree* p = ctx; p != nullptr; p = p->parent) {
      if (++depth > limit_) throw TooDeep{ctx->getStart()};
    }
  }
  void visitTerminal(antlr4::tree::TerminalNode*) override {}
  void visitErrorNode(antlr4::tree::ErrorNode*) override {}
  void exitEveryRule(antlr4::ParserRuleContext*) override {}

 private:
  uint32_t limit_;
};

// Depth of the parse tree, without recursion (the tree may be deep: left-recursive expression
// rules are built by a loop, so `a+b+...` of any length parses but nests).
uint32_t TreeDepth(antlr4::tree::ParseTree* root, uint32_t limit,
                   antlr4::tree::ParseTree** deepest) {
  std::vector<std::pair<antlr4::tree::ParseTree*, uint32_t>> stack = {{root, 1}};
  uint32_t max = 0;
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (depth > max) {
      max = depth;
      *deepest = node;
      if (max > limit) return max;
    }
    for (auto* child : node->children) stack.push_back({child, depth + 1});
  }
  return max;
}

// ANTLR's input stream decodes UTF-8 and throws on bad bytes, and its decoder allocates about 20
// bytes per input byte. We fill its UTF-32 buffer directly, one character per byte (non-ASCII
// bytes and NUL become DEL, which only comments accept), so token indices are byte offsets and
// the stream costs 4 bytes per input byte.
class ByteStream : public antlr4::ANTLRInputStream {
 public:
  explicit ByteStream(const std::string& text) {
    _data.resize(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
      const unsigned char u = static_cast<unsigned char>(text[i]);
      _data[i] = u >= 0x80 || u == 0 ? 0x7f : u;
    }
    p = 0;
  }
};

}  // namespace

std::unique_ptr<ast::File> ParseFile(const SourceManager& sources, uint32_t file_id,
                                     DiagnosticList& diagnostics, const ParseOptions& options) {
  auto empty = std::make_unique<ast::File>();
  empty->file_id = file_id;
  const SourceFile* file = sources.Get(file_id);
  if (file == nullptr) return empty;
  const uint32_t size = static_cast<uint32_t>(file->text().size());
  empty->range = {file_id, 0, size};

  ByteStream input(file->text());
  uringc_antlr::UringLexer lexer(&input);
  lexer.removeErrorListeners();  // ERROR_CHAR catches everything, so the lexer never errs
  std::vector<std::unique_ptr<antlr4::Token>> raw;
  for (;;) {
    std::unique_ptr<antlr4::Token> t = lexer.nextToken();
    const bool eof = t->getType() == antlr4::Token::EOF;
    raw.push_back(std::move(t));
    if (eof) break;
  }
  if (const antlr4::Token* deep = parse_internal::FindTooDeep(raw, options.max_bracket_depth)) {
    diagnostics.Error(DiagKind::kNestingTooDeep, TokenRange(deep, file_id, size),
                      "nesting deeper than " + std::to_string(options.max_bracket_depth) +
                          " levels; split the expression or block");
    return empty;
  }
  auto filtered = parse_internal::FilterNewlines(std::move(raw), uringc_antlr::UringLexer::NL);
  // ListTokenSource takes the tokens; keep raw pointers for re-parsing from the start.
  antlr4::ListTokenSource source(std::move(filtered));
  antlr4::CommonTokenStream tokens(&source);
  tokens.fill();

  uringc_antlr::UringParser parser(&tokens);
  DepthGuard guard(options.max_tree_depth);
  parser.addParseListener(&guard);
  parser.removeErrorListeners();

  uringc_antlr::UringParser::FileContext* tree = nullptr;
  parse_internal::SyntaxErrorListener listener(file_id, size, diagnostics, options.max_errors);
  try {
    // Stage 1: SLL prediction, stop at the first error (fast path for correct files).
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::SLL);
    parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    try {
      tree = parser.file();
    } catch (const antlr4::ParseCancellationException&) {
      // Stage 2: full LL with recovery, reporting every error.
      tokens.seek(0);
      parser.reset();
      parser.addErrorListener(&listener);
      parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
      parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
          antlr4::atn::PredictionMode::LL);
      tree = parser.file();
    }
  } catch (const TooDeep& deep) {
    diagnostics.Error(DiagKind::kNestingTooDeep, TokenRange(deep.at, file_id, size),
                      "nesting deeper than the parser allows; split the expression or block");
    return empty;
  } catch (const std::exception& e) {
    // ANTLR's own failures (it should have none on any input; the fuzzer checks).
    diagnostics.Error(DiagKind::kSyntaxError, {file_id, 0, 0},
                      std::string("parser failure: ") + e.what());
    return empty;
  }
  if (listener.count() > 0 || tree == nullptr) return empty;

  antlr4::tree::ParseTree* deepest = tree;
  if (TreeDepth(tree, options.max_tree_depth, &deepest) > options.max_tree_depth) {
    SourceRange r{file_id, 0, 0};
    if (auto* ctx = dynamic_cast<antlr4::ParserRuleContext*>(deepest)) {
      r = TokenRange(ctx->getStart(), file_id, size);
    } else if (auto* term = dynamic_cast<antlr4::tree::TerminalNode*>(deepest)) {
      r = TokenRange(term->getSymbol(), file_id, size);
    }
    diagnostics.Error(DiagKind::kNestingTooDeep, r,
                      "expression nested deeper than " + std::to_string(options.max_tree_depth) +
                          " levels; split it with `let`");
    return empty;
  }
  return parse_internal::BuildAst(tree, file_id, size);
}

}  // namespace uringc
