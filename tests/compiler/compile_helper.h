// Test helper: compiles source text (written to a fresh temporary directory, with optional extra
// module files next to it) through the real pipeline, and summarises the diagnostics.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "driver/compilation.h"

namespace uringc::testing {

struct Compiled {
  std::unique_ptr<driver::Compilation> c;
  /// "error Kind@line:col" / "warning Kind@line:col", in order.
  std::vector<std::string> diags;
  /// Kinds only, in order.
  std::vector<std::string> kinds;
  bool HasKind(const std::string& k) const;
  int Count(const std::string& k) const;
};

/// Runs the pipeline up to and including `last` ("" = all, lowering included). `extra` maps
/// relative paths (e.g. "lib/m.uring") to contents, written next to the main file.
Compiled Compile(const std::string& text, const std::string& last = "",
                 const std::map<std::string, std::string>& extra = {});

/// The first graph of a compiled program's AST (nullptr if none).
const ast::GraphDecl* FirstGraph(const Compiled& r);

}  // namespace uringc::testing
