# The user's vocabulary. Every target first installs whatever is missing (scripts/setup.sh,
# idempotent and quick when nothing is), then builds out of tree.
#
#   make run     build, bake the built-in humanoid, show it
#   make test    build (Release and ASan+UBSan) and run every test
#   make bench   build and run the benchmarks
#   make fuzz    fuzz the glTF reader (libFuzzer, clang) for FUZZ_TIME seconds (default 600)
#   make clean   remove the build trees

JOBS ?= 2
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME ?= 600
CMAKE ?= cmake
FUZZ_ARGS = $(FUZZ_BUILD)/corpus tests/fuzz/corpus ../shared/assets/gltf -dict=tests/fuzz/gltf.dict \
	-max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/

.PHONY: all setup build build-asan build-fuzz test fuzz fuzz-smoke run bench bench-gltf clean

all: build

setup:
	@scripts/setup.sh

build: setup
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > /dev/null
	@$(CMAKE) --build $(BUILD) -j $(JOBS)

build-asan: setup
	@$(CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCROWD_SANITIZE=ON > /dev/null
	@$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)

# The glTF reader's libFuzzer target, in its own tree: it needs clang and instruments everything.
build-fuzz: setup
	@$(CMAKE) -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DCROWD_FUZZ=ON \
		-DCROWD_TOOLS=OFF -DCROWD_TESTS=OFF > /dev/null
	@$(CMAKE) --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_gltf

# Release suite first (everything), then the core and baker tests again under ASan + UBSan, then
# 45 seconds of fuzzing the glTF reader.
test: build build-asan build-fuzz
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS) -L 'core|bake'
	@$(MAKE) --no-print-directory fuzz-smoke

fuzz-smoke: build-fuzz
	@mkdir -p $(FUZZ_BUILD)/corpus
	@$(FUZZ_BUILD)/fuzz_gltf $(FUZZ_ARGS) -seed=1 -max_total_time=45 > $(FUZZ_BUILD)/fuzz-smoke.log 2>&1 \
		|| { tail -60 $(FUZZ_BUILD)/fuzz-smoke.log; echo "fuzz: FAILED (log: $(FUZZ_BUILD)/fuzz-smoke.log)"; exit 1; }
	@grep -E "stat::number_of_executed_units" $(FUZZ_BUILD)/fuzz-smoke.log | sed 's/^/fuzz: 45 s, /'

fuzz: build-fuzz
	@mkdir -p $(FUZZ_BUILD)/corpus
	$(FUZZ_BUILD)/fuzz_gltf $(FUZZ_ARGS) -max_total_time=$(FUZZ_TIME)

$(BUILD)/humanoid.crowd: build
	@$(BUILD)/crowd-bake --bones --out $@ --quiet

run: build $(BUILD)/humanoid.crowd
	@$(BUILD)/crowd-bake --bones --out $(BUILD)/humanoid.crowd
	@echo
	@$(BUILD)/crowd-inspect $(BUILD)/humanoid.crowd
	@echo
	@$(BUILD)/crowd-verify $(BUILD)/humanoid.crowd

bench: build
	@$(BUILD)/crowd-bake --bones --time 21

# glTF: read + bake medians for Fox and RobotExpressive, and reading cost against file size
bench-gltf: build
	@$(BUILD)/crowd-bake ../shared/assets/gltf/Fox.glb --bones --time 21
	@$(BUILD)/crowd-bake ../shared/assets/gltf/RobotExpressive.glb --bones --time 21
	@$(BUILD)/tests/gltf_read_bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
