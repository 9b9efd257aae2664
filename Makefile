# Thin wrapper over CMake. `make check` is what CI runs (through the README).
BUILD ?= build
JOBS ?= $(shell nproc)
BENCH_MATRIX ?= gen:lap3d27:64
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

PYENV ?= $(BUILD)-python

.PHONY: all build check check-release check-asan check-python check-fuzz fuzz bench install clean

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j$(JOBS)

# Release build (CUDA code compiled when nvcc exists) and its tests, then the
# same tests under AddressSanitizer and UndefinedBehaviorSanitizer, then every
# fuzz harness for 60 seconds; the Python package is built and tested between.
check: check-release check-asan check-python check-fuzz

check-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j2

check-asan:
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPX_SANITIZE=ON -DSPX_CUDA=OFF
	cmake --build $(BUILD)-asan -j$(JOBS)
	ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(BUILD)-asan --output-on-failure -j2 -E '_(avx2|scalar)$$'

# The Python package (python/): installed into a fresh virtual environment
# with its test dependencies from PyPI, then its pytest suite.
check-python:
	python3 -m venv $(PYENV)
	$(PYENV)/bin/pip install -q "./python[test]"
	cd $(PYENV) && ./bin/python -m pytest -q $(CURDIR)/python/tests

# libFuzzer harnesses (tests/fuzz, README there): clang with ASan and UBSan,
# CUDA off, in $(FUZZ_BUILD); each replays its regressions, then fuzzes for
# FUZZ_SECONDS, two at a time (FUZZ_JOBS). New inputs stay in
# $(FUZZ_BUILD)/corpus; fails on any crash, leak, hang or sanitizer report.
fuzz:
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSPX_FUZZ=ON -DSPX_CUDA=OFF -DSPX_BUILD_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j$(JOBS) --target spx_fuzz
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

check-fuzz:
	$(MAKE) fuzz FUZZ_SECONDS=60

bench: build
	./$(BUILD)/spx bench $(BENCH_MATRIX) --peers

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(PYENV) python/build $(FUZZ_BUILD)
