/* Functions equal up to the globals, strings and callees they use: constant-parameterized
   merging turns them into one body plus thunks (or rewritten call sites). */
#include <stdio.h>
#include <string.h>

struct account { long balance; int ops; char name[16]; };
static struct account checking, savings, loans, escrow;

__attribute__((noinline)) static long log_plain(const char *what, long v) { printf("[plain] %s %ld\n", what, v); return v; }
__attribute__((noinline)) static long log_loud(const char *what, long v) { printf("[LOUD] %s %ld!\n", what, v); return v * 2; }

#define DEPOSIT(NAME, ACC, LOG, TAG)                                          \
  __attribute__((noinline)) static long NAME(long amount) {                   \
    if (amount <= 0) { LOG(TAG " rejected", amount); return ACC.balance; }    \
    ACC.balance += amount;                                                    \
    ACC.ops++;                                                                \
    if (ACC.ops % 3 == 0) LOG(TAG " milestone", ACC.ops);                     \
    if (strlen(ACC.name) == 0) strcpy(ACC.name, TAG);                         \
    return LOG(TAG " balance", ACC.balance);                                  \
  }

DEPOSIT(deposit_checking, checking, log_plain, "chk")
DEPOSIT(deposit_savings, savings, log_plain, "sav")
DEPOSIT(deposit_loans, loans, log_loud, "lns")
DEPOSIT(deposit_escrow, escrow, log_loud, "esc")

long (*volatile escape)(long) = deposit_escrow;

int main(void) {
  long t = 0;
  for (long i = -1; i < 7; i++) {
    t += deposit_checking(i * 10);
    t += deposit_savings(i * 20 + 1);
    t += deposit_loans(i * 30 + 2);
    t += escape(i * 40 + 3);
  }
  printf("total %ld names %s %s %s %s\n", t, checking.name, savings.name, loans.name, escrow.name);
  return 0;
}
