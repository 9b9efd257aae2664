# Thin wrapper over CMake. `make check` is what CI runs (through the README).
BUILD ?= build
JOBS ?= $(shell nproc)
BENCH_MATRIX ?= gen:lap3d27:64

.PHONY: all build check check-release check-asan bench install clean

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j$(JOBS)

# Release build (CUDA code compiled when nvcc exists) and its tests, then the
# same tests under AddressSanitizer and UndefinedBehaviorSanitizer.
check: check-release check-asan

check-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j2

check-asan:
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPX_SANITIZE=ON -DSPX_CUDA=OFF
	cmake --build $(BUILD)-asan -j$(JOBS)
	ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(BUILD)-asan --output-on-failure -j2 -E '_(avx2|scalar)$$'

bench: build
	./$(BUILD)/spx bench $(BENCH_MATRIX) --peers

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan
