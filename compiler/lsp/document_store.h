// The documents the editor has open: their text as the editor has it (unsaved edits included),
// kept current by didOpen/didChange/didClose, and the latest analysis of each.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "lsp/analysis.h"
#include "lsp/positions.h"

namespace uringc::lsp {

struct Document {
  std::string uri;
  std::string path;  ///< from a file URI; the URI itself for other schemes
  std::string text;
  int64_t version = 0;
  std::unique_ptr<Analysis> analysis;  ///< of `text`, once analyzed
};

class DocumentStore {
 public:
  Document& Open(const std::string& uri, std::string text, int64_t version);
  /// Applies `changes` (an array of TextDocumentContentChangeEvent: whole texts, or ranges with
  /// their replacement) in order. nullptr with `error` set when the document is not open or a
  /// change is malformed.
  Document* Change(const std::string& uri, int64_t version, const nlohmann::json& changes,
                   Encoding encoding, std::string& error);
  void Close(const std::string& uri) { documents_.erase(uri); }
  Document* Find(const std::string& uri);

 private:
  std::map<std::string, Document> documents_;
};

}  // namespace uringc::lsp
