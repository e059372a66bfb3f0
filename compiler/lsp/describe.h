// What the language server says about a name: one line of `.uring`-like text per kind of thing
// (a binding with its type, a fn's or graph's signature, a request's signature from the request
// table, a constant with its value) and the `//` comment written above a declaration. Hover shows
// these; document symbols use the signatures as their detail.
#pragma once

#include <string>
#include <string_view>

#include "ast/ast.h"
#include "uringc/source_file.h"

namespace uringc::lsp {

/// The text of `r`, or empty when it is not in `sources`.
std::string_view TextOf(const SourceManager& sources, SourceRange r);

/// `(parameter) buf: buffers[64] of 4096`, `let n: i32`; the type is left out when sema did not
/// compute it.
std::string DescribeBinding(const ast::Binding& b);
/// `fn send_all(s: fd, data: bytes) -> i32`, types as written.
std::string DescribeFn(const ast::FnDecl& f, const SourceManager& sources);
/// `graph echo(listener: fd, ...) -> (served: u64, ...)`.
std::string DescribeGraph(const ast::GraphDecl& g, const SourceManager& sources);
/// `const N: u32 = 64`.
std::string DescribeConst(const ast::ConstDecl& c, const SourceManager& sources);
/// Any declaration: one of the above, or `import std.net`.
std::string DescribeDecl(const ast::Decl& d, const SourceManager& sources);
/// A request by its table row (sema::RequestKind): `request read(f: fd, into: bytes,
/// off: u64 = -1) -> i32`, with its io_uring opcode on a second line.
std::string DescribeRequest(int request_kind);
/// What a call's callee is when it is not a user fn: a request, builtin fn or cast; empty when
/// `name` is none of them.
std::string DescribeBuiltinCallee(std::string_view name);
/// A predefined constant by its index in sema::BuiltinConstants(): `const EPIPE: i32 = 32`.
std::string DescribeBuiltinConst(int index);

/// A type as written, as sema resolved it (`type buffers[4] of 4096`), with what it holds on a
/// second line (a `//` comment).
std::string DescribeType(const ast::TypeRef& t, const SourceManager& sources);

/// The `//` lines directly above `d` in its file, without the slashes; empty when there are none.
std::string DocComment(const ast::Decl& d, const SourceManager& sources);

}  // namespace uringc::lsp
