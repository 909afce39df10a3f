# locktrace build. `make` builds build/locktrace; `make test` installs what is
# missing, builds and runs every test; `make demo` runs the bundled stalling
# workload under locktrace.  See README.md.

# `make` prints one short line per step ("  CC      build/obj/foo.o");
# `make V=1` prints the full commands.  Compiler errors show either way.
V         ?= 0
ifeq ($(V),1)
Q         :=
msg        =
else
Q         := @
msg        = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

# The BPF programs are built for x86-64 (-D__TARGET_ARCH_x86 below: the
# register layout of pt_regs, the syscall ABI) and the unwinder reads x86-64
# registers: elsewhere the build would fail late or the tool misread stacks.
ARCH      := $(shell uname -m)
ifneq ($(ARCH),x86_64)
ifneq ($(filter-out clean deps,$(or $(MAKECMDGOALS),all)),)
$(error locktrace supports x86_64 only (its BPF is built with -D__TARGET_ARCH_x86); this machine is $(ARCH))
endif
endif

# The version --version prints is LT_VERSION (src/cli/version.h),
# with `git describe` of the checkout when there is one (none in a tarball).
GIT_DESCRIBE := $(shell test -e .git && git describe --tags --always --dirty 2>/dev/null)

CC        ?= cc
CLANG     ?= clang
BPFTOOL   ?= bpftool
PKGS      := libbpf libelf libdw zlib
B         := build

CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE \
             -Iinclude -I$(B) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS    += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lbpf -lelf -ldw -lz) -lpthread
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I$(B) -Iinclude -Ibpf

# ------------------------------------------------------------ source layout
# src/ is one folder per subsystem, lowest layer first (README.md, "Source
# layout").  A folder's files are compiled with the include paths of that
# folder and of the folders before it in LAYERS only, so a header included
# from a higher layer is "No such file or directory": dependencies point one
# way.  include/locktrace/ holds only the contracts every layer (and the BPF
# programs) share: the BPF<->user ABI and the on-disk trace format.
LAYERS    := base trace proc snapshot/runtimes snapshot record analysis output cli
CONTRACTS := calls.h event.h flightbuf.h futex.h ocframes.h pyframes.h taskregs.h tracefile.h
$(foreach i,$(shell seq $(words $(LAYERS))),$(eval \
  INC_$(word $(i),$(LAYERS)) := $(addprefix -Isrc/,$(wordlist 1,$(i),$(LAYERS)))))
ALL_INC   := $(addprefix -Isrc/,$(LAYERS))
# the include paths of the folder of the source being compiled ($<)
LAYER_INC  = $(INC_$(patsubst src/%/,%,$(dir $<)))

# Files that are in no layer fail the build loudly (a merge or a new file
# put them there): the message says where they belong.
STRAY_SRC := $(strip $(foreach f,$(shell find src -name '*.[ch]' 2>/dev/null),\
               $(if $(filter $(patsubst src/%/,%,$(dir $(f))),$(LAYERS)),,$(f))))
