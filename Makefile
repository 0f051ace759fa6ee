# smemlab - a self-grading CUDA shared-memory lab kit.  `make help` lists the targets.

SHELL := /bin/bash
.DEFAULT_GOAL := help

LABS := lab1 lab2 lab3 lab4 lab5 lab6 lab7 lab8 lab9 lab10
BUILD := build

# --- toolchain ---------------------------------------------------------------
NVCC ?= nvcc
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))
CUDA_INC := $(CUDA_HOME)/include $(wildcard $(CUDA_HOME)/extras/CUPTI/include)
CUDA_LIB := $(CUDA_HOME)/lib64 $(wildcard $(CUDA_HOME)/extras/CUPTI/lib64)
CC ?= gcc
# ccache (Debian's), where it is installed, in front of the host compiler when
# CC is make's own: the grader's objects are compiled once for every tree of the
# kit (a clone, the student kit, the autograders' kits that check-full builds
# from nothing). A tree's folder is not part of an object's hash
# (CCACHE_NOHASHDIR): an object may name another tree's folder in its debug
# information, never another source.
ifeq ($(origin CC),default)
CC := $(if $(shell command -v ccache 2>/dev/null),ccache gcc,gcc)
endif
export CCACHE_NOHASHDIR := 1
# DEPS_PREFIX: a folder with Debian packages unpacked (dpkg -x), for machines
# that cannot apt-get (see tests/gpu/README.md).
DEPS_PREFIX ?=
DEPS_INC := $(if $(DEPS_PREFIX),$(DEPS_PREFIX)/usr/include)
DEPS_LIB := $(if $(DEPS_PREFIX),$(DEPS_PREFIX)/usr/lib/$(shell $(CC) -print-multiarch))

comma := ,

# One line a step (CC grader/x.c, NVCC lab3.cu, LINK smemlab-grade); make V=1
# prints every command whole. Errors and warnings are always shown whole.
# A step made for a stage (a stamp below sets STAGE for everything it needs)
# is counted in the stage's log instead, and the stamp prints one line for
# the stage: make lab1 is a few lines, not a hundred.
V ?= 0
ifeq ($(V),1)
step =
else
step = @$(if $(STAGE),echo "$$(date +%s.%N) $(1) $(2)" >> $(BUILD)/.stage-$(STAGE).log,printf '  %-6s %s\n' '$(1)' '$(2)');
endif
# $(call stage_line,NAME): what the stage's steps came to and how long they
# took, on one line ("grader  96 C files compiled, 3 programs linked (41.2 s)");
# steps of an earlier make that stopped on an error are not counted again.
MAKE_T0 := $(shell date +%s.%N)
stage_line = $(if $(filter 1,$(V)),:,awk -v name='$(1)' -v since=$(MAKE_T0) -v now=$$(date +%s.%N) \
    -f grader/kit/stage-line.awk $(BUILD)/.stage-$(1).log 2>/dev/null; rm -f $(BUILD)/.stage-$(1).log)
