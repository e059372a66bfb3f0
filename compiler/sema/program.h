// What semantic analysis works on: the root module and every module it imports, each with its
// AST. The passes of sema/ read and annotate these ASTs in place (see sema/passes.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ast/ast.h"

namespace uringc::sema {

struct Module {
  std::string name;      ///< dotted import name (`std.net`); empty for the root
  std::string path;      ///< file path as opened
  uint32_t file_id = 0;  ///< SourceManager id
  bool is_stdlib = false;
  std::unique_ptr<ast::File> ast;
  std::vector<uint32_t> imports;  ///< indices into Program::modules, in import order
};

struct Program {
  /// modules[0] is the root file; imports follow in the order they were first seen.
  std::vector<Module> modules;
  std::string stdlib_dir;

  Module& root() { return modules.front(); }
  const Module& root() const { return modules.front(); }
  /// The module that declares `decl` (by file id), or nullptr.
  const Module* ModuleOfFile(uint32_t file_id) const {
    for (const Module& m : modules)
      if (m.file_id == file_id) return &m;
    return nullptr;
  }
};

}  // namespace uringc::sema
