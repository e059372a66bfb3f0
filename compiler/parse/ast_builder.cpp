// Parse tree -> AST, one function per grammar rule (see ast_builder.h). Source ranges come from
// the first and last token of each context; token indices are byte offsets because parser.cpp
// feeds ANTLR one ASCII character per input byte.
#include "parse/ast_builder.h"

#include "parse/syntax_errors.h"

namespace uringc::parse_internal {
namespace {

using P = uringc_antlr::UringParser;
using namespace ast;

class Builder {
 public:
  Builder(uint32_t file_id, uint32_t file_size) : file_(file_id), size_(file_size) {}

  std::unique_ptr<File> BuildFile(P::FileContext* ctx) {
    auto file = std::make_unique<File>();
    file->file_id = file_;
    file->range = {file_, 0, size_};
    for (auto* d : ctx->decl()) {
      if (auto decl = BuildDecl(d)) file->decls.push_back(std::move(decl));
    }
    return file;
  }

 private:
  SourceRange Range(antlr4::ParserRuleContext* ctx) const {
    SourceRange a = TokenRange(ctx->getStart(), file_, size_);
    SourceRange b = TokenRange(ctx->getStop(), file_, size_);
    if (ctx->getStop() == nullptr || b.end < a.begin) b.end = a.end;
    return {file_, a.begin, b.end};
  }
  SourceRange Range(antlr4::tree::TerminalNode* n) const {
    return n ? TokenRange(n->getSymbol(), file_, size_) : SourceRange{file_, 0, 0};
  }
  static std::string Text(antlr4::tree::TerminalNode* n) { return n ? n->getText() : ""; }
  // An operator token as its enum (the grammar admits only operators' spellings); a token missing
  // after a syntax error reads as `-` or `+`.
  static UnaryOp UnaryOf(antlr4::Token* op) {
    return op ? UnaryOpNamed(op->getText()).value_or(UnaryOp::kNeg) : UnaryOp::kNeg;
  }
  static BinaryOp BinaryOf(antlr4::Token* op) {
    return op ? BinaryOpNamed(op->getText()).value_or(BinaryOp::kAdd) : BinaryOp::kAdd;
  }

  std::unique_ptr<Decl> BuildDecl(P::DeclContext* ctx) {
    if (auto* c = dynamic_cast<P::ImportDeclContext*>(ctx)) {
      std::string dotted;
      std::vector<std::string> path;
      for (auto* n : c->NAME()) {
        path.push_back(n->getText());
        dotted += (dotted.empty() ? "" : ".") + n->getText();
      }
      auto d = std::make_unique<ImportDecl>(Range(c), dotted);
      d->path = std::move(path);
      if (!c->NAME().empty()) {
        d->name_range = {file_, Range(c->NAME().front()).begin, Range(c->NAME().back()).end};
      }
      return d;
    }
    if (auto* c = dynamic_cast<P::ConstDeclContext*>(ctx)) {
      auto d = std::make_unique<ConstDecl>(Range(c), Text(c->NAME()));
      d->name_range = Range(c->NAME());
      if (c->type()) d->type = BuildType(c->type());
      d->value = BuildExpr(c->expr());
      return d;
    }
    if (auto* c = dynamic_cast<P::FnDeclContext*>(ctx)) {
      auto d = std::make_unique<FnDecl>(Range(c), Text(c->NAME()));
      d->name_range = Range(c->NAME());
      if (c->params()) BuildParams(c->params(), Binding::Kind::kParam, d->params, d->param_types);
      if (c->type()) d->result = BuildType(c->type());
      d->body = BuildBlock(c->block());
      return d;
    }
    if (auto* c = dynamic_cast<P::GraphDeclContext*>(ctx)) {
      auto d = std::make_unique<GraphDecl>(Range(c), Text(c->NAME()));
      d->name_range = Range(c->NAME());
      for (auto* ps : c->params()) {
        if (ps == c->outs) {
          BuildParams(ps, Binding::Kind::kOutput, d->outputs, d->output_types);
        } else {
          BuildParams(ps, Binding::Kind::kParam, d->params, d->param_types);
        }
      }
      d->body = BuildBlock(c->block());
      return d;
    }
    return nullptr;
  }

  void BuildParams(P::ParamsContext* ctx, Binding::Kind kind,
                   std::vector<std::unique_ptr<Binding>>& names,
                   std::vector<std::unique_ptr<TypeRef>>& types) {
    for (auto* p : ctx->param()) {
      names.push_back(std::make_unique<Binding>(Range(p->NAME()), kind, Text(p->NAME())));
      types.push_back(BuildType(p->type()));
    }
  }

