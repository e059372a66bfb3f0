// GlobalTable: walks the DATASECs of an object's BTF (libbpf fills in their offsets at open) and
// describes every variable; encodes and decodes values by their BTF type.
#include "uringc/globals.h"

#include <bpf/btf.h>

#include <cstring>
#include <limits>

#include "uringc/numbers.h"

namespace uringc {
namespace {

bool IsDataSection(const std::string& name) {
  for (const char* prefix : {".rodata", ".data", ".bss"}) {
    const size_t n = strlen(prefix);
    if (name.compare(0, n, prefix) == 0 && (name.size() == n || name[n] == '.')) return true;
  }
  return false;
}

// How many pointers, arrays, qualifiers and typedefs the walks below follow before they give up:
// an object's BTF may chain types into a cycle (an array of itself), which libbpf's open does not
// refuse. libbpf stops its own resolution at the same depth (MAX_RESOLVE_DEPTH).
constexpr int kMaxTypeDepth = 32;

// The C spelling of a type, qualifiers dropped: "__u32", "struct foo", "char[16]", "void *";
// "?" past kMaxTypeDepth.
std::string TypeName(const btf* b, uint32_t id, int depth = 0) {
  if (depth > kMaxTypeDepth) return "?";
  const btf_type* t = btf__type_by_id(b, id);
  if (!t || id == 0) return "void";
  const char* name = btf__name_by_offset(b, t->name_off);
  switch (btf_kind(t)) {
    case BTF_KIND_INT:
    case BTF_KIND_FLOAT:
    case BTF_KIND_TYPEDEF: return name;
    case BTF_KIND_STRUCT: return std::string("struct ") + name;
    case BTF_KIND_UNION: return std::string("union ") + name;
    case BTF_KIND_ENUM:
    case BTF_KIND_ENUM64: return std::string("enum ") + name;
    case BTF_KIND_PTR: return TypeName(b, t->type, depth + 1) + " *";
    case BTF_KIND_ARRAY: {
      const auto* a = btf_array(t);
      return TypeName(b, a->type, depth + 1) + "[" + std::to_string(a->nelems) + "]";
    }
    case BTF_KIND_CONST:
    case BTF_KIND_VOLATILE:
    case BTF_KIND_RESTRICT:
    case BTF_KIND_TYPE_TAG: return TypeName(b, t->type, depth + 1);
    default: return name && *name ? name : "?";
  }
}

// Strips typedefs and qualifiers; a chain longer than kMaxTypeDepth stays a typedef or
// qualifier, whose kind is kOther.
uint32_t Resolve(const btf* b, uint32_t id) {
  for (int depth = 0; depth <= kMaxTypeDepth; ++depth) {
    const btf_type* t = btf__type_by_id(b, id);
    if (!t) return id;
    const int k = btf_kind(t);
    if (k != BTF_KIND_TYPEDEF && k != BTF_KIND_CONST && k != BTF_KIND_VOLATILE &&
        k != BTF_KIND_RESTRICT && k != BTF_KIND_TYPE_TAG)
      return id;
    id = t->type;
  }
  return id;
}

ValueKind KindOf(const btf* b, uint32_t resolved) {
  const btf_type* t = btf__type_by_id(b, resolved);
  if (!t) return ValueKind::kOther;
  switch (btf_kind(t)) {
    case BTF_KIND_INT: {
      const uint8_t enc = btf_int_encoding(t);
      if (enc & BTF_INT_BOOL) return ValueKind::kBool;
      return (enc & BTF_INT_SIGNED) ? ValueKind::kSigned : ValueKind::kUnsigned;
    }
    case BTF_KIND_ENUM:
    case BTF_KIND_ENUM64: return ValueKind::kEnum;
    case BTF_KIND_PTR: return ValueKind::kPointer;
    case BTF_KIND_STRUCT: return ValueKind::kStruct;
    case BTF_KIND_UNION: return ValueKind::kUnion;
    case BTF_KIND_ARRAY: return ValueKind::kArray;
    case BTF_KIND_FLOAT: return ValueKind::kFloat;
    default: return ValueKind::kOther;
  }
}

bool EnumSigned(const btf_type* t) { return btf_kflag(t); }

uint64_t LoadBytes(const uint8_t* p, uint32_t size) {
  uint64_t v = 0;
  memcpy(&v, p, size < 8 ? size : 8);  // little-endian host and BPF target
  return v;
}

}  // namespace

const char* ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kSigned: return "signed integer";
    case ValueKind::kUnsigned: return "unsigned integer";
    case ValueKind::kBool: return "bool";
    case ValueKind::kEnum: return "enum";
    case ValueKind::kPointer: return "pointer";
    case ValueKind::kStruct: return "struct";
    case ValueKind::kUnion: return "union";
    case ValueKind::kArray: return "array";
    case ValueKind::kFloat: return "floating point";
    case ValueKind::kOther: return "other";
  }
  return "other";
}

