// The abstract syntax tree of one .uring file: our own types, independent of ANTLR. parse/ builds
// it, sema/ annotates it in place (the `sema` fields, clearly marked), rgir/ lowers it. Every node
// has a source range. Nodes are owned by their parent through unique_ptr; a File owns all of them.
//
// Shape: File -> Decl (Import, Const, Fn, Graph) -> Block -> Stmt -> Expr. Kinds are enums and
// nodes are classes with `kind`; use `As<T>()` / `Is<T>()` to downcast (no RTTI needed).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ast/operators.h"
#include "ast/types.h"
#include "uringc/source_file.h"

namespace uringc::ast {

struct Node {
  explicit Node(SourceRange r) : range(r) {}
  virtual ~Node() = default;
  SourceRange range;
};

// ----- Bindings: every place that introduces a name for a value -----------------------------

/// A named value: `let`/`var`, a parameter, an output, a loop or task variable, a `catch` name,
/// an `any` arm's `as` name.
struct Binding : Node {
  enum class Kind : uint8_t { kLet, kVar, kParam, kOutput, kLoopVar, kTaskVar, kCatch, kArm };
  Binding(SourceRange r, Kind k, std::string n) : Node(r), kind(k), name(std::move(n)) {}
  Kind kind;
  std::string name;
  // sema:
  Type type;               ///< declared or inferred
  bool used = false;       ///< read somewhere
  uint32_t id = 0;         ///< unique per graph/fn, 1-based (0: not yet numbered)
  bool IsMutable() const { return kind == Kind::kVar || kind == Kind::kOutput; }
};

/// A type as written: `u32`, `fd`, `buffers[4] of 64 KiB`.
struct Expr;
struct TypeRef : Node {
  TypeRef(SourceRange r, std::string n) : Node(r), name(std::move(n)) {}
  std::string name;                ///< empty for `buffers[..] of ..`
  std::string qualifier;           ///< `shared` in `shared bytes`, `shared buffers[..]`, or empty
  SourceRange qualifier_range;
  std::unique_ptr<Expr> count;     ///< buffers only
  std::unique_ptr<Expr> size;      ///< buffers only
  Type resolved;                   ///< sema
};

// ----- Expressions ----------------------------------------------------------------------------

/// A compile-time value (sema folds constants). Integers are stored as their 64-bit pattern;
/// the expression's type says how to read it. Durations are nanoseconds; bools are 0/1.
struct ConstValue {
  uint64_t bits = 0;
  int64_t AsSigned() const { return static_cast<int64_t>(bits); }
};

/// Per-slice/index bounds verdict (sema::CheckBounds).
enum class Bounds : uint8_t {
  kUnchecked,  ///< sema did not look (error elsewhere)
  kProven,     ///< always inside the buffer: no run-time code needed
  kRuntime,    ///< clamp the length / check the index at run time
};

struct Stmt;
struct Block;

struct Expr : Node {
  enum class Kind : uint8_t {
    kInt, kBool, kName, kCall, kIndex, kSlice, kPropagate, kUnary, kBinary, kString
  };
  Expr(SourceRange r, Kind k) : Node(r), kind(k) {}
  Kind kind;
  // sema:
  Type type;
  std::optional<ConstValue> constant;  ///< set when the value is known at compile time

