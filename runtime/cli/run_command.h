// `uringc run`: load a controller object onto a fresh ring, set its parameters, run it to the end,
// print its outputs and statistics; or do all that inside the project's VM (--vm). `uringc-run`
// is a thin main over RunCommandMain; the `uringc` driver parses `uringc run`'s own command line
// (which adds the compile options) and calls RunParsedCommand.
#pragma once

#include <functional>
#include <string>

#include "run_args.h"
#include "uringc/verifier_report.h"

namespace uringc {

/// Prints a command's failure on stderr as `PROGRAM: error: MESSAGE [Kind]`, the message's
/// further lines after it (escaped for the terminal).
void PrintCommandError(const std::string& program, const Error& e);

/// Runs `command` as the run commands run everything: until it replaces them (once a controller
/// runs), SIGINT, SIGTERM and SIGHUP remove what the command registered (interrupt.h) and end it
/// with 130; the caller's dispositions come back afterwards; no exception escapes (out of memory
/// and internal errors are printed, status 1).
int RunGuarded(const std::string& program, const std::function<int()>& command);

/// Parses argv (run_args.h; argv[0] names the program in messages) and runs it. Returns the
/// process exit status (diag/exit_status.h): 0 done, 1 failure, 2 usage error, 130 interrupted.
int RunCommandMain(int argc, char** argv);

/// Runs a parsed command line; `program` begins the messages ("uringc run"). The same statuses.
/// `texts`: the sources of the object, when the caller compiled it from them (verifier reports
/// quote these rather than the files on disk; see BuildVerifierReport).
int RunParsedCommand(const RunArgs& args, const std::string& program,
                     const SourceTexts& texts = {});

}  // namespace uringc