# The machine's cores by default (make -jN or MAKEFLAGS choose otherwise), and
# one job more for make check and check-full, whose stages also wait (on the
# batch tests' sleeping fakes, time limits, pipes): the extra job keeps the
# cores busy meanwhile. The test targets keep each one's output together.
ifeq ($(filter -j% --jobs%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell echo $$(( $$(nproc 2>/dev/null || echo 2) $(if $(filter check check-full,$(MAKECMDGOALS)),+ 1) )))
endif
# (check-mutants alone prints as it goes: it runs for minutes.)
ifneq ($(filter-out check-mutants,$(filter check%,$(MAKECMDGOALS))),)
MAKEFLAGS += --output-sync=target
endif
# CFLAGS and NVCCFLAGS are yours to set (make CFLAGS=-O0 ...); what the kit
# cannot do without is added in C_ALL and NVCC_ALL.
CFLAGS ?= -O2 -g
C_ALL = -std=c11 -Wall -Wextra -Werror=implicit-function-declaration -Werror=incompatible-pointer-types $(CFLAGS)
CPPFLAGS += $(addprefix -I,$(CUDA_INC) $(DEPS_INC) $(DEPS_INC:%=%/cjson)) -I/usr/include/cjson
LDLIBS_CUDA := $(addprefix -L,$(CUDA_LIB) $(DEPS_LIB)) $(addprefix -Wl$(comma)-rpath$(comma),$(CUDA_LIB) $(DEPS_LIB)) \
               -lcupti -lcudart -lcjson -lzstd -lcrypto -ldl -lm -lstdc++
# libcrypto (OpenSSL, libssl-dev): the SHA-256 digests a record carries (base/sha256.c),
# for the programs that link the lab tables without the CUDA libraries.
CRYPTO_LIBS := $(addprefix -L,$(DEPS_LIB)) $(addprefix -Wl$(comma)-rpath$(comma),$(DEPS_LIB)) -lcrypto

# GPU architecture: that of GPU 0 when nvcc knows it; else a list that covers
# compute capability 7.5 (Turing) to 9.0 (Hopper) plus PTX that newer GPUs
# compile when they load it. NVCC_ARCH=-arch=sm_86 builds for another GPU.
# Both are asked only when a CUDA file is compiled, and then once (make grade
# of a built lab does not pay for nvidia-smi).
GPU_CC = $(eval GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d .))$(GPU_CC)
GPU_ARCH_KNOWN = $(eval GPU_ARCH_KNOWN := $(if $(GPU_CC),$(filter sm_$(GPU_CC),$(shell $(NVCC) --list-gpu-code 2>/dev/null))))$(GPU_ARCH_KNOWN)
DEFAULT_ARCHS := 75 80 86 89 90
NVCC_ARCH ?= $(if $(GPU_ARCH_KNOWN),-arch=sm_$(GPU_CC),$(foreach a,$(DEFAULT_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) -gencode arch=compute_90,code=compute_90)
NVCCFLAGS ?= -O3 -lineinfo
# LAB_COMMON: where smemlab.h and support.cu come from (make lab-lib points it
# at a pristine copy beside one student's file).
LAB_COMMON ?= common
NVCC_COMMON = -std=c++17 -I$(LAB_COMMON) -Xcompiler -fPIC,-Wall --cudart shared
NVCC_BASE = $(NVCC_COMMON) $(NVCCFLAGS)
NVCC_ALL = $(NVCC_BASE) $(NVCC_ARCH)

# --- the build jail: every build of a student's file goes through it ---------------
# build/smemlab-build-jail (grader/jail/) runs nvcc confined and bounded: the
# build reads only the student's folder, common/ and the toolchain, writes only
# its own folder, and stops at the limits below; an include of any other file
# is refused with a reason (docs/instructors.md#build-sandbox). The limits are
# make variables: make lab-lib ... BUILD_TIMEOUT=60 BUILD_MEMORY=2G. BUILD_TIMEOUT
# is CPU time of each compiler process; the wall time is 3x that (--wall).
BUILD_JAIL := $(BUILD)/smemlab-build-jail
BUILD_TIMEOUT ?= 120
BUILD_MEMORY ?= 4G
BUILD_OUTPUT ?= 256M
BUILD_LOG ?= 1M
# auto: Landlock where the kernel has it, and the portable checks; portable:
# the portable checks only (what a kernel without Landlock gets).
BUILD_SANDBOX ?= auto
# A file that receives the reason when the jail stops or refuses a build.
BUILD_VERDICT ?=
# The build sees PATH alone of the environment; names listed here too
# (a site's toolchain setting, e.g. BUILD_KEEP_ENV=NVCC_CCBIN).
BUILD_KEEP_ENV ?=
JAIL = $(BUILD_JAIL) --timeout $(BUILD_TIMEOUT) --memory $(BUILD_MEMORY) --max-output $(BUILD_OUTPUT) \
       --max-log $(BUILD_LOG) --sandbox $(BUILD_SANDBOX) $(if $(BUILD_VERDICT),--verdict $(BUILD_VERDICT)) \
       $(addprefix --keep-env ,$(BUILD_KEEP_ENV))

# $(call lab_lib,FLAGS,SRC,OUT[,RUNNER[,PTX[,CUBINS]]]): a lab library OUT (X.so) and beside it
# X.fatbin, the device code of SRC alone, kept from the same nvcc run (--keep);
# PTX: where to keep SRC's compute_90 PTX too (FLAGS then include compute_90);
# CUBINS: keep each architecture's cubin too, as CUBINS.smXX.cubin.
# The grader runs GPU code from X.fatbin only, so device code put into the
# library some other way (host assembly, a section attribute) is never run.
# nvcc runs in the jail, writing only into OUT.keep/ (its temporaries too);
# RUNNER replaces the jail for the kit's own test libraries that must do what
# the jail refuses (the unit tests' injected fatbinary); RUNNER nojail runs nvcc
# as the jail would, without it, for the kit's own files that read what a file
# the jail built reads (make check's planted variants, tests/tests.mk).
# What the jail builds, and what nojail builds, comes from the lab cache where
# LAB_CACHE names one (below).
lab_lib = keep=$(3).keep; rm -rf "$$keep" && mkdir -p "$$keep" && cp $(SUPPORT_OBJ) "$$keep/support.o" \
    && $(if $(and $(LAB_CACHE),$(if $(filter-out nojail,$(4)),,cache)),$(call lab_cached,$(1),$(2),$(3),$(lab_nvcc)),$(lab_nvcc)) \
    && mv "$$keep/$(notdir $(3))" $(3) $(if $(5),&& $(call keep_ptx,$(basename $(notdir $(2))),$(5))) \
    $(if $(6),&& for c in "$$keep/$(basename $(notdir $(2)))".*.cubin; do [ -e "$$c" ] || continue; a=$${c%.cubin}; mv "$$c" $(6).sm$${a##*_}.cubin; done) \
    && { mv "$$keep/$(basename $(notdir $(2))).fatbin" $(patsubst %.so,%.fatbin,$(3)) \
         || { echo "nvcc kept no $(basename $(notdir $(2))).fatbin in $$keep: this kit needs the file names of nvcc --keep (CUDA 12.6 or newer)" >&2; false; }; }; \
    rc=$$?; rm -rf "$$keep"; [ $$rc = 0 ]
# $(call keep_ptx,NAME,PTX): nvcc --keep names the compute_90 PTX NAME.compute_90.ptx
# beside other architectures' and NAME.ptx where it is the only one.
keep_ptx = { mv "$$keep/$(1).compute_90.ptx" $(2) 2>/dev/null || \
    { grep -q '^\.target sm_90' "$$keep/$(1).ptx" && mv "$$keep/$(1).ptx" $(2); }; }
lab_nvcc = $(if $(filter-out nojail,$(4)),$(4),$(if $(4),$(NOJAIL_ENV),$(JAIL) --source $(2) --read $(LAB_COMMON) --out "$$keep" --)) \
       $(NVCC) $(1) -shared $(2) "$$keep/support.o" -o "$$keep/$(notdir $(3))" --keep --keep-dir "$$keep"
# nojail's environment: the jail's (PATH, LC_ALL=C and BUILD_KEEP_ENV's names alone;
# no CPATH, no NVCC_APPEND_FLAGS; the address layout fixed, setarch -R, as the jail
# runs the compiler: grader/jail/run.c says why; where the machine refuses it, a
# container's seccomp profile say, as the jail goes on without), so that the lab
# cache's key decides its bytes too.
SETARCH_R = setarch $(shell uname -m) -R
FIXED_LAYOUT = $(eval FIXED_LAYOUT := $(shell $(SETARCH_R) true 2>/dev/null && echo '$(SETARCH_R)'))$(FIXED_LAYOUT)
NOJAIL_ENV = env -i PATH="$$PATH" LC_ALL=C $(foreach n,$(BUILD_KEEP_ENV),$(n)="$$$(n)") $(FIXED_LAYOUT)
# The lab cache (grader/kit/lab-cache.sh): a library the jail built is stored
# under the sha256 of everything that decides its bytes (the toolchain, the
# flags, the source's bytes and the names -lineinfo records, common/, how
# support.o is made: its flags and sources, never its bytes, which nvcc writes
# anew each time)
# and copied from there the next time those are all the same; an entry is
# checked against its manifest and built again where damaged. The folder lives
# across clones and make clean; CI may keep it. LAB_CACHE= builds everything.
# make lab-lib (students' files: the batch, the autograders) caches nothing
# unless LAB_LIB_CACHE names a folder (check-truth's corpus does).
LAB_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/smemlab/labs
LAB_LIB_CACHE ?=
LAB_CACHE_SH = LAB_CACHE='$(LAB_CACHE)' bash grader/kit/lab-cache.sh
# (The key is taken again after a build: a file changed meanwhile stores nothing.)
# (The toolchain's part of the key is asked once a make, when a library is first built.)
LAB_TOOLCHAIN = $(eval LAB_TOOLCHAIN := $(shell $(LAB_CACHE_SH) toolchain '$(NVCC)'))$(LAB_TOOLCHAIN)
lab_key = LAB_TOOLCHAIN='$(LAB_TOOLCHAIN)' $(LAB_CACHE_SH) key '$(NVCC)' '$(1)' $(2) $(3) $(LAB_COMMON) '$(SUPPORT_FLAGS)' $(SUPPORT_SRC)
lab_cached = { key=$$($(lab_key)) && $(LAB_CACHE_SH) get "$$key" "$$keep" || { $(4) \
    && { [ "$$key" != "$$($(lab_key))" ] || $(LAB_CACHE_SH) put "$$key" "$$keep" $(notdir $(3)) $(basename $(notdir $(2))); }; }; }
# common/support.cu holds no GPU code (a symbol that marks the contract): it is
# compiled once and linked into every lab library, the jail reading it from
# OUT.keep/. Written under another name first: batch builds may ask at once.
SUPPORT_OBJ := $(BUILD)/obj/common/support.o
SUPPORT_SRC := common/support.cu common/smemlab.h
SUPPORT_FLAGS := -std=c++17 -Icommon -Xcompiler -fPIC --cudart shared
$(SUPPORT_OBJ): $(SUPPORT_SRC)
	@mkdir -p $(@D)
	$(call step,NVCC,$<)$(NVCC) $(SUPPORT_FLAGS) -c $< -o $@.$$$$ && mv $@.$$$$ $@
# A prerequisite of every lab library: if its X.fatbin is gone (a library built
# by an older kit, say), the library is built again.
.SECONDEXPANSION:
FATBIN_GONE = $$(if $$(wildcard $$(basename $$@).fatbin),,FORCE)
.PHONY: FORCE
FORCE:

# --- the grader ----------------------------------------------------------------
# Three programs: smemlab-grade (plans, measures, scores; never runs a student's
# host code), smemlab-record (the untrusted process that calls the launchers)
# and the fake CUDA runtime the recorder loads in place of the real one.
#
# Every C file under grader/ is compiled once (build/obj/, position-independent,
# so that the trace backend's shared object takes the same objects) and put in
# one archive, build/libsmemlab.a: all but the programs' mains (a file that
# defines main), the entry files of the two shared objects and the PTX machine's
# tests. A program is its main and the archive: the linker takes from it the
# objects the program calls into, and nothing else, so that a new file is linked
# wherever it is used, with no list to edit.
# The instructor's course file (docs/instructors.md#course): points, speed fractions,
# steps left out. The grader reads the kit's course.conf by itself; the docs' numbers,
# the student kit and the autograders follow COURSE_FILE (make docs COURSE_FILE=f).
COURSE_FILE ?= $(wildcard course.conf)
GRADER_C := $(shell find grader -name '*.c' -not -path 'grader/ptx/tests/*' | sort)
MAIN_C := $(shell grep -l '^int main\b' $(GRADER_C))
SO_ENTRY_C := grader/record/fake_cudart.c grader/measure/trace/measure_trace.c
GRADER_LIB := $(BUILD)/libsmemlab.a
GRADER := $(BUILD)/smemlab-grade
RECORDER := $(BUILD)/smemlab-record
FAKE_CUDART := $(BUILD)/record/libcudart.so.13
GRADER_ALL := $(GRADER) $(RECORDER) $(FAKE_CUDART)
# See grader/measure/counters/compat/README.
CUPTI_CFLAGS := -Igrader/measure/counters/compat
# Each object depends on the headers it includes, as the compiler lists them (-MMD).
DEPFLAGS = -MMD -MP
# (Not read for make lab-lib and nvcc-arch, which compile no object: the batch
# runs one make lab-lib a student, and reading them is half of such a make's time.)
ifneq ($(filter-out lab-lib nvcc-arch,$(or $(MAKECMDGOALS),help)),)
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
endif

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call step,CC,$<)$(CC) $(DEPFLAGS) $(CPPFLAGS) $(if $(findstring measure_cupti,$<),$(CUPTI_CFLAGS)) $(C_ALL) $(C_OBJ) -c $< -o $@
# Position-independent (the trace backend is a shared object); the archive's
# symbols are hidden there (--exclude-libs), so nothing of it is interposed.
C_OBJ = -fPIC -fno-semantic-interposition
# The kit's version, in every record the grader writes (grader/base/provenance.c):
# a student kit's VERSION file, else git describe of this tree ("-dirty" where it
# has changes). Asked once a make, and only where the grader is built.
KIT_VERSION = $(eval KIT_VERSION := $(shell cat VERSION 2>/dev/null || git describe --always --dirty --tags 2>/dev/null || echo unknown))$(KIT_VERSION)
VERSION_STAMP := $(BUILD)/.kit-version
$(VERSION_STAMP): FORCE
	@mkdir -p $(@D); v='$(KIT_VERSION)'; [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@
$(BUILD)/obj/grader/base/provenance.o: C_OBJ += -DSMEMLAB_VERSION='"$(KIT_VERSION)"'
$(BUILD)/obj/grader/base/provenance.o: $(VERSION_STAMP)
# The batch composes paths and messages that may be cut, and says so.
$(BUILD)/obj/grader/batch/%.o: C_OBJ += -Wno-format-truncation

# The grader's own kernels, built into the grader (grader/device/).
GRADER_FATBIN := $(BUILD)/grader_kernels.fatbin
$(GRADER_FATBIN): grader/device/grader_kernels.cu
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) -std=c++17 --fatbin $(NVCC_ARCH) $< -o $@
	@echo '$(NVCC_ARCH)' > $(BUILD)/tools-arch # for a prebuilt grader: which GPUs it fits
$(BUILD)/obj/grader/device/grader_fatbin.o: grader/device/grader_fatbin.S $(GRADER_FATBIN)
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) -c -DGRADER_FATBIN='"$(GRADER_FATBIN)"' $< -o $@

# CUB's device-wide sum, the speed reference of labs 7 and 8 (grader/device/cub_sum.cu):
# host code that nvcc compiles, linked into the grader. For the GPU at hand; where
# there is none, as compute_75 PTX only (quick to build, never run there: speed is
# the GPU's, and a GPU of 7.5 or newer compiles it when it first runs).
CUB_ARCH = $(if $(GPU_ARCH_KNOWN),-arch=sm_$(GPU_CC),-gencode arch=compute_75$(comma)code=compute_75)
CUB_OBJ := $(BUILD)/obj/grader/device/cub_sum.o
$(CUB_OBJ): grader/device/cub_sum.cu grader/run/cub.h
	@mkdir -p $(@D)
	$(call step,NVCC,$<)$(NVCC) -std=c++17 -Xcompiler -fPIC -c $(CUB_ARCH) $< -o $@

GRADER_LIB_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out $(MAIN_C) $(SO_ENTRY_C),$(GRADER_C))) \
                  $(BUILD)/obj/grader/device/grader_fatbin.o $(CUB_OBJ)
