# The user's vocabulary. Every target first installs whatever is missing (scripts/setup.sh,
# idempotent and quick when nothing is), then builds out of tree.
#
#   make run         build, bake the built-in humanoid, open the demo (headless run without a display)
#   make test        build (Release, ASan+UBSan, TSan, web) and run every test
#   make test-package  install to a temporary prefix and build consumers on it (part of make test)
#   make analyze     cppcheck over the build's compile_commands.json, function sizes (part of make test)
#   make format      apply .clang-format;  make format-check: check it, that no tracked file reads a
#                    path outside the repository and that comments carry no history (part of make test)
#   make bench       build and run the benchmarks
#   make web         the deployable web demo in dist/ (BASE=/demo/ for an absolute base), the npm package in
#                    dist/pkg/ and the three.js example in dist/examples/web/
#   make web-single  one self-contained HTML file in dist-single/
#   make serve       build the web demo and serve dist/ on 127.0.0.1
#   make fuzz        fuzz the glTF reader (libFuzzer, clang) for FUZZ_TIME seconds (default 600)
#   make fuzz-crowd  fuzz the .crowd loader and its decoders for FUZZ_TIME seconds
#   make fuzz-frames fuzz the frames-dump reader and the rig built from it for FUZZ_TIME seconds
#   make clean       remove the build trees

JOBS ?= 2
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
WEB_BUILD ?= build-web
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME ?= 600
CMAKE ?= cmake
PORT ?= 8080
BASE ?=
# Debian's Emscripten needs Debian's acorn on the module path
EMENV = NODE_PATH=/usr/share/nodejs
comma := ,
empty :=
space := $(empty) $(empty)
# The demo's assets: the built-in humanoid, and the Fox (CC-BY 4.0, assets/gltf) baked from
# glTF, centimetres made metres.
DEMO_ASSETS = $(BUILD)/humanoid.crowd $(BUILD)/assets/fox.crowd
CRITTER_ASSETS = $(BUILD)/assets/critter-blob.crowd $(BUILD)/assets/critter-quad.crowd $(BUILD)/assets/critter-tube.crowd
# The web page also ships the critters (1.8-2.1 MB each against 7.6 / 7.8 MB for the humanoid and
# the Fox), so ?asset=menagerie mixes every kind.
WEB_ASSETS = $(DEMO_ASSETS) $(CRITTER_ASSETS)
ASSETS = $(subst $(space),$(comma),$(WEB_ASSETS))
FUZZ_ARGS = $(FUZZ_BUILD)/corpus tests/fuzz/corpus assets/gltf -dict=tests/fuzz/gltf.dict \
	-max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/
# The .crowd target's seeds are real bakes made here (never committed): new finds go to crowd-corpus.
CROWD_SEEDS = $(FUZZ_BUILD)/crowd-seeds
FUZZ_CROWD_ARGS = $(FUZZ_BUILD)/crowd-corpus $(CROWD_SEEDS) -timeout=20 -rss_limit_mb=3072 -print_final_stats=1 \
	-artifact_prefix=$(FUZZ_BUILD)/crowd-
# The frames-dump target's seeds are committed (tests/fuzz/frames); new finds go to frames-corpus.
FUZZ_FRAMES_ARGS = $(FUZZ_BUILD)/frames-corpus tests/fuzz/frames -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/frames-

.PHONY: all setup build critters build-asan build-tsan test-tsan build-web build-fuzz test test-web fuzz fuzz-smoke fuzz-crowd fuzz-frames fuzz-crowd-seeds \
	run bench bench-gltf web web-single serve clean \
	test-package analyze format format-check

all: build

setup:
	@scripts/setup.sh

build: setup
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > /dev/null
	@$(CMAKE) --build $(BUILD) -j $(JOBS)

# ASan + UBSan: the tests labelled core and bake (make test), so neither the GL layer nor the examples.
build-asan: setup
	@$(CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCROWD_SANITIZE=ON -DCROWD_GL=OFF -DCROWD_EXAMPLES=OFF \
		> /dev/null
	@$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)

# ThreadSanitizer: the runtime's worker threads (crowd_desc.threads) under the tests that run them
# (label `threads`: the pool and determinism test, the soak and test_crowd with threads on).
build-tsan: setup
	@$(CMAKE) -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCROWD_TSAN=ON -DCROWD_GL=OFF -DCROWD_TOOLS=OFF \
		-DCROWD_EXAMPLES=OFF > /dev/null
	@$(CMAKE) --build $(TSAN_BUILD) -j $(JOBS) --target test_threads test_soak test_crowd

