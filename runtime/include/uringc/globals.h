// A controller's global variables, found by name in the object's BTF: every variable of the
// `.rodata`, `.data` and `.bss` DATASECs with its offset, size and type. Parameters are set and
// outputs read through this table, so a name that does not exist or a value of the wrong type is
// refused with a clear error instead of silently writing the wrong bytes. `a.b` names a member of
// a struct variable (the C controllers' config structs).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uringc/result.h"

struct btf;

namespace uringc {

enum class ValueKind { kSigned, kUnsigned, kBool, kEnum, kPointer, kStruct, kUnion, kArray,
                       kFloat, kOther };

/// One variable (or member of one) in a data section.
struct GlobalVar {
  std::string name;     // "total" or "config.total"
  std::string section;  // ".rodata", ".data", ".bss" (or a named sub-section like ".data.x")
  uint32_t offset = 0;  // bytes into the section
  uint32_t size = 0;
  ValueKind kind = ValueKind::kOther;
  std::string type_name;  // as C spells it: "__u32", "struct nop_inflight_config", "enum mode"
  uint32_t type_id = 0;   // resolved BTF type (typedefs and qualifiers stripped)
  /// Load-time constant: writable only before load.
  bool read_only() const { return section.rfind(".rodata", 0) == 0; }
};

class GlobalTable {
 public:
  /// Reads every data-section variable from an object's BTF (after bpf_object__open).
  static Result<GlobalTable> FromBtf(const btf* btf);

  const std::vector<GlobalVar>& vars() const { return vars_; }
  /// A variable or a struct member path; the error lists what exists.
  Result<GlobalVar> Find(std::string_view path) const;
  bool Has(std::string_view name) const;

  /// Bytes for `text` as a value of v's type: integers in the host syntax of uringc/numbers.h
  /// (decimal, 0x hex, 0o octal, 0b binary; `-` only for signed types; range-checked),
  /// `true`/`false` for bools, enumerator names for enums.
  Result<std::vector<uint8_t>> Encode(const GlobalVar& v, std::string_view text) const;
  /// Bytes for an integer, range-checked against v's type.
  Result<std::vector<uint8_t>> EncodeInt(const GlobalVar& v, int64_t value) const;
  Result<std::vector<uint8_t>> EncodeUint(const GlobalVar& v, uint64_t value) const;
  /// Integer value of v's bytes (sign-extended for signed types); errors for non-integers.
  Result<int64_t> DecodeInt(const GlobalVar& v, const uint8_t* bytes) const;
  /// Human-readable value: integers, enumerator names, `{a = 1, b = 2}` for structs.
  std::string Format(const GlobalVar& v, const uint8_t* bytes) const;

 private:
  /// A signed integer, or an enum with signed values.
  bool Signed(const GlobalVar& v) const;

  const btf* btf_ = nullptr;
  std::vector<GlobalVar> vars_;
};

const char* ValueKindName(ValueKind kind);

}  // namespace uringc
