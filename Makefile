# bspkit: `make` builds build/bspkit, `make demo` converts the shipped sample, `make test` runs
# every test. `make demo` and `make test` (the README's two commands) install missing Debian
# packages first (scripts/install-deps); plain `make` and `make install` install nothing and say
# what is missing (`make deps` installs it).
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= 2
SAMPLE     ?= samples/ericw_q1_detail_fence2.bsp
SAMPLE2    ?= samples/bsp_tool_quake_mp_lobby.bsp
CMAKE_FLAGS ?=

.PHONY: all deps build test test-nocorpus demo asan fuzz bench corpus install clean python blender-addon web

all: build

deps:
	@scripts/install-deps

BUILD_PKGS = zlib libdeflate libcjson minizip spng
build:
	@pkg-config --exists $(BUILD_PKGS) 2>/dev/null && [ -f /usr/include/stb/stb_image.h ] && [ -f /usr/include/lzma/LzmaDec.c ] || { \
		echo "bspkit: build dependencies missing ($(BUILD_PKGS), stb, lzma-dev): run 'make deps', or 'make demo' / 'make test' which install them" >&2; exit 1; }
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# the Python package (python/) into a virtual environment over Debian's python3, cffi and numpy
# ($(BUILD)/pyenv, --system-site-packages: Debian's pip refuses system-wide installs, PEP 668),
# linked with $(BUILD)/libbspkit.a. Use it as $(BUILD)/pyenv/bin/python, or activate it.
PYENV ?= $(BUILD)/pyenv
python: deps
	@$(MAKE) --no-print-directory build
	@scripts/install-deps --python
	@[ -x $(PYENV)/bin/python ] || /usr/bin/python3 -m venv --system-site-packages --without-pip $(PYENV)
	@BSPKIT_BUILD_DIR=$(abspath $(BUILD)) $(PYENV)/bin/python -m pip install -q --no-build-isolation --no-deps --force-reinstall ./python
	@$(PYENV)/bin/python -c 'import bspkit; print("bspkit", bspkit.library_version(), "for Python in $(PYENV): $(PYENV)/bin/python -c \"import bspkit\"")'

# the Quake 3 maps, OpenArena textures and DPM models the tests use (Debian packages; cached in
# $$BSPKIT_CORPUS or ~/.cache/bspkit-corpus, fetched once)
CORPUS_DIR ?= $(or $(BSPKIT_CORPUS),$(HOME)/.cache/bspkit-corpus)
corpus:
	@if ! ls $(CORPUS_DIR)/pk3/oa-pak*-textures.pk3 >/dev/null 2>&1 || [ ! -f $(CORPUS_DIR)/MANIFEST.tsv ]; then \
		FETCH_TEXTURES=1 bash ../shared/scripts/fetch-corpus $(CORPUS_DIR) >/dev/null 2>&1 || \
		echo "note: fetch-corpus failed; Quake 3 / DPM tests will be skipped"; fi

# ctest, then the tests it skipped with their reasons and the command that enables them
# (scripts/install-deps --blender --web --fidelity: what only CI installs); its exit status is ctest's
test: deps
	@$(MAKE) --no-print-directory build corpus
	@scripts/install-deps --test
	@bash tests/tools/run-ctest.sh $(BUILD) -j$(JOBS)

# the quick suite (ctest -LE slow) with the corpora pointed at a folder that does not exist, in a
# build of its own: what needs them must skip, nothing may fail (make test on a machine without
# ../shared; CI runs it)
NOCORPUS_BUILD ?= build-nocorpus
test-nocorpus: deps
	@$(MAKE) --no-print-directory build BUILD=$(NOCORPUS_BUILD) \
		CMAKE_FLAGS="$(CMAKE_FLAGS) -DBSPKIT_SHARED_DIR=/nonexistent -DBSPKIT_FETCHED_CORPUS=/nonexistent"
	@scripts/install-deps --test
	@bash tests/tools/run-ctest.sh $(NOCORPUS_BUILD) -LE slow -j$(JOBS)

demo: deps
	@$(MAKE) --no-print-directory build
	@scripts/install-deps --test
	@mkdir -p $(BUILD)/demo
	$(BUILD)/bspkit info $(SAMPLE)
	$(BUILD)/bspkit convert $(SAMPLE) -o $(BUILD)/demo/sample.glb
	$(BUILD)/bspkit convert $(SAMPLE) -o $(BUILD)/demo/sample.obj
	$(BUILD)/bspkit convert $(SAMPLE2) -o $(BUILD)/demo/lobby.glb
	@node tests/tools/validate-gltf.mjs $(BUILD)/demo/sample.glb $(BUILD)/demo/lobby.glb
	$(BUILD)/bspkit render $(SAMPLE) -o $(BUILD)/demo/sample.png
	$(BUILD)/bspkit render $(SAMPLE2) -o $(BUILD)/demo/lobby.png
	$(BUILD)/bspkit render $(SAMPLE) --overview --mark-spawns -o $(BUILD)/demo/sample_overview.png
	@echo "previews (bspkit render, from the first player spawn): $(BUILD)/demo/sample.png $(BUILD)/demo/lobby.png;" \
		"overview: $(BUILD)/demo/sample_overview.png (+ .txt)"
	@echo "demo: open $(BUILD)/demo/sample.glb or lobby.glb in Blender or any glTF viewer"

asan: deps corpus
	@scripts/install-deps --test
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DBSPKIT_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j$(JOBS)

# libFuzzer targets, each run FUZZ_SECONDS with the corpus as seeds (crashes land in tests/crashers/)
FUZZ_SECONDS ?= 30
fuzz:
	@scripts/install-deps --fuzz
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBSPKIT_FUZZ=ON -DBSPKIT_TESTS=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD) -j$(JOBS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash fuzz/run.sh $(FUZZ_BUILD)

bench: deps
	@$(MAKE) --no-print-directory build corpus
	@$(BUILD)/bench/bench_load ../shared/corpus $${BSPKIT_CORPUS:-$$HOME/.cache/bspkit-corpus} --scene
	@for b in $(BUILD)/bench/bench_*; do case $$b in */bench_load) ;; *) [ -x $$b ] && $$b;; esac; done
	@bash bench/families.sh $(BUILD)/bspkit
	@bash bench/q3_vs_assimp.sh $(BUILD)/bspkit   # against assimp when $$ASSIMP names one
	@bash bench/obj_vs_q3map2.sh $(BUILD)/bspkit  # against q3map2 when $$Q3MAP2 names one

# the library in WebAssembly and the viewer page build/web/index.html (one file, works from
# file://): Debian's emscripten, the dependencies from Debian source packages (scripts/build-web)
web:
	@JOBS=$(JOBS) scripts/build-web $(BUILD)

install: build
	cmake --install $(BUILD)

# the Blender add-on as a zip for Preferences > Add-ons > Install (docs/blender.md)
blender-addon:
	@scripts/blender-addon-zip $(BUILD)/bspkit_blender.zip

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(NOCORPUS_BUILD)
