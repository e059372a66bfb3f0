// `uringc run`: load a controller object onto a fresh ring, set its parameters, run it to the end,
// print its outputs and statistics; or do all that inside the project's VM (--vm). The `uringc`
// driver calls RunCommandMain with its own argv minus the `run` word; `uringc-run` is a thin main.
#pragma once

#include <string>

#include "uringc/verifier_report.h"

namespace uringc {

/// Returns the process exit status: 0 done, 1 failure, 2 usage error, 130 interrupted.
/// `texts`: the sources of the object, when the caller compiled it from them (verifier reports
/// quote these; see BuildVerifierReport).
int RunCommandMain(int argc, char** argv, const SourceTexts& texts = {});

}  // namespace uringc