  template <class T> T* As() { return kind == T::kKind ? static_cast<T*>(this) : nullptr; }
  template <class T> const T* As() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

/// `42`, `0x2a`, `64 KiB`, `10 ms` (unit is empty for a plain integer).
struct IntLit : Expr {
  static constexpr Kind kKind = Kind::kInt;
  IntLit(SourceRange r, uint64_t v, std::string u) : Expr(r, kKind), value(v), unit(std::move(u)) {}
  uint64_t value;     ///< as written, before the unit; `overflow` if it did not fit 64 bits
  std::string unit;
  bool overflow = false;
};

struct BoolLit : Expr {
  static constexpr Kind kKind = Kind::kBool;
  BoolLit(SourceRange r, bool v) : Expr(r, kKind), value(v) {}
  bool value;
};

/// `"GET "`, `"\x00\r\n"`: a byte-string literal (escapes decoded), of type `const bytes`.
struct StringLit : Expr {
  static constexpr Kind kKind = Kind::kString;
  StringLit(SourceRange r, std::string v) : Expr(r, kKind), value(std::move(v)) {}
  std::string value;
};

/// What a name refers to (filled by sema::ResolveNames).
struct FnDecl;
struct ConstDecl;
struct Resolution {
  enum class Kind : uint8_t {
    kUnresolved,
    kBinding,       ///< binding
    kConst,         ///< constant
    kBuiltinConst,  ///< builtin_id indexes sema::BuiltinConstants()
    kFn,            ///< fn (user async function)
    kRequest,       ///< builtin_id is a sema::RequestKind
    kBuiltinFn,     ///< builtin_id is a sema::BuiltinFn (len, min, max)
    kTypeCast,      ///< `u64(x)`: cast_type
  };
  Kind kind = Kind::kUnresolved;
  const Binding* binding = nullptr;
  const ConstDecl* constant = nullptr;
  const FnDecl* fn = nullptr;
  int builtin_id = -1;
  Type cast_type;
};

struct NameExpr : Expr {
  static constexpr Kind kKind = Kind::kName;
  NameExpr(SourceRange r, std::string n) : Expr(r, kKind), name(std::move(n)) {}
  std::string name;
  Resolution resolved;  ///< sema
};

/// `within D [else ACTION]`, on a call or on a compound statement (a block deadline).
struct Within : Node {
  explicit Within(SourceRange r) : Node(r) {}
  std::unique_ptr<Expr> duration;
  std::unique_ptr<Stmt> action;  ///< a Block or a Jump, or null (no `else`)
};

/// `name(args) [within ...]`: a request, a fn call, a builtin (len/min/max) or a cast.
struct CallExpr : Expr {
  static constexpr Kind kKind = Kind::kCall;
  CallExpr(SourceRange r, std::string c, SourceRange cr)
      : Expr(r, kKind), callee(std::move(c)), callee_range(cr) {}
  std::string callee;
  SourceRange callee_range;
  std::vector<std::unique_ptr<Expr>> args;
  std::unique_ptr<Within> within;
  Resolution resolved;  ///< sema
  bool IsAwait() const {
    return resolved.kind == Resolution::Kind::kRequest || resolved.kind == Resolution::Kind::kFn;
  }
};

/// `buf[i]`: buffer i of a `buffers` parameter.
struct IndexExpr : Expr {
  static constexpr Kind kKind = Kind::kIndex;
  IndexExpr(SourceRange r) : Expr(r, kKind) {}
  std::unique_ptr<Expr> base, index;
  Bounds bounds = Bounds::kUnchecked;  ///< sema: index < count
};

/// `b[lo..hi]`, either end optional.
struct SliceExpr : Expr {
  static constexpr Kind kKind = Kind::kSlice;
  SliceExpr(SourceRange r) : Expr(r, kKind) {}
  std::unique_ptr<Expr> base, lo, hi;
  Bounds bounds = Bounds::kUnchecked;  ///< sema: lo <= hi <= len(base)
};

/// `e?`: raise -e when e is negative.
struct PropagateExpr : Expr {
  static constexpr Kind kKind = Kind::kPropagate;
  PropagateExpr(SourceRange r) : Expr(r, kKind) {}
  std::unique_ptr<Expr> operand;
};

struct UnaryExpr : Expr {
  static constexpr Kind kKind = Kind::kUnary;
  UnaryExpr(SourceRange r, UnaryOp o) : Expr(r, kKind), op(o) {}
  UnaryOp op;
  std::unique_ptr<Expr> operand;
};

struct BinaryExpr : Expr {
  static constexpr Kind kKind = Kind::kBinary;
  BinaryExpr(SourceRange r, BinaryOp o) : Expr(r, kKind), op(o) {}
  BinaryOp op;
  std::unique_ptr<Expr> lhs, rhs;
};

// ----- Statements -----------------------------------------------------------------------------

struct Stmt : Node {
  enum class Kind : uint8_t {
    kDecl, kAssign, kExpr, kIf, kBlock, kWhile, kLoop, kRepeat, kFor, kParallel, kAll, kAny,
    kTry, kJump, kForEach
  };
  Stmt(SourceRange r, Kind k) : Node(r), kind(k) {}
  Kind kind;
  /// A block deadline (`{ } within 1 s else ...`); only on compound statements.
  std::unique_ptr<Within> within;
  bool reachable = true;  ///< sema: false when control can never get here

