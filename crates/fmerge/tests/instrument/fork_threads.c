/* A process that forks (the child runs more code, then exits with exit()) and runs threads
   that call the same function at the same time: with atomic counters every record adds up. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) static long work(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += (i & 3) ? i : -i;
  return s;
}

static void *thread_main(void *arg) {
  long n = (long)arg;
  for (int k = 0; k < 200; k++) sink += work(n + k);
  return NULL;
}

__attribute__((noinline)) static void child(void) {
  sink += work(77);
  printf("child done\n");
  fflush(stdout);
  exit(0);
}

int main(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, thread_main, (void *)(100 + i));
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) child();
  int status = 0;
  waitpid(pid, &status, 0);
  printf("parent done %d\n", WEXITSTATUS(status));
  return 0;
}