STRAY_HDR := $(filter-out $(addprefix include/locktrace/,$(CONTRACTS)),$(wildcard include/locktrace/*.h))
STRAY_TST := $(wildcard tests/*.c tests/*.h)
# includes name a header without its folder: two of one name would be
# found by whichever folder comes first
DUP_HDR   := $(shell find src include tests/lib -name '*.h' -printf '%f\n' 2>/dev/null | sort | uniq -d)
ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),all)),)
ifneq ($(STRAY_SRC),)
$(error $(STRAY_SRC): not in a layer folder. Move each file with git mv into the src/ folder of its subsystem, one of: $(LAYERS) (lowest first; README.md "Source layout"), and its header next to it; then fix its includes of moved headers ("locktrace/x.h" -> "x.h"))
endif
ifneq ($(STRAY_HDR),)
$(error $(STRAY_HDR): include/locktrace/ holds only the BPF<->user ABI and the trace file format ($(CONTRACTS)). Move the header with git mv next to its .c in src/<layer>/ and include it as "x.h")
endif
ifneq ($(DUP_HDR),)
$(error $(DUP_HDR): two headers of this name under src/, include/ or tests/lib/; rename one (includes name headers without their folder))
endif
ifneq ($(STRAY_TST),)
$(error $(STRAY_TST): tests live in tests/unit/ (no root, no BPF), tests/live/ (root, real BPF) or tests/lib/ (shared helpers): move each with git mv (tests/README.md))
endif
endif

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(B)/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(B)/%.skel.h,$(BPF_SRCS))
LIB_SRCS  := $(filter-out src/cli/main.c,$(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c)))
LIB_OBJS  := $(patsubst src/%.c,$(B)/obj/%.o,$(LIB_SRCS))
# tests/unit and tests/live hold the tests (test_*.c); tests/lib the
# helpers and fixtures they share (tests/README.md).
TEST_SRCS := $(wildcard tests/unit/test_*.c tests/live/test_*.c tests/lib/*.c)
TEST_OBJS := $(patsubst tests/%.c,$(B)/tests/%.o,$(TEST_SRCS))
TEST_INC  := -Itests/lib $(ALL_INC)
WL_SRCS   := $(wildcard tests/workloads/*.c)
WL_BINS   := $(patsubst tests/workloads/%.c,$(B)/workloads/%,$(WL_SRCS))
# OCaml workloads (tests/workloads/ocaml) are built only where ocamlopt is
# installed (Debian: ocaml-nox); their tests skip when they are missing.
OCAMLOPT  ?= $(shell command -v ocamlopt 2>/dev/null)
OCAML_WLS := $(if $(OCAMLOPT),$(B)/workloads/ocaml_holder)
# OCaml 5 workloads (tests/workloads/ocaml5), built with the real OCaml 5
# compilers of ../shared/tools (OCaml 5 is not in Debian 12), unpacked under
# build/ocaml; absent tarballs build nothing and their tests skip.
OCAML5_TOOLS ?= ../shared/tools
OCAML5_TARS  := $(wildcard $(OCAML5_TOOLS)/ocaml-5.2.0-min.tar.xz $(OCAML5_TOOLS)/ocaml-5.4.0+dev-min.tar.xz)
OCAML5_WLS   := $(patsubst $(OCAML5_TOOLS)/ocaml-%-min.tar.xz,$(B)/workloads/ocaml-%/ocaml5_locks,$(OCAML5_TARS))
# the call sites of recorded stacks (tests/live/test_ocaml5_stacks_live.c)
OCAML5_SITES := $(patsubst $(OCAML5_TOOLS)/ocaml-%-min.tar.xz,$(B)/workloads/ocaml-%/ocaml5_sites,$(OCAML5_TARS))
# Java workloads (tests/workloads/java) likewise need javac (Debian:
# default-jdk-headless); class files for Java 11, so any JDK from 11 on runs them.
JAVAC     ?= $(shell command -v javac 2>/dev/null)
JAVA_WLS  := $(if $(JAVAC),$(B)/workloads/java/JavaLocks.class $(B)/workloads/java/JucLocks.class \
	     $(B)/workloads/java/JavaSites.class)
# Go workloads (tests/workloads/go) need go (Debian: golang-go); standard
# library only, built offline with their cache under build/.
GO        ?= $(shell command -v go 2>/dev/null)
GO_WLS    := $(if $(GO),$(B)/workloads/go/gowl $(B)/workloads/go/gowl-stripped $(B)/workloads/go/gosites)

.PHONY: all deps test unit demo bench clean fuzz unit-asan live-asan FORCE
# a recipe that fails leaves no half-written target behind
.DELETE_ON_ERROR:
all: $(B)/locktrace $(WL_BINS) $(OCAML_WLS) $(OCAML5_WLS) $(OCAML5_SITES) $(JAVA_WLS) $(GO_WLS)

deps:
	@bash scripts/install-deps.sh

# vmlinux.h is generated from the running kernel's BTF (not committed): the
# BPF object is CO-RE, so the generated header only supplies type layouts
# that libbpf relocates at load time on whatever kernel runs it.
$(B)/vmlinux.h:
	@mkdir -p $(B)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

# Rewritten only when the description changes, so that only version.o is
# rebuilt after a commit.
$(B)/git-version.h: FORCE
	@mkdir -p $(B)
	@printf '#define LT_GIT_DESCRIBE "%s"\n' '$(GIT_DESCRIBE)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

.SECONDARY:

$(B)/%.bpf.o: bpf/%.bpf.c $(B)/vmlinux.h $(wildcard bpf/*.h) $(wildcard include/locktrace/*.h)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/%.skel.h: $(B)/%.bpf.o
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# One compile rule for the three builds (normal, fuzz, ASan): $(1) the
# output folder, $(2) the compiler, $(3) its extra flags.  -MMD -MP: each
# object depends on the headers it includes (build/**/*.d), nothing more;
# the BPF skeletons only have to exist before the first compile.
define compile_rules
$(1)/obj/%.o: src/%.c | $$(SKELS)
	@mkdir -p $$(@D)
	$$(call msg,CC,$$@)
	$$(Q)$(2) $$(CFLAGS) $(3) -MMD -MP $$(LAYER_INC) -c $$< -o $$@ || { \
	  echo "$$<: a header not found? src/$$(patsubst src/%/,%,$$(dir $$<))/ sees only its own headers and those of the layers before it in: $$(LAYERS)" >&2; exit 1; }

$(1)/tests/%.o: tests/%.c | $$(SKELS)
	@mkdir -p $$(@D)
	$$(call msg,CC,$$@)
	$$(Q)$(2) $$(CFLAGS) $(3) -MMD -MP $$(TEST_INC) -c $$< -o $$@
endef

$(B)/liblocktrace.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/locktrace: $(B)/obj/cli/main.o $(B)/liblocktrace.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# Generated layouts (tests/gen/, tests/README.md): facts taken from the
# runtimes' own headers at build time, which the unit tests compare with the
# models' tables.  CPython: tests/gen/cpython_layout.c compiled against each
# include directory here (Debian's libpython3.N-dev, the pyenv builds); a
# directory whose headers do not compile is named in the header and on
# stderr, and the tests of that version skip saying so.
PYENV_ROOT   ?= /root/.pyenv
CPY_INC_DIRS := $(patsubst %/Python.h,%,$(wildcard /usr/include/python3.*/Python.h \
                  $(PYENV_ROOT)/versions/*/include/python3.*/Python.h))
GEN_HDRS     := $(B)/gen/glibc_layouts.h $(B)/gen/cpython_layouts.h $(B)/gen/ocaml4_layouts.h $(B)/gen/ocaml5_layouts.h
$(B)/gen/cpython_layouts.h: tests/gen/cpython_layout.c $(addsuffix /Python.h,$(CPY_INC_DIRS))
	@mkdir -p $(@D)/cpython
	$(call msg,GEN,$@)
	$(Q){ echo '/* generated by tests/gen/cpython_layout.c from each CPython include directory: do not edit */'; \
	  i=0; for d in $(CPY_INC_DIRS); do i=$$((i+1)); \
	    if $(CC) -std=gnu11 -w -I$$d $< -o $(@D)/cpython/gen$$i 2>$(@D)/cpython/gen$$i.err; \
	    then $(@D)/cpython/gen$$i $$d || exit 1; \
	    else echo "/* $$d: the generator does not compile (see $(@D)/cpython/gen$$i.err) */"; \
	      echo "warning: $$d: tests/gen/cpython_layout.c does not compile: its version is not checked (see $(@D)/cpython/gen$$i.err)" >&2; fi; \
	  done; } > $@.tmp && mv $@.tmp $@
# glibc: the installed headers' rwlock and condition variable (which of the
# two condvar layouts: whether bits/thread-shared-types.h has __g_refs).
GLIBC_TST_H := $(shell printf '\043include <pthread.h>\n' | $(CC) -E -H - 2>&1 >/dev/null | \
                 sed -n 's/^\.* \(.*bits\/thread-shared-types\.h\)$$/\1/p' | head -1)
$(B)/gen/glibc_layouts.h: tests/gen/glibc_layout.c $(GLIBC_TST_H)
	@mkdir -p $(@D)/glibc
	$(call msg,GEN,$@)
	$(Q)$(CC) -std=gnu11 -w $(if $(shell grep -l __g_refs $(GLIBC_TST_H) 2>/dev/null),-DLT_G_REFS) $< \
		-o $(@D)/glibc/gen && { echo '/* generated by tests/gen/glibc_layout.c from the installed glibc headers: do not edit */'; \
		$(@D)/glibc/gen; } > $@.tmp && mv $@.tmp $@
# OCaml 4: Caml_state's layout from the installed runtime's headers
# (Debian: ocaml-nox); none installed: no row, those fixtures skip.
OCAMLC_WHERE := $(shell ocamlc -where 2>/dev/null)
$(B)/gen/ocaml4_layouts.h: tests/gen/ocaml4_layout.c $(wildcard $(OCAMLC_WHERE)/caml/domain_state.tbl)
	@mkdir -p $(@D)/ocaml4
	$(call msg,GEN,$@)
	$(Q){ echo '/* generated by tests/gen/ocaml4_layout.c from the installed OCaml headers: do not edit */'; \
	  if [ -n "$(OCAMLC_WHERE)" ]; then \
	    $(CC) -std=gnu11 -w -I$(OCAMLC_WHERE) $< -o $(@D)/ocaml4/gen && $(@D)/ocaml4/gen $(OCAMLC_WHERE); \
	  fi; } > $@.tmp && mv $@.tmp $@
# OCaml 5: the systhreads structures are in no installed header; their
# layout is read (gdb) from the DWARF of the programs the real compilers of
# ../shared/tools built (no compiler there: no row, those tests skip).
$(B)/gen/ocaml5_layouts.h: tests/gen/ocaml5_layout.sh $(OCAML5_WLS)
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q){ echo '/* generated by tests/gen/ocaml5_layout.sh from the DWARF of each OCaml 5 program: do not edit */'; \
	  bash $< $(OCAML5_WLS); } > $@.tmp && mv $@.tmp $@
