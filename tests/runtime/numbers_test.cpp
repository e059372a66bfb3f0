// The host's number syntax (uringc/numbers.h): what is accepted, and what is refused instead of
// being read as octal, wrapped, or trimmed.
#include "uringc/numbers.h"

#include <gtest/gtest.h>

namespace {

using uringc::ParseByteSize;
using uringc::ParseInteger;
using uringc::ParseUnsigned;

TEST(Numbers, DecimalHexOctalBinary) {
  EXPECT_EQ(ParseUnsigned("0").value(), 0u);
  EXPECT_EQ(ParseUnsigned("10").value(), 10u);
  EXPECT_EQ(ParseUnsigned("0x1F").value(), 31u);
  EXPECT_EQ(ParseUnsigned("0o17").value(), 15u);
  EXPECT_EQ(ParseUnsigned("0b101").value(), 5u);
  EXPECT_EQ(ParseUnsigned("18446744073709551615").value(), UINT64_MAX);
  auto neg = ParseInteger("-9223372036854775808");
  ASSERT_TRUE(neg.ok());
  EXPECT_TRUE(neg->negative);
  EXPECT_EQ(neg->magnitude, uint64_t{1} << 63);
  EXPECT_TRUE(ParseInteger("-0x10")->negative);
}

TEST(Numbers, RefusesWhatStrtoullWouldBend) {
  // `010` was octal 8; ` -1` and `-1` were 2^64-1 for unsigned values.
  for (const char* bad : {"010", "00", " 1", "1 ", " -1", "+1", "", "-", "0x", "0b2", "0o8",
                          "1_000", "12abc", "0x1g", "--1", "1e3"}) {
    auto r = ParseInteger(bad);
    EXPECT_FALSE(r.ok()) << "`" << bad << "` was accepted";
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, -EINVAL) << bad;
    }
  }
  EXPECT_NE(ParseInteger("010").error().message.find("leading zero"), std::string::npos);
  EXPECT_EQ(ParseUnsigned("-1").error().code, -ERANGE);
  EXPECT_EQ(ParseUnsigned("18446744073709551616").error().code, -ERANGE);
  EXPECT_EQ(ParseUnsigned("0x10000000000000000").error().code, -ERANGE);
}

TEST(Numbers, ByteSizesWithUnitsNeverWrap) {
  EXPECT_EQ(ParseByteSize("4096").value(), 4096u);
  EXPECT_EQ(ParseByteSize("64k").value(), 65536u);
  EXPECT_EQ(ParseByteSize("64KiB").value(), 65536u);
  EXPECT_EQ(ParseByteSize("2M").value(), 2u << 20);
  EXPECT_EQ(ParseByteSize("1G").value(), 1u << 30);
  EXPECT_EQ(ParseByteSize("3T").value(), uint64_t{3} << 40);
  EXPECT_EQ(ParseByteSize("0x10k").value(), 16u << 10);
  // 2^54 + 1 KiB wrapped to 1024 bytes before.
  EXPECT_EQ(ParseByteSize("18014398509481985k").error().code, -ERANGE);
  EXPECT_EQ(ParseByteSize("16777216T").error().code, -ERANGE);
  EXPECT_EQ(ParseByteSize("k").error().code, -EINVAL);
  EXPECT_EQ(ParseByteSize("4 k").error().code, -EINVAL);
  EXPECT_EQ(ParseByteSize("-4k").error().code, -ERANGE);
  EXPECT_EQ(ParseByteSize("4kb").error().code, -EINVAL);
}

}  // namespace