  template <class T> T* As() { return kind == T::kKind ? static_cast<T*>(this) : nullptr; }
  template <class T> const T* As() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

/// `let x: T = e` / `var x: T = e` / `var x: T`.
struct DeclStmt : Stmt {
  static constexpr Kind kKind = Kind::kDecl;
  DeclStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Binding> binding;
  std::unique_ptr<TypeRef> type;  ///< optional
  std::unique_ptr<Expr> init;     ///< optional for `var`
};

/// `x = v`, or a compound `x += v` (compound_op kAdd): `x = x + v`.
struct AssignStmt : Stmt {
  static constexpr Kind kKind = Kind::kAssign;
  AssignStmt(SourceRange r, std::optional<BinaryOp> o) : Stmt(r, kKind), compound_op(o) {}
  std::optional<BinaryOp> compound_op;  ///< nullopt for `=`
  std::unique_ptr<Expr> target, value;
};

struct ExprStmt : Stmt {
  static constexpr Kind kKind = Kind::kExpr;
  ExprStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Expr> expr;
};

struct Block : Stmt {
  static constexpr Kind kKind = Kind::kBlock;
  Block(SourceRange r) : Stmt(r, kKind) {}
  std::vector<std::unique_ptr<Stmt>> stmts;
};

struct IfStmt : Stmt {
  static constexpr Kind kKind = Kind::kIf;
  IfStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Expr> cond;
  std::unique_ptr<Block> then_block;
  std::unique_ptr<Stmt> else_stmt;  ///< a Block, an IfStmt, or null
};

struct WhileStmt : Stmt {
  static constexpr Kind kKind = Kind::kWhile;
  WhileStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Expr> cond;
  std::unique_ptr<Block> body;
  bool has_request = false;  ///< sema: the body awaits something
};

struct LoopStmt : Stmt {
  static constexpr Kind kKind = Kind::kLoop;
  LoopStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Block> body;
  bool has_request = false;  ///< sema
};

struct RepeatStmt : Stmt {
  static constexpr Kind kKind = Kind::kRepeat;
  RepeatStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Expr> count;
  std::unique_ptr<Block> body;
  bool has_request = false;  ///< sema
};

/// `for i in lo..hi { }` (sequential) and `parallel i in lo..hi { }` (one task per value).
struct ForStmt : Stmt {
  static constexpr Kind kKind = Kind::kFor;
  ForStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Binding> var;
  std::unique_ptr<Expr> lo, hi;
  std::unique_ptr<Block> body;
  bool has_request = false;  ///< sema
};

/// `for chunk in recv_each(s, pool) { }`: the body runs once per completion of a multishot
/// request (docs/language.md, "Streams"). `source` is not resolved as a call: sema checks it.
struct ForEachStmt : Stmt {
  static constexpr Kind kKind = Kind::kForEach;
  ForEachStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Binding> var;
  std::unique_ptr<CallExpr> source;
  std::unique_ptr<Block> body;
};

struct ParallelStmt : Stmt {
  static constexpr Kind kKind = Kind::kParallel;
  ParallelStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Binding> var;
  std::unique_ptr<Expr> lo, hi;
  std::unique_ptr<Block> body;
};

/// `all { s1; s2 }`: each statement of `body` is a branch.
struct AllStmt : Stmt {
  static constexpr Kind kKind = Kind::kAll;
  AllStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Block> body;
};

/// One arm of `any`: `call [as name] => { }`.
struct AnyArm : Node {
  explicit AnyArm(SourceRange r) : Node(r) {}
  std::unique_ptr<CallExpr> call;
  std::unique_ptr<Binding> binding;  ///< optional
  std::unique_ptr<Block> body;
};

struct AnyStmt : Stmt {
  static constexpr Kind kKind = Kind::kAny;
  AnyStmt(SourceRange r) : Stmt(r, kKind) {}
  std::vector<std::unique_ptr<AnyArm>> arms;
};

struct TryStmt : Stmt {
  static constexpr Kind kKind = Kind::kTry;
  TryStmt(SourceRange r) : Stmt(r, kKind) {}
  std::unique_ptr<Block> body;
  std::unique_ptr<Binding> error;  ///< the catch name (i32, the positive errno)
  std::unique_ptr<Block> handler;
};

/// `break`, `continue`, `stop`, `fail [e]`, `return [e]`.
struct JumpStmt : Stmt {
  static constexpr Kind kKind = Kind::kJump;
  enum class Jump : uint8_t { kBreak, kContinue, kStop, kFail, kReturn };
  JumpStmt(SourceRange r, Jump j) : Stmt(r, kKind), jump(j) {}
  Jump jump;
  std::unique_ptr<Expr> value;  ///< optional (fail, return)
};

// ----- Declarations ---------------------------------------------------------------------------

struct Decl : Node {
  enum class Kind : uint8_t { kImport, kConst, kFn, kGraph };
  Decl(SourceRange r, Kind k, std::string n) : Node(r), kind(k), name(std::move(n)) {}
  Kind kind;
  std::string name;  ///< for an import: the dotted path `std.net`
  SourceRange name_range;