  std::unique_ptr<TypeRef> BuildType(P::TypeContext* ctx) {
    if (ctx == nullptr) return std::make_unique<TypeRef>(SourceRange{file_, 0, 0}, "?");
    if (auto* c = dynamic_cast<P::NamedTypeContext*>(ctx)) {
      auto t = std::make_unique<TypeRef>(Range(c), c->name ? c->name->getText() : "?");
      if (c->qual) {
        t->qualifier = c->qual->getText();
        t->qualifier_range = TokenRange(c->qual, file_, size_);
      }
      return t;
    }
    auto* c = dynamic_cast<P::BuffersTypeContext*>(ctx);
    auto t = std::make_unique<TypeRef>(Range(ctx), "");
    if (c) {
      t->count = BuildExpr(c->count);
      t->size = BuildExpr(c->size);
      if (c->qual) {
        t->qualifier = c->qual->getText();
        t->qualifier_range = TokenRange(c->qual, file_, size_);
      }
    }
    return t;
  }

  std::unique_ptr<Block> BuildBlock(P::BlockContext* ctx) {
    if (ctx == nullptr) return std::make_unique<Block>(SourceRange{file_, 0, 0});
    auto b = std::make_unique<Block>(Range(ctx));
    for (auto* s : ctx->stmt()) {
      if (auto st = BuildStmt(s)) b->stmts.push_back(std::move(st));
    }
    return b;
  }

  std::unique_ptr<Stmt> BuildStmt(P::StmtContext* ctx) {
    if (auto* c = dynamic_cast<P::DeclStmtContext*>(ctx)) {
      auto s = std::make_unique<DeclStmt>(Range(c));
      const bool is_var = c->kw && c->kw->getText() == "var";
      s->binding = std::make_unique<Binding>(
          Range(c->NAME()), is_var ? Binding::Kind::kVar : Binding::Kind::kLet, Text(c->NAME()));
      if (c->type()) s->type = BuildType(c->type());
      if (c->expr()) s->init = BuildExpr(c->expr());
      return s;
    }
    if (auto* c = dynamic_cast<P::IfStatementContext*>(ctx)) return BuildIf(c->ifStmt());
    if (auto* c = dynamic_cast<P::CompoundStmtContext*>(ctx)) {
      auto s = BuildCompound(c->compound());
      if (s && c->within()) s->within = BuildWithin(c->within());
      return s;
    }
    if (auto* c = dynamic_cast<P::JumpStmtContext*>(ctx)) return BuildJump(c->jump());
    if (auto* c = dynamic_cast<P::ExprStmtContext*>(ctx)) {
      if (c->op != nullptr) {  // an assignment (see the `stmt` rule)
        const std::string text = c->op->getText();  // `=` or an operator then `=`
        auto s = std::make_unique<AssignStmt>(
            Range(c), BinaryOpNamed(std::string_view(text).substr(0, text.size() - 1)));
        s->target = BuildExpr(c->lhs);
        s->value = BuildExpr(c->rhs);
        return s;
      }
      auto s = std::make_unique<ExprStmt>(Range(c));
      s->expr = BuildExpr(c->lhs);
      return s;
    }
    return nullptr;
  }

  std::unique_ptr<Stmt> BuildIf(P::IfStmtContext* c) {
    if (c == nullptr) return nullptr;
    auto s = std::make_unique<IfStmt>(Range(c));
    s->cond = BuildExpr(c->expr());
    auto blocks = c->block();
    if (!blocks.empty()) s->then_block = BuildBlock(blocks[0]);
    if (c->ifStmt()) {
      s->else_stmt = BuildIf(c->ifStmt());
    } else if (blocks.size() > 1) {
      s->else_stmt = BuildBlock(blocks[1]);
    }
    if (!s->then_block) s->then_block = std::make_unique<Block>(Range(c));
    return s;
  }

