// The language features of the server, one file each: each takes an analyzed document and the
// request's parameters and returns the JSON result the protocol defines (null for "nothing").
#pragma once

#include <nlohmann/json.hpp>

#include "lsp/document_store.h"
#include "lsp/positions.h"

namespace uringc::lsp {

/// An LSP Location for a range of any file of `sources` (one of the document's compilations,
/// whose root module is the document): the document's own URI for the root module, a file URI
/// for an imported one; null for a range in no file.
nlohmann::json LocationOf(const Document& doc, const SourceManager& sources, SourceRange r,
                          Encoding encoding);

/// textDocument/publishDiagnostics params for `doc` (every diagnostic of its analysis).
nlohmann::json PublishDiagnostics(const Document& doc, Encoding encoding);

/// textDocument/hover: markdown with the type or signature of the name at `p`, or null.
nlohmann::json Hover(const Document& doc, Position p, Encoding encoding);

/// textDocument/definition: the Location where the name at `p` is declared, or null.
nlohmann::json Definition(const Document& doc, Position p, Encoding encoding);

/// textDocument/documentSymbol: DocumentSymbol[] for the graphs, fns, consts and imports.
nlohmann::json DocumentSymbols(const Document& doc, Encoding encoding);

}  // namespace uringc::lsp
