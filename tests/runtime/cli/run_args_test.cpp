// ParseRunArgs / ParseRunArg: the run command's options (`--opt value` and `--opt=value`, repeated
// --arg and --suite), parameter value forms and usage errors.
#include "run_args.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

uringc::Result<uringc::RunArgs> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "uringc-run");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return uringc::ParseRunArgs(static_cast<int>(argv.size()), argv.data());
}

TEST(RunArgsTest, OptionsAndParameters) {
  auto r = Parse({"copy.bpf.o", "--arg", "src=in.txt:r", "--arg=dst=out.txt:create", "--arg",
                  "buf=buffer:64k", "--arg", "n=-3", "--sq-entries", "128", "--cq-entries=256",
                  "--mem-region", "4096", "--verifier-log=v.log", "--ops", "a_ops", "--vm",
                  "--suite", "trixie-backports", "--max-enters", "10"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->object, "copy.bpf.o");
  ASSERT_EQ(r->args.size(), 4u);
  EXPECT_EQ(r->args[0].kind, uringc::RunArg::Kind::kFile);
  EXPECT_EQ(r->args[0].value, "in.txt");
  EXPECT_EQ(r->args[0].mode, "r");
  EXPECT_EQ(r->args[1].name, "dst");
  EXPECT_EQ(r->args[1].mode, "create");
  EXPECT_EQ(r->args[2].kind, uringc::RunArg::Kind::kBuffer);
  EXPECT_EQ(r->args[2].size, 65536u);
  EXPECT_EQ(r->args[3].kind, uringc::RunArg::Kind::kValue);
  EXPECT_EQ(r->args[3].value, "-3");
  EXPECT_EQ(r->sq_entries, 128u);
  EXPECT_EQ(r->cq_entries, 256u);
  EXPECT_EQ(r->mem_region, 4096u);
  EXPECT_EQ(r->verifier_log, "v.log");
  EXPECT_EQ(r->ops_map, "a_ops");
  EXPECT_TRUE(r->vm);
  EXPECT_EQ(r->suites, std::vector<std::string>{"trixie-backports"});
  EXPECT_EQ(r->max_enters, 10u);
  EXPECT_EQ(r->diagnostics_format, uringc::DiagnosticsFormat::kText);
  EXPECT_EQ(Parse({"a.o", "--diagnostics-format", "json"})->diagnostics_format,
            uringc::DiagnosticsFormat::kJson);
  EXPECT_NE(Parse({"a.o", "--diagnostics-format=xml"}).error().message.find("xml"),
            std::string::npos);
  EXPECT_EQ(r->ring_mode, uringc::RingMode::kAuto);
  EXPECT_EQ(Parse({"a.o", "--ring", "tail"})->ring_mode, uringc::RingMode::kTail);
  EXPECT_EQ(Parse({"a.o", "--ring=rewind"})->ring_mode, uringc::RingMode::kRewind);
  EXPECT_NE(Parse({"a.o", "--ring", "circular"}).error().message.find("circular"),
            std::string::npos);
}

TEST(RunArgsTest, SocketsAreAKindAndAnAddress) {
  auto r = Parse({"echo.bpf.o", "--arg", "listener=tcp-listen:127.0.0.1:0", "--arg",
                  "up=tcp-connect:[::1]:8080", "--arg", "s=unix-listen:/run/a:b.sock", "--arg",
                  "c=unix-connect:/tmp/x", "--arg", "f=tcp-listen.log:r"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->args.size(), 5u);
  EXPECT_EQ(r->args[0].kind, uringc::RunArg::Kind::kSocket);
  EXPECT_EQ(r->args[0].mode, "tcp-listen");
  EXPECT_EQ(r->args[0].value, "127.0.0.1:0");
  EXPECT_EQ(r->args[1].mode, "tcp-connect");
  EXPECT_EQ(r->args[1].value, "[::1]:8080");
  EXPECT_EQ(r->args[2].mode, "unix-listen");
  EXPECT_EQ(r->args[2].value, "/run/a:b.sock");  // a path may hold colons
  EXPECT_EQ(r->args[3].kind, uringc::RunArg::Kind::kSocket);
  EXPECT_EQ(r->args[4].kind, uringc::RunArg::Kind::kFile);  // not a socket kind: a file
  auto error = [](std::vector<std::string> args) {
    auto r = Parse(std::move(args));
    return r.ok() ? std::string("(parsed)") : r.error().message;
  };
  EXPECT_NE(error({"a.o", "--arg", "l=tcp-listen:127.0.0.1"}).find("HOST:PORT"), std::string::npos);
  EXPECT_NE(error({"a.o", "--arg", "l=tcp-listen:127.0.0.1:65536"}).find("not a port"),
            std::string::npos);
  EXPECT_NE(error({"a.o", "--arg", "l=tcp-listen:::1:80"}).find("brackets"), std::string::npos);
  EXPECT_NE(error({"a.o", "--arg", "l=unix-listen:"}).find("path is empty"), std::string::npos);
  EXPECT_NE(error({"a.o", "--arg", "l=unix-listen:/" + std::string(120, 'x')}).find("at most 107"),
            std::string::npos);
}

TEST(RunArgsTest, Errors) {
  EXPECT_NE(Parse({}).error().message.find("no object file"), std::string::npos);
  EXPECT_NE(Parse({"a.o", "b.o"}).error().message.find("only one object"), std::string::npos);
  EXPECT_NE(Parse({"a.o", "--arg", "x"}).error().message.find("NAME=VALUE"), std::string::npos);
  EXPECT_NE(Parse({"a.o", "--arg", "x=f:rx"}).error().message.find("not a file mode"),
            std::string::npos);
  EXPECT_NE(Parse({"a.o", "--arg", "x=buffer:0"}).error().message.find("1 byte to 64 TiB"),
            std::string::npos);
  // CLI11's wording: "--sq-entries: 1 required N missing".
  EXPECT_NE(Parse({"a.o", "--sq-entries"}).error().message.find("--sq-entries: 1 required"),
            std::string::npos);
  EXPECT_NE(Parse({"a.o", "--sq-entries", "many"}).error().message.find("not a number"),
            std::string::npos);
  EXPECT_NE(Parse({"a.o", "--frobnicate"}).error().message.find("unknown option"),
            std::string::npos);
  EXPECT_TRUE(Parse({"--help"})->help);
  EXPECT_EQ(Parse({"a.o", "--frobnicate"}).error().kind, uringc::DiagKind::kBadCommandLine);
  EXPECT_EQ(Parse({"a.o", "--sq-entries", "many"}).error().kind, uringc::DiagKind::kBadCommandLine);
}


TEST(RunArgsTest, BufferSizesAndNumbersAreParsedStrictly) {
  // 2^54 + 1 KiB wrapped around to 1024 bytes and passed the size check.
  auto wrapped = Parse({"a.o", "--arg", "buf=buffer:18014398509481985k"});
  ASSERT_FALSE(wrapped.ok());
  EXPECT_NE(wrapped.error().message.find("does not fit in 64 bits"), std::string::npos)
      << wrapped.error().message;
  EXPECT_FALSE(Parse({"a.o", "--arg", "buf=buffer:65537G"}).ok());  // over 64 TiB
  EXPECT_FALSE(Parse({"a.o", "--arg", "buf=buffer: 4096"}).ok());
  EXPECT_FALSE(Parse({"a.o", "--arg", "buf=buffer:-1"}).ok());
  auto bare = Parse({"a.o", "--arg", "buf=buffer"});  // the declared size
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  EXPECT_EQ(bare->args[0].kind, uringc::RunArg::Kind::kBuffer);
  EXPECT_EQ(bare->args[0].size, 0u);
  EXPECT_EQ(Parse({"a.o", "--arg", "buf=buffer:256KiB"})->args[0].size, 262144u);
  // Options: `010` was octal 8.
  auto octal = Parse({"a.o", "--sq-entries", "010"});
  ASSERT_FALSE(octal.ok());
  EXPECT_NE(octal.error().message.find("leading zero"), std::string::npos);
  EXPECT_FALSE(Parse({"a.o", "--max-enters", " 5"}).ok());
  EXPECT_FALSE(Parse({"a.o", "--max-enters", "-1"}).ok());
  EXPECT_EQ(Parse({"a.o", "--mem-region", "0x10000"})->mem_region, 65536u);
  EXPECT_EQ(Parse({"a.o", "--log-size", "2M"})->log_size, 2u << 20);
}

}  // namespace
