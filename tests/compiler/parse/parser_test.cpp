// parse/: the AST the parser builds, its source ranges, newline rules, syntax-error recovery,
// and robustness (nesting, non-ASCII bytes, empty input).
#include "parse/parser.h"

#include <gtest/gtest.h>

#include "ast/printer.h"

namespace uringc {
namespace {

struct Parsed {
  SourceManager sm;
  DiagnosticList diags;
  std::unique_ptr<ast::File> file;
  uint32_t id = 0;
};

std::unique_ptr<Parsed> Parse(const std::string& text) {
  auto p = std::make_unique<Parsed>();
  p->id = p->sm.Add("t.uring", text);
  p->file = ParseFile(p->sm, p->id, p->diags);
  return p;
}

TEST(Parse, GraphWithParamsOutputsAndStatements) {
  auto p = Parse(
      "graph copy(src: fd, buf: buffers[4] of 64 KiB) -> (copied: u64) {\n"
      "    parallel lane in 0..4 {\n"
      "        let n = read(src, buf[lane], 0) within 1 s else fail\n"
      "        copied += n\n"
      "    }\n"
      "}\n");
  ASSERT_FALSE(p->diags.HasErrors());
  ASSERT_EQ(p->file->decls.size(), 1u);
  auto* g = p->file->decls[0]->As<ast::GraphDecl>();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->name, "copy");
  ASSERT_EQ(g->params.size(), 2u);
  EXPECT_EQ(g->param_types[1]->name, "");  // buffers
  ASSERT_EQ(g->outputs.size(), 1u);
  auto* par = g->body->stmts.at(0)->As<ast::ParallelStmt>();
  ASSERT_NE(par, nullptr);
  auto* decl = par->body->stmts.at(0)->As<ast::DeclStmt>();
  ASSERT_NE(decl, nullptr);
  auto* call = decl->init->As<ast::CallExpr>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->callee, "read");
  ASSERT_NE(call->within, nullptr);
  auto* lit = call->within->duration->As<ast::IntLit>();
  ASSERT_NE(lit, nullptr);
  EXPECT_EQ(lit->unit, "s");
  auto* jump = call->within->action->As<ast::JumpStmt>();
  ASSERT_NE(jump, nullptr);
  EXPECT_EQ(jump->jump, ast::JumpStmt::Jump::kFail);
}

TEST(Parse, EveryNodeHasARangeInsideTheFile) {
  const std::string text = "graph g(n: u64) {\n  repeat n { nop()? }\n  all { nop(); nop() }\n}\n";
  auto p = Parse(text);
  ASSERT_FALSE(p->diags.HasErrors());
  auto* g = p->file->decls[0]->As<ast::GraphDecl>();
  auto* rep = g->body->stmts[0]->As<ast::RepeatStmt>();
  ASSERT_NE(rep, nullptr);
  EXPECT_EQ(text.substr(rep->range.begin, 6), "repeat");
  auto* prop = rep->body->stmts[0]->As<ast::ExprStmt>()->expr->As<ast::PropagateExpr>();
  ASSERT_NE(prop, nullptr);
  EXPECT_EQ(text.substr(prop->range.begin, prop->range.end - prop->range.begin), "nop()?");
  auto* all = g->body->stmts[1]->As<ast::AllStmt>();
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->body->stmts.size(), 2u);
}

TEST(Parse, NewlinesInsideParensAndAfterOperatorsContinueTheStatement) {
  auto p = Parse("graph g(a: u32) -> (o: u32) {\n  o = a +\n    1\n  o = min(a,\n    2)\n"
                 "  if a > 1 {\n    o = 1\n  }\n  else {\n    o = 2\n  }\n}\n");
  EXPECT_FALSE(p->diags.HasErrors());
  auto* g = p->file->decls[0]->As<ast::GraphDecl>();
  EXPECT_EQ(g->body->stmts.size(), 3u);
  EXPECT_NE(g->body->stmts[2]->As<ast::IfStmt>()->else_stmt, nullptr);
}

TEST(Parse, AHeaderMayPutItsResultsOnTheNextLine) {
  auto p = Parse("graph g(a: u32, b: u32)\n    -> (o: u32) {\n  o = a\n}\n"
                 "fn f(a: u32)\n  -> i32 { return 0 }\n");
  EXPECT_FALSE(p->diags.HasErrors());
  ASSERT_EQ(p->file->decls.size(), 2u);
  EXPECT_EQ(p->file->decls[0]->As<ast::GraphDecl>()->outputs.size(), 1u);
}

