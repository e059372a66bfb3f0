// The `imports` pass: loads imported modules depth-first, so a module that imports itself
// through a chain is seen while still on the stack (ImportCycle). `import a.b` is the file
// `a/b.uring`, looked up in the stdlib directory first, then in the main file's directory (so a
// name means the same module everywhere), then next to the importing file.
#include <limits.h>
#include <stdlib.h>

#include <map>

#include "sema/passes.h"
#include "source/read_file.h"

namespace uringc::sema {
namespace {

class Loader {
 public:
  Loader(Program& p, SourceManager& s, DiagnosticList& d, const ParseOptions& o)
      : program_(p), sources_(s), diags_(d), parse_options_(o) {}

  void Run() {
    state_.assign(1, State::kVisiting);
    root_dir_ = DirOf(program_.root().path);
    if (const SourceFile* f = sources_.Get(program_.root().file_id)) total_ = f->text().size();
    if (char* real = realpath(program_.root().path.c_str(), nullptr)) {
      by_path_[real] = 0;
      free(real);
    }
    Visit(0);
  }

 private:
  enum class State { kVisiting, kDone };

  static std::string DirOf(const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
  }

  void Visit(uint32_t index) {
    stack_.push_back(index);
    // Copy what we need: program_.modules may grow (and move) while we recurse.
    std::vector<ast::ImportDecl*> imports;
    if (program_.modules[index].ast) {
      for (auto& d : program_.modules[index].ast->decls)
        if (auto* imp = d->As<ast::ImportDecl>()) imports.push_back(imp);
    }
    const std::string importer_dir = DirOf(program_.modules[index].path);
    for (ast::ImportDecl* imp : imports) {
      std::string rel;
      for (const std::string& part : imp->path) rel += (rel.empty() ? "" : "/") + part;
      rel += ".uring";
      bool stdlib = true;
      std::string found = Find(program_.stdlib_dir + "/" + rel);
      if (found.empty()) {
        stdlib = false;
        found = Find(root_dir_ + "/" + rel);
      }
      if (found.empty()) found = Find(importer_dir + "/" + rel);
      if (found.empty()) {
        Diagnostic& d = diags_.Error(DiagKind::kImportNotFound, imp->name_range,
                                     "no module `" + imp->name + "`: `" + rel +
                                         "` is neither in the stdlib (`" + program_.stdlib_dir +
                                         "`) nor next to the main file or this file");
        (void)d;
        continue;
      }
      auto it = by_path_.find(found);
      if (it != by_path_.end()) {
        const uint32_t target = it->second;
        imp->module = target;
        program_.modules[index].imports.push_back(target);
        if (state_[target] == State::kVisiting) ReportCycle(imp, target);
        continue;
      }
      std::string text, error;
      if (!ReadSourceFile(found, text, error)) {
        diags_.Error(DiagKind::kImportNotFound, imp->name_range,
                     "cannot read module `" + imp->name + "`: " + error);
        continue;
      }
      if (total_ + text.size() > kMaxProgramSourceSize) {
        diags_.Error(DiagKind::kImportNotFound, imp->name_range,
                     "module `" + imp->name + "` would bring the program's sources past " +
                         std::to_string(kMaxProgramSourceSize >> 20) + " MiB");
        continue;
      }
      total_ += text.size();
      Module m;
      m.name = imp->name;
      m.path = found;
      m.is_stdlib = stdlib;
      m.file_id = sources_.Add(found, std::move(text));
      const uint32_t target = static_cast<uint32_t>(program_.modules.size());
      by_path_[found] = target;
      m.ast = ParseFile(sources_, m.file_id, diags_, parse_options_);
      program_.modules.push_back(std::move(m));
      state_.push_back(State::kVisiting);
      imp->module = target;
      program_.modules[index].imports.push_back(target);
      import_sites_[target] = imp;
      Visit(target);
    }
    state_[index] = State::kDone;
    stack_.pop_back();
  }

  static std::string Find(const std::string& path) {
    char* real = realpath(path.c_str(), nullptr);
    if (real == nullptr) return "";
    std::string out = real;
    free(real);
    return out;
  }

  void ReportCycle(const ast::ImportDecl* imp, uint32_t target) {
    std::string chain;
    bool in = false;
    for (uint32_t m : stack_) {
      if (m == target) in = true;
      if (in) chain += Name(m) + " -> ";
    }
    chain += Name(target);
    Diagnostic& d = diags_.Error(DiagKind::kImportCycle, imp->name_range, "import cycle: " + chain);
    auto site = import_sites_.find(target);
    if (site != import_sites_.end()) {
      d.notes.push_back({site->second->name_range, "`" + Name(target) + "` imported here"});
    }
  }

  std::string Name(uint32_t m) const {
    const Module& mod = program_.modules[m];
    return mod.name.empty() ? mod.path : mod.name;
  }

  Program& program_;
  SourceManager& sources_;
  DiagnosticList& diags_;
  const ParseOptions& parse_options_;
  std::vector<State> state_;
  std::string root_dir_;
  size_t total_ = 0;  // bytes of source read so far (kMaxProgramSourceSize)
  std::vector<uint32_t> stack_;
  std::map<std::string, uint32_t> by_path_;
  std::map<uint32_t, const ast::ImportDecl*> import_sites_;
};

}  // namespace

void LoadImports(Program& program, SourceManager& sources, DiagnosticList& diagnostics,
                 const ParseOptions& parse_options) {
  if (program.modules.empty()) return;
  Loader(program, sources, diagnostics, parse_options).Run();
}

}  // namespace uringc::sema
