/* uringc-c-servers: the benchmark's hand-written liburing servers, one command for the three
 * (server_common.h), so the guest gets one binary:
 *   uringc-c-servers echo HOST:PORT
 *   uringc-c-servers file HOST:PORT ROOT
 *   uringc-c-servers proxy HOST:PORT UPSTREAM_HOST:PORT
 * Each serves until SIGINT or SIGTERM; exit status 0 then, 1 on an error, 2 for usage. */
#include <stdio.h>
#include <string.h>

int echo_main(int argc, char **argv);
int file_main(int argc, char **argv);
int proxy_main(int argc, char **argv);

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "echo") == 0) return echo_main(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "file") == 0) return file_main(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "proxy") == 0) return proxy_main(argc - 2, argv + 2);
  fprintf(stderr, "usage: uringc-c-servers echo|file|proxy HOST:PORT [ROOT | UPSTREAM]\n");
  return 2;
}