$(TEST_OBJS) $(patsubst tests/%.c,$(B)/asan/tests/%.o,$(TEST_SRCS)): $(GEN_HDRS)

$(B)/tests/run-tests: $(TEST_OBJS) $(B)/liblocktrace.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -lcriterion -o $@

# Workloads: plain C programs with debug info and without frame pointers (as
# Debian's libc), so the unwinder is tested on realistic code.
$(B)/workloads/%: tests/workloads/%.c $(wildcard tests/workloads/*.h)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -O1 -g -Wall -Wextra -pthread $< -o $@

# ocamlopt writes .cm*/.o files next to its sources: compile a copy under
# build/ so the source tree stays clean.  -I +unix is needed from OCaml 5.0
# (4.x ignores it).
OCAML_WL_SRCS := tests/workloads/ocaml/holder_stubs.c tests/workloads/ocaml/holder.ml
$(B)/workloads/ocaml_holder: $(OCAML_WL_SRCS)
	@mkdir -p $(B)/workloads/ocaml
	$(call msg,OCAMLOPT,$@)
	$(Q)cp $^ $(B)/workloads/ocaml/
	$(Q)cd $(B)/workloads/ocaml && $(OCAMLOPT) -g -ccopt -Wall -I +unix -I +threads \
		unix.cmxa threads.cmxa $(notdir $^) -o ../ocaml_holder

# Each tarball unpacks to one directory (ocaml-5.2.0/, ocaml-trunk/); it is
# unpacked into its own build/ocaml/<version>/ so the name does not matter.
OCAML5_WL_SRCS := tests/workloads/ocaml5/locks5_stubs.c tests/workloads/ocaml5/locks5.ml
$(B)/ocaml/%/.unpacked: $(OCAML5_TOOLS)/ocaml-%-min.tar.xz
	@rm -rf $(@D) && mkdir -p $(@D)
	$(call msg,UNTAR,$<)
	$(Q)tar -xJf $< -C $(@D) && touch $@

$(B)/workloads/ocaml-%/ocaml5_locks: $(OCAML5_WL_SRCS) $(B)/ocaml/%/.unpacked
	@mkdir -p $(@D)
	$(call msg,OCAMLOPT,$@)
	$(Q)cp $(OCAML5_WL_SRCS) $(@D)/
	$(Q)top=$$(ls -d $(CURDIR)/$(B)/ocaml/$*/*/ | head -1) && cd $(@D) && \
		OCAMLLIB=$${top}lib/ocaml $${top}bin/ocamlopt.opt -g -ccopt -Wall -I +unix -I +threads \
		unix.cmxa threads.cmxa $(notdir $(OCAML5_WL_SRCS)) -o ocaml5_locks

OCAML5_SITES_SRCS := tests/workloads/ocaml5/sites5_stubs.c tests/workloads/ocaml5/sites5.ml
$(B)/workloads/ocaml-%/ocaml5_sites: $(OCAML5_SITES_SRCS) $(B)/ocaml/%/.unpacked
	@mkdir -p $(@D)
	$(call msg,OCAMLOPT,$@)
	$(Q)cp $(OCAML5_SITES_SRCS) $(@D)/
	$(Q)top=$$(ls -d $(CURDIR)/$(B)/ocaml/$*/*/ | head -1) && cd $(@D) && \
		OCAMLLIB=$${top}lib/ocaml $${top}bin/ocamlopt.opt -g -ccopt -Wall -I +unix -I +threads \
		unix.cmxa threads.cmxa $(notdir $(OCAML5_SITES_SRCS)) -o ocaml5_sites

$(B)/workloads/java/%.class: tests/workloads/java/%.java
	@mkdir -p $(@D)
	$(call msg,JAVAC,$@)
	$(Q)$(JAVAC) --release 11 -encoding UTF-8 -d $(@D) $<

GO_ENV := GOCACHE=$(abspath $(B))/go/cache GOPATH=$(abspath $(B))/go/path GOPROXY=off GOFLAGS= \
	  GO111MODULE=off CGO_ENABLED=0
$(B)/workloads/go/gowl: tests/workloads/go/gowl.go
	@mkdir -p $(@D)
	$(call msg,GO,$@)
	$(Q)$(GO_ENV) $(GO) build -o $@ $<
$(B)/workloads/go/gosites: tests/workloads/go/gosites.go
	@mkdir -p $(@D)
	$(call msg,GO,$@)
	$(Q)$(GO_ENV) $(GO) build -o $@ $<
# stripped: no symbol table, no DWARF (what a snapshot loses is tested)
$(B)/workloads/go/gowl-stripped: tests/workloads/go/gowl.go
	@mkdir -p $(@D)
	$(call msg,GO,$@)
	$(Q)$(GO_ENV) $(GO) build -ldflags "-s -w" -o $@ $<

test: deps
	@$(MAKE) --no-print-directory all $(B)/tests/run-tests fuzz
	@bash scripts/fuzz.sh check
	@bash scripts/run-tests.sh

# ------------------------------------------------------------ fuzzing
# `make fuzz` builds libFuzzer harnesses (clang, with ASan and UBSan) for
# the trace reader, the snapshot JSON reader and the protobuf reader;
# `scripts/fuzz.sh check` (part of make test) replays the seed corpus in
# tests/fuzz/corpus and runs each harness for a few seconds;
# `scripts/fuzz.sh run SECONDS` fuzzes for longer (docs/fuzzing.md).
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
             -fno-sanitize-recover=undefined
FZ        := $(B)/fuzz
FUZZERS   := $(patsubst tests/fuzz/%.c,$(FZ)/%,$(wildcard tests/fuzz/fuzz_*.c))
FZ_OBJS   := $(patsubst src/%.c,$(FZ)/obj/%.o,$(LIB_SRCS))

fuzz: $(FUZZERS)

$(FZ)/lib.a: $(FZ_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(FZ)/%: tests/fuzz/%.c $(FZ)/lib.a
	$(call msg,LD,$@)
	$(Q)$(CLANG) $(CFLAGS) $(SAN_FLAGS) -fsanitize=fuzzer $(ALL_INC) $< $(FZ)/lib.a $(LDLIBS) -o $@

# The unit tests (no root, no BPF) built with ASan and UBSan: .ci/run runs
# them besides make test.
AS        := $(B)/asan
AS_OBJS   := $(patsubst src/%.c,$(AS)/obj/%.o,$(LIB_SRCS)) \
             $(patsubst tests/%.c,$(AS)/tests/%.o,$(TEST_SRCS))

$(eval $(call compile_rules,$(B),$(CC),))
$(eval $(call compile_rules,$(FZ),$(CLANG),$(SAN_FLAGS) -fsanitize=fuzzer-no-link))
$(eval $(call compile_rules,$(AS),$(CLANG),$(SAN_FLAGS)))
-include $(shell find $(B) -name '*.d' 2>/dev/null)

$(AS)/run-tests: $(AS_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CLANG) $(CFLAGS) $(SAN_FLAGS) $^ $(LDLIBS) -lcriterion -o $@

# only version.c includes build/git-version.h (all three builds of it)
$(B)/obj/cli/version.o $(AS)/obj/cli/version.o $(FZ)/obj/cli/version.o: $(B)/git-version.h

unit-asan: deps
	@$(MAKE) --no-print-directory all $(AS)/run-tests
	@bash scripts/run-asan-tests.sh

# The CLI itself built with ASan and UBSan, for the live suites
# (make live-asan; scripts/run-live-asan.sh): not part of make test, which
# it would double; .ci/run runs it after make test.  Measured 2026-12-04:
# 13 minutes for its 224 tests on the 2-core machine under the other
# sessions' load (load average 8-10), the ASan objects already built by
# make unit-asan.
$(AS)/locktrace: $(AS)/obj/cli/main.o $(patsubst src/%.c,$(AS)/obj/%.o,$(LIB_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CLANG) $(CFLAGS) $(SAN_FLAGS) $^ $(LDLIBS) -o $@

live-asan: deps
	@$(MAKE) --no-print-directory all $(B)/tests/run-tests $(AS)/locktrace
	@bash scripts/run-live-asan.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@bash scripts/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@bash scripts/bench.sh

clean:
	rm -rf $(B)

# ------------------------------------------------------------ install, deb (issue 30)
# `make install` (PREFIX=/usr/local, DESTDIR= to stage elsewhere) installs
# the binary (self-contained: the BPF object is inside it), the man pages
# locktrace(8) and locktrace-COMMAND(8) and the bash completion; `make
# uninstall` removes them.  The pages and the completion are written by
# the binary itself from the option tables that --help prints (`locktrace
# --man [COMMAND]`, `locktrace --completion bash`: src/cli/cli_gen.c), so
# they cannot drift.  `make deb` builds build/locktrace_VERSION-1_ARCH.deb
# with dpkg-deb (scripts/make-deb.sh).  Each generated file is written
# under a temporary name and renamed: the tests run `make install` and
# `make deb` (tests/live/test_install_live.c), perhaps at the same time.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL     ?= install
MAN_CMDS    := record snapshot report dump convert
MAN_PAGES   := $(B)/man/locktrace.8 $(patsubst %,$(B)/man/locktrace-%.8,$(MAN_CMDS))
COMPLETION  := $(B)/completion/locktrace
LT_VER      := $(shell sed -n 's/^\#define LT_VERSION "\(.*\)"/\1/p' src/cli/version.h)
DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB         := $(B)/locktrace_$(LT_VER)-1_$(DEB_ARCH).deb

.PHONY: install uninstall man deb

man: $(MAN_PAGES) $(COMPLETION)

$(B)/man/locktrace.8: $(B)/locktrace
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)$< --man > $@.$$$$ && mv $@.$$$$ $@

$(B)/man/locktrace-%.8: $(B)/locktrace
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)$< --man $* > $@.$$$$ && mv $@.$$$$ $@

$(COMPLETION): $(B)/locktrace
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)$< --completion bash > $@.$$$$ && mv $@.$$$$ $@