# A thin archive (it names the objects, never copies them), written anew when
# an object changes: a file removed from the tree leaves nothing behind in it.
$(GRADER_LIB): $(GRADER_LIB_OBJ)
	$(call step,AR,$@)rm -f $@.tmp.$$$$ && $(AR) rcsT $@.tmp.$$$$ $^ && mv $@.tmp.$$$$ $@
# $(call program,MAIN_OBJ...): what a program links, its mains then the archive.
program = $(1) $(GRADER_LIB)
# A program P is linked by the rule of its stamp, P.linked, into P.new, which
# replaces P only where the bytes differ ($(call relink,LINK COMMAND without
# -o)); P's own rule has nothing to do, so make reads P's time again after it.
# The archive is new whenever any object is, but a program that links none of
# what changed keeps its time, and what is made from it (the jail's lab
# libraries, the docs' figures) is not made again; the stamp keeps the link
# from running again. A program that is gone is linked again (FORCE). The
# temporary names carry the shell's pid: the batch's builds are makes in this
# tree side by side (make lab-lib), and where the jail was out of date two of
# them once wrote the archive's one .tmp at once and left it empty (8 bytes).
relink = $(1) -o $(@:.linked=).new.$$$$ && { cmp -s $(@:.linked=).new.$$$$ $(@:.linked=) && rm -f $(@:.linked=).new.$$$$ \
    || mv -f $(@:.linked=).new.$$$$ $(@:.linked=); } && touch $@

