/* fmerge's profile runtime: what an instrumented module runs to write its counters.
 *
 * What. Each module `fmerge instrument` produces carries one copy of this file, linked into
 * it as LLVM bitcode (runtime_link.cpp). It appends the module's data block
 * (`__fmerge_prof_data`: the header of record.h and the counters) to the file named by
 * $FMERGE_PROFILE_FILE (default `fmerge.profraw`) once per process: at exit and, when built
 * with FMERGE_PROF_ON_SIGNALS (`--write-on-signal`), when one of the signals below ends the
 * process. fmerge_core::profiling::files::read_raw reads the records.
 *
 * Why C. The runtime used to be generated instruction by instruction in the shim; as C it
 * reads like the program it is. It still must not depend on the host: build.rs compiles it
 * with clang for every architecture fmerge has a runtime for, without any system header
 * (-nostdlibinc: only clang's own <stdint.h> and <stddef.h>), so the few C library functions
 * and Linux constants it needs are declared here, as Linux's generic ABI has them (glibc and
 * musl on x86, Arm, AArch64, RISC-V, LoongArch; fm_profile_runtime refuses --write-on-signal
 * elsewhere).
 *
 * How.
 * - Per module (`static`, internal once linked): the start time, the file name, the "written"
 *   flag, a constructor and a destructor. The constructor (priority 0, before the program's
 *   own) notes the start time and the file name. The destructor (priority 0: run by exit()
 *   and by returning from main, after the program's destructors and atexit handlers) writes
 *   the record.
 * - A record is written with one write(2) on an O_APPEND descriptor, so the records of
 *   processes running at the same time do not interleave. A forked child writes its own
 *   record, which includes what ran before the fork: each record is the whole history of one
 *   process, consistent on its own. A process that calls _exit() writes nothing. The flag,
 *   exchanged atomically, makes it once per process whichever of exit and signal comes first.
 * - The counters are not the runtime's: `__fmerge_prof_data` is the module's internal
 *   global, which the shim lets this file's declaration resolve to while linking. The record's
 *   size is read from its own header (word FMERGE_RAW_COUNTERS_WORD).
 * - With FMERGE_PROF_ON_SIGNALS, the constructor installs a handler for each signal of
 *   written_on_signal whose disposition is still the default (one ignored or handled when the
 *   program starts stays so). The handler and the table of writers are shared by every
 *   instrumented module of the process: weak symbols, one copy after linking, each module's
 *   constructor registering its writer in the table. The handler writes each module's record,
 *   marked with the signal, then raises the signal again, which the handler's one-shot
 *   disposition (SA_RESETHAND) turns into the default action: the process ends as it would
 *   have, with the same status. Everything the handler calls is async-signal-safe.
 *   The record of a run ended by a signal stops mid-run: the functions on the stack did not
 *   finish, and counters kept in registers through a loop (counter promotion) miss the loop's
 *   last pass; `fmerge profile merge` says which functions it had to count without such runs.
 *   The handlers are visible to the program (a program that asks whether SIGINT is at its
 *   default, as CPython does, gets "no"): that is why they are an option. */

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* ---- The C library, declared by hand (no system headers: see above) -------------------- */

/* struct timespec as every 64-bit Linux target (and x32) has it: 64-bit seconds and
 * nanoseconds. On a 32-bit target whose clock_gettime fills in 32-bit fields the times come
 * out wrong (never the counts), but the struct is large enough for every layout. */
struct fm_timespec {
  int64_t tv_sec;
  int64_t tv_nsec;
};

/* Linux's generic struct sigaction as the C library declares it: handler, a 1024-bit
 * sigset_t, flags, restorer. */
struct fm_sigaction {
  void (*sa_handler)(int);
  uint32_t sa_mask[32];
  int sa_flags;
  void (*sa_restorer)(void);
};

char *getenv(const char *name);
int open(const char *path, int flags, ...);
long write(int fd, const void *buf, size_t len);
int close(int fd);
int clock_gettime(int clock, struct fm_timespec *ts);
int sigaction(int sig, const struct fm_sigaction *act, struct fm_sigaction *old);
int raise(int sig);

enum {
  FM_CLOCK_MONOTONIC = 1,
  FM_CLOCK_PROCESS_CPUTIME_ID = 2,
  /* O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC */
  FM_OPEN_FLAGS = 0x1 | 0x40 | 0x400 | 0x80000,
  FM_OPEN_MODE = 0644,
};

/* ---- Per module ------------------------------------------------------------------------- */

/* The module's data block: FMERGE_RAW_HEADER_WORDS header words, then the counters. */
extern uint64_t __fmerge_prof_data[];

static int64_t __fmerge_prof_start; /* CLOCK_MONOTONIC ns at the constructor */
static const char *__fmerge_prof_path;
static uint32_t __fmerge_prof_written;