install: $(B)/locktrace $(MAN_PAGES) $(COMPLETION)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR)
	$(Q)$(INSTALL) -m 0755 $(B)/locktrace $(DESTDIR)$(BINDIR)/locktrace
	$(Q)$(INSTALL) -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man8/
	$(Q)$(INSTALL) -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/locktrace

uninstall:
	$(call msg,RM,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(BINDIR)/locktrace $(DESTDIR)$(BASHCOMPDIR)/locktrace \
		$(patsubst $(B)/man/%,$(DESTDIR)$(MANDIR)/man8/%,$(MAN_PAGES))

deb: $(DEB)

$(DEB): $(B)/locktrace $(MAN_PAGES) $(COMPLETION) scripts/make-deb.sh README.md $(wildcard docs/*.md)
	$(Q)rm -rf $(B)/deb
	$(Q)$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(B)/deb PREFIX=/usr
	$(call msg,DEB,$@)
	$(Q)bash scripts/make-deb.sh $(B)/deb $(LT_VER)-1 $(DEB_ARCH) $@

# The collector's user-space path replayed from a trace (scripts/bench-collector.c;
# BENCHMARKS.md, "collector CPU per million events").  Not part of `all`.
$(B)/bench-collector: scripts/bench-collector.c $(B)/liblocktrace.a
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(ALL_INC) $< $(B)/liblocktrace.a $(LDLIBS) -o $@
