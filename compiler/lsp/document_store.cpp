// See document_store.h.
#include "lsp/document_store.h"

#include <algorithm>

#include "lsp/uri.h"

namespace uringc::lsp {

Document& DocumentStore::Open(const std::string& uri, std::string text, int64_t version) {
  Document& d = documents_[uri];
  d.uri = uri;
  d.path = PathFromUri(uri);
  if (d.path.empty()) d.path = uri;
  d.text = std::move(text);
  d.version = version;
  d.analysis.reset();
  return d;
}

Document* DocumentStore::Find(const std::string& uri) {
  auto it = documents_.find(uri);
  return it == documents_.end() ? nullptr : &it->second;
}

Document* DocumentStore::Change(const std::string& uri, int64_t version,
                                const nlohmann::json& changes, Encoding encoding,
                                std::string& error) {
  Document* d = Find(uri);
  if (!d) {
    error = "didChange for `" + uri + "`, which is not open";
    return nullptr;
  }
  if (!changes.is_array()) {
    error = "didChange without a contentChanges array";
    return nullptr;
  }
  for (const auto& change : changes) {
    if (!change.is_object() || !change.contains("text") || !change["text"].is_string()) {
      error = "a content change without its text";
      return nullptr;
    }
    const std::string& text = change["text"].get_ref<const std::string&>();
    if (!change.contains("range")) {
      d->text = text;
      continue;
    }
    const auto& range = change["range"];
    Position start, end;
    if (!range.is_object() || !ParsePosition(range.value("start", nlohmann::json()), start) ||
        !ParsePosition(range.value("end", nlohmann::json()), end)) {
      error = "a content change with a malformed range";
      return nullptr;
    }
    const LineIndex index(d->text, encoding);
    const uint32_t b = index.Offset(start), e = std::max(b, index.Offset(end));
    d->text.replace(b, e - b, text);
  }
  d->version = version;
  d->analysis.reset();
  return d;
}

}  // namespace uringc::lsp
