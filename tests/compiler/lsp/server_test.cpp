// Tests of lsp::Server (compiler/lsp/server.cpp and the feature handlers) through Handle(), the
// way a client's messages arrive: the lifecycle, the protocol's errors, diagnostics, hover,
// definition and document symbols on real programs with the real stdlib.
#include "lsp/server.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lsp/uri.h"

namespace uringc::lsp {
namespace {

using nlohmann::json;

class ServerTest : public ::testing::Test {
 protected:
  Server server{URINGC_TEST_STDLIB};
  int next_id = 1;

  // Sends a request; returns its response (and keeps the notifications sent with it).
  json Request(const std::string& method, const json& params = json::object()) {
    const int id = next_id++;
    json response;
    notes.clear();
    for (json& m : server.Handle(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method},
                                      {"params", params}}.dump())) {
      if (m.contains("id") && m["id"] == id) response = m;
      else notes.push_back(m);
    }
    return response;
  }
  std::vector<json> Notify(const std::string& method, const json& params = json::object()) {
    return server.Handle(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump());
  }
  void Initialize(const json& capabilities = json::object()) {
    ASSERT_TRUE(Request("initialize", {{"capabilities", capabilities}}).contains("result"));
    EXPECT_TRUE(Notify("initialized").empty());
  }
  // Opens `text` as /tmp/.../name and returns the diagnostics published for it.
  json Open(const std::string& uri, const std::string& text) {
    std::vector<json> out = Notify("textDocument/didOpen",
                                   {{"textDocument", {{"uri", uri}, {"languageId", "uring"},
                                                      {"version", 1}, {"text", text}}}});
    EXPECT_EQ(out.size(), 1u);
    if (out.empty()) return nullptr;
    EXPECT_EQ(out[0]["method"], "textDocument/publishDiagnostics");
    return out[0]["params"]["diagnostics"];
  }
  json At(const std::string& uri, int line, int character) {
    return {{"textDocument", {{"uri", uri}}},
            {"position", {{"line", line}, {"character", character}}}};
  }

  std::vector<json> notes;
  const std::string uri = UriFromPath("/nonexistent/dir/server test.uring");
};

constexpr const char* kEcho =
    "import std.net\n"
    "graph echo(listener: fd, buf: buffers[4] of 4 KiB) -> (served: u64) {\n"
    "    parallel c in 0..4 {\n"
    "        let sock = accept(listener)?\n"
    "        let n = recv(sock, buf[c])\n"
    "        if n > 0 { send_all(sock, buf[c][..n]) }\n"
    "        close(sock)\n"
    "        served += 1\n"
    "    }\n"
    "}\n";

TEST_F(ServerTest, InitializeAdvertisesTheFeaturesAndUtf16) {
  const json r = Request("initialize", {{"capabilities", json::object()}});
  const json& caps = r["result"]["capabilities"];
  EXPECT_EQ(caps["positionEncoding"], "utf-16");
  EXPECT_EQ(caps["hoverProvider"], true);
  EXPECT_EQ(caps["definitionProvider"], true);
  EXPECT_EQ(caps["documentSymbolProvider"], true);
  EXPECT_EQ(caps["textDocumentSync"]["change"], 2);
}

TEST_F(ServerTest, InitializeChoosesUtf8WhenTheClientOffersIt) {
  const json r = Request("initialize",
                         {{"capabilities",
                           {{"general", {{"positionEncodings", {"utf-16", "utf-8"}}}}}}});
  EXPECT_EQ(r["result"]["capabilities"]["positionEncoding"], "utf-8");
  EXPECT_EQ(server.encoding(), Encoding::kUtf8);
}