TEST(Parse, AnyArmsBindResults) {
  auto p = Parse("graph g(a: fd, buf: buffers[2] of 16) {\n any {\n  read(a, buf[0], 0) as n => { }\n"
                 "  nop() => { }\n } within 10 ms else fail ETIME\n}\n");
  ASSERT_FALSE(p->diags.HasErrors());
  auto* any = p->file->decls[0]->As<ast::GraphDecl>()->body->stmts[0]->As<ast::AnyStmt>();
  ASSERT_NE(any, nullptr);
  ASSERT_EQ(any->arms.size(), 2u);
  EXPECT_EQ(any->arms[0]->binding->name, "n");
  EXPECT_EQ(any->arms[1]->binding, nullptr);
  ASSERT_NE(any->within, nullptr);
}

TEST(Parse, SeveralIndependentErrorsAreReported) {
  auto p = Parse("graph a() {\n  let = 1\n}\ngraph b() {\n  nop(\n}\nfn c( {\n}\n");
  EXPECT_GE(p->diags.ErrorCount(), 3u);
  for (const Diagnostic& d : p->diags.items()) {
    EXPECT_EQ(d.kind, uringc::DiagKind::kSyntaxError);
    EXPECT_EQ(d.range.file, p->id);
  }
}

TEST(Parse, DeepNestingIsADiagnosticNotACrash) {
  std::string deep = "graph g() { let x = " + std::string(100000, '(') + "1" +
                     std::string(100000, ')') + " }";
  auto p = Parse(deep);
  ASSERT_EQ(p->diags.items().size(), 1u);
  EXPECT_EQ(p->diags.items()[0].kind, uringc::DiagKind::kNestingTooDeep);
  std::string blocks = "graph g() " + std::string(50000, '{') + std::string(50000, '}');
  EXPECT_EQ(Parse(blocks)->diags.items().at(0).kind, uringc::DiagKind::kNestingTooDeep);
  std::string elifs = "graph g(a: u32) {\n if a == 0 { nop() }";
  for (int i = 0; i < 5000; ++i) elifs += " else if a == 1 { nop() }";
  elifs += "\n}\n";
  EXPECT_EQ(Parse(elifs)->diags.items().at(0).kind, uringc::DiagKind::kNestingTooDeep);
  std::string negs = "graph g() -> (o: i32) { o = " + std::string(20000, '-') + "1 }";
  EXPECT_EQ(Parse(negs)->diags.items().at(0).kind, uringc::DiagKind::kNestingTooDeep);
}

TEST(Parse, NonAsciiAndNulBytesAreErrorsWithLocations) {
  auto ok = Parse("// comment with \xc3\xa9 and \xff\ngraph g() { nop() }\n");
  EXPECT_FALSE(ok->diags.HasErrors());
  auto bad = Parse(std::string("graph g() { n\xc3\xa9p() \0 }", 22));
  ASSERT_TRUE(bad->diags.HasErrors());
  EXPECT_EQ(bad->diags.items()[0].range.begin, 13u);
}

TEST(Parse, EmptyAndCommentOnlyFilesAreValid) {
  EXPECT_FALSE(Parse("")->diags.HasErrors());
  EXPECT_FALSE(Parse("// nothing\n/* here */\n")->diags.HasErrors());
  EXPECT_TRUE(Parse("/* unterminated")->diags.HasErrors());
}

TEST(Parse, IntegerLiteralsAndQuantities) {
  auto p = Parse("const A = 0x2a\nconst B = 1_000\nconst C = 64 KiB\nconst D = 99999999999999999999\n");
  ASSERT_FALSE(p->diags.HasErrors());
  auto lit = [&](int i) { return p->file->decls[i]->As<ast::ConstDecl>()->value->As<ast::IntLit>(); };
  EXPECT_EQ(lit(0)->value, 42u);
  EXPECT_EQ(lit(1)->value, 1000u);
  EXPECT_EQ(lit(2)->unit, "KiB");
  EXPECT_TRUE(lit(3)->overflow);
}

TEST(Parse, AstPrinterShowsPositions) {
  auto p = Parse("graph g() {\n  nop()\n}\n");
  std::string out = ast::PrintAst(*p->file, p->sm);
  EXPECT_NE(out.find("Graph g @1:1"), std::string::npos) << out;
  EXPECT_NE(out.find("Call nop @2:3"), std::string::npos) << out;
}

}  // namespace
}  // namespace uringc
