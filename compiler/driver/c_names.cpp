// The reserved names of generated C headers; see c_names.h.
#include "driver/c_names.h"

#include <algorithm>
#include <iterator>

namespace uringc::driver {
namespace {

// Sorted, for binary search.
constexpr std::string_view kCKeywords[] = {
    "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary",
    "_Noreturn", "_Static_assert", "_Thread_local", "auto", "break", "case", "char", "const",
    "continue", "default", "do", "double", "else", "enum", "extern", "float", "for", "goto", "if",
    "inline", "int", "long", "register", "restrict", "return", "short", "signed", "sizeof",
    "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while"};

constexpr std::string_view kCxxKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char16_t",
    "char32_t", "class", "compl", "const_cast", "constexpr", "decltype", "delete",
    "dynamic_cast", "explicit", "export", "false", "friend", "mutable", "namespace", "new",
    "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected",
    "public", "reinterpret_cast", "static_assert", "static_cast", "template", "this",
    "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t",
    "xor", "xor_eq"};

// Macros of <errno.h>, <stdbool.h>, <stddef.h>, <stdint.h> and <stdlib.h> a member name would hit.
constexpr std::string_view kMacros[] = {
    "EINVAL", "ENOMEM", "EXIT_FAILURE", "EXIT_SUCCESS", "MB_CUR_MAX", "NULL", "RAND_MAX",
    "errno", "linux", "offsetof", "unix"};

bool In(const std::string_view* begin, const std::string_view* end, std::string_view name) {
  return std::binary_search(begin, end, name);
}

}  // namespace

const char* ReservedInC(std::string_view name) {
  if (In(std::begin(kCKeywords), std::end(kCKeywords), name)) return "a C keyword";
  if (In(std::begin(kCxxKeywords), std::end(kCxxKeywords), name)) return "a C++ keyword";
  if (In(std::begin(kMacros), std::end(kMacros), name)) return "a macro of the C library";
  return nullptr;
}

}  // namespace uringc::driver
