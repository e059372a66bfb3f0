// See server.h. Handlers report bad parameters by throwing RpcError, which becomes the error
// response; nothing a client sends may crash the server or go unanswered when it has an id.
#include "lsp/server.h"

#include "lsp/features.h"
#include "lsp/framing.h"

namespace uringc::lsp {
namespace {

using nlohmann::json;

struct RpcError {
  int code;
  std::string message;
};

json ErrorResponse(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

const json& Field(const json& params, const char* name) {
  if (!params.is_object() || !params.contains(name))
    throw RpcError{kInvalidParams, std::string("missing parameter `") + name + "`"};
  return params[name];
}

std::string StringField(const json& params, const char* name) {
  const json& v = Field(params, name);
  if (!v.is_string()) throw RpcError{kInvalidParams, std::string("`") + name + "` is not a string"};
  return v.get<std::string>();
}

}  // namespace

Server::Server(std::string stdlib_dir) : stdlib_dir_(std::move(stdlib_dir)) {
  requests_["initialize"] = [this](const json& p) { return Initialize(p); };
  requests_["shutdown"] = [this](const json&) {
    shutdown_ = true;
    return json(nullptr);
  };
  requests_["textDocument/hover"] = [this](const json& p) {
    return Hover(DocumentOf(p), PositionOf(p), encoding_);
  };
  requests_["textDocument/definition"] = [this](const json& p) {
    return Definition(DocumentOf(p), PositionOf(p), encoding_);
  };
  requests_["textDocument/documentSymbol"] = [this](const json& p) {
    return DocumentSymbols(DocumentOf(p), encoding_);
  };
  notifications_["initialized"] = [](const json&) {};
  notifications_["textDocument/didOpen"] = [this](const json& p) {
    const json& item = Field(p, "textDocument");
    const json& version = Field(item, "version");
    Publish(documents_.Open(StringField(item, "uri"), StringField(item, "text"),
                            version.is_number_integer() ? version.get<int64_t>() : 0));
  };
  notifications_["textDocument/didChange"] = [this](const json& p) {
    const json& id = Field(p, "textDocument");
    const json& version = Field(id, "version");
    std::string error;
    Document* d = documents_.Change(StringField(id, "uri"),
                                    version.is_number_integer() ? version.get<int64_t>() : 0,
                                    Field(p, "contentChanges"), encoding_, error);
    if (!d) throw RpcError{kInvalidParams, error};
    Publish(*d);
  };
  notifications_["textDocument/didClose"] = [this](const json& p) {
    const std::string uri = StringField(Field(p, "textDocument"), "uri");
    documents_.Close(uri);
    outgoing_.push_back({{"jsonrpc", "2.0"},
                         {"method", "textDocument/publishDiagnostics"},
                         {"params", {{"uri", uri}, {"diagnostics", json::array()}}}});
  };
}

json Server::Initialize(const json& params) {
  if (initialized_) throw RpcError{kInvalidRequest, "`initialize` was already sent"};
  initialized_ = true;
  const json encodings =
      params.is_object()
          ? params.value(json::json_pointer("/capabilities/general/positionEncodings"),
                         json::array())
          : json::array();
  encoding_ = Encoding::kUtf16;
  if (encodings.is_array())
    for (const json& e : encodings)
      if (e == "utf-8") encoding_ = Encoding::kUtf8;
  return {{"capabilities",
           {{"positionEncoding", encoding_ == Encoding::kUtf8 ? "utf-8" : "utf-16"},
            {"textDocumentSync", {{"openClose", true}, {"change", 2}}},
            {"hoverProvider", true},
            {"definitionProvider", true},
            {"documentSymbolProvider", true}}},
          {"serverInfo", {{"name", "uringc"}}}};
}

Document& Server::DocumentOf(const json& params) {
  const std::string uri = StringField(Field(params, "textDocument"), "uri");
  Document* d = documents_.Find(uri);
  if (!d) throw RpcError{kInvalidParams, "`" + uri + "` is not open (send didOpen first)"};
  if (!d->analysis) d->analysis = Analyze(d->path, d->text, stdlib_dir_);
  return *d;
}

Position Server::PositionOf(const json& params) {
  Position p;
  if (!ParsePosition(Field(params, "position"), p))
    throw RpcError{kInvalidParams, "`position` is not {line, character}"};
  return p;
}

void Server::Publish(Document& doc) {
  doc.analysis = Analyze(doc.path, doc.text, stdlib_dir_);
  outgoing_.push_back({{"jsonrpc", "2.0"},
                       {"method", "textDocument/publishDiagnostics"},
                       {"params", PublishDiagnostics(doc, encoding_)}});
}

json Server::HandleRequest(const json& id, const std::string& method, const json& params) {
  if (!initialized_ && method != "initialize")
    return ErrorResponse(id, kServerNotInitialized,
                         "`" + method + "` before `initialize`: initialize the server first");
  if (shutdown_)
    return ErrorResponse(id, kInvalidRequest, "`" + method + "` after `shutdown`");
  auto it = requests_.find(method);
  if (it == requests_.end())
    return ErrorResponse(id, kMethodNotFound, "no method `" + method + "`");
  try {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", it->second(params)}};
  } catch (const RpcError& e) {
    return ErrorResponse(id, e.code, e.message);
  } catch (const std::exception& e) {
    return ErrorResponse(id, kInvalidParams, std::string("bad parameters: ") + e.what());
  }
}

void Server::HandleNotification(const std::string& method, const json& params) {
  if (method == "exit") {
    exited_ = true;
    return;
  }
  if (!initialized_ || shutdown_) return;  // the spec says to drop them
  auto it = notifications_.find(method);
  if (it == notifications_.end()) return;  // `$/...` and others we do not use
  // A notification has no response: a bad one is reported in the client's log.
  std::string error;
  try {
    it->second(params);
  } catch (const RpcError& e) {
    error = e.message;
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty())
    outgoing_.push_back({{"jsonrpc", "2.0"},
                         {"method", "window/logMessage"},
                         {"params", {{"type", 1}, {"message", method + ": " + error}}}});
}

std::vector<json> Server::Handle(std::string_view body) {
  outgoing_.clear();
  json message = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    outgoing_.push_back(ErrorResponse(nullptr, kParseError, "the message is not valid JSON"));
    return std::move(outgoing_);
  }
  const bool has_id = message.is_object() && message.contains("id") &&
                      (message["id"].is_string() || message["id"].is_number_integer());
  if (!message.is_object() || !message.contains("method") || !message["method"].is_string()) {
    // A response to a request of ours (we send none) is ignored; anything else is invalid.
    if (!(message.is_object() && message.contains("id") &&
          (message.contains("result") || message.contains("error"))))
      outgoing_.push_back(ErrorResponse(has_id ? message["id"] : json(nullptr), kInvalidRequest,
                                        "a message without a `method`"));
    return std::move(outgoing_);
  }
  const std::string method = message["method"].get<std::string>();
  const json params = message.value("params", json::object());
  if (!message.contains("id")) {
    HandleNotification(method, params);
    return std::move(outgoing_);
  }
  if (!has_id) {
    outgoing_.push_back(
        ErrorResponse(nullptr, kInvalidRequest, "an `id` must be a number or a string"));
    return std::move(outgoing_);
  }
  // The response goes first, then anything its handler queued.
  std::vector<json> out = {HandleRequest(message["id"], method, params)};
  for (json& n : outgoing_) out.push_back(std::move(n));
  outgoing_.clear();
  return out;
}

int Serve(std::istream& in, std::ostream& out, const std::string& stdlib_dir) {
  Server server(stdlib_dir);
  std::string body, error;
  while (!server.exited()) {
    const ReadResult r = ReadMessage(in, body, error);
    if (r == ReadResult::kEnd) return 1;  // the client went away without `exit`
    if (r == ReadResult::kBadHeader) {
      WriteMessage(out, ErrorResponse(nullptr, kParseError, error));
      continue;
    }
    for (const json& m : server.Handle(body)) WriteMessage(out, m);
  }
  return server.exit_status();
}

}  // namespace uringc::lsp
