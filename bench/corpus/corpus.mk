# Makefile fragment for the fmerge benchmark corpus (`fmbench corpus`, bench/fmbench/corpus.py);
# included by the top-level Makefile.  All outputs go to $(CORPUS_OUT) (default build/corpus),
# downloads to $FMERGE_CORPUS_CACHE (default ~/.cache/fmerge-corpus).
CORPUS_DIR    := $(dir $(lastword $(MAKEFILE_LIST)))
CORPUS_PY     ?= python3 $(CORPUS_DIR:corpus/=fmbench) corpus
CORPUS_JOBS   ?= 2
CORPUS_OUT    ?= build/corpus
# builds in under ~2 minutes on 2 cores (no Rust programs, no C++)
CORPUS_QUICK  ?= lua zstd bzip2 sqlite

.PHONY: corpus-fetch corpus corpus-quick corpus-list

corpus-fetch:
	$(CORPUS_PY) --out $(CORPUS_OUT) fetch

corpus: corpus-fetch
	$(CORPUS_PY) --out $(CORPUS_OUT) build -j$(CORPUS_JOBS) --keep-going --separate

corpus-quick:
	$(CORPUS_PY) --out $(CORPUS_OUT) fetch $(CORPUS_QUICK)
	$(CORPUS_PY) --out $(CORPUS_OUT) build -j$(CORPUS_JOBS) --keep-going $(CORPUS_QUICK)

corpus-list:
	$(CORPUS_PY) --out $(CORPUS_OUT) list
