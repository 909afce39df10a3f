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

# The version --version prints is LT_VERSION (include/locktrace/version.h),
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

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(B)/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(B)/%.skel.h,$(BPF_SRCS))
LIB_SRCS  := $(filter-out src/main.c,$(wildcard src/*.c))
LIB_OBJS  := $(patsubst src/%.c,$(B)/obj/%.o,$(LIB_SRCS))
# tests/test_*.c hold the tests; the helpers they share (no tests) are
# listed here by name.
TEST_SRCS := $(wildcard tests/test_*.c) tests/util.c tests/pf_check.c tests/tp.c \
             tests/fakeproc.c tests/gen_trace.c
TEST_OBJS := $(patsubst tests/%.c,$(B)/tests/%.o,$(TEST_SRCS))
WL_SRCS   := $(wildcard tests/workloads/*.c)
WL_BINS   := $(patsubst tests/workloads/%.c,$(B)/workloads/%,$(WL_SRCS))
# OCaml workloads (tests/workloads/ocaml) are built only where ocamlopt is
# installed (Debian: ocaml-nox); their tests skip when they are missing.
OCAMLOPT  ?= $(shell command -v ocamlopt 2>/dev/null)
OCAML_WLS := $(if $(OCAMLOPT),$(B)/workloads/ocaml_holder)
# Java workloads (tests/workloads/java) likewise need javac (Debian:
# default-jdk-headless); class files for Java 11, so any JDK from 11 on runs them.
JAVAC     ?= $(shell command -v javac 2>/dev/null)
JAVA_WLS  := $(if $(JAVAC),$(B)/workloads/java/JavaLocks.class $(B)/workloads/java/JucLocks.class)

.PHONY: all deps test unit demo bench clean fuzz unit-asan FORCE
# a recipe that fails leaves no half-written target behind
.DELETE_ON_ERROR:
all: $(B)/locktrace $(WL_BINS) $(OCAML_WLS) $(JAVA_WLS)

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

$(B)/obj/%.o: src/%.c $(wildcard include/locktrace/*.h) $(wildcard src/*.h) $(SKELS)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(B)/liblocktrace.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/locktrace: src/main.c $(B)/liblocktrace.a $(wildcard include/locktrace/*.h) $(wildcard src/*.h)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $< $(B)/liblocktrace.a $(LDLIBS) -o $@

$(B)/tests/%.o: tests/%.c $(wildcard include/locktrace/*.h) $(wildcard tests/*.h)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests -c $< -o $@

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

$(B)/workloads/java/%.class: tests/workloads/java/%.java
	@mkdir -p $(@D)
	$(call msg,JAVAC,$@)
	$(Q)$(JAVAC) --release 11 -encoding UTF-8 -d $(@D) $<

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

$(FZ)/obj/%.o: src/%.c $(wildcard include/locktrace/*.h) $(wildcard src/*.h) $(SKELS)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CLANG) $(CFLAGS) $(SAN_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FZ)/lib.a: $(FZ_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(FZ)/%: tests/fuzz/%.c $(FZ)/lib.a
	$(call msg,LD,$@)
	$(Q)$(CLANG) $(CFLAGS) $(SAN_FLAGS) -fsanitize=fuzzer $< $(FZ)/lib.a $(LDLIBS) -o $@

# The unit tests (no root, no BPF) built with ASan and UBSan: .ci/run runs
# them besides make test.
AS        := $(B)/asan
AS_OBJS   := $(patsubst src/%.c,$(AS)/obj/%.o,$(LIB_SRCS)) \
             $(patsubst tests/%.c,$(AS)/tests/%.o,$(TEST_SRCS))

$(AS)/obj/%.o: src/%.c $(wildcard include/locktrace/*.h) $(wildcard src/*.h) $(SKELS)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CLANG) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(AS)/tests/%.o: tests/%.c $(wildcard include/locktrace/*.h) $(wildcard tests/*.h)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CLANG) $(CFLAGS) $(SAN_FLAGS) -Itests -c $< -o $@

$(AS)/run-tests: $(AS_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CLANG) $(CFLAGS) $(SAN_FLAGS) $^ $(LDLIBS) -lcriterion -o $@

# only version.c includes build/git-version.h (all three builds of it)
$(B)/obj/version.o $(AS)/obj/version.o $(FZ)/obj/version.o: $(B)/git-version.h

unit-asan: deps
	@$(MAKE) --no-print-directory all $(AS)/run-tests
	@bash scripts/run-asan-tests.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@bash scripts/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@bash scripts/bench.sh

clean:
	rm -rf $(B)