test-tsan: build-tsan
	@cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 ctest --output-on-failure -j $(JOBS) -L threads

# The libFuzzer targets (glTF reader, .crowd loader), in their own tree: clang, everything instrumented.
build-fuzz: setup
	@$(CMAKE) -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DCROWD_FUZZ=ON \
		-DCROWD_TOOLS=OFF -DCROWD_TESTS=OFF -DCROWD_GL=OFF > /dev/null
	@$(CMAKE) --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_gltf fuzz_crowd fuzz_frames

# Release suite first (everything), then the core and baker tests again under ASan + UBSan, then
# 45 seconds of fuzzing the glTF reader beside 30 of the .crowd loader then 15 of the frames-dump reader, then the web build in Chromium.
test: build build-asan build-fuzz
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS) -L 'core|bake'
	@$(MAKE) --no-print-directory test-tsan
	@$(MAKE) --no-print-directory fuzz-smoke
	@$(MAKE) --no-print-directory test-web
	@$(MAKE) --no-print-directory test-package
	@$(MAKE) --no-print-directory analyze
	@$(MAKE) --no-print-directory format-check

# The package as an engine takes it: install the Release build to a temporary prefix, then
# consumers through find_package, pkg-config and add_subdirectory with gcc and clang (C and C++),
# a runtime-only build and a shared build (scripts/test-package.sh).
test-package: build
	@JOBS=$(JOBS) scripts/test-package.sh $(BUILD)

# Every library function is held to 80 lines and 8 parameters (scripts/check-functions.sh).
FUNCTION_CHECKED = src web/module

analyze: build
	@JOBS=$(JOBS) scripts/analyze.sh $(BUILD)
	@scripts/check-functions.sh $(FUNCTION_CHECKED)

format: setup
	@scripts/check-format.sh --fix

# Beside the format: no tracked file reaches outside the repository (scripts/check-paths.sh), no
# comment in include/ src/ tools/ demo/ examples/ web/ carries history or measurements
# (scripts/check-comments.sh), and each library folder includes only the layers below it
# (scripts/check-layers.sh). All four checks run and report even when one fails.
format-check: setup
	@status=0; scripts/check-format.sh || status=1; scripts/check-paths.sh || status=1; \
		scripts/check-comments.sh || status=1; scripts/check-layers.sh || status=1; exit $$status

fuzz-smoke: build-fuzz fuzz-crowd-seeds
	@mkdir -p $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/crowd-corpus $(FUZZ_BUILD)/frames-corpus
	@# two cores, two processes: the glTF reader for 45 s on one; the .crowd loader for 30 s, then the
	@# frames-dump reader for 15 s, on the other
	@$(FUZZ_BUILD)/fuzz_gltf $(FUZZ_ARGS) -seed=1 -max_total_time=45 > $(FUZZ_BUILD)/fuzz-smoke.log 2>&1 & gltf=$$!; \
	$(FUZZ_BUILD)/fuzz_crowd $(FUZZ_CROWD_ARGS) -seed=1 -max_total_time=30 > $(FUZZ_BUILD)/fuzz-crowd-smoke.log 2>&1; \
	crowd=$$?; \
	$(FUZZ_BUILD)/fuzz_frames $(FUZZ_FRAMES_ARGS) -seed=1 -max_total_time=15 > $(FUZZ_BUILD)/fuzz-frames-smoke.log 2>&1; \
	frames=$$?; wait $$gltf; gltf=$$?; \
	[ $$gltf = 0 ] || { tail -60 $(FUZZ_BUILD)/fuzz-smoke.log; echo "fuzz: FAILED (log: $(FUZZ_BUILD)/fuzz-smoke.log)"; }; \
	[ $$crowd = 0 ] || { tail -60 $(FUZZ_BUILD)/fuzz-crowd-smoke.log; echo "fuzz-crowd: FAILED (log: $(FUZZ_BUILD)/fuzz-crowd-smoke.log)"; }; \
	[ $$frames = 0 ] || { tail -60 $(FUZZ_BUILD)/fuzz-frames-smoke.log; echo "fuzz-frames: FAILED (log: $(FUZZ_BUILD)/fuzz-frames-smoke.log)"; }; \
	[ $$gltf = 0 ] && [ $$crowd = 0 ] && [ $$frames = 0 ]
	@grep -E "stat::number_of_executed_units" $(FUZZ_BUILD)/fuzz-smoke.log | sed 's/^/fuzz: 45 s, /'
	@grep -E "stat::number_of_executed_units" $(FUZZ_BUILD)/fuzz-crowd-smoke.log | sed 's/^/fuzz-crowd: 30 s, /'
	@grep -E "stat::number_of_executed_units" $(FUZZ_BUILD)/fuzz-frames-smoke.log | sed 's/^/fuzz-frames: 15 s, /'