  std::unique_ptr<Stmt> BuildCompound(P::CompoundContext* ctx) {
    if (auto* c = dynamic_cast<P::BlockCompoundContext*>(ctx)) return BuildBlock(c->block());
    if (auto* c = dynamic_cast<P::WhileCompoundContext*>(ctx)) {
      auto s = std::make_unique<WhileStmt>(Range(c));
      s->cond = BuildExpr(c->expr());
      s->body = BuildBlock(c->block());
      return s;
    }
    if (auto* c = dynamic_cast<P::LoopCompoundContext*>(ctx)) {
      auto s = std::make_unique<LoopStmt>(Range(c));
      s->body = BuildBlock(c->block());
      return s;
    }
    if (auto* c = dynamic_cast<P::RepeatCompoundContext*>(ctx)) {
      auto s = std::make_unique<RepeatStmt>(Range(c));
      s->count = BuildExpr(c->expr());
      s->body = BuildBlock(c->block());
      return s;
    }
    if (auto* c = dynamic_cast<P::ForCompoundContext*>(ctx)) {
      auto s = std::make_unique<ForStmt>(Range(c));
      s->var = std::make_unique<Binding>(Range(c->NAME()), Binding::Kind::kLoopVar,
                                         Text(c->NAME()));
      s->lo = BuildExpr(c->lo);
      s->hi = BuildExpr(c->hi);
      s->body = BuildBlock(c->block());
      return s;
    }
    if (auto* c = dynamic_cast<P::ForEachCompoundContext*>(ctx)) {
      auto s = std::make_unique<ForEachStmt>(Range(c));
      s->var = std::make_unique<Binding>(Range(c->NAME()), Binding::Kind::kLoopVar,
                                         Text(c->NAME()));
      s->source = BuildCall(c->call());
      s->body = BuildBlock(c->block());
      return s;
    }
    if (auto* c = dynamic_cast<P::ParallelCompoundContext*>(ctx)) {
      auto s = std::make_unique<ParallelStmt>(Range(c));
      s->var = std::make_unique<Binding>(Range(c->NAME()), Binding::Kind::kTaskVar,
                                         Text(c->NAME()));
      s->lo = BuildExpr(c->lo);
      s->hi = BuildExpr(c->hi);
      s->body = BuildBlock(c->block());
      return s;
    }
    if (auto* c = dynamic_cast<P::AllCompoundContext*>(ctx)) {
      auto s = std::make_unique<AllStmt>(Range(c));
      s->body = BuildBlock(c->block());
      return s;
    }
    if (auto* c = dynamic_cast<P::AnyCompoundContext*>(ctx)) {
      auto s = std::make_unique<AnyStmt>(Range(c));
      for (auto* a : c->arm()) {
        auto arm = std::make_unique<AnyArm>(Range(a));
        arm->call = BuildCall(a->call());
        if (a->NAME()) {
          arm->binding =
              std::make_unique<Binding>(Range(a->NAME()), Binding::Kind::kArm, Text(a->NAME()));
        }
        arm->body = BuildBlock(a->block());
        if (arm->call) s->arms.push_back(std::move(arm));
      }
      return s;
    }
    if (auto* c = dynamic_cast<P::TryCompoundContext*>(ctx)) {
      auto s = std::make_unique<TryStmt>(Range(c));
      auto blocks = c->block();
      s->body = BuildBlock(blocks.empty() ? nullptr : blocks[0]);
      s->error =
          std::make_unique<Binding>(Range(c->NAME()), Binding::Kind::kCatch, Text(c->NAME()));
      s->handler = BuildBlock(blocks.size() > 1 ? blocks[1] : nullptr);
      return s;
    }
    return nullptr;
  }

  std::unique_ptr<Stmt> BuildJump(P::JumpContext* ctx) {
    using J = JumpStmt::Jump;
    if (dynamic_cast<P::BreakJumpContext*>(ctx)) {
      return std::make_unique<JumpStmt>(Range(ctx), J::kBreak);
    }
    if (dynamic_cast<P::ContinueJumpContext*>(ctx)) {
      return std::make_unique<JumpStmt>(Range(ctx), J::kContinue);
    }
    if (dynamic_cast<P::StopJumpContext*>(ctx)) {
      return std::make_unique<JumpStmt>(Range(ctx), J::kStop);
    }
    if (auto* c = dynamic_cast<P::FailJumpContext*>(ctx)) {
      auto s = std::make_unique<JumpStmt>(Range(c), J::kFail);
      if (c->expr()) s->value = BuildExpr(c->expr());
      return s;
    }
    if (auto* c = dynamic_cast<P::ReturnJumpContext*>(ctx)) {
      auto s = std::make_unique<JumpStmt>(Range(c), J::kReturn);
      if (c->expr()) s->value = BuildExpr(c->expr());
      return s;
    }
    return nullptr;
  }

  std::unique_ptr<Within> BuildWithin(P::WithinContext* c) {
    auto w = std::make_unique<Within>(Range(c));
    w->duration = BuildPrimary(c->primary());
    if (c->block()) {
      w->action = BuildBlock(c->block());
    } else if (c->jump()) {
      w->action = BuildJump(c->jump());
    }
    return w;
  }

  std::unique_ptr<CallExpr> BuildCall(P::CallContext* c) {
    if (c == nullptr) return nullptr;
    auto e = std::make_unique<CallExpr>(Range(c), Text(c->NAME()), Range(c->NAME()));
    for (auto* a : c->expr()) e->args.push_back(BuildExpr(a));
    if (c->within()) e->within = BuildWithin(c->within());
    return e;
  }