TEST_F(ServerTest, ProtocolErrors) {
  EXPECT_EQ(Request("textDocument/hover", At(uri, 0, 0))["error"]["code"], kServerNotInitialized);
  EXPECT_TRUE(Notify("textDocument/didOpen", {{"bogus", 1}}).empty()) << "dropped before init";
  const std::vector<json> bad = server.Handle("{\"jsonrpc\": \"2.0\", \"id\": 1, ");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0]["error"]["code"], kParseError);
  EXPECT_TRUE(bad[0]["id"].is_null());
  Initialize();
  EXPECT_EQ(Request("textDocument/formatting", At(uri, 0, 0))["error"]["code"], kMethodNotFound);
  EXPECT_TRUE(Notify("$/cancelRequest", {{"id", 1}}).empty()) << "notifications are not answered";
  EXPECT_TRUE(Notify("no/such/notification").empty());
  const std::vector<json> logged = Notify(
      "textDocument/didChange",
      {{"textDocument", {{"uri", uri}, {"version", 2}}}, {"contentChanges", json::array()}});
  ASSERT_EQ(logged.size(), 1u) << "a bad notification is logged, not answered";
  EXPECT_EQ(logged[0]["method"], "window/logMessage");
  EXPECT_NE(logged[0]["params"]["message"].get<std::string>().find("which is not open"),
            std::string::npos);
  EXPECT_EQ(Request("textDocument/hover", At(uri, 0, 0))["error"]["code"], kInvalidParams)
      << "the document is not open";
  EXPECT_EQ(Request("textDocument/hover", {{"textDocument", 3}})["error"]["code"],
            kInvalidParams);
  EXPECT_EQ(Request("initialize")["error"]["code"], kInvalidRequest) << "initialize twice";
}

TEST_F(ServerTest, ShutdownThenExitIsStatusZero) {
  Initialize();
  EXPECT_TRUE(Request("shutdown").contains("result"));
  EXPECT_EQ(Request("textDocument/hover", At(uri, 0, 0))["error"]["code"], kInvalidRequest);
  EXPECT_FALSE(server.exited());
  Notify("exit");
  EXPECT_TRUE(server.exited());
  EXPECT_EQ(server.exit_status(), 0);
}

TEST_F(ServerTest, ExitWithoutShutdownIsStatusOne) {
  Initialize();
  Notify("exit");
  EXPECT_TRUE(server.exited());
  EXPECT_EQ(server.exit_status(), 1);
}

TEST_F(ServerTest, DiagnosticsAsYouTypeAndClearedOnClose) {
  Initialize();
  std::string broken = kEcho;
  broken.replace(broken.find("recv(sock"), 4, "recx");
  const json diags = Open(uri, broken);
  ASSERT_EQ(diags.size(), 1u) << diags.dump();
  EXPECT_EQ(diags[0]["code"], "UndefinedName");
  EXPECT_EQ(diags[0]["source"], "uringc");
  EXPECT_EQ(diags[0]["severity"], 1);
  EXPECT_EQ(diags[0]["range"]["start"], json({{"line", 4}, {"character", 16}}));
  EXPECT_EQ(diags[0]["range"]["end"], json({{"line", 4}, {"character", 20}}));
  // An incremental change puts `recv` back.
  std::vector<json> out = Notify(
      "textDocument/didChange",
      {{"textDocument", {{"uri", uri}, {"version", 2}}},
       {"contentChanges", {{{"range", {{"start", {{"line", 4}, {"character", 19}}},
                                       {"end", {{"line", 4}, {"character", 20}}}}},
                            {"text", "v"}}}}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]["params"]["diagnostics"], json::array()) << out[0].dump();
  EXPECT_EQ(out[0]["params"]["version"], 2);
  out = Notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]["params"]["uri"], uri);
  EXPECT_EQ(out[0]["params"]["diagnostics"], json::array());
}

TEST_F(ServerTest, HoverShowsTypesAndSignatures) {
  Initialize();
  ASSERT_EQ(Open(uri, kEcho), json::array());
  // `buf` in `recv(sock, buf[c])` (line 4).
  json h = Request("textDocument/hover", At(uri, 4, 28))["result"];
  EXPECT_EQ(h["contents"]["kind"], "markdown");
  EXPECT_NE(h["contents"]["value"].get<std::string>().find("(parameter) buf: buffers[4] of 4096"),
            std::string::npos) << h.dump();
  EXPECT_EQ(h["range"]["start"], json({{"line", 4}, {"character", 27}}));
  // `n`, a request's result, where it is used in line 5.
  h = Request("textDocument/hover", At(uri, 5, 43))["result"];
  EXPECT_NE(h["contents"]["value"].get<std::string>().find("let n: i32"), std::string::npos)
      << h.dump();
  // A request and a stdlib fn, with its comment from the stdlib.
  h = Request("textDocument/hover", At(uri, 4, 18))["result"];
  EXPECT_NE(h["contents"]["value"].get<std::string>().find("request recv(s: fd, into: bytes"),
            std::string::npos) << h.dump();
  h = Request("textDocument/hover", At(uri, 5, 21))["result"];
  EXPECT_NE(h["contents"]["value"].get<std::string>().find("fn send_all(s: fd, data: bytes"),
            std::string::npos) << h.dump();
  // Nothing under a blank.
  EXPECT_TRUE(Request("textDocument/hover", At(uri, 2, 1))["result"].is_null());
}

