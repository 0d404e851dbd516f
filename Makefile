# The user's vocabulary. Every target first installs whatever is missing (scripts/setup.sh,
# idempotent and quick when nothing is), then builds out of tree.
#
#   make run     build, bake the built-in humanoid, show it
#   make test    build (Release and ASan+UBSan) and run every test
#   make bench   build and run the benchmarks
#   make clean   remove the build trees

JOBS ?= 2
BUILD ?= build
ASAN_BUILD ?= build-asan
CMAKE ?= cmake

.PHONY: all setup build build-asan test run bench clean

all: build

setup:
	@scripts/setup.sh

build: setup
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > /dev/null
	@$(CMAKE) --build $(BUILD) -j $(JOBS)

build-asan: setup
	@$(CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCROWD_SANITIZE=ON > /dev/null
	@$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)

# Release suite first (everything), then the core and baker tests again under ASan + UBSan.
test: build build-asan
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS) -L 'core|bake'

$(BUILD)/humanoid.crowd: build
	@$(BUILD)/crowd-bake --bones --out $@ --quiet

run: build $(BUILD)/humanoid.crowd
	@$(BUILD)/crowd-bake --bones --out $(BUILD)/humanoid.crowd
	@echo
	@$(BUILD)/crowd-verify $(BUILD)/humanoid.crowd
	@mkdir -p $(BUILD)/shots
	@$(BUILD)/crowd-shot $(BUILD)/humanoid.crowd --out $(BUILD)/shots/crowd.png --count 20000

bench: build
	@$(BUILD)/crowd-bake --bones --time 21
	@$(BUILD)/crowd-bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
