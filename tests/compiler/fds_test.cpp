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

TEST(Fds, LeaksOnSomePathAreWarned) {
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