  // Never returns null: a missing operand becomes a `0` literal at the context (only possible
  // after a syntax error, when the AST is discarded anyway).
  std::unique_ptr<Expr> BuildExpr(P::ExprContext* ctx) {
    if (ctx == nullptr) return std::make_unique<IntLit>(SourceRange{file_, 0, 0}, 0, "");
    if (auto* c = dynamic_cast<P::PrimaryExprContext*>(ctx)) return BuildPrimary(c->primary());
    if (auto* c = dynamic_cast<P::IndexExprContext*>(ctx)) {
      auto e = std::make_unique<IndexExpr>(Range(c));
      e->base = BuildExpr(c->base);
      e->index = BuildExpr(c->index);
      return e;
    }
    if (auto* c = dynamic_cast<P::SliceExprContext*>(ctx)) {
      auto e = std::make_unique<SliceExpr>(Range(c));
      e->base = BuildExpr(c->base);
      if (c->lo) e->lo = BuildExpr(c->lo);
      if (c->hi) e->hi = BuildExpr(c->hi);
      return e;
    }
    if (auto* c = dynamic_cast<P::PropagateExprContext*>(ctx)) {
      auto e = std::make_unique<PropagateExpr>(Range(c));
      e->operand = BuildExpr(c->expr());
      return e;
    }
    if (auto* c = dynamic_cast<P::UnaryExprContext*>(ctx)) {
      auto e = std::make_unique<UnaryExpr>(Range(c), UnaryOf(c->op));
      e->operand = BuildExpr(c->expr());
      return e;
    }
    if (auto* c = dynamic_cast<P::BinaryExprContext*>(ctx)) {
      auto e = std::make_unique<BinaryExpr>(Range(c), BinaryOf(c->op));
      e->lhs = BuildExpr(c->lhs);
      e->rhs = BuildExpr(c->rhs);
      return e;
    }
    return std::make_unique<IntLit>(Range(ctx), 0, "");
  }

  std::unique_ptr<Expr> BuildPrimary(P::PrimaryContext* ctx) {
    if (ctx == nullptr) return std::make_unique<IntLit>(SourceRange{file_, 0, 0}, 0, "");
    if (auto* c = dynamic_cast<P::CallPrimaryContext*>(ctx)) {
      if (auto call = BuildCall(c->call())) return call;
    }
    if (auto* c = dynamic_cast<P::QuantityPrimaryContext*>(ctx)) {
      auto lit = ParseInt(c->INT());
      lit->range = Range(c);
      lit->unit = c->unit ? c->unit->getText() : "";
      return lit;
    }
    if (auto* c = dynamic_cast<P::IntPrimaryContext*>(ctx)) return ParseInt(c->INT());
    if (auto* c = dynamic_cast<P::StringPrimaryContext*>(ctx)) {
      return std::make_unique<StringLit>(Range(c), DecodeString(Text(c->STRING())));
    }
    if (auto* c = dynamic_cast<P::BoolPrimaryContext*>(ctx)) {
      return std::make_unique<BoolLit>(Range(c), c->getText() == "true");
    }
    if (auto* c = dynamic_cast<P::NamePrimaryContext*>(ctx)) {
      return std::make_unique<NameExpr>(Range(c), Text(c->NAME()));
    }
    if (auto* c = dynamic_cast<P::ParenPrimaryContext*>(ctx)) {
      auto inner = BuildExpr(c->expr());
      inner->range = Range(c);
      return inner;
    }
    return std::make_unique<IntLit>(Range(ctx), 0, "");
  }

  // The lexer admits only the escapes decoded here (grammar/Uring.g4, STRING).
  static std::string DecodeString(const std::string& text) {
    std::string out;
    auto hex = [](char ch) { return ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10; };
    for (size_t i = 1; i + 1 < text.size(); ++i) {
      if (text[i] != '\\') {
        out += text[i];
        continue;
      }
      const char e = text[++i];
      switch (e) {
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case '0': out += '\0'; break;
        case 'x':
          out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
          i += 2;
          break;
        default: out += e; break;  // \\ and \"
      }
    }
    return out;
  }

  std::unique_ptr<IntLit> ParseInt(antlr4::tree::TerminalNode* n) {
    const std::string text = Text(n);
    auto lit = std::make_unique<IntLit>(Range(n), 0, "");
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const unsigned base = hex ? 16 : 10;
    unsigned __int128 v = 0;
    for (size_t i = hex ? 2 : 0; i < text.size(); ++i) {
      const char ch = text[i];
      if (ch == '_') continue;
      unsigned d = ch >= '0' && ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10;
      v = v * base + d;
      if (v > UINT64_MAX) {
        lit->overflow = true;
        v = UINT64_MAX;
      }
    }
    lit->value = static_cast<uint64_t>(v);
    return lit;
  }

  uint32_t file_;
  uint32_t size_;
};

}  // namespace

std::unique_ptr<ast::File> BuildAst(P::FileContext* tree, uint32_t file_id, uint32_t file_size) {
  return Builder(file_id, file_size).BuildFile(tree);
}

}  // namespace uringc::parse_internal
