// BpfModule on its own, without the front end: code located in a second `.uring` file (an
// imported module) keeps that file's name and text in the line info.
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <string_view>

#include "emit/codegen.h"
#include "bpf_ir/step_builder.h"

namespace uringc {
namespace {

TEST(EmitModule, CodeFromAnImportedFileKeepsItsFileAndText) {
  SourceManager sources;
  uint32_t main = sources.Add("main.uring", "graph g() {\n    helper()\n}\n");
  uint32_t lib = sources.Add("lib.uring", "async fn helper() {\n    stop_here()\n}\n");
  BpfModule module(BpfModuleOptions{.name = "g", .sources = &sources, .main_file = main});
  BpfProgram program = module.CreateProgram("g", SourceRange{main, 0, 5});
  module.CreateOps("g_ops", program);
  StepBuilder sb(module, program);
  sb.SetLocation(SourceRange{main, 16, 24});  // helper()
  sb.Store(ScalarType::kS32, sb.detail(), 0, sb.Const(ScalarType::kS32, 7), 4);
  sb.SetLocation(SourceRange{lib, 24, 35});   // stop_here()
  sb.Stop(StopReason::kDone);
  DiagnosticList diags;
  std::optional<std::string> obj = Codegen(module, CodegenOptions{}, diags);
  ASSERT_TRUE(obj.has_value());
  bpf_object* object = bpf_object__open_mem(obj->data(), obj->size(), nullptr);
  ASSERT_NE(object, nullptr);
  uint32_t size = 0;
  const char* raw = static_cast<const char*>(btf__raw_data(bpf_object__btf(object), &size));
  std::string_view strings(raw, size);
  EXPECT_NE(strings.find(std::string_view("lib.uring\0", 10)), std::string_view::npos);
  EXPECT_NE(strings.find(std::string_view("    stop_here()\0", 16)), std::string_view::npos);
  EXPECT_NE(strings.find(std::string_view("    helper()\0", 13)), std::string_view::npos);
  bpf_object__close(object);
}

}  // namespace
}  // namespace uringc
