# fmerge: the two quick-start commands are `make demo` and `make test`; both set themselves up.

CARGO ?= cargo
FMERGE := target/release/fmerge

.PHONY: setup build install demo test lint bench bench-quick reliability clean

## Install LLVM 22 from Debian's packages if it is missing (needs root or sudo).
setup:
	@scripts/setup.sh

## Build fmerge, `cargo fmerge` and the pass plugin (release): target/release/fmerge,
## target/release/cargo-fmerge and target/release/libfmerge_plugin.so.
build: setup
	$(CARGO) build --release -p fmerge -p cargo-fmerge -p fmerge-plugin

## Install fmerge and cargo-fmerge into BINDIR (default: cargo's bin directory, which is on
## PATH wherever cargo is, so `cargo fmerge` works in any project).
BINDIR ?= $(or $(CARGO_HOME),$(HOME)/.cargo)/bin
install: build
	install -d $(BINDIR)
	install -m 755 target/release/fmerge target/release/cargo-fmerge $(BINDIR)/
	@echo "installed fmerge and cargo-fmerge in $(BINDIR)"

## Shrink the bundled example program and print a before/after table.
demo: build
	@scripts/demo.sh

## Run the whole test suite (unit, property, and end-to-end tests on C/C++ and Rust programs,
## the pass plugin inside opt, clang, lld and cargo). The plugin tests use the built binaries.
test: setup
	$(CARGO) build --workspace --release
	$(CARGO) test --workspace --release

## The long correctness run (docs/RELIABILITY.md; a few hours on 2 cores): the corpus in every
## merge mode with valgrind, then Rust crates' and C/C++ libraries' own test suites in four modes.
## Each step runs even if one before it failed; the exit status says whether any did.
reliability: build corpus
	@status=0; \
	python3 bench/fmbench reliability --measure --valgrind --json build/reliability/x86_64.json || status=1; \
	python3 bench/fmbench testsuites --json build/testsuites/results.json || status=1; \
	python3 bench/fmbench csuites --json build/testsuites/c-results.json || status=1; \
	exit $$status

## Formatting and lints, as CI would want them.
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

clean:
	$(CARGO) clean
	rm -rf build

-include bench/corpus/corpus.mk
-include bench/bench.mk