Result<GlobalTable> GlobalTable::FromBtf(const btf* b) {
  if (!b) {
    return MakeError(DiagKind::kBadObject, EINVAL,
                     "the object has no BTF: compile it with `-g` so its globals can be "
                     "found by name");
  }
  GlobalTable table;
  table.btf_ = b;
  const uint32_t n = btf__type_cnt(b);
  for (uint32_t id = 1; id < n; ++id) {
    const btf_type* t = btf__type_by_id(b, id);
    if (!btf_is_datasec(t)) continue;
    const std::string section = btf__name_by_offset(b, t->name_off);
    if (!IsDataSection(section)) continue;
    const btf_var_secinfo* info = btf_var_secinfos(t);
    for (uint16_t i = 0; i < btf_vlen(t); ++i) {
      const btf_type* var = btf__type_by_id(b, info[i].type);
      if (!var || !btf_is_var(var)) continue;
      GlobalVar g;
      g.name = btf__name_by_offset(b, var->name_off);
      g.section = section;
      g.offset = info[i].offset;
      g.size = info[i].size;
      g.type_id = Resolve(b, var->type);
      g.kind = KindOf(b, g.type_id);
      g.type_name = TypeName(b, var->type);
      table.vars_.push_back(std::move(g));
    }
  }
  return table;
}

bool GlobalTable::Has(std::string_view name) const {
  for (const GlobalVar& v : vars_)
    if (v.name == name) return true;
  return false;
}

Result<GlobalVar> GlobalTable::Find(std::string_view path) const {
  const size_t dot = path.find('.');
  const std::string_view head = path.substr(0, dot);
  const GlobalVar* found = nullptr;
  for (const GlobalVar& v : vars_)
    if (v.name == head) found = &v;
  if (!found) {
    // Names beginning with `uringc_` belong to the runtime and the compiler (ring layout, task
    // state, status), never to the user: listing them would bury the ones a user can set.
    std::string names;
    for (const GlobalVar& v : vars_) {
      if (v.name.rfind("uringc_", 0) == 0) continue;
      names += (names.empty() ? "" : ", ") + ("`" + v.name + "`");
    }
    return MakeError(
        DiagKind::kBadParameter, ENOENT,
        "the controller has no global `" + std::string(head) + "`" +
            (names.empty() ? std::string(" (it declares none)") : "; it declares " + names));
  }
  GlobalVar cur = *found;
  std::string_view rest = dot == std::string_view::npos ? "" : path.substr(dot + 1);
  while (!rest.empty()) {
    const size_t next = rest.find('.');
    const std::string_view member = rest.substr(0, next);
    const btf_type* t = btf__type_by_id(btf_, cur.type_id);
    if (!t || !btf_is_composite(t)) {
      return MakeError(DiagKind::kBadParameter, EINVAL,
                       "`" + cur.name + "` is a " + cur.type_name +
                           ", not a struct: it has no member `" + std::string(member) + "`");
    }
    const btf_member* m = btf_members(t);
    bool matched = false;
    for (uint16_t i = 0; i < btf_vlen(t); ++i) {
      if (member != btf__name_by_offset(btf_, m[i].name_off)) continue;
      if (btf_member_bitfield_size(t, i) != 0) {
        return MakeError(DiagKind::kBadParameter, EINVAL,
                         "`" + cur.name + "." + std::string(member) +
                             "` is a bit-field; set the whole struct instead");
      }
      const long size = btf__resolve_size(btf_, m[i].type);
      if (size < 0)
        return MakeError(DiagKind::kBadParameter, EINVAL,
                         "cannot size member `" + std::string(member) + "`");
      // The object's BTF may place a member anywhere: it must lie inside what holds it, or a
      // read through the member path would leave the variable's bytes.
      const uint64_t at = btf_member_bit_offset(t, i) / 8;
      if (at + static_cast<uint64_t>(size) > cur.size) {
        return MakeError(DiagKind::kBadParameter, EINVAL,
                         "member `" + std::string(member) + "` of `" + cur.name +
                             "` lies outside it (bytes " + std::to_string(at) + " to " +
                             std::to_string(at + static_cast<uint64_t>(size)) + " of " +
                             std::to_string(cur.size) + ")");
      }
      cur.name += "." + std::string(member);
      cur.offset += static_cast<uint32_t>(at);
      cur.size = static_cast<uint32_t>(size);
      cur.type_id = Resolve(btf_, m[i].type);
      cur.kind = KindOf(btf_, cur.type_id);
      cur.type_name = TypeName(btf_, m[i].type);
      matched = true;
      break;
    }
    if (!matched) {
      return MakeError(
          DiagKind::kBadParameter, ENOENT,
          "`" + cur.name + "` (" + cur.type_name + ") has no member `" + std::string(member) + "`");
    }
    rest = next == std::string_view::npos ? "" : rest.substr(next + 1);
  }
  return cur;
}