$(GRADER): $(GRADER).linked ;
$(GRADER).linked: $(call program,$(BUILD)/obj/grader/cli/main.o) $$(if $$(wildcard $(GRADER)),,FORCE) | $(RECORDER) $(FAKE_CUDART)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter %.o %.a,$^) $(LDLIBS_CUDA))

$(RECORDER): $(RECORDER).linked ;
$(RECORDER).linked: $(call program,$(BUILD)/obj/grader/record/recorder.o) $$(if $$(wildcard $(RECORDER)),,FORCE)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter-out FORCE,$^) -ldl $(addprefix -L,$(DEPS_LIB)) \
	    $(addprefix -Wl$(comma)-rpath$(comma),$(DEPS_LIB)) -lseccomp -lcrypto)

# The fake runtime: fake_cudart.c, and a stand-in that refuses by name every other
# function the real runtime, cuBLAS and the driver API export (gen-standins.sh),
# so that a library referencing one loads and only the launcher calling it fails.
FAKE_LIBS_SEEN := $(foreach d,$(CUDA_LIB) $(addsuffix /stubs,$(CUDA_LIB)),$(wildcard \
    $(addprefix $(d)/,libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcuda.so)))
$(BUILD)/record/fake_cudart.o: grader/record/fake_cudart.c grader/record/record.h grader/record/fake_cudart.h
	@mkdir -p $(@D)
	$(call step,CC,$<)$(CC) $(CPPFLAGS) $(C_ALL) -fPIC -c $< -o $@
$(BUILD)/record/fake_standins.c: grader/record/gen-standins.sh $(BUILD)/record/fake_cudart.o $(FAKE_LIBS_SEEN)
	$(call step,GEN,$@)sh $< $(BUILD)/record/fake_cudart.o $(FAKE_LIBS_SEEN) > $@.tmp && mv $@.tmp $@
$(FAKE_CUDART): $(BUILD)/record/fake_cudart.o $(BUILD)/record/fake_standins.c grader/record/fake_cudart.map
	$(call step,LINK,$@)$(CC) $(C_ALL) -fPIC -shared $(BUILD)/record/fake_cudart.o $(BUILD)/record/fake_standins.c \
	    -o $@ -Wl,-soname,libcudart.so.13 -Wl,--version-script=grader/record/fake_cudart.map

# The build jail: plain C, nothing to link. Beside it, smemlab-jail-bin/as is
# the jail again: the assembler guard the host compiler finds first (-B). It is
# its folder's objects alone (it calls nothing else of the grader), not the
# archive's program: make labN builds the jail and the lab, and no grader.
JAIL_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter grader/jail/%,$(GRADER_C)))
$(BUILD_JAIL): $(BUILD_JAIL).linked ;
$(BUILD_JAIL).linked: $(JAIL_OBJ) $$(if $$(wildcard $(BUILD_JAIL)),,FORCE)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter-out FORCE,$^))
	@mkdir -p $(BUILD)/smemlab-jail-bin && ln -sfn ../smemlab-build-jail $(BUILD)/smemlab-jail-bin/as

# --- the trace backend (issue 9): measures without counter permission --------
# Needs the Compute Sanitizer of a full CUDA Toolkit; built only where its
# headers are, loaded by the grader at run time (grader/measure/trace/measure_trace_loader.c).
SANITIZER_HOME ?= $(CUDA_HOME)/compute-sanitizer
HAVE_SANITIZER := $(wildcard $(SANITIZER_HOME)/include/sanitizer.h)
TRACE_LIB := $(BUILD)/libsmemlab-trace.so
TRACE_PATCHES := $(BUILD)/smemlab-trace-patches.fatbin
TRACE_OBJ := $(BUILD)/obj/grader/measure/trace/measure_trace.o
TRACE := $(if $(HAVE_SANITIZER),$(TRACE_LIB) $(TRACE_PATCHES))

