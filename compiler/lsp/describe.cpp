// See describe.h.
#include "lsp/describe.h"

#include "sema/requests.h"

namespace uringc::lsp {
namespace {

std::string TypeSuffix(const Type& t) { return t.IsError() ? "" : ": " + t.ToString(); }

// `name: T, ...`, each type as written (`buffers[64] of 4 KiB`).
std::string Params(const std::vector<std::unique_ptr<ast::Binding>>& names,
                   const std::vector<std::unique_ptr<ast::TypeRef>>& types,
                   const SourceManager& sources) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i]) continue;
    if (!out.empty()) out += ", ";
    out += names[i]->name;
    if (i < types.size() && types[i]) out += ": " + std::string(TextOf(sources, types[i]->range));
  }
  return out;
}

std::string_view BindingWord(ast::Binding::Kind k) {
  using K = ast::Binding::Kind;
  switch (k) {
    case K::kLet: return "let";
    case K::kVar: return "var";
    case K::kParam: return "(parameter)";
    case K::kOutput: return "(output)";
    case K::kLoopVar: return "(loop variable)";
    case K::kTaskVar: return "(task variable)";
    case K::kCatch: return "(caught errno)";
    case K::kArm: return "(result of the `any` arm's request)";
  }
  return "";
}

}  // namespace

std::string_view TextOf(const SourceManager& sources, SourceRange r) {
  const SourceFile* f = sources.Get(r.file);
  if (!f || r.begin > r.end || r.end > f->text().size()) return {};
  return std::string_view(f->text()).substr(r.begin, r.end - r.begin);
}

std::string DescribeBinding(const ast::Binding& b) {
  return std::string(BindingWord(b.kind)) + " " + b.name + TypeSuffix(b.type);
}

std::string DescribeFn(const ast::FnDecl& f, const SourceManager& sources) {
  const std::string result =
      f.result ? std::string(TextOf(sources, f.result->range)) : f.result_type.ToString();
  return "fn " + f.name + "(" + Params(f.params, f.param_types, sources) + ") -> " + result;
}

std::string DescribeGraph(const ast::GraphDecl& g, const SourceManager& sources) {
  std::string out = "graph " + g.name + "(" + Params(g.params, g.param_types, sources) + ")";
  if (!g.outputs.empty()) out += " -> (" + Params(g.outputs, g.output_types, sources) + ")";
  return out;
}

std::string DescribeConst(const ast::ConstDecl& c, const SourceManager& sources) {
  std::string out = "const " + c.name;
  if (c.type) {
    out += ": " + std::string(TextOf(sources, c.type->range));
  } else if (c.value) {
    out += TypeSuffix(c.value->type);
  }
  if (c.value) out += " = " + std::string(TextOf(sources, c.value->range));
  return out;
}

std::string DescribeDecl(const ast::Decl& d, const SourceManager& sources) {
  if (auto* f = d.As<ast::FnDecl>()) return DescribeFn(*f, sources);
  if (auto* g = d.As<ast::GraphDecl>()) return DescribeGraph(*g, sources);
  if (auto* c = d.As<ast::ConstDecl>()) return DescribeConst(*c, sources);
  return "import " + d.name;
}

std::string DescribeRequest(int request_kind) {
  const sema::RequestSignature& r = sema::Request(static_cast<sema::RequestKind>(request_kind));
  std::string out = "request " + std::string(r.name) + "(";
  for (size_t i = 0; i < r.params.size(); ++i) {
    const sema::RequestParam& p = r.params[i];
    out += (i ? ", " : "") + std::string(p.name) + ": " + p.type.ToString();
    if (p.default_value) out += " = " + std::to_string(*p.default_value);
  }
  return out + ") -> " + r.result.ToString() + "\n// " + std::string(r.io_uring_op);
}

std::string DescribeBuiltinCallee(std::string_view name) {
  if (const sema::RequestSignature* r = sema::FindRequest(name))
    return DescribeRequest(static_cast<int>(r->kind));
  if (name == "recv_each")
    return "(stream) for chunk in recv_each(s: fd, pool: provided buffers) -> chunk: shared bytes\n"
           "// one multishot IORING_OP_RECV; the body runs once per completion";
  if (sema::TypeByName(name)) return "(conversion) " + std::string(name) + "(value)";
  auto fn = sema::FindBuiltinFn(name);
  if (!fn) return "";
  switch (*fn) {
    case sema::BuiltinFn::kLen: return "(builtin) len(b: bytes) -> u32";
    case sema::BuiltinFn::kMin: return "(builtin) min(a, b)";
    case sema::BuiltinFn::kMax: return "(builtin) max(a, b)";
    case sema::BuiltinFn::kGet:
      return "(builtin) " + std::string(name) + "(view: bytes, off: u32) -> " +
             std::string(name.substr(4, 3));
    case sema::BuiltinFn::kPut:
      return "(builtin) " + std::string(name) + "(view: bytes, off: u32, value: " +
             std::string(name.substr(4, 3)) + ")";
    case sema::BuiltinFn::kCopy: return "(builtin) copy_bytes(dst: bytes, src: bytes) -> u32";
    case sema::BuiltinFn::kEq: return "(builtin) equal_bytes(a: bytes, b: bytes) -> bool";
    case sema::BuiltinFn::kCopyFromUser:
      return "(builtin) copy_from_user(dst: bytes, addr: u64) -> i32";
    case sema::BuiltinFn::kAddressOf: return "(builtin) address_of(b: bytes) -> u64";
  }
  return "";
}

std::string DescribeBuiltinConst(int index) {
  const auto& all = sema::BuiltinConstants();
  if (index < 0 || static_cast<size_t>(index) >= all.size()) return "";
  const sema::BuiltinConst& c = all[static_cast<size_t>(index)];
  return "const " + std::string(c.name) + ": " + c.type.ToString() + " = " +
         std::to_string(c.value) + "  // predefined";
}

std::string DescribeType(const ast::TypeRef& t, const SourceManager& sources) {
  const Type& r = t.resolved;
  std::string out = "type " + (r.IsError() ? std::string(TextOf(sources, t.range)) : r.ToString());
  std::string_view what;
  switch (r.kind) {
    case Type::Kind::kInt: what = r.is_signed ? "a signed integer" : "an unsigned integer"; break;
    case Type::Kind::kBool: what = "true or false"; break;
    case Type::Kind::kFd: what = "a file descriptor, or -errno from a failed request"; break;
    case Type::Kind::kDuration: what = "a duration, in nanoseconds"; break;
    case Type::Kind::kBytes: what = "a view into one buffer: start and length"; break;
    case Type::Kind::kBuffers:
      out += "\n// " + std::to_string(r.count) + " buffers of " + std::to_string(r.size) +
             " bytes";
      return out;
    default: return out;
  }
  return out + "\n// " + std::string(what);
}

std::string DocComment(const ast::Decl& d, const SourceManager& sources) {
  const SourceFile* f = sources.Get(d.range.file);
  if (!f) return "";
  const uint32_t line = f->LineColOf(d.range.begin).line;
  std::string out;
  for (uint32_t l = line; l > 1; --l) {
    std::string_view text = f->Line(l - 1);
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    if (text.substr(0, 2) != "//") break;
    text.remove_prefix(2);
    if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    out = std::string(text) + (out.empty() ? "" : "\n" + out);
  }
  return out;
}

}  // namespace uringc::lsp
