// A run that a signal ends: `signals N HOW` calls count_up N times, prints whether SIGINT was
// at its default when main started, then ends by HOW: exit, term (SIGTERM), abort (SIGABRT),
// pipe (SIGPIPE: a write to a pipe nobody reads) or int-ignored (SIGINT, which the caller
// ignores: the program goes on and exits).
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int count_up(int n); // signals_lib.c, a module instrumented on its own

int main(int argc, char **argv) {
  struct sigaction old;
  sigaction(SIGINT, NULL, &old);
  printf("SIGINT at its default: %s\n", old.sa_handler == SIG_DFL ? "yes" : "no");
  int n = argc > 1 ? atoi(argv[1]) : 3, total = 0;
  for (int k = 0; k < n; ++k)
    total += count_up(k);
  printf("total %d\n", total);
  fflush(stdout);
  const char *how = argc > 2 ? argv[2] : "exit";
  if (!strcmp(how, "term"))
    raise(SIGTERM);
  if (!strcmp(how, "abort"))
    abort();
  if (!strcmp(how, "int-ignored"))
    raise(SIGINT);
  if (!strcmp(how, "pipe")) {
    int fds[2];
    if (pipe(fds) == 0) {
      close(fds[0]);
      (void)!write(fds[1], "x", 1);
    }
  }
  return 0;
}