$(TRACE_OBJ): C_OBJ += -fvisibility=hidden -I$(SANITIZER_HOME)/include -DSMEMLAB_NVDISASM='"$(CUDA_HOME)/bin/nvdisasm"'
$(TRACE_LIB): $(TRACE_LIB).linked ;
$(TRACE_LIB).linked: $(call program,$(TRACE_OBJ)) $$(if $$(wildcard $(TRACE_LIB)),,FORCE)
	@mkdir -p $(@D)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) -fPIC -shared $(filter-out FORCE,$^) -Wl$(comma)--exclude-libs$(comma)ALL \
	    -L$(SANITIZER_HOME) -Wl$(comma)-rpath$(comma)$(SANITIZER_HOME) -lsanitizer-public \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda -lm)
$(TRACE_PATCHES): grader/measure/trace/trace_patches.cu grader/measure/access/trace_record.h
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) --fatbin --compile-as-tools-patch $(NVCC_ARCH) -I$(SANITIZER_HOME)/include $< -o $@

.PHONY: trace-backend
trace-backend: $(TRACE)
	@$(if $(HAVE_SANITIZER),echo "Built the trace backend: $(TRACE)",echo "The trace backend is not built: $(SANITIZER_HOME)/include/sanitizer.h is missing (install the Compute Sanitizer of your CUDA Toolkit, e.g. the cuda-sanitizer package). The grader still runs; --measure trace will say it is missing.")

# --- stages: what make labN and make grade build, one line each ---------------
# The grader (and the trace backend where it builds), and the build jail with
# the support object every lab library links: each is one stage, whose stamp
# prints its line when something in it was made.
STAMP_GRADER := $(BUILD)/.stamp-grader
STAMP_JAIL := $(BUILD)/.stamp-jail
$(STAMP_GRADER): STAGE = grader
$(STAMP_GRADER): $(GRADER_ALL) $(TRACE)
	@$(call stage_line,grader); touch $@
$(STAMP_JAIL): STAGE = jail
$(STAMP_JAIL): $(BUILD_JAIL) $(SUPPORT_OBJ)
	@$(call stage_line,jail); touch $@

# --- labs: build/labN.so from labs/, build/solutions/labN.so from solutions/ ---
lab_src = $(wildcard $(2)/$(1)-*/$(1).cu)
define lab_rules
$(BUILD)/$(1).so: $(call lab_src,$(1),labs) $(STAMP_JAIL) $(SUPPORT_OBJ) common/smemlab.h $$(FATBIN_GONE) | $(BUILD_JAIL)
	@mkdir -p $$(@D)
	$$(call step,NVCC,$$< -> $$@ (in the build jail))$$(call lab_lib,$$(NVCC_ALL),$$<,$$@)
	@$$(call stage_line,$(1))
$(BUILD)/$(1).so: STAGE = $(1)
$(BUILD)/solutions/$(1).so: $(call lab_src,$(1),solutions) $(SUPPORT_OBJ) common/smemlab.h $$(FATBIN_GONE) | $(BUILD_JAIL)
	@mkdir -p $$(@D)
	$$(call step,NVCC,$$< -> $$@ (in the build jail))$$(call lab_lib,$$(NVCC_ALL),$$<,$$@)
.PHONY: $(1)
$(1): $(BUILD)/$(1).so
	@echo $(1) > $(BUILD)/last-lab
	@echo "Built $(1). Grade it with: make grade"
endef
$(foreach l,$(LABS),$(eval $(call lab_rules,$(l))))

# --- one lab library from any source file, with the kit's flags ----------------------
# make lab-lib LAB=lab3 SRC=path/lab3.cu OUT=path/lab3.so [LAB_COMMON=dir]
# smemlab-batch builds every submission through this target, so the flags of a
# batch are those of `make labN`, and so are the jail and its limits
# (BUILD_TIMEOUT, BUILD_MEMORY, ...; the batch passes its options on). `make -s nvcc-arch` prints the architecture
# flags chosen for this machine (batch asks once and passes NVCC_ARCH on).
# lab-tools: what grading one submission needs built beforehand (the Gradescope
# and Autolab scripts build it as root; make lab-lib then runs as the student).
.PHONY: lab-lib nvcc-arch lab-tools
lab-tools: $(GRADER) $(BUILD_JAIL) $(SUPPORT_OBJ)
lab-lib: override LAB_CACHE = $(LAB_LIB_CACHE)
lab-lib: | $(BUILD_JAIL) $(SUPPORT_OBJ)
	@case " $(LABS) " in *" $(LAB) "*) ;; *) echo "make lab-lib: LAB=$(LAB) is not a lab ($(LABS))" >&2; exit 2;; esac
	@test -n "$(SRC)" -a -n "$(OUT)" || { echo "make lab-lib: give SRC=file.cu and OUT=file.so" >&2; exit 2; }
	$(call step,NVCC,$@)$(call lab_lib,$(NVCC_ALL),$(SRC),$(OUT))
nvcc-arch:
	@echo '$(NVCC_ARCH)'

# --- batch: grade a class --------------------------------------------------------------
BATCH := $(BUILD)/smemlab-batch
BATCH_LIBS := $(addprefix -L,$(DEPS_LIB)) $(addprefix -Wl$(comma)-rpath$(comma),$(DEPS_LIB)) -larchive -lcrypto -lcjson -lm
$(BATCH): $(BATCH).linked ;
$(BATCH).linked: $(call program,$(BUILD)/obj/grader/batch/main.o) $$(if $$(wildcard $(BATCH)),,FORCE)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter-out FORCE,$^) $(BATCH_LIBS))
# make batch LAB=lab3 SUBMISSIONS=dir [RESULTS=dir] [BATCH_FLAGS='--gpus 0,1'] [GRADE_FLAGS=--seed=7]
# GRADE_FLAGS reach the grader (--grader-arg), as make grade passes them; the batch
# refuses one it cannot pass (docs/instructors.md#batch).
RESULTS ?= results-$(LAB_ID)
BATCH_FLAGS ?=
.PHONY: batch
batch: $(BATCH) $(GRADER) $(BUILD_JAIL) $(SUPPORT_OBJ)
	@test -n "$(SUBMISSIONS)" || { echo "make batch: give SUBMISSIONS=folder (one entry per student) and LAB=labN" >&2; exit 2; }
	$(BATCH) $(BATCH_FLAGS) $(addprefix --grader-arg=,$(GRADE_FLAGS)) -o $(RESULTS) $(LAB_ID) $(SUBMISSIONS)

