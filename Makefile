# mlsubmit -- build, test, demo, benchmarks.
#
#   make demo     install missing deps, build, run the end-to-end demo
#   make test     install missing deps, build, run unit + end-to-end tests
#   make asan     the whole test suite under AddressSanitizer + UBSan
#   make bench    benchmarks (tests/bench/), ratios against in-run baselines
#   make install PREFIX=/usr/local
#
# Every object is built with -std=c11 -Wall -Wextra -Werror and -ffp-contract=off
# (the LoadGen's floating point must match the reference bit for bit, see
# docs/ARCHITECTURE.md).

PREFIX   ?= /usr/local
# make install also installs the digits dataset and its trained model (make data fetches and
# trains them) into PREFIX/share/mlsubmit/data/digits; INSTALL_DATA=0 installs without them.
INSTALL_DATA ?= 1
DATA_DIR := $(or $(MLSUBMIT_DATA),data)
BUILD    ?= build
CC       ?= cc
SHELL    := /bin/bash

PKGS      := sqlite3 libarchive libcrypto libpcre2-8 jansson yaml-0.1 libmicrohttpd libcurl
DEB_PKGS  := libsqlite3-dev libarchive-dev libssl-dev libpcre2-dev libjansson-dev libyaml-dev libmicrohttpd-dev libcurl4-openssl-dev check pkg-config \
             json-schema-test-suite
# Python binding (issue 17): CPython headers for the mlperf_loadgen module; pybind11 only to build
# the reference module the Python benchmark compares against (never committed).
DEB_PKGS  += python3-dev python3-pybind11
# strace: tests/e2e/test_durability.sh checks the order in which the LoadGen names its logs
DEB_PKGS  += strace
VERSION   := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

OPT       ?= -O2 -g
SANITIZE  ?=
WARN      := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
BASEFLAGS := -std=c11 -D_GNU_SOURCE -ffp-contract=off -pthread $(WARN) $(OPT) $(SANITIZE)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# libcurl, libmicrohttpd, libarchive, libcrypto and SQLite are loaded when the code first needs them
# (dlopen, src/common/lazylib.c): linked, they and the dozens of libraries they pull in would be
# mapped at every start (most of a small `mlsubmit check`). Only their headers are used at build
# time, and the shared object the linker would have chosen (its SONAME) is what is loaded.
LAZY_PKGS := libmicrohttpd libcurl libarchive libcrypto sqlite3
LINK_LIBS  = $(shell pkg-config --libs $(filter-out $(LAZY_PKGS),$(PKGS)) 2>/dev/null)
soname_of  = $(or $(shell objdump -p "$$($(CC) -print-file-name=lib$(1).so)" 2>/dev/null | awk '/SONAME/ { print $$2 }'),$(2))
LAZY_SONAMES = -DMS_SONAME_CURL='"$(call soname_of,curl,libcurl.so.4)"' \
  -DMS_SONAME_MHD='"$(call soname_of,microhttpd,libmicrohttpd.so.12)"' \
  -DMS_SONAME_ARCHIVE='"$(call soname_of,archive,libarchive.so.13)"' \
  -DMS_SONAME_CRYPTO='"$(call soname_of,crypto,libcrypto.so.3)"' \
  -DMS_SONAME_SQLITE='"$(call soname_of,sqlite3,libsqlite3.so.0)"'
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)
INCLUDES  := -Isrc -I$(BUILD)/gen
ALL_CFLAGS = $(BASEFLAGS) $(INCLUDES) $(PKG_CFLAGS) -DMLSUBMIT_VERSION='"$(VERSION)"' $(OBJ_DEFS) $(CFLAGS)
LDLIBS_ALL = $(LINK_LIBS) -ldl -lm -pthread $(LDLIBS)

