# fmerge: the two quick-start commands are `make demo` and `make test`; both set themselves up.

CARGO ?= cargo
FMERGE := target/release/fmerge

.PHONY: setup build demo test lint bench bench-quick clean

## Install LLVM 22 from Debian's packages if it is missing (needs root or sudo).
setup:
	@scripts/setup.sh

## Build fmerge (release).
build: setup
	$(CARGO) build --release -p fmerge

## Shrink the bundled example program and print a before/after table.
demo: build
	@scripts/demo.sh

## Run the whole test suite (unit, property, and end-to-end tests on C/C++ programs).
test: setup
	$(CARGO) test --workspace --release

## Formatting and lints, as CI would want them.
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

clean:
	$(CARGO) clean
	rm -rf build

-include bench/corpus/corpus.mk
-include bench/bench.mk
