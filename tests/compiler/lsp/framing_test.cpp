// Tests of the base protocol's framing (compiler/lsp/framing.cpp) and of Serve() over streams:
// Content-Length headers, the end of input, a header block without a length.
#include "lsp/framing.h"

#include <gtest/gtest.h>

#include <sstream>

#include "lsp/server.h"

namespace uringc::lsp {
namespace {

std::string Frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(FramingTest, ReadsMessagesBackToBack) {
  std::istringstream in(Frame("{\"a\":1}") +
                        "content-length: 2\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n{}");
  std::string body, error;
  ASSERT_EQ(ReadMessage(in, body, error), ReadResult::kMessage);
  EXPECT_EQ(body, "{\"a\":1}");
  ASSERT_EQ(ReadMessage(in, body, error), ReadResult::kMessage);
  EXPECT_EQ(body, "{}");
  EXPECT_EQ(ReadMessage(in, body, error), ReadResult::kEnd);
}

TEST(FramingTest, ReportsAMissingLength) {
  std::istringstream in("Content-Type: x\r\n\r\n" + Frame("{}"));
  std::string body, error;
  EXPECT_EQ(ReadMessage(in, body, error), ReadResult::kBadHeader);
  EXPECT_NE(error.find("Content-Length"), std::string::npos);
  EXPECT_EQ(ReadMessage(in, body, error), ReadResult::kMessage) << "the next message still reads";
}

TEST(FramingTest, WritesTheLengthInBytes) {
  std::ostringstream out;
  WriteMessage(out, {{"s", "é"}});
  EXPECT_EQ(out.str(), "Content-Length: 10\r\n\r\n{\"s\":\"é\"}");
}

TEST(FramingTest, ServeRunsASessionToItsExitStatus) {
  std::istringstream in(Frame(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})") +
                        Frame(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})") +
                        Frame(R"({"jsonrpc":"2.0","method":"exit"})") +
                        Frame(R"({"jsonrpc":"2.0","id":3,"method":"shutdown"})"));
  std::ostringstream out;
  EXPECT_EQ(Serve(in, out, URINGC_TEST_STDLIB), 0);
  EXPECT_NE(out.str().find("\"id\":2,\"jsonrpc\":\"2.0\",\"result\":null"), std::string::npos)
      << out.str();
  EXPECT_EQ(out.str().find("\"id\":3"), std::string::npos) << "nothing is read after exit";
  std::istringstream cut(Frame(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"));
  EXPECT_EQ(Serve(cut, out, URINGC_TEST_STDLIB), 1) << "the input ended without exit";
}

}  // namespace
}  // namespace uringc::lsp