static int64_t fm_clock_ns(int clock) {
  struct fm_timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Fills in the header words known only now and appends the record, the first time only.
 * `end`: 0 at exit, else the signal that ends the process. */
static void __fmerge_prof_write_end(uint64_t end) {
  if (__atomic_exchange_n(&__fmerge_prof_written, 1, __ATOMIC_SEQ_CST) != 0)
    return;
  uint64_t *data = __fmerge_prof_data;
  data[FMERGE_RAW_WALL_WORD] = (uint64_t)(fm_clock_ns(FM_CLOCK_MONOTONIC) - __fmerge_prof_start);
  data[FMERGE_RAW_CPU_WORD] = (uint64_t)fm_clock_ns(FM_CLOCK_PROCESS_CPUTIME_ID);
  data[FMERGE_RAW_END_WORD] = end;
  int fd = open(__fmerge_prof_path, FM_OPEN_FLAGS, FM_OPEN_MODE);
  if (fd < 0)
    return;
  size_t words = FMERGE_RAW_HEADER_WORDS + (size_t)data[FMERGE_RAW_COUNTERS_WORD];
  write(fd, data, words * sizeof(uint64_t));
  close(fd);
}

#if FMERGE_PROF_ON_SIGNALS

/* ---- Shared by every instrumented module of the process (weak: one copy) ---------------- */

/* Room for this many modules' writers; a module past them still writes at exit. */
#define FM_MAX_WRITERS 64

__attribute__((weak)) void (*__fmerge_prof_writers[FM_MAX_WRITERS])(uint64_t);
__attribute__((weak)) uint32_t __fmerge_prof_nwriters;

/* Writes every registered module's record, then lets the signal take its default action. */
__attribute__((weak)) void __fmerge_prof_on_signal(int sig) {
  uint32_t n = __atomic_load_n(&__fmerge_prof_nwriters, __ATOMIC_SEQ_CST);
  uint64_t limit = n < FM_MAX_WRITERS ? n : FM_MAX_WRITERS;
  for (uint64_t i = 0; i < limit; ++i) {
    void (*writer)(uint64_t) = __fmerge_prof_writers[i];
    if (writer)
      writer((uint64_t)(uint32_t)sig);
  }
  raise(sig);
}

/* The signals a record is written on: those whose default action ends the process and that
 * a program may get in normal use (HUP INT QUIT ILL TRAP ABRT FPE PIPE ALRM TERM XCPU XFSZ),
 * numbered as Linux's generic ABI has them. Not SIGSEGV and SIGBUS: language runtimes install
 * their own handlers for those only over the default disposition (Rust's report of a stack
 * overflow), which ours would hide from them. */
static const int written_on_signal[] = {1, 2, 3, 4, 5, 6, 8, 13, 14, 15, 24, 25};

/* One-shot (SA_RESETHAND) and not blocking the signal (SA_NODEFER), so that raising it again
 * in the handler takes the default action at once. */
static const struct fm_sigaction on_signal_action = {
    .sa_handler = __fmerge_prof_on_signal,
    .sa_flags = (int)(0x40000000u /* SA_NODEFER */ | 0x80000000u /* SA_RESETHAND */),
};

/* Registers this module's writer and installs the handler where the signal is at its
 * default (SIG_DFL, a null handler). */
static void fm_join_signal_writers(void) {
  uint32_t slot = __atomic_fetch_add(&__fmerge_prof_nwriters, 1, __ATOMIC_SEQ_CST);
  if (slot < FM_MAX_WRITERS)
    __fmerge_prof_writers[slot] = __fmerge_prof_write_end;
  for (size_t i = 0; i < sizeof written_on_signal / sizeof written_on_signal[0]; ++i) {
    union {
      struct fm_sigaction action;
      uint64_t room[64]; /* larger than any C library's struct sigaction */
    } old;
    sigaction(written_on_signal[i], NULL, &old.action);
    if (old.action.sa_handler == NULL)
      sigaction(written_on_signal[i], &on_signal_action, NULL);
  }
}

#endif /* FMERGE_PROF_ON_SIGNALS */

/* Priority 0 (priorities up to 100 are the implementation's, which the runtime is here): the
 * constructor runs before the program's constructors, the destructor after its destructors. */
__attribute__((constructor(0))) static void __fmerge_prof_init(void) {
  __fmerge_prof_start = fm_clock_ns(FM_CLOCK_MONOTONIC);
  const char *path = getenv("FMERGE_PROFILE_FILE");
  __fmerge_prof_path = path ? path : "fmerge.profraw";
#if FMERGE_PROF_ON_SIGNALS
  fm_join_signal_writers();
#endif
}

__attribute__((destructor(0))) static void __fmerge_prof_write(void) {
  __fmerge_prof_write_end(0);
}
