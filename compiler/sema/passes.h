// The semantic passes, one per file, in pipeline order (driver/pipeline.cpp lists them with a
// description). Each reads the modules' ASTs, annotates them in place (fields marked `sema` in
// ast/ast.h) and appends diagnostics. Later passes tolerate errors left by earlier ones: an
// expression of type Error is skipped silently, so one run reports independent problems.
#pragma once

#include "uringc/diag/diagnostic.h"
#include "parse/parser.h"
#include "sema/program.h"
#include "uringc/source_file.h"

namespace uringc::sema {

/// imports.cpp: loads every `import` (stdlib dir first, then relative to the importing file),
/// parses it, recursively. ImportNotFound, ImportCycle.
void LoadImports(Program& program, SourceManager& sources, DiagnosticList& diagnostics,
                 const ParseOptions& parse_options);

/// resolve.cpp: scopes; binds each NameExpr and CallExpr, numbers bindings, resolves type names.
/// UndefinedName, AmbiguousName, Redefinition, NotAType, NotCallable, BreakOutsideLoop, BadReturn.
void ResolveNames(Program& program, DiagnosticList& diagnostics);

/// types.cpp: types and constants of every expression, request and fn signatures, assignment.
/// TypeMismatch, BadArguments, NotConstant, LiteralOutOfRange, UnknownUnit, AssignToImmutable,
/// NotAssignable, DivisionByZero, BadBuffers, BadReturnType, TooManyTasks, MissingType.
void CheckTypes(Program& program, DiagnosticList& diagnostics);

/// calls.cpp: the call graph of user async functions. RecursiveFunction; sets
/// FnDecl::has_request.
void CheckCalls(Program& program, DiagnosticList& diagnostics);

/// loops.cpp: sets has_request on loops; a loop that can iterate without awaiting a request
/// needs a constant bound. UnboundedLoop.
void CheckLoops(Program& program, DiagnosticList& diagnostics);

/// bounds.cpp: buffer indices and slices: proven in bounds, run-time clamp, or (provably out of
/// bounds) BufferIndexOutOfRange / BufferOverrun.
void CheckBounds(Program& program, DiagnosticList& diagnostics);

/// flow.cpp: reachability (UnreachableCode), definite assignment (UninitializedVariable), unused
/// variables (UnusedVariable).
void CheckFlow(Program& program, DiagnosticList& diagnostics);

/// fds.cpp: file descriptors from accept/openat/socket not closed on some path (FdLeak).
void CheckFds(Program& program, DiagnosticList& diagnostics);

}  // namespace uringc::sema