bool GlobalTable::Signed(const GlobalVar& v) const {
  return v.kind == ValueKind::kSigned ||
         (v.kind == ValueKind::kEnum && EnumSigned(btf__type_by_id(btf_, v.type_id)));
}

Result<std::vector<uint8_t>> GlobalTable::EncodeUint(const GlobalVar& v, uint64_t value) const {
  if (v.kind != ValueKind::kSigned && v.kind != ValueKind::kUnsigned && v.kind != ValueKind::kBool &&
      v.kind != ValueKind::kEnum) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "`" + v.name + "` is a " + v.type_name + " (" + ValueKindName(v.kind) +
                         "), not an integer");
  }
  if (v.size == 0 || v.size > 8) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "`" + v.name + "` has " + std::to_string(v.size) +
                         " bytes; integers of 1 to 8 bytes can be set");
  }
  const bool is_signed = Signed(v);
  const unsigned bits = v.size * 8 - (is_signed ? 1 : 0);
  const uint64_t max = bits >= 64 ? std::numeric_limits<uint64_t>::max() : (1ULL << bits) - 1;
  if (value > max || (v.kind == ValueKind::kBool && value > 1)) {
    return MakeError(DiagKind::kBadParameter, ERANGE,
                     std::to_string(value) + " does not fit `" + v.name + "` (" + v.type_name +
                         ", at most " + std::to_string(v.kind == ValueKind::kBool ? 1 : max) + ")");
  }
  std::vector<uint8_t> out(v.size);
  memcpy(out.data(), &value, v.size);
  return out;
}

Result<std::vector<uint8_t>> GlobalTable::EncodeInt(const GlobalVar& v, int64_t value) const {
  if (value >= 0) return EncodeUint(v, static_cast<uint64_t>(value));
  auto unsigned_check = EncodeUint(v, 0);  // kind and size checks
  if (!unsigned_check) return unsigned_check.error();
  const bool is_signed = Signed(v);
  if (!is_signed) {
    return MakeError(DiagKind::kBadParameter, ERANGE,
                     "`" + v.name + "` is " + v.type_name + " (unsigned): it cannot hold " +
                         std::to_string(value));
  }
  const int64_t min = v.size >= 8 ? std::numeric_limits<int64_t>::min()
                                  : -(int64_t{1} << (v.size * 8 - 1));
  if (value < min) {
    return MakeError(DiagKind::kBadParameter, ERANGE,
                     std::to_string(value) + " does not fit `" + v.name + "` (" + v.type_name +
                         ", at least " + std::to_string(min) + ")");
  }
  std::vector<uint8_t> out(v.size);
  memcpy(out.data(), &value, v.size);
  return out;
}