# --- grading -------------------------------------------------------------------
LAB ?= $(shell cat $(BUILD)/last-lab 2>/dev/null)
# LAB=3 means lab3, as the grader accepts both.
LAB_ID = $(if $(LAB),lab$(patsubst lab%,%,$(LAB)))
GRADE_FLAGS ?=
# make grade GPU=kepler: graded as the course's Tesla K40, by the emulator (the grader's
# --gpu; docs/emulator.md#kepler). Taken from the command line only: a GPU variable in
# the environment (a cluster's, say) is not the grader's to read.
GPU_FLAG = $(if $(filter command line,$(origin GPU)),$(if $(GPU),--gpu $(GPU)))
# The grader's exit status (0 passed, 1 a check failed, 2 usage, 3 not
# gradable, 4 not measured) is the recipe's status, but 4: nothing failed, and
# the report's last line says what waits for a GPU (speed, when emulated), so
# make grade succeeds. make itself exits 2 for any failed recipe, and prints the
# recipe's status in its last line: "make: *** [Makefile:NN: grade] Error 1".
# Scripts that need the status run build/smemlab-grade directly
# (docs/getting-started.md#exit-codes).
GRADE_RUN = $(info $(strip $(1)))status=0; $(1) || status=$$?; \
    case $$status in \
    0|4) status=0;; \
    1) why="a check failed";; \
    2) why="bad command line";; \
    3) why="not graded: no GPU or driver, the lab is not built or breaks its contract, or the JSON file cannot be written";; \
    *) why="the grader stopped unexpectedly";; \
    esac; \
    [ $$status -eq 0 ] || echo "smemlab-grade exited with status $$status ($$why); make reports it as Error $$status and exits 2" >&2; \
    $(call open_pages,$(2)) exit $$status
# Each lab graded also gets its report page, $(REPORT_DIR)/LAB.html (docs/lab1.md#page);
# make grade OPEN=1 opens it where a browser is (OPENER: xdg-open, or macOS's open).
REPORT_DIR = $(BUILD)/report
OPENER ?= $(firstword $(foreach o,xdg-open open,$(shell command -v $(o) 2>/dev/null)))
open_pages = $(if $(filter 1,$(OPEN)),for p in $(1:%=$(REPORT_DIR)/%.html); do [ -f "$$p" ] || continue; \
    if [ -n "$(OPENER)" ]; then "$(OPENER)" "$$p" >/dev/null 2>&1 || echo "OPEN=1: $(OPENER) could not open $$p: open it in a browser" >&2; \
    else echo "OPEN=1: no browser opener here (xdg-open, open): open $$p in a browser" >&2; fi; done;)
NO_SOLUTIONS_MSG = solutions/ is not here (this is the student kit): there are no reference solutions to
.PHONY: grade
ifeq ($(SOLUTIONS),1)
GRADE_LABS := $(if $(filter command line,$(origin LAB)),$(LAB_ID),$(LABS))
ifneq ($(wildcard solutions),)
grade: $(GRADER_ALL) $(TRACE) $(GRADE_LABS:%=$(BUILD)/solutions/%.so)
	@$(call GRADE_RUN,$(GRADER) --solutions $(GPU_FLAG) $(GRADE_FLAGS) $(if $(KERNEL),--kernel $(KERNEL)) $(GRADE_LABS) --html $(REPORT_DIR),$(GRADE_LABS))
else
grade:
	@echo "$(NO_SOLUTIONS_MSG) grade. Grade your own lab with make grade." >&2; exit 3
endif
else
grade: $(STAMP_GRADER) $(if $(filter $(LAB_ID),$(LABS)),$(BUILD)/$(LAB_ID).so)
	@if [ -z "$(LAB)" ]; then echo "No lab built yet: run make $(firstword $(LABS)) (or another of $(LABS)) first, or make grade LAB=lab1." >&2; exit 2; fi
	@case " $(LABS) " in *" $(LAB_ID) "*) ;; *) echo "Unknown lab '$(LAB)': the labs are $(LABS)." >&2; exit 2;; esac
	@$(call GRADE_RUN,$(GRADER) $(GPU_FLAG) $(GRADE_FLAGS) $(if $(KERNEL),--kernel $(KERNEL)) $(LAB_ID) --html $(REPORT_DIR),$(LAB_ID))
endif

# make calibrate (GPU): the reference solutions graded on this machine's GPU, every
# speed check run (--course none), and speed thresholds proposed from what they reached
# as a course file fragment: build/calibrate/course-speed.conf (grader/kit/calibrate.sh;
# docs/instructors.md#course). CALIBRATE_MARGIN=0.8: the share of the solution's speed a
# student's kernel must reach; LAB=lab9 for one lab.
CALIBRATE_MARGIN ?= 0.8
CALIBRATE_OUT = $(BUILD)/calibrate
.PHONY: calibrate
calibrate:
	@mkdir -p $(CALIBRATE_OUT) && rm -f $(CALIBRATE_OUT)/solutions.json
	@$(MAKE) --no-print-directory grade SOLUTIONS=1 GRADE_FLAGS='--course none --json $(CALIBRATE_OUT)/solutions.json' \
	    > $(CALIBRATE_OUT)/grade.txt 2>&1 || true # a slow solution fails its speed: still measured
	@bash grader/kit/calibrate.sh $(CALIBRATE_OUT)/solutions.json $(CALIBRATE_MARGIN) > $(CALIBRATE_OUT)/course-speed.conf.tmp \
	    || { echo "(the grade: $(CALIBRATE_OUT)/grade.txt)" >&2; exit 1; }
	@mv $(CALIBRATE_OUT)/course-speed.conf.tmp $(CALIBRATE_OUT)/course-speed.conf && cat $(CALIBRATE_OUT)/course-speed.conf
	@echo "Wrote $(CALIBRATE_OUT)/course-speed.conf: add its lines to course.conf (docs/instructors.md#course)"

