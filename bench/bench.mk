# Makefile fragment for the benchmarks and soaks (bench/fmbench, one target per study; the table
# in bench/README.md says what each measures); included by the top-level Makefile after
# bench/corpus/corpus.mk.
#
#   make bench        all nine programs, x86-64 and AArch64; refreshes bench/RESULTS.md
#   make bench-quick  lua and bzip2, x86-64 and AArch64 (results in bench/results/<date>-quick)
#   make bench-time   Oz and fmerge timed alternately on the modules of the last `make bench`
#   make bench-STUDY  any other study (bench-reliability, bench-speed, ...); STUDY_ARGS are
#                     passed on (programs, options: `fmbench STUDY --help`)
#
# bench and bench-quick build fmerge (release) and whatever corpus modules are missing first; a
# corpus program is built once (its stats.json marks a finished build) and reused afterwards.
# The other studies want `make build` and the corpus (`make corpus`) done.

FMBENCH         ?= python3 bench/fmbench
BENCH_PY        ?= $(FMBENCH) sizes
BENCH_PROGRAMS  ?= sqlite lua quickjs zstd bzip2 xz leveldb fd tokei
BENCH_QUICK     ?= lua bzip2
BENCH_TARGETS   ?= x86_64 aarch64
BENCH_ARGS      ?=
STUDY_ARGS      ?=
CORPUS_A64_OUT  ?= build/corpus-aarch64

BENCH_CORPUS    = --corpus x86_64=$(CORPUS_OUT) --corpus aarch64=$(CORPUS_A64_OUT)

.PHONY: bench bench-quick bench-time bench-setup bench-fmerge

## Cross toolchain (AArch64 headers, libraries, binutils), qemu-user and Rust's aarch64 std.
bench-setup: setup
	@bench/setup-cross.sh

bench-fmerge: setup
	$(CARGO) build --release -p fmerge

# one finished corpus build per program and target; a failed build does not stop the
# benchmark (the harness then records the program's rows as errors)
$(CORPUS_OUT)/%/stats.json:
	$(CORPUS_PY) --out $(CORPUS_OUT) build -j$(CORPUS_JOBS) $* || echo "bench: corpus build of $* failed" >&2

$(CORPUS_A64_OUT)/%/stats.json: | bench-setup
	$(CORPUS_PY) --target aarch64 --out $(CORPUS_A64_OUT) build -j$(CORPUS_JOBS) $* || echo "bench: aarch64 corpus build of $* failed" >&2

bench_modules = $(foreach p,$(1),$(if $(filter x86_64,$(BENCH_TARGETS)),$(CORPUS_OUT)/$(p)/stats.json) \
                                 $(if $(filter aarch64,$(BENCH_TARGETS)),$(CORPUS_A64_OUT)/$(p)/stats.json))

bench: bench-setup bench-fmerge
	$(MAKE) --no-print-directory $(call bench_modules,$(BENCH_PROGRAMS))
	$(BENCH_PY) run --programs $(BENCH_PROGRAMS) --targets $(BENCH_TARGETS) $(BENCH_CORPUS) --publish $(BENCH_ARGS)

bench-quick: bench-setup bench-fmerge
	$(MAKE) --no-print-directory $(call bench_modules,$(BENCH_QUICK))
	$(BENCH_PY) run --quick --programs $(BENCH_QUICK) --targets $(BENCH_TARGETS) $(BENCH_CORPUS) $(BENCH_ARGS)

## Interleaved timing: `opt default<Oz>` and `fmerge opt` alternately, 5 runs each, on the Oz
## modules of the last `make bench` (timing.md next to its results; see cmd_time in sizes.py).
bench-time:
	$(BENCH_PY) time --programs $(BENCH_PROGRAMS) --targets $(BENCH_TARGETS) --out bench/results/$(shell date +%F)

# One target per study (`fmbench STUDY SUB`): bench-<name> runs `$(FMBENCH) <command> $(STUDY_ARGS)`.
BENCH_STUDIES = \
  reliability:reliability \
  testsuites:testsuites \
  csuites:csuites \
  plugin-suites:plugin-suites \
  plugin:plugin \
  linkcost:linkcost \
  speed:speed \
  profiling-overhead:profiling_overhead \
  profiling-compare:profiling_compare \
  costmodel:profiling_costmodel \
  outline:outline_compare \
  outline-verify:outline_verify \
  outline-separate:outline_separate \
  global:global_compare \
  global-bound:global_bound \
  global-stale:global_stale \
  estimate-check:estimate-check \
  outputs:outputs \
  cost:cost \
  wasm:wasm \
  embedded:embedded

define bench_study
.PHONY: bench-$(1)
bench-$(1):
	$$(FMBENCH) $(subst _, ,$(2)) $$(STUDY_ARGS)
endef
$(foreach s,$(BENCH_STUDIES),$(eval $(call bench_study,$(word 1,$(subst :, ,$(s))),$(word 2,$(subst :, ,$(s))))))