TEST_F(ServerTest, DefinitionGoesToLocalsAndIntoTheStdlib) {
  Initialize();
  ASSERT_EQ(Open(uri, kEcho), json::array());
  json d = Request("textDocument/definition", At(uri, 6, 15))["result"];  // `sock` in close
  EXPECT_EQ(d["uri"], uri);
  EXPECT_EQ(d["range"]["start"], json({{"line", 3}, {"character", 12}}));
  d = Request("textDocument/definition", At(uri, 5, 21))["result"];  // send_all
  const std::string target = d["uri"].get<std::string>();
  EXPECT_EQ(target.substr(0, 7), "file://");
  EXPECT_NE(target.find("/std/net.uring"), std::string::npos) << d.dump();
  EXPECT_TRUE(Request("textDocument/definition", At(uri, 4, 18))["result"].is_null())
      << "a request has no source";
}

TEST_F(ServerTest, DocumentSymbolsAreHierarchical) {
  Initialize();
  Open(uri, kEcho);
  const json s = Request("textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}});
  const json& symbols = s["result"];
  ASSERT_EQ(symbols.size(), 2u) << s.dump();
  EXPECT_EQ(symbols[0]["name"], "std.net");
  EXPECT_EQ(symbols[1]["name"], "echo");
  EXPECT_EQ(symbols[1]["range"]["start"]["line"], 1);
  EXPECT_EQ(symbols[1]["range"]["end"]["line"], 9);
  const json& children = symbols[1]["children"];
  ASSERT_EQ(children.size(), 3u);
  EXPECT_EQ(children[0]["name"], "listener");
  EXPECT_EQ(children[1]["detail"], "buffers[4] of 4 KiB");
  EXPECT_EQ(children[2]["name"], "served");
}

TEST_F(ServerTest, HoverAndSymbolsStillWorkWithASyntaxError) {
  Initialize();
  const json diags = Open(uri,
                          "fn helper(x: u32) -> i32 {\n    return i32(x)\n}\n"
                          "graph g() {\n    let = 3\n}\n");
  ASSERT_FALSE(diags.empty());
  const json h = Request("textDocument/hover", At(uri, 0, 4))["result"];
  EXPECT_NE(h["contents"]["value"].get<std::string>().find("fn helper(x: u32) -> i32"),
            std::string::npos) << h.dump();
  const json s = Request("textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}});
  ASSERT_GE(s["result"].size(), 1u);
  EXPECT_EQ(s["result"][0]["name"], "helper");
}

TEST_F(ServerTest, HoverOnConstantsArmResultsAndOutputs) {
  Initialize();
  const std::string text =
      "const LIMIT = 3\n"
      "graph g(a: fd, b: fd, buf: buffers[2] of 64) -> (winner: u32) {\n"
      "    any {\n"
      "        read(a, buf[0], 0) as got => { winner = u32(max(got, LIMIT)) }\n"
      "        read(b, buf[1], 0) => { winner = 1 }\n"
      "    }\n"
      "}\n";
  ASSERT_EQ(Open(uri, text), json::array());
  auto hover = [&](int line, int character) {
    return Request("textDocument/hover", At(uri, line, character))["result"]["contents"]["value"]
        .get<std::string>();
  };
  EXPECT_NE(hover(3, 30).find("(result of the `any` arm's request) got: i32"), std::string::npos)
      << hover(3, 30);
  EXPECT_NE(hover(3, 62).find("const LIMIT"), std::string::npos) << hover(3, 62);
  EXPECT_NE(hover(3, 40).find("(output) winner: u32"), std::string::npos) << hover(3, 40);
  EXPECT_NE(hover(3, 53).find("(builtin) max"), std::string::npos) << hover(3, 53);
  // Types as written: `fd`, and the buffers (not on their count, a constant expression).
  EXPECT_NE(hover(1, 11).find("type fd\n// a file descriptor"), std::string::npos) << hover(1, 11);
  EXPECT_NE(hover(1, 29).find("type buffers[2] of 64\n// 2 buffers of 64 bytes"),
            std::string::npos) << hover(1, 29);
}

TEST_F(ServerTest, ImportsResolveNextToTheDocumentOnDisk) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("uringc_lsp_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "lib");
  std::ofstream(dir / "lib" / "util.uring") << "// Doubles x.\nfn twice(x: u32) -> i32 {\n"
                                               "    return i32(x * 2)\n}\n";
  std::ofstream(dir / "lib" / "bad.uring") << "fn bad() -> i32 {\n    return nope\n}\n";
  const std::string main_uri = UriFromPath((dir / "main.uring").string());
  Initialize();
  const std::string text =
      "import lib.util\nimport lib.missing\ngraph g() -> (out: i32) {\n    out = twice(2)\n}\n";
  json diags = Open(main_uri, text);
  ASSERT_EQ(diags.size(), 1u) << diags.dump();
  EXPECT_EQ(diags[0]["code"], "ImportNotFound");
  EXPECT_EQ(diags[0]["range"]["start"], json({{"line", 1}, {"character", 7}}));
  // An error inside an imported file is shown on its import, and points into the file.
  diags = Open(main_uri, "import lib.bad\ngraph g() -> (out: i32) {\n    out = bad()\n}\n");
  ASSERT_EQ(diags.size(), 1u) << diags.dump();
  EXPECT_EQ(diags[0]["code"], "UndefinedName");
  EXPECT_EQ(diags[0]["range"]["start"], json({{"line", 0}, {"character", 7}}));
  EXPECT_NE(diags[0]["message"].get<std::string>().find("bad.uring:2:12: "), std::string::npos)
      << diags.dump();
  const json& related = diags[0]["relatedInformation"][0]["location"];
  EXPECT_EQ(related["uri"],
            UriFromPath(std::filesystem::canonical(dir / "lib" / "bad.uring").string()));
  EXPECT_EQ(related["range"]["start"], json({{"line", 1}, {"character", 11}}));
  Open(main_uri, text);
  const json d = Request("textDocument/definition", At(main_uri, 3, 11))["result"];
  EXPECT_EQ(d["uri"], UriFromPath(std::filesystem::canonical(dir / "lib" / "util.uring").string()));
  EXPECT_EQ(d["range"]["start"], json({{"line", 1}, {"character", 3}}));
  const std::string h =
      Request("textDocument/hover", At(main_uri, 3, 11))["result"]["contents"]["value"];
  EXPECT_NE(h.find("fn twice(x: u32) -> i32"), std::string::npos) << h;
  EXPECT_NE(h.find("Doubles x."), std::string::npos) << h;
  std::filesystem::remove_all(dir);
}

TEST_F(ServerTest, EveryPrefixOfAProgramIsAnsweredWithoutCrashing) {
  Initialize();
  Open(uri, "");
  const std::string text = kEcho;
  for (size_t cut = 0; cut <= text.size(); cut += 3) {
    Notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", cut}}},
                                      {"contentChanges", {{{"text", text.substr(0, cut)}}}}});
    for (int line = 0; line < 10; line += 2) {
      for (int character = 0; character < 40; character += 5) {
        EXPECT_TRUE(Request("textDocument/hover", At(uri, line, character)).contains("result"));
        EXPECT_TRUE(
            Request("textDocument/definition", At(uri, line, character)).contains("result"));
      }
    }
    const json s = Request("textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}});
    ASSERT_TRUE(s["result"].is_array()) << s.dump();
  }
}

}  // namespace
}  // namespace uringc::lsp