# --- set-up: what a fresh Debian/Ubuntu machine lacks -----------------------------
# chromium: make check-docs renders the course in it (headless), as readers see it.
# ccache: the host compiler's cache (above).
# similarity-tester: sim_c, which similar.txt of a graded class asks (grader/batch/similar.c).
DEB_PACKAGES := make gcc patch pkg-config libcjson-dev libseccomp-dev libzstd-dev check pandoc \
                libarchive-dev libssl-dev libxml2-utils python3 python3-jsonschema chromium ccache \
                similarity-tester
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
# One installer for every list the goals ask for: make deps deps-instructor
# (as CI runs it) is one apt-get, not two racing for its lock under -j. It
# says in one line what it installs; apt-get's own output only when it fails,
# or with V=1.
PACKAGES_ASKED = $(if $(filter deps,$(MAKECMDGOALS)),$(DEB_PACKAGES)) \
                 $(if $(filter deps-instructor,$(MAKECMDGOALS)),$(INSTRUCTOR_PACKAGES))
# axe-core comes after the packages (npm among them) from a make of its own: as a
# sub-make sharing our jobs it printed make's "-j2 forced in makefile" warning.
.PHONY: deps deps-instructor install-packages
deps: install-packages
	@command -v $(NVCC) >/dev/null || { echo "nvcc not found: install the CUDA Toolkit (12.6 or newer) and put its bin/ on PATH; see docs/getting-started.md" >&2; exit 3; }
	@MAKEFLAGS= $(MAKE) --no-print-directory $(AXE)
# axe-core, the accessibility checker make check-report runs in the browser on the
# report pages: the version tests/report/package-lock.json pins, its hash checked by npm ci.
AXE_DIR := .deps/npm
AXE := $(AXE_DIR)/node_modules/axe-core/axe.min.js
$(AXE): tests/report/package.json tests/report/package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: apt-get install npm (make check-report runs axe-core, from npm, in the browser)" >&2; exit 3; }
	@mkdir -p $(AXE_DIR) && cp tests/report/package.json tests/report/package-lock.json $(AXE_DIR)/
	@echo "npm ci axe-core -> $(AXE_DIR)" && cd $(AXE_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@
deps-instructor: install-packages
	@:
install-packages:
	@missing=$$(for p in $(or $(strip $(PACKAGES_ASKED)),$(DEB_PACKAGES)); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	[ -n "$$missing" ] || exit 0; \
	echo "Installing with apt-get:" $$missing; \
	log=$$(mktemp); export DEBIAN_FRONTEND=noninteractive; \
	{ $(SUDO) apt-get update && $(SUDO) apt-get install -y $$missing; } $(if $(filter 1,$(V)),,> $$log 2>&1) \
	    || { cat $$log >&2; rm -f $$log; echo "apt-get failed (its output above): install these by hand:" $$missing >&2; exit 3; }; \
	rm -f $$log

# --- benchmark: lab 5 to 9 solutions against cuBLAS, the copy roof and CUB ----------
BENCH := $(BUILD)/smemlab-bench
$(BENCH): $(BENCH).linked ;
$(BENCH).linked: $(call program,$(BUILD)/obj/grader/bench/bench.o) $$(if $$(wildcard $(BENCH)),,FORCE)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter-out FORCE,$^) $(LDLIBS_CUDA) -lcublas)
.PHONY: bench
ifeq ($(words $(wildcard solutions grader/bench)),2)
# The step-3 milestones of lab 5 (docs/lab5.md#milestones) are timed too.
MILESTONES_SRC := $(wildcard solutions/lab5-matmul/milestones/*.cu)
MILESTONES_SO := $(BUILD)/solutions/lab5-milestones.so
$(MILESTONES_SO): $(MILESTONES_SRC) common/support.cu common/smemlab.h
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) $(NVCC_ALL) -shared $(MILESTONES_SRC) common/support.cu -o $@
# Lab 6's earlier 2-D kernel (one column a thread), timed beside the solution's.
CONV_MILESTONES_SRC := $(wildcard solutions/lab6-convolution/milestones/*.cu)
CONV_MILESTONES_SO := $(BUILD)/solutions/lab6-milestones.so
$(CONV_MILESTONES_SO): $(CONV_MILESTONES_SRC) common/support.cu common/smemlab.h
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) $(NVCC_ALL) -shared $(CONV_MILESTONES_SRC) common/support.cu -o $@
# BENCH_CANDIDATES=1: each lab file of solutions/candidates/ (a candidate to replace a
# solution: solutions/candidates/README.md) and the planted variants whose speed must
# pass on every GPU (BENCH_PLANTED) timed in the same run, their lab's section again.
# A candidate is solutions/candidates/NAME.patch, against its lab's solution as a planted
# variant is (the lab file it changes names the lab), built as NAME.so.
CANDIDATES_SO := $(patsubst solutions/candidates/%.patch,$(BUILD)/candidates/%.so,$(wildcard solutions/candidates/*.patch))
BENCH_PLANTED := lab7-grid-stride lab10-lookup-one-key
CANDIDATES_SRC := $(CANDIDATES_SO:$(BUILD)/candidates/%.so=$(BUILD)/candidates/src/%.cu)
ifneq ($(CANDIDATES_SRC),)
.SECONDARY: $(CANDIDATES_SRC)
endif
# apply_patch: the recipe that writes $@, a solution with patch $< applied (a candidate
# here, a planted variant in tests/tests.mk).
define apply_patch
	@mkdir -p $(@D)
	@command -v patch >/dev/null || { echo "patch is missing: run make deps (apt-get install patch)" >&2; exit 3; }
	patch -s -p0 -o $@ -i $<
endef
$(BUILD)/candidates/src/%.cu: solutions/candidates/%.patch $(wildcard solutions/*/*.cu)
	$(apply_patch)