# Seeds for fuzz_crowd from the Release crowd-bake: the humanoid as crowd-bake writes it by default,
# --compact, --fp16, --bones, the Fox in metres, and small bakes (few frames, low density) that the
# fuzzer can mutate quickly. Made once; `make clean` removes them with the fuzz tree.
fuzz-crowd-seeds: build
	@mkdir -p $(CROWD_SEEDS)
	@seed() { out="$(CROWD_SEEDS)/$$1.crowd"; shift; [ -s "$$out" ] || $(BUILD)/crowd-bake "$$@" --quiet --out "$$out"; } && \
		seed humanoid && seed humanoid_compact --compact && seed humanoid_fp16 --fp16 && \
		seed humanoid_bones --bones && \
		seed fox assets/gltf/Fox.glb --scale 0.01 --bones && \
		seed small --density 0.25 --frames 2 --clips idle,walk --lods 2 --lod-ratios 1,0.3 && \
		seed small_bones --density 0.25 --frames 2 --clips walk --bones --tangents --tex-width 64 && \
		seed small_fp16 --density 0.25 --frames 3 --clips wave --fp16 --lods 1 && \
		seed small_compact --density 0.25 --frames 2 --clips run,cheer --compact --tex-width 128 && \
		seed small_markers --density 0.25 --frames 8 --clips walk,wave --tex-width 256 --marker walk=hit@0.5 \
			--marker wave=top@1.6

fuzz-crowd: build-fuzz fuzz-crowd-seeds
	@mkdir -p $(FUZZ_BUILD)/crowd-corpus
	$(FUZZ_BUILD)/fuzz_crowd $(FUZZ_CROWD_ARGS) -max_total_time=$(FUZZ_TIME)

fuzz-frames: build-fuzz
	@mkdir -p $(FUZZ_BUILD)/frames-corpus
	$(FUZZ_BUILD)/fuzz_frames $(FUZZ_FRAMES_ARGS) -max_total_time=$(FUZZ_TIME)

fuzz: build-fuzz
	@mkdir -p $(FUZZ_BUILD)/corpus
	$(FUZZ_BUILD)/fuzz_gltf $(FUZZ_ARGS) -max_total_time=$(FUZZ_TIME)

# The page's baker needs the Debian sources of cJSON and meshoptimizer (scripts/wasm-sources.sh).
build-web: setup
	@scripts/wasm-sources.sh $(WEB_BUILD)/wasm-sources
	@$(EMENV) emcmake $(CMAKE) -S . -B $(WEB_BUILD) -DCMAKE_BUILD_TYPE=Release \
		-DCROWD_WASM_SOURCES=$(abspath $(WEB_BUILD))/wasm-sources > /dev/null
	@$(EMENV) $(CMAKE) --build $(WEB_BUILD) -j $(JOBS)

web: build-web $(WEB_ASSETS)
	@node web/build.mjs --web $(WEB_BUILD) --out dist --assets $(ASSETS) $(if $(BASE),--base $(BASE))
	@node web/package.mjs --web $(WEB_BUILD) --out dist

web-single: build-web $(WEB_ASSETS)
	@node web/build.mjs --web $(WEB_BUILD) --out dist-single --assets $(ASSETS) --single --no-compressed-sizes

serve: web
	@node web/serve.mjs dist $(PORT)

