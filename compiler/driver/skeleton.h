// The skeleton of a compiled graph (`uringc compile --emit-skeleton`), as `bpftool gen skeleton`
// is for C controllers: one header an application includes to run the graph with no file at run
// time. It embeds the BPF object as bytes, declares `struct <graph>_params` and
// `struct <graph>_outputs` with the graph's own C types (c_header.h's mapping), and defines
// `<graph>__open/load/attach/run/read_outputs/destroy` as static inline functions over the C API
// (runtime/include/uringc/uringc.h). docs/embedding.md, "The skeleton", shows one in use.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rgir/rgir.h"

namespace uringc::driver {

struct SkeletonInput {
  const rgir::Graph* graph = nullptr;
  std::string file;             ///< the source, named in the header's first comment
  std::string_view bpf_object;  ///< the kernel engine's object, embedded as bytes
  /// With --target=host: the descriptor the linked object defines (uringc_program_<graph>), so
  /// both engines work; empty for a BPF object, whose skeleton runs on the kernel engine only.
  std::string host_symbol;
};

/// The skeleton header, or nullopt with `error` set when a name of the graph cannot be a C or
/// C++ identifier (a keyword, or a macro of a header the skeleton includes).
std::optional<std::string> CSkeleton(const SkeletonInput& in, std::string& error);

/// Where --emit-skeleton writes without a FILE: `<graph>.skel.h` in the directory of `output`
/// (the current one for `-`).
std::string SkeletonPathFor(const std::string& output, const std::string& graph);

}  // namespace uringc::driver
