// Tests of the file URI conversions (compiler/lsp/uri.cpp): percent-encoding both ways, an
// authority before the path, and URIs that are not files.
#include "lsp/uri.h"

#include <gtest/gtest.h>

namespace uringc::lsp {
namespace {

TEST(UriTest, RoundTripsPathsWithSpacesAndNonAscii) {
  const std::string path = "/tmp/my dir/é#1.uring";
  const std::string uri = UriFromPath(path);
  EXPECT_EQ(uri, "file:///tmp/my%20dir/%C3%A9%231.uring");
  EXPECT_EQ(PathFromUri(uri), path);
}

TEST(UriTest, AcceptsAnAuthorityAndLowercaseEscapes) {
  EXPECT_EQ(PathFromUri("file://localhost/a%2fb.uring"), "/a/b.uring");
}

TEST(UriTest, RejectsOtherSchemes) {
  EXPECT_EQ(PathFromUri("untitled:Untitled-1"), "");
  EXPECT_EQ(PathFromUri("file:relative"), "");
  EXPECT_EQ(PathFromUri("file://%"), "");
}

}  // namespace
}  // namespace uringc::lsp