LIB_SRC   := $(sort $(wildcard src/common/*.c src/loadgen/*.c src/loadgen/suts/*.c \
               src/rules/*.c src/checker/*.c src/audit/*.c src/report/*.c src/runs/*.c src/serve/*.c src/net/*.c))
CLI_SRC   := $(sort $(wildcard src/cli/*.c))
GEN_SRC   := $(BUILD)/gen/embedded_conf.c $(BUILD)/gen/sut_registry.c $(BUILD)/gen/loadgen_sha1.c $(BUILD)/gen/lg_versions.c
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/embedded_conf.o $(BUILD)/obj/gen/sut_registry.o \
             $(BUILD)/obj/gen/loadgen_sha1.o $(BUILD)/obj/gen/lg_versions.o
LG_SRC    := $(sort $(wildcard src/loadgen/*.c src/loadgen/*.h))
SUT_SRC   := $(sort $(wildcard src/loadgen/suts/*.c))
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
E2E       := $(sort $(wildcard tests/e2e/test_*.sh))
EMBED_CONF := $(sort $(wildcard src/loadgen/conf/*.conf))

LIB       := $(BUILD)/libmlsubmit.a
BIN       := $(BUILD)/mlsubmit

.PHONY: realsys difftest modelsweep modelsweep-old lgdifftest pydifftest reportdifftest all deps deps-fuzz deps-browser deps-oracle data test unit e2e demo demo-network asan valgrind bench install clean help fuzz fuzz-smoke fuzz-build
.DEFAULT_GOAL := all

all: $(BIN) $(LIB)

help:
	@sed -n '2,12p' Makefile | sed 's/^# \{0,1\}//'

# ---- dependencies: apt-get only what is missing -------------------------------------------
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	else echo "deps: all present"; fi

# Chromium for the HTML report and serve tests (tests/e2e/test_report_html.sh, test_serve.sh): best effort, a separate step
# so that a machine without it still builds and tests (the test then says it is skipped).
deps-browser:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
	  echo "deps-browser: chromium present"; \
	else \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  if { $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	       --no-install-recommends chromium >/dev/null; } 2>/dev/null; then echo "deps-browser: chromium installed"; \
	  else echo "deps-browser: could not install chromium; the HTML report test will be skipped"; fi; \
	fi

# NumPy for the upstream TEST06/TEST08 verification scripts that tests/e2e/test_audit_llm.sh runs
# as an oracle: best effort (the test then skips those comparisons and says so)
deps-oracle:
	@if /usr/bin/python3 -c 'import numpy, pandas, xlsxwriter' >/dev/null 2>&1; then \
	  echo "deps-oracle: python3-numpy, python3-pandas, python3-xlsxwriter present"; \
	else \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  if { $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	       --no-install-recommends python3-numpy python3-pandas python3-xlsxwriter >/dev/null; } 2>/dev/null; then \
	    echo "deps-oracle: python3-numpy, python3-pandas, python3-xlsxwriter installed"; \
	  else echo "deps-oracle: could not install them; the TEST06/TEST08 and generate_final_report.py oracle comparisons will be skipped"; fi; \
	fi

# ---- build ----------------------------------------------------------------------------------
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The mlperf.conf files the LoadGen embeds, as C strings (like the reference's generated header).
$(BUILD)/gen/embedded_conf.c: $(EMBED_CONF) tools/embed.sh
	@mkdir -p $(dir $@)
	tools/embed.sh $(EMBED_CONF) > $@.tmp && mv $@.tmp $@

# The LoadGen version table (rules/loadgen.json, one row per release) as a C array: compiled in, so
# the LoadGen and the Python module need no runtime lookup. The generator is a host tool (Jansson).
$(BUILD)/tools/gen-lgversions: tools/gen-lgversions.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -O1 $(shell pkg-config --cflags jansson 2>/dev/null) -o $@ $< \
	  $(shell pkg-config --libs jansson 2>/dev/null)

$(BUILD)/gen/lg_versions.c: rules/loadgen.json $(BUILD)/tools/gen-lgversions
	@mkdir -p $(dir $@)
	$(BUILD)/tools/gen-lgversions rules/loadgen.json > $@.tmp && mv $@.tmp $@

# The loadgen_file_sha1 map of the detail log: our LoadGen sources at build time.
$(BUILD)/gen/loadgen_sha1.c: $(LG_SRC) tools/gen-sha1-map.sh
	@mkdir -p $(dir $@)
	tools/gen-sha1-map.sh $(LG_SRC) > $@.tmp && mv $@.tmp $@

# Reference SUTs register themselves with LG_SUT_DEFINE (one file each in src/loadgen/suts/).
$(BUILD)/gen/sut_registry.c: $(SUT_SRC) tools/gen-sut-registry.sh
	@mkdir -p $(dir $@)
	tools/gen-sut-registry.sh $(SUT_SRC) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/src/common/lazylib.o $(BUILD)/pic/src/common/lazylib.o: OBJ_DEFS = $(LAZY_SONAMES)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS_ALL)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -Itests/unit -o $@ $< $(LIB) $(CHECK_LIBS) $(PKG_LIBS) $(LDLIBS_ALL)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ---- data (reference dataset, fetched from Debian packages) ---------------------------------
# The digits model is trained by the binary of this build (BUILD=build-asan: the ASan one), so
# that no target needs what another left behind (a fresh clone's `make asan` has no build/).
data: deps
	@$(MAKE) --no-print-directory all
	@MLSUBMIT=$(abspath $(BIN)) tools/fetch-data.sh

# ---- tests ----------------------------------------------------------------------------------
unit: $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN); do \
	  echo "== $$t"; CK_DEFAULT_TIMEOUT=$${CK_DEFAULT_TIMEOUT:-120} $(TEST_WRAP) $$t || fail=1; done; \
	exit $$fail

# E2E_JOBS > 1 runs that many scripts at once (CI runs two: no test may depend on a quiet
# machine; valgrind always does); each script's output is printed when it ends. The scripts of
# E2E_SOLO run alone after the others: the demo test keeps one core busy itself (the main job
# must succeed on a busy machine), a second script beside it would leave the demo no core.
E2E_JOBS ?= 1
E2E_SOLO ?= tests/e2e/test_report_demo.sh
e2e: $(BIN)
	@if [ "$(E2E_JOBS)" = 1 ]; then \
	  fail=0; for t in $(E2E); do \
	    echo "== $$t"; t0=$$(date +%s); \
	    MLSUBMIT=$(abspath $(BIN)) TEST_WRAP="$(E2E_WRAP)" bash $$t || { echo "FAILED: $$t"; fail=1; }; \
	    echo "-- $$t: $$(( $$(date +%s) - t0 )) s"; done; \
	  exit $$fail; \
	else \
	  logs=$(BUILD)/e2e-logs; rm -rf $$logs; mkdir -p $$logs; \
	  for grp in shared solo; do \
	    if [ $$grp = shared ]; then list="$(filter-out $(E2E_SOLO),$(E2E))"; p=$(E2E_JOBS); \
	    else list="$(filter $(E2E_SOLO),$(E2E))"; p=1; fi; \
	    [ -n "$$list" ] || continue; \
	    printf '%s\n' $$list | xargs -P $$p -I{} sh -c \
	    'n=$$(basename {} .sh); t0=$$(date +%s); MLSUBMIT=$(abspath $(BIN)) TEST_WRAP="$(E2E_WRAP)" bash {} > '$$logs'/$$n.log 2>&1; \
	     echo $$? > '$$logs'/$$n.rc; echo $$(( $$(date +%s) - t0 )) > '$$logs'/$$n.time'; done; \
	  fail=0; for t in $(E2E); do n=$$(basename $$t .sh); echo "== $$t"; cat $$logs/$$n.log; \
	    [ "$$(cat $$logs/$$n.rc)" = 0 ] || { echo "FAILED: $$t"; fail=1; }; \
	    echo "-- $$t: $$(cat $$logs/$$n.time) s"; done; \
	  exit $$fail; \
	fi

test: deps
	@$(MAKE) --no-print-directory data
	@$(MAKE) --no-print-directory deps-browser
	@$(MAKE) --no-print-directory deps-oracle
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory e2e
	@if $(MAKE) --no-print-directory deps-fuzz; then $(MAKE) --no-print-directory fuzz-smoke; \
	  else echo "fuzz-smoke: skipped (clang with libFuzzer is not available)"; fi

# clang and its runtime (libFuzzer) for the fuzz harnesses: best effort, not fatal
deps-fuzz:
	@if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get install -y -qq clang libclang-rt-dev >/dev/null 2>&1 || \
	  $$SUDO apt-get install -y -qq clang libclang-rt-14-dev >/dev/null 2>&1 || exit 1; \
	fi

# asan and valgrind build, fetch and install what their tests need themselves (data, chromium):
# each works as the first command on a fresh clone (CI runs each in a clone of its own).
# One goal per sub-make: with -jN the build is parallel, the test loops never run side by side.
ASAN_MAKE = $(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
  SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=undefined" ASAN_OPTIONS=detect_leaks=1
# ASAN_E2E: the e2e scripts run against the sanitized binary (all by default; CI names the ones
# that drive the most code over damaged and hostile input, .ci/run, to stay inside its budget)
ASAN_E2E ?= $(E2E)
asan: deps
	@$(MAKE) --no-print-directory deps-browser
	@+$(ASAN_MAKE) data
	@+$(ASAN_MAKE) unit
	@+$(ASAN_MAKE) E2E="$(ASAN_E2E)" e2e

# VALGRIND_E2E: the e2e scripts run under valgrind (all by default; a full pass takes far longer
# than the CI budget on 2 cores, so CI names a subset: .ci/run)
VALGRIND_E2E ?= $(E2E)
# --vgdb=no: no gdbserver, so no /tmp/vgdb-pipe-* files; a stale one a killed root run left for
# the same pid made a run as another user (test_hostile.sh's nobody) fail to start
valgrind: deps
	@command -v valgrind >/dev/null || { SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get install -y -qq valgrind >/dev/null; }
	@$(MAKE) --no-print-directory data
	@$(MAKE) --no-print-directory deps-browser
	@$(MAKE) --no-print-directory E2E_JOBS=2 E2E="$(VALGRIND_E2E)" \
	  E2E_WRAP="valgrind -q --vgdb=no --error-exitcode=99 --leak-check=full" e2e

demo: deps
	@$(MAKE) --no-print-directory data
	@tools/demo.sh $(abspath $(BIN))

# two SUT nodes and a LoadGen through the network SUT (docs/NETWORK.md)
demo-network: deps
	@$(MAKE) --no-print-directory data
	@tools/demo-network.sh $(abspath $(BIN))

bench: deps
	@$(MAKE) --no-print-directory data
	@for b in $(sort $(wildcard tests/bench/bench_*.sh)); do echo "== $$b"; \
	  MLSUBMIT=$(abspath $(BIN)) bash $$b || exit 1; done

# ---- Python binding: the mlperf_loadgen module (src/python/, docs/ARCHITECTURE.md) -----------
# `make python` builds build/python/mlperf_loadgen<EXT_SUFFIX> (import it with
# PYTHONPATH=build/python); `make`, `make test` (tests/e2e/test_python.sh) and `make install`
# (into PYTHONDIR, default the interpreter's site-packages) include it. Without the CPython
# headers (python3-dev) it is skipped with a message.
PYTHON     ?= python3
PY_INC     := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_EXT     := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX") or ".so")' 2>/dev/null)
PYTHONDIR  ?= $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])' 2>/dev/null)
PY_HAVE    := $(if $(PY_INC),$(wildcard $(PY_INC)/Python.h))
PY_MOD     := $(BUILD)/python/mlperf_loadgen$(PY_EXT)
# the module links a position-independent copy of the LoadGen and the plumbing it uses
PY_PIC_SRC := $(sort $(wildcard src/loadgen/*.c src/common/*.c src/rules/*.c))
PY_PIC_OBJ := $(PY_PIC_SRC:%.c=$(BUILD)/pic/%.o) $(BUILD)/pic/gen/embedded_conf.o $(BUILD)/pic/gen/loadgen_sha1.o \
              $(BUILD)/pic/gen/lg_versions.o
PY_PIC_LIB := $(BUILD)/pic/libmlsubmit_lg.a

.PHONY: python install-python
all: python
e2e: python
install: install-python

ifneq ($(PY_HAVE),)
python: $(PY_MOD)
else
python:
	@echo "python: skipped, the CPython headers are missing (make deps installs python3-dev)"
endif

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(BUILD)/pic/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(PY_PIC_LIB): $(PY_PIC_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/pic/python/mlperf_loadgen.o: src/python/mlperf_loadgen.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -I$(PY_INC) -Wno-cast-function-type -Wno-missing-field-initializers \
	  -MMD -MP -c $< -o $@

$(PY_MOD): $(BUILD)/pic/python/mlperf_loadgen.o $(PY_PIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -o $@.tmp $< $(PY_PIC_LIB) -Wl,--as-needed $(LDLIBS_ALL) && mv $@.tmp $@

install-python: python
	@if [ -f $(PY_MOD) ]; then install -d $(DESTDIR)$(PYTHONDIR) && \
	  install -m 644 $(PY_MOD) $(DESTDIR)$(PYTHONDIR)/ && echo "installed $(notdir $(PY_MOD)) into $(DESTDIR)$(PYTHONDIR)"; fi

-include $(shell find $(BUILD)/pic -name '*.d' 2>/dev/null)
# ---- differential test against the official checkers (tests/diff/README.md) ------------------
# make difftest N=2000 [FIRST=1] [J=1]   a campaign of N seeded mutations
# make difftest SEED=N [ROUNDS=name]      replay one case, with both verdicts
N     ?= 200
FIRST ?= 1
J     ?= 1
difftest: $(BIN)
	@python3 tests/diff/difftest.py --mlsubmit $(abspath $(BIN)) --table --jobs $(J) \
	  $(if $(SEED),--seed $(SEED),--n $(N) --first $(FIRST)) $(if $(ROUNDS),--rounds $(ROUNDS)) \
	  $(if $(DIFFTEST_OUT),--out $(DIFFTEST_OUT))

# ---- model sweep: every model of a round against its official checker (tests/diff/README.md) ---
# make modelsweep [ROUND=v5.1] [CASES=all|base|N]   the base tree and its one-change cases
CASES ?= all
modelsweep: $(BIN)
	@python3 tests/diff/modelsweep.py --mlsubmit $(abspath $(BIN)) --cases $(CASES) \
	  $(if $(ROUND),--rounds $(ROUND))

# make modelsweep-old [ROUND=v3.0] [CASES=all|base|N]   the same for v0.7 to v3.0, from real excerpts
modelsweep-old: $(BIN)
	@python3 tests/diff/modelsweep_old.py --mlsubmit $(abspath $(BIN)) --cases $(CASES) \
	  $(if $(ROUND),--rounds $(ROUND))

# make realsys REAL=DIR [ROUND=v4.1,v5.0]   published system descriptions and accuracy.txt files
#   (copied into DIR/<round>/<path in the results repository>) in the model sweeps' base trees
realsys: $(BIN)
	@if [ -z "$(REAL)" ]; then echo "realsys: set REAL=DIR, the published files (tests/diff/README.md)"; \
	  else python3 tests/diff/realsys.py --mlsubmit $(abspath $(BIN)) --real $(REAL) \
	  $(if $(ROUND),--rounds $(ROUND)); fi

# ---- differential test of mlsubmit report against generate_final_report.py (tests/diff/README.md)
# make reportdifftest N=200 [FIRST=1] [ROUND=v5.0]   seeded system fields; SEED=N: one case, kept
# make reportdifftest REAL=DIR N=100                  published system descriptions instead
reportdifftest: $(BIN)
	@python3 tests/diff/reportdiff.py --mlsubmit $(abspath $(BIN)) $(if $(ROUND),--round $(ROUND)) \
	  $(if $(SEED),--seed $(SEED),--n $(N) --first $(FIRST)) $(if $(REAL),--real $(REAL))

# ---- differential test of the LoadGen against the reference LoadGen builds (tests/diff/README.md)
# make lgdifftest N=100 [FIRST=1] [TAGS=v5.1.1,r0.5]   N seeds, each on every tag (or TAGS)
# make lgdifftest SEED=N TAGS=tag                       replay one case (its logs kept)
lgdifftest: $(BIN)
	@python3 tests/diff/lgdiff.py --mlsubmit $(abspath $(BIN)) \
	  $(if $(SEED),--seed $(SEED) --keep,--n $(N) --first $(FIRST)) $(if $(TAGS),--tags $(TAGS))

# ---- differential test of the Python module against the reference Python bindings (tests/diff/README.md)
# make pydifftest N=50 [FIRST=1] [TAGS=v5.1.1,v4.0]   N seeds, each on every tag with bindings (or TAGS)
# make pydifftest SEED=N TAGS=tag                      replay one case (its files kept)
pydifftest: python
	@python3 tests/diff/pydiff.py --ours $(abspath $(BUILD))/python \
	  $(if $(SEED),--seed $(SEED) --keep,--n $(N) --first $(FIRST)) $(if $(TAGS),--tags $(TAGS))

# ---- fuzzing (tests/fuzz/README.md) ----------------------------------------------------------
FUZZ_SECONDS ?= 10
FUZZ         ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
fuzz-build: deps
	@$(MAKE) --no-print-directory deps-fuzz || { echo "fuzz: clang with libFuzzer is needed" \
	  "(Debian: apt-get install clang libclang-rt-dev) and could not be installed"; exit 1; }
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPT="-O1 -g -fno-omit-frame-pointer" \
	  SANITIZE="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" build-fuzz/libmlsubmit.a
	@for f in $(FUZZ); do \
	  clang -std=c11 -D_GNU_SOURCE -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer -Isrc -Ibuild-fuzz/gen \
	    tests/fuzz/fuzz_$$f.c build-fuzz/libmlsubmit.a $(PKG_LIBS) -lm -pthread -o build-fuzz/fuzz_$$f || exit 1; \
	done

fuzz: fuzz-build
	@for f in $(FUZZ); do \
	  mkdir -p build-fuzz/corpus/$$f build-fuzz/crashes/$$f; \
	  [ -d tests/fuzz/corpus/$$f ] && cp -n tests/fuzz/corpus/$$f/* build-fuzz/corpus/$$f/ 2>/dev/null; \
	  regs=$$(ls tests/fuzz/regressions/$$f-* 2>/dev/null); \
	  if [ -n "$$regs" ]; then build-fuzz/fuzz_$$f $$regs >/dev/null 2>&1 || { echo "fuzz_$$f: a regression input crashes again"; exit 1; }; fi; \
	  echo "== fuzz_$$f ($(FUZZ_SECONDS) s)"; \
	  build-fuzz/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -max_len=1048576 \
	    -artifact_prefix=build-fuzz/crashes/$$f/ build-fuzz/corpus/$$f 2>&1 | \
	    grep -E '^(stat::number_of_executed_units|stat::peak_rss|#[0-9]+ *DONE)|ERROR|SUMMARY' ; \
	  [ $${PIPESTATUS[0]} = 0 ] || exit 1; \
	done

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=3 2>&1 | grep -vE '^(clang|ar|tools/)' ; exit $${PIPESTATUS[0]}

install: deps
	@$(MAKE) --no-print-directory all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
	  $(DESTDIR)$(PREFIX)/include/mlsubmit/loadgen $(DESTDIR)$(PREFIX)/include/mlsubmit/common
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/mlsubmit
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libmlsubmit.a
	install -m 644 src/loadgen/loadgen.h $(DESTDIR)$(PREFIX)/include/mlsubmit/loadgen/loadgen.h
	install -m 644 src/common/error.h $(DESTDIR)$(PREFIX)/include/mlsubmit/common/error.h
	install -d $(DESTDIR)$(PREFIX)/share/mlsubmit
	cp -r rules schemas $(DESTDIR)$(PREFIX)/share/mlsubmit/ 2>/dev/null || true
ifneq ($(INSTALL_DATA),0)
	@MLSUBMIT=$(BIN) $(MAKE) --no-print-directory data
	install -d $(DESTDIR)$(PREFIX)/share/mlsubmit/data/digits
	install -m 644 $(DATA_DIR)/digits/digits.csv.gz $(DATA_DIR)/digits/digits-fp32.bin \
	  $(DESTDIR)$(PREFIX)/share/mlsubmit/data/digits/
endif

clean:
	rm -rf build build-asan build-fuzz
