// sema/fds.cpp: descriptors from accept/openat/socket closed on every path.
#include <gtest/gtest.h>

#include "compile_helper.h"

namespace uringc::testing {
namespace {

int Leaks(const std::string& body) {
  auto r = Compile("graph g(l: fd, buf: buffers[1] of 64) {\n" + body + "\n}\n", "fds");
  EXPECT_FALSE(r.c->diagnostics.HasErrors()) << r.diags.at(0);
  return r.Count("FdLeak");
}

TEST(Fds, ClosedOnEveryPathIsFine) {
  EXPECT_EQ(Leaks("let s = accept(l)?\nclose(s)"), 0);
  EXPECT_EQ(Leaks("let s = accept(l)\nif s < 0 { fail EIO }\nclose(s)"), 0);
  EXPECT_EQ(Leaks("let s = accept(l)?\ntry { nop()? } catch e { close(s)\n fail e }\nclose(s)"), 0);
  EXPECT_EQ(Leaks("let s = socket(AF_INET, SOCK_STREAM)?\nif len(buf[0]) > 3 { close(s) } else { close(s) }"), 0);
  EXPECT_EQ(Leaks("let s = accept(l)?\nclose(s)\nstop"), 0);
}

// A branch that runs only when the request failed has nothing to close, whichever way the
// test is written (issue 10: `if a >= 0 { close(a) }` drew a false FdLeak).
TEST(Fds, TheFailedOpenBranchNeedsNoClose) {
  EXPECT_EQ(Leaks("let a = accept(l)\nif a >= 0 { close(a) }"), 0);
  EXPECT_EQ(Leaks("let a = accept(l)\nif a >= 0 { close(a) } else { nop() }"), 0);
  EXPECT_EQ(Leaks("let a = accept(l)\nif 0 <= a { close(a) }"), 0);
  EXPECT_EQ(Leaks("let a = accept(l)\nif a > 0 { close(a) }"), 0);
  EXPECT_EQ(Leaks("let a = accept(l)\nif 0 > a { return }\nclose(a)"), 0);
  EXPECT_EQ(Leaks("let a = accept(l)\nif a < 0 { return }\nclose(a)"), 0);
  EXPECT_EQ(Leaks("let a = accept(l)\nif !(a < 0) { close(a) }"), 0);
  EXPECT_EQ(Leaks("let a = openat(AT_FDCWD, buf[0])\nif a >= 0 { close(a) }"), 0);
  EXPECT_EQ(Leaks("let a = socket(AF_INET, SOCK_STREAM)\nif a >= 0 { close(a) }"), 0);
  EXPECT_EQ(Leaks("let a = accept(l)\nlet b = accept(l)\n"
                  "if a < 0 || b < 0 { fail EIO }\nclose(a)\nclose(b)"),
            2);  // either may have succeeded in the failing branch
  EXPECT_EQ(Leaks("let a = accept(l)\nlet b = accept(l)\n"
                  "if a >= 0 && b >= 0 { close(a)\n close(b) }"),
            2);  // the else-branch: one of them may be open
  EXPECT_EQ(Leaks("let a = accept(l)\nlet b = accept(l)\n"
                  "if a < 0 && b < 0 { return }\nif a >= 0 { close(a) }\nif b >= 0 { close(b) }"),
            0);
}

TEST(Fds, LeaksOnSomePathAreWarned) {
  EXPECT_EQ(Leaks("let a = accept(l)\nif a >= 0 { nop() } else { close(a) }"), 1);
  EXPECT_EQ(Leaks("let a = accept(l)\nif a < 0 { close(a) }"), 1);
  EXPECT_EQ(Leaks("let a = accept(l)\nif a == 0 { close(a) }"), 1);
  EXPECT_EQ(Leaks("let s = accept(l)?"), 1);
  EXPECT_EQ(Leaks("let s = accept(l)?\nnop()?\nclose(s)"), 1);
  EXPECT_EQ(Leaks("let s = accept(l)?\nif len(buf[0]) > 3 { close(s) }"), 1);
  EXPECT_EQ(Leaks("loop {\n let s = accept(l)?\n if s == 9 { continue }\n close(s)\n}"), 1);
  EXPECT_EQ(Leaks("let s = openat(AT_FDCWD, buf[0])?\nreturn"), 1);
}

TEST(Fds, TheWarningPointsAtTheVariableWithANoteAtTheExit) {
  auto r = Compile("graph g(l: fd) {\n let s = accept(l)?\n nop()?\n close(s)\n}\n", "fds");
  ASSERT_EQ(r.diags, std::vector<std::string>{"warning FdLeak@2:6"});
  const Diagnostic& d = r.c->diagnostics.items()[0];
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(r.c->sources.Get(d.notes[0].range.file)->LineColOf(d.notes[0].range.begin).line, 3u);
}

}  // namespace
}  // namespace uringc::testing
