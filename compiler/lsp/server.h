// The language server's JSON-RPC side: the lifecycle (initialize, initialized, shutdown, exit),
// dispatch of requests and notifications to the document store and the features, and the
// protocol's errors (parse error, method not found, not initialized, invalid params). Handle()
// takes one message body and returns what to send, so tests drive it without pipes; Serve() runs
// it over a framed stream.
#pragma once

#include <functional>
#include <istream>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lsp/document_store.h"
#include "lsp/positions.h"

namespace uringc::lsp {

/// JSON-RPC and LSP error codes.
enum ErrorCode {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kServerNotInitialized = -32002,
};

class Server {
 public:
  /// `stdlib_dir` is where `import std.x` looks, as for `uringc check`.
  explicit Server(std::string stdlib_dir);

  /// Handles one message (the bytes of its body); returns the responses and notifications to
  /// send, in order.
  std::vector<nlohmann::json> Handle(std::string_view body);

  /// The client sent `exit`: stop reading. The status is 0 after `shutdown`, 1 without it.
  bool exited() const { return exited_; }
  int exit_status() const { return shutdown_ ? 0 : 1; }
  Encoding encoding() const { return encoding_; }

 private:
  using Request = std::function<nlohmann::json(const nlohmann::json& params)>;
  using Notification = std::function<void(const nlohmann::json& params)>;

  nlohmann::json HandleRequest(const nlohmann::json& id, const std::string& method,
                               const nlohmann::json& params);
  void HandleNotification(const std::string& method, const nlohmann::json& params);

  nlohmann::json Initialize(const nlohmann::json& params);
  /// The open document named by params.textDocument.uri; throws InvalidParams otherwise.
  Document& DocumentOf(const nlohmann::json& params);
  Position PositionOf(const nlohmann::json& params);
  /// Analyzes `doc` and queues its diagnostics.
  void Publish(Document& doc);

  std::string stdlib_dir_;
  std::map<std::string, Request> requests_;
  std::map<std::string, Notification> notifications_;
  DocumentStore documents_;
  Encoding encoding_ = Encoding::kUtf16;
  bool initialized_ = false;
  bool shutdown_ = false;
  bool exited_ = false;
  std::vector<nlohmann::json> outgoing_;  // notifications queued while handling a message
};

/// Reads framed messages from `in` and writes the answers to `out` until `exit` or the end of
/// input; returns the exit status (0 after shutdown then exit, else 1).
int Serve(std::istream& in, std::ostream& out, const std::string& stdlib_dir);

}  // namespace uringc::lsp