$(BUILD)/candidates/%.so: $(BUILD)/candidates/src/%.cu $(SUPPORT_OBJ) common/smemlab.h | $(BUILD_JAIL)
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(call lab_lib,$(NVCC_ALL),$<,$@)
BENCH_EXTRA := $(if $(filter 1,$(BENCH_CANDIDATES)),$(CANDIDATES_SO) $(BENCH_PLANTED:%=$(BUILD)/planted/%.so))
# $(call bench_run,LIBS): the bench's command line, the solutions' sections then each of
# LIBS's (--candidate); make bench and tests/gpu/check-speed.sh (make check-speed) run it.
bench_run = $(BENCH) $(BUILD)/solutions/lab5.so $(BUILD)/solutions/lab6.so --milestones $(MILESTONES_SO) \
    --conv-milestones $(CONV_MILESTONES_SO) --reduce $(BUILD)/solutions/lab7.so $(BUILD)/solutions/lab8.so \
    --transpose $(BUILD)/solutions/lab9.so --constant $(BUILD)/solutions/lab10.so \
    $(addprefix --candidate ,$(1)) $(BENCH_FLAGS)
# First how long grading takes by emulation (BENCH_EMULATED=0: not); then, on a GPU,
# the kernels' speed.
BENCH_EMULATED ?= 1
bench: $(BENCH) $(GRADER_ALL) $(LABS:%=$(BUILD)/solutions/%.so) $(MILESTONES_SO) \
       $(CONV_MILESTONES_SO) $(BENCH_EXTRA)
	$(if $(filter 1,$(BENCH_EMULATED)),bash grader/bench/emulated.sh $(BUILD) $(GRADER))
	@nvidia-smi -L > /dev/null 2>&1 || { echo "No GPU here: the kernels' speed against cuBLAS, the copy roof and CUB needs one."; exit 0; }; \
	 $(call bench_run,$(BENCH_EXTRA))
else
bench:
	@echo "$(NO_SOLUTIONS_MSG) time. make bench is for the full kit." >&2; exit 3
endif

# The loops students and maintainers wait on, measured in one run (issue 18's
# table): make bench-loops. On a machine without a GPU, grading is emulated.
BARE := $(BUILD)/bench-bare
$(BARE): grader/bench/bare.c
	$(call step,LINK,$@)$(CC) $(CPPFLAGS) $(C_ALL) $< -o $@ $(addprefix -L,$(CUDA_LIB)) \
	    $(addprefix -Wl$(comma)-rpath$(comma),$(CUDA_LIB)) -lcudart -ldl
.PHONY: bench-loops
ifneq ($(wildcard solutions),)
bench-loops: $(GRADER_ALL) $(TRACE) $(BARE) $(LABS:%=$(BUILD)/solutions/%.so)
	bash grader/bench/loops.sh $(BUILD) $(GRADER) $(BARE)
else
bench-loops:
	@echo "$(NO_SOLUTIONS_MSG) time. make bench-loops is for the full kit." >&2; exit 3
endif

# --- the student kit: no solutions, no planted variants, the course rendered -------
KIT_DIR := $(BUILD)/student-kit
.PHONY: student-kit
student-kit:
	COURSE_FILE='$(COURSE_FILE)' bash grader/kit/student-kit.sh $(KIT_DIR)

# --- tests -----------------------------------------------------------------------
include tests/tests.mk
include docs/docs.mk
include grader/integrations/integrations.mk

.PHONY: help clean
help:
	@echo "smemlab - CUDA shared-memory labs that grade themselves"
	@echo
	@echo "  make $(firstword $(LABS)) ... make $(lastword $(LABS))  build a lab from labs/ (and the grader)"
	@echo "  make grade                grade the lab built last"
	@echo "  make grade LAB=lab3       grade a given lab"
	@echo "  make grade KERNEL=NAME    grade one kernel of the lab (e.g. KERNEL=matmulTiled)"
	@echo "  make grade SOLUTIONS=1    grade the reference solutions (LAB=... for one)"
	@echo "  make grade GPU=kepler     grade as the course's Tesla K40 (8-byte banks), by emulation"
	@echo "  make check                unit tests, compile tests (no GPU needed)"
	@echo "  make check-gpu            full tests on a GPU: solutions, skeletons, planted bugs"
	@echo "  make check-student-kit    build the student kit and run make check inside it (CI)"
	@echo "  make check-mutants        the grader's tests, mutation-tested: before any change to grading code"
	@echo "  make bench                time the lab 5-10 solutions against cuBLAS, a copy and CUB"
	@echo "                            (BENCH_CANDIDATES=1: solutions/candidates/ beside them)"
	@echo "  make bench-loops          time a clean build, make grade of every lab and the kit's tests"
	@echo "  make trace-backend        build the counter-free trace backend (needs compute-sanitizer)"
	@echo "  make batch LAB=lab3 SUBMISSIONS=dir [RESULTS=dir]   grade a class (docs/instructors.md)"
	@echo "  make bench-batch          time batch grading of a generated class of 300 (GPU)"
	@echo "  make lab-tools            what grading one submission needs built (grader, jail, support.o)"
	@echo "  make calibrate            speed thresholds for this GPU, from the solutions (course.conf)"
	@echo "  make docs                 render docs/ to build/docs/ with pandoc"
	@echo "  make student-kit          the kit for students, without solutions: build/student-kit/"
	@echo "  make gradescope LAB=lab3  build/gradescope/lab3/autograder.zip (docs/instructors.md)"
	@echo "  make autolab LAB=lab3     build/autolab/lab3/: autograde-Makefile, autograde.tar"
	@echo "  make deps-instructor      what those and their tests need (jq, zip, slurm-wlm, munge)"
	@echo "  make clean                remove build/"
	@echo
	@echo "  GRADE_FLAGS='--json out.json'   extra grader options (build/smemlab-grade --help);"
	@echo "                                  --verbose: the full report, every check"
	@echo "  V=1                             print every build command (default: a line a stage)"
	@echo "  NVCC_ARCH='-arch=sm_86'         build for another GPU (default: the one present)"
	@echo "  BUILD_TIMEOUT=120 BUILD_MEMORY=4G   limits of the build jail every lab is built in"
	@echo "  BUILD_SANDBOX=portable          build without Landlock (docs/troubleshooting.md#build-refused)"
clean:
	rm -rf $(BUILD)