# The static server against hostile requests; the WGSL record decode against the C decode (WebGPU
# on SwiftShader's Vulkan, web/webgpu-test.mjs); the JavaScript package in Node, then in Chromium
# (SwiftShader WebGL2) with the three.js example; the demo site from a subdirectory, an absolute-base
# build without the trailing slash, and the single file from file://. The site is built as `make web`
# builds it, less the compressed-size report (80 s of brotli, nothing to test).
test-web: build-web $(WEB_ASSETS) web-single
	@node web/serve-test.mjs
	@$(BUILD)/tests/record_vectors $(BUILD)/humanoid.crowd $(BUILD)/record_vectors.bin
	@node web/webgpu-test.mjs --web $(WEB_BUILD) --vectors $(BUILD)/record_vectors.bin
	@node web/build.mjs --web $(WEB_BUILD) --out dist --assets $(ASSETS) --no-compressed-sizes
	@node web/build.mjs --web $(WEB_BUILD) --out $(BUILD)/dist-abs --assets $(ASSETS) --base /demo/ --no-compressed-sizes > /dev/null
	@node web/package.mjs --web $(WEB_BUILD) --out $(BUILD)/dist-abs > /dev/null
	@node web/package.mjs --web $(WEB_BUILD) --out dist > /dev/null
	@node_modules/.bin/tsc -p web/module/test/tsconfig.json
	@node web/module/test/node-test.mjs dist/pkg $(BUILD)/humanoid.crowd
	@node web/module-test.mjs --dist dist --shots $(BUILD)/shots/web --crowd-bake $(BUILD)/crowd-bake
	@node web/smoke.mjs --dist dist --single dist-single/index.html --abs $(BUILD)/dist-abs --shots $(BUILD)/shots/web

# The humanoid carries a web-sized imposter atlas (the cards past the last mesh level, on in the
# demo and the page): HUMANOID_CARDS, measured in tests/test_imposters (IMP_SPEC, IMP_ELEV) and in
# the browser (README, "Imposters"); the library's defaults (8 x 28 x 3, 32 texels) make 33 MB.
HUMANOID_CARDS ?= --imposter-frames 6 --imposter-views 28 --imposter-angles 8,24 --imposter-tile 20
# The assets follow the phony build (so the baker is current), but are baked again only when the
# baker or this Makefile is newer than the file: the humanoid's atlas takes ~20 s on llvmpipe.
stale = [ ! -f $@ ] || [ $(BUILD)/crowd-bake -nt $@ ] || [ Makefile -nt $@ ]
$(BUILD)/humanoid.crowd: build
	@if $(stale); then $(BUILD)/crowd-bake --bones $(HUMANOID_CARDS) --out $@ --quiet; fi

# The demo's fox: its file has one coat, so four more shades are added (crowd-export --add-variants)
# and the crowd picks one per fox.
$(BUILD)/assets/fox.crowd: build
	@mkdir -p $(dir $@)
	@if $(stale); then $(BUILD)/crowd-export assets/gltf/Fox.glb --add-variants 4 --out $(BUILD)/assets/fox-coats.glb \
		> /dev/null && $(BUILD)/crowd-bake $(BUILD)/assets/fox-coats.glb --scale 0.01 --bones --out $@ --quiet; fi

# With a display: the demo in a window. Without one: say so, render a scripted run headless through
# EGL (screenshots in build/shots) and point at the browser version.
# The shipped critter kinds (seed 1 each; CRITTER_ASSETS above), baked from their captures; G in the
# demo cycles to them.

$(BUILD)/assets/critter-%.crowd: build
	@mkdir -p $(dir $@)
	@if $(stale); then $(BUILD)/crowd-bake --critter $*:1 --out $@ --quiet; fi

critters: $(CRITTER_ASSETS)

run: build $(DEMO_ASSETS) $(CRITTER_ASSETS)
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] && [ -x $(BUILD)/crowd-demo ]; then \
		$(BUILD)/crowd-demo $(DEMO_ASSETS) $(CRITTER_ASSETS); \
	else \
		echo "No display found (DISPLAY and WAYLAND_DISPLAY are empty): rendering a scripted run headless instead."; \
		mkdir -p $(BUILD)/shots; \
		$(BUILD)/crowd-demo-headless $(DEMO_ASSETS) $(CRITTER_ASSETS) \
			--out-dir $(BUILD)/shots --count 20000 --frames 20 && \
		echo "For the interactive demo in a browser: make serve"; \
	fi

bench: build
	@$(BUILD)/crowd-bake --bones --time 21
	@$(BUILD)/crowd-bench

# glTF: read + bake medians for Fox and RobotExpressive, and reading cost against file size
bench-gltf: build
	@$(BUILD)/crowd-bake assets/gltf/Fox.glb --bones --time 21
	@$(BUILD)/crowd-bake assets/gltf/RobotExpressive.glb --bones --time 21
	@$(BUILD)/tests/gltf_read_bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(WEB_BUILD) $(FUZZ_BUILD) dist dist-single