Result<std::vector<uint8_t>> GlobalTable::Encode(const GlobalVar& v, std::string_view text) const {
  const std::string s(text);
  if (v.kind == ValueKind::kBool || (v.kind != ValueKind::kEnum && (s == "true" || s == "false"))) {
    if (s == "true") return EncodeUint(v, 1);
    if (s == "false") return EncodeUint(v, 0);
  }
  if (v.kind == ValueKind::kEnum && !s.empty() && !isdigit(static_cast<unsigned char>(s[0])) &&
      s[0] != '-') {
    const btf_type* t = btf__type_by_id(btf_, v.type_id);
    std::string names;
    for (uint16_t i = 0; i < btf_vlen(t); ++i) {
      const bool is64 = btf_is_enum64(t);
      const char* name = btf__name_by_offset(
          btf_, is64 ? btf_enum64(t)[i].name_off : btf_enum(t)[i].name_off);
      if (s == name) {
        return is64 ? EncodeUint(v, btf_enum64_value(&btf_enum64(t)[i]))
                    : EncodeInt(v, btf_enum(t)[i].val);
      }
      names += (names.empty() ? "" : ", ") + std::string(name);
    }
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "`" + s + "` is not a value of " + v.type_name + " (one of: " + names + ")");
  }
  if (s.empty())
    return MakeError(DiagKind::kBadParameter, EINVAL, "no value given for `" + v.name + "`");
  auto n = ParseInteger(s);
  if (!n) {
    return MakeError(DiagKind::kBadParameter, n.error().code,
                     "`" + v.name + "` (" + v.type_name + "): " + n.error().message);
  }
  if (!n->negative) return EncodeUint(v, n->magnitude);
  auto kind_check = EncodeUint(v, 0);  // an integer of 1 to 8 bytes
  if (!kind_check) return kind_check.error();
  if (!Signed(v)) {
    return MakeError(DiagKind::kBadParameter, ERANGE,
                     "`" + v.name + "` is " + v.type_name + " (unsigned): it cannot hold " + s);
  }
  if (n->magnitude > uint64_t{1} << 63) {
    return MakeError(DiagKind::kBadParameter, ERANGE,
                     "`" + s + "` does not fit `" + v.name + "` (" + v.type_name + ")");
  }
  return EncodeInt(v, static_cast<int64_t>(0 - n->magnitude));
}

Result<int64_t> GlobalTable::DecodeInt(const GlobalVar& v, const uint8_t* bytes) const {
  if (v.kind != ValueKind::kSigned && v.kind != ValueKind::kUnsigned && v.kind != ValueKind::kBool &&
      v.kind != ValueKind::kEnum) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "`" + v.name + "` is a " + v.type_name + ", not an integer");
  }
  if (v.size == 0 || v.size > 8)
    return MakeError(DiagKind::kBadParameter, EINVAL, "`" + v.name + "` is too wide");
  uint64_t raw = LoadBytes(bytes, v.size);
  const bool is_signed = Signed(v);
  if (is_signed && v.size < 8 && (raw >> (v.size * 8 - 1)) & 1) raw |= ~0ULL << (v.size * 8);
  return static_cast<int64_t>(raw);
}

std::string GlobalTable::Format(const GlobalVar& v, const uint8_t* bytes) const {
  const btf_type* t = btf__type_by_id(btf_, v.type_id);
  switch (v.kind) {
    case ValueKind::kSigned:
    case ValueKind::kUnsigned:
    case ValueKind::kBool: {
      auto x = DecodeInt(v, bytes);
      if (!x) break;
      if (v.kind == ValueKind::kBool) return *x ? "true" : "false";
      return v.kind == ValueKind::kSigned ? std::to_string(*x)
                                          : std::to_string(static_cast<uint64_t>(*x));
    }
    case ValueKind::kEnum: {
      auto x = DecodeInt(v, bytes);
      if (!x) break;
      for (uint16_t i = 0; !btf_is_enum64(t) && i < btf_vlen(t); ++i)
        if (btf_enum(t)[i].val == static_cast<int32_t>(*x))
          return btf__name_by_offset(btf_, btf_enum(t)[i].name_off);
      return std::to_string(*x);
    }
    case ValueKind::kStruct: {
      std::string out = "{";
      const btf_member* m = btf_members(t);
      for (uint16_t i = 0; i < btf_vlen(t); ++i) {
        const char* name = btf__name_by_offset(btf_, m[i].name_off);
        if (!name || !*name || btf_member_bitfield_size(t, i)) continue;
        auto member = Find(v.name + "." + name);
        if (!member) continue;
        out += std::string(out.size() > 1 ? ", " : "") + name + " = " +
               Format(*member, bytes + (member->offset - v.offset));
      }
      return out + "}";
    }
    default: break;
  }
  std::string hex;
  char buf[4];
  for (uint32_t i = 0; i < v.size && i < 64; ++i) {
    snprintf(buf, sizeof(buf), "%02x", bytes[i]);
    hex += buf;
  }
  return "0x" + hex + (v.size > 64 ? "..." : "");
}

}  // namespace uringc
