// uringc-run: the run command as its own executable (see run_command.h).
#include "run_command.h"

int main(int argc, char** argv) { return uringc::RunCommandMain(argc, argv); }
