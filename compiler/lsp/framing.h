// The base protocol of LSP: each JSON-RPC message is preceded by headers, of which only
// `Content-Length` matters, and an empty line. Reading stops cleanly at the end of input; a
// header block without a usable length is reported so the server can answer a parse error.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace uringc::lsp {

enum class ReadResult {
  kMessage,    ///< `body` holds one message's bytes (not yet parsed as JSON)
  kEnd,        ///< the input ended before another header
  kBadHeader,  ///< headers without a valid Content-Length; `error` says why
};

/// The largest message body accepted (a 4 MiB document plus JSON escaping).
inline constexpr size_t kMaxMessageBytes = 64u << 20;

/// Reads one framed message from `in`.
ReadResult ReadMessage(std::istream& in, std::string& body, std::string& error);

/// Writes `message` with its Content-Length header and flushes.
void WriteMessage(std::ostream& out, const nlohmann::json& message);

}  // namespace uringc::lsp
