// Tests of lsp::LineIndex (compiler/lsp/positions.cpp): LSP positions in UTF-16 code units and
// in bytes, against byte offsets, with non-ASCII text and CRLF line ends.
#include "lsp/positions.h"

#include <gtest/gtest.h>

namespace uringc::lsp {
namespace {

// "é" is 2 bytes and 1 UTF-16 unit; "😀" is 4 bytes and 2 units (a surrogate pair).
const std::string kText = "// é😀x\r\nlet y\n";

TEST(PositionsTest, CountsUtf16CodeUnits) {
  const LineIndex index(kText, Encoding::kUtf16);
  const uint32_t x = static_cast<uint32_t>(kText.find('x'));
  EXPECT_EQ(index.PositionOf(x).line, 0u);
  EXPECT_EQ(index.PositionOf(x).character, 6u);  // "// " 3 + é 1 + 😀 2
  EXPECT_EQ(index.Offset({0, 6}), x);
  EXPECT_EQ(index.Offset({1, 4}), kText.find('y'));
}

TEST(PositionsTest, CountsBytesInUtf8) {
  const LineIndex index(kText, Encoding::kUtf8);
  const uint32_t x = static_cast<uint32_t>(kText.find('x'));
  EXPECT_EQ(index.PositionOf(x).character, 9u);
  EXPECT_EQ(index.Offset({0, 9}), x);
}

TEST(PositionsTest, ClampsPastTheEndOfALineOrTheText) {
  const LineIndex index(kText, Encoding::kUtf16);
  EXPECT_EQ(index.Offset({0, 99}), kText.find('\r')) << "the line ends before its CR LF";
  EXPECT_EQ(index.Offset({9, 0}), kText.size());
  EXPECT_EQ(index.PositionOf(9999).line, 2u);
}

TEST(PositionsTest, RangeIsStartAndEnd) {
  const LineIndex index(kText, Encoding::kUtf16);
  const uint32_t y = static_cast<uint32_t>(kText.find('y'));
  const nlohmann::json r = index.Range({1, y, y + 1});
  EXPECT_EQ(r["start"]["line"], 1);
  EXPECT_EQ(r["start"]["character"], 4);
  EXPECT_EQ(r["end"]["character"], 5);
}

}  // namespace
}  // namespace uringc::lsp
