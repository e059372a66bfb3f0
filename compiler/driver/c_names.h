// Names a generated C header cannot use as identifiers: the keywords of C11 and C++17 and the
// macros the headers it includes define. The skeleton (skeleton.h) checks graph, parameter and
// output names against them, so a graph whose names would not compile is refused with a reason.
#pragma once

#include <string_view>

namespace uringc::driver {

/// Why `name` cannot be a C or C++ identifier in a generated header ("a C++ keyword"), or
/// nullptr when it can.
const char* ReservedInC(std::string_view name);

}  // namespace uringc::driver