  template <class T> T* As() { return kind == T::kKind ? static_cast<T*>(this) : nullptr; }
  template <class T> const T* As() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

struct ImportDecl : Decl {
  static constexpr Kind kKind = Kind::kImport;
  ImportDecl(SourceRange r, std::string n) : Decl(r, kKind, std::move(n)) {}
  std::vector<std::string> path;  ///< {"std", "net"}
  uint32_t module = 0;            ///< sema: index into sema::Program::modules, 0 = not loaded
};

struct ConstDecl : Decl {
  static constexpr Kind kKind = Kind::kConst;
  ConstDecl(SourceRange r, std::string n) : Decl(r, kKind, std::move(n)) {}
  std::unique_ptr<TypeRef> type;  ///< optional
  std::unique_ptr<Expr> value;
  bool used = false;  ///< sema
};

struct FnDecl : Decl {
  static constexpr Kind kKind = Kind::kFn;
  FnDecl(SourceRange r, std::string n) : Decl(r, kKind, std::move(n)) {}
  std::vector<std::unique_ptr<Binding>> params;
  std::vector<std::unique_ptr<TypeRef>> param_types;  ///< parallel to params
  std::unique_ptr<TypeRef> result;                    ///< optional (i32)
  std::unique_ptr<Block> body;
  // sema:
  Type result_type = Type::Int(32, true);
  bool has_request = false;  ///< awaits something (directly or through calls)
};

struct GraphDecl : Decl {
  static constexpr Kind kKind = Kind::kGraph;
  GraphDecl(SourceRange r, std::string n) : Decl(r, kKind, std::move(n)) {}
  std::vector<std::unique_ptr<Binding>> params;
  std::vector<std::unique_ptr<TypeRef>> param_types;
  std::vector<std::unique_ptr<Binding>> outputs;
  std::vector<std::unique_ptr<TypeRef>> output_types;
  std::unique_ptr<Block> body;
};

/// One parsed file.
struct File {
  uint32_t file_id = 0;  ///< SourceManager id
  SourceRange range;
  std::vector<std::unique_ptr<Decl>> decls;
};

}  // namespace uringc::ast
