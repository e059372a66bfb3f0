// `file://` URIs, as LSP names documents, to and from file paths: percent-decoding on the way
// in, percent-encoding of everything but unreserved characters and `/` on the way out.
#pragma once

#include <string>
#include <string_view>

namespace uringc::lsp {

/// The path of a `file://` URI; empty when `uri` is not a file URI.
std::string PathFromUri(std::string_view uri);

/// The `file://` URI of an absolute path.
std::string UriFromPath(std::string_view path);

}  // namespace uringc::lsp
