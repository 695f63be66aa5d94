/* The raw profile record that an instrumented program appends, one per instrumented module
 * per run: the layout of the module's data block, shared by the runtime (runtime.c, which
 * fills in and writes it) and the shim (counters.cpp, which creates it, and runtime_link.cpp,
 * which checks that the data block and the Rust side agree with it before linking the runtime
 * in).
 *
 * A record is the module's whole data block, `__fmerge_prof_data`: FMERGE_RAW_HEADER_WORDS
 * header words, then the counters, every word a uint64_t in the target's byte order. The
 * reader is fmerge_core::profiling::files::read_raw (RAW_HEADER_WORDS and RAW_END_WORD there are the
 * values here).
 *
 * Plain C (no C++), so that runtime.c can include it. */
#ifndef FMERGE_PROFILING_RECORD_H
#define FMERGE_PROFILING_RECORD_H

/* Header words. */
#define FMERGE_RAW_MAGIC_WORD 0    /* "FMPRAW03", set when the module is instrumented */
#define FMERGE_RAW_MODULE_WORD 1   /* the probe map's module id, likewise */
#define FMERGE_RAW_COUNTERS_WORD 2 /* the number of counters after the header, likewise */
#define FMERGE_RAW_WALL_WORD 3     /* wall-clock ns from the constructor to the write */
#define FMERGE_RAW_WORK_WORD 4     /* work mode: updated by the instrumented code */
#define FMERGE_RAW_CPU_WORD 5      /* CPU ns of the process at the write */
#define FMERGE_RAW_END_WORD 6      /* 0: exit() or return from main; else the signal */
#define FMERGE_RAW_HEADER_WORDS 7

#endif
