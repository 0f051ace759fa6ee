# tests.mk - `make check` (no GPU needed) and `make check-gpu` (on a GPU).

CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
# The PTX machine's own tests (grader/ptx/tests/unit/) run in the same program.
UNIT_SRC := $(wildcard tests/unit/*.c grader/ptx/tests/unit/*.c)
# The trace backend's GPU probe (check-trace-gpu); compiled in check-compile.
TRACE_PROBE := $(BUILD)/tests/trace-probe
TRACE_PROBE_OBJ := $(BUILD)/obj/tests/gpu/trace-probe.o

UNIT_BIN := $(BUILD)/tests/unit-tests
# Compile tests build every lab file for the oldest architecture of the kit's
# list (enough to prove it compiles for every GPU the kit builds for and exports
# the contract's launchers) and for sm_90 with its compute_90 PTX, what make labN
# embeds last: the emulator runs that PTX ($(EMU_PTX_DIR)/labs/, kept from the
# same nvcc run) and reads that SASS, as it does for a student (cp.async, half
# precision and the like compile for sm_75 to other code, or not at all); the
# planted variants, wrong on purpose, for what the emulator reads alone.
# TEST_ARCH is what the emulator runs and reads (compute_90 PTX, sm_90 SASS):
# the one flag set of the test stages' own libraries (the planted variants, the
# truth corpus); the lab files and solutions add the oldest architecture.
TEST_ARCH := -gencode arch=compute_90,code=[sm_90,compute_90]
# Their host code (the launchers) is compiled at -O0: nvcc's -O is the host compiler's
# alone (cicc and ptxas get the same commands at -O0 and -O3; the device side's
# preprocessed source differs only in glibc's inline host functions, which gcc writes
# under __OPTIMIZE__), and gcc at -O0 spends less on the launchers and cuda_runtime.h
# (0.05 CPU-s a plain variant, 0.7 a Thrust one). nvcc -ptx of the 162 planted variants
# at both (2026-11-29): 159 the same bytes; three lab 6 variants' PTX is not the same
# from one run to the next at either level (cicc; -O3 alone gave two PTX files for
# lab6-halo-from-global in three runs), their grades the same. What a student builds
# keeps the kit's flags: the lab files here, make labN, make lab-lib, check-gpu's
# planted libraries, which the same manifest rows judge.
TEST_NVCCFLAGS = $(filter-out -O%,$(NVCCFLAGS)) -O0
TEST_NVCC = $(NVCC_COMMON) $(TEST_NVCCFLAGS) $(TEST_ARCH)
COMPILE_ARCH ?= -gencode arch=compute_75,code=sm_75 $(TEST_ARCH)
# make check and check-full (CHECK_TIERS): a lab library of the compile check waits
# for the grader and the batch (CHECK_FIRST, order alone): make starts what a stage
# needs in the order of the tier's list, and would otherwise start all ~180 nvcc runs
# before it came back to link the grader, every stage waiting until the last.
CHECK_TIERS := check check-full
CHECK_FIRST := $(if $(filter $(CHECK_TIERS),$(MAKECMDGOALS)),$(GRADER_ALL) $(BATCH))
# But for the integrations' lab 3 library (grader/integrations/integrations.mk): built
# beside the grader, so that their platforms (first in the tier's list) start as soon as
# the grader is linked, beside the other stages, and not after make's pass over every
# library: in a fresh clone they ran last, alone, 48 s of a 267 s make check with the
# cores a third idle.
CHECK_EARLY = $(INTEGRATION_REF)
# Planted wrong variants are patches against a solution (tests/planted/README.md):
# the defect stays a few readable lines, and a change to the solution that
# breaks one shows up as a patch that no longer applies.
PLANTED_NAMES := $(patsubst tests/planted/%.patch,%,$(wildcard tests/planted/*.patch))
PLANTED_SRC := $(PLANTED_NAMES:%=$(BUILD)/planted/src/%.cu)
# Generated sources stay, for reading and for the next build. (Not in the student
# kit, which has none: a bare .SECONDARY: would make every file of the build
# secondary, and a stamp would then not remake a prerequisite that is gone.)
ifneq ($(PLANTED_SRC),)
.SECONDARY: $(PLANTED_SRC)
endif
# The compile check builds the planted variants outside the build jail (RUNNER nojail,
# the Makefile's lab_lib): they are the kit's own code, and a patch that changes code
# between its solution's includes reads what that solution reads, which the jail built
# (every lab's skeleton and solution go through it here, make labN and make lab-lib
# always, check-gpu's planted libraries too). What the jail judges (an #include, #embed
# or #line, __has_include, #pragma GCC dependency, .incbin, inline asm) is proved on the
# first variant that adds each such line (tests/planted/jailed.awk: an include counts by
# the header it names): the CUB, Thrust, cooperative-groups and libc headers and the
# PTX those variants bring are make check's only proof that the jail admits them. The
# jail cost 0.13 CPU-s a build of a plain variant (nvcc -M and its checks, 0.82 against
# 0.68) and 0.4 to 0.7 one that reads CUB or cooperative groups (its nvcc -M reads them
# too); a second variant reading the same header proves nothing the first did not.
PLANTED_JAILED := $(shell LC_ALL=C awk -f tests/planted/jailed.awk tests/planted/*.patch 2>/dev/null)
planted_runner = $(if $(filter $(1),$(PLANTED_JAILED)),,nojail)
CU_FILES := $(wildcard labs/*/*.cu solutions/*/*.cu solutions/*/milestones/*.cu)
CU_CHECKED := $(CU_FILES:%.cu=$(BUILD)/compile-check/%.so) \
              $(PLANTED_NAMES:%=$(BUILD)/compile-check/planted/%.so)

# One object a test file (their headers tracked by -MMD), linked with the
# grader's archive: a change to one grader file relinks the tests instead of
# compiling all of them again (make check-mutants does that for every mutant).
UNIT_TEST_OBJ := $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)
# The kit's test programs that call into the grader, compiled as the unit tests are.
TEST_PROGRAM_OBJ := $(BUILD)/obj/tests/gpu/trace-probe.o $(BUILD)/obj/tests/traces/gen-traces.o \
                    $(BUILD)/obj/tests/truth/sync-emulate.o
$(UNIT_TEST_OBJ) $(TEST_PROGRAM_OBJ): $(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	@pkg-config --exists check || { echo "Check (the C unit-test library) is missing: sudo apt-get install check" >&2; exit 3; }
	$(call step,CC,$<)$(CC) $(DEPFLAGS) $(CPPFLAGS) -iquote grader -iquote grader/reference $(CHECK_CFLAGS) $(C_ALL) -c $< -o $@
$(UNIT_BIN): $(UNIT_BIN).linked ;
$(UNIT_BIN).linked: $(call program,$(UNIT_TEST_OBJ)) $$(if $$(wildcard $(UNIT_BIN)),,FORCE)
	@mkdir -p $(@D)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter-out FORCE,$^) $(CHECK_LIBS) $(LDLIBS_CUDA))

EMU_PTX_DIR := $(BUILD)/tests/emulator
# $(call COMPILE_ONE,LIB,PTX[,FLAGS[,RUNNER]]): the library of $< and its PTX, from one nvcc run
# (FLAGS: nvcc's, the kit's and COMPILE_ARCH by default)
# (either target asked for makes both: $@ is only the one asked for), and the
# cubin of each architecture beside LIB (LIB without .so, then .smXX.cubin: the
# SASS reader's tests read the solutions' from there).
COMPILE_ONE = @mkdir -p $(dir $(1)) $(dir $(2)); \
    $(call lab_lib,$(or $(3),$(NVCC_BASE) $(COMPILE_ARCH)),$<,$(1),$(4),$(2),$(basename $(1))) && echo "compiles: $<$(if $(4), (outside the build jail))"
# (FATBIN_GONE as for any library, but asked of the library when the PTX is the target.)
$(BUILD)/compile-check/planted/%.so $(EMU_PTX_DIR)/labs/planted/%.ptx: $(BUILD)/planted/src/%.cu $(SUPPORT_OBJ) common/smemlab.h \
        $$(if $$(wildcard $(BUILD)/compile-check/planted/$$*.fatbin),,FORCE) | $(BUILD_JAIL) $(CHECK_FIRST)
	$(call COMPILE_ONE,$(BUILD)/compile-check/planted/$*.so,$(EMU_PTX_DIR)/labs/planted/$*.ptx,$(TEST_NVCC),$(call planted_runner,$*))
$(BUILD)/compile-check/%.so $(EMU_PTX_DIR)/labs/%.ptx: %.cu $(SUPPORT_OBJ) common/smemlab.h \
        $$(if $$(wildcard $(BUILD)/compile-check/$$*.fatbin),,FORCE) \
        | $(BUILD_JAIL) $$(if $$(filter $(BUILD)/compile-check/$$*.so,$$(CHECK_EARLY)),,$(CHECK_FIRST))
	$(call COMPILE_ONE,$(BUILD)/compile-check/$*.so,$(EMU_PTX_DIR)/labs/$*.ptx)

$(BUILD)/planted/src/%.cu: tests/planted/%.patch $(wildcard solutions/*/*.cu)
	$(apply_patch)

# Planted wrong variants, built for the GPU at hand.
PLANTED := $(PLANTED_NAMES:%=$(BUILD)/planted/%.so)
$(BUILD)/planted/%.so: $(BUILD)/planted/src/%.cu $(SUPPORT_OBJ) common/smemlab.h $(FATBIN_GONE) | $(BUILD_JAIL)
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(call lab_lib,$(NVCC_ALL),$<,$@)

$(BUILD)/tests/expect: tests/expect.c
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(CPPFLAGS) $(C_ALL) $< -o $@ $(addprefix -L,$(DEPS_LIB)) $(addprefix -Wl$(comma)-rpath$(comma),$(DEPS_LIB)) -lcjson

# Two tiers, both real (CONTRIBUTING.md says which test is in which, and why).
# make check: what a contributor runs after every change, in minutes: every
# lab, skeleton and planted variant graded, the truth corpus, the batch, the
# jail, the docs, the autograders in one layout each (their kit given this
# run's grader). make check-full: the rest, slower or needing the machine
# whole: the autograders on every layout, their grader built from nothing as
# Gradescope's and Autolab's machines build it; Slurm's cluster; the course and
# the report pages in a browser; the batch's kill and time-limit sections; the instructor's day (two
# exported classes built and graded for real); a hostile class through the real
# nvcc. .ci/run runs both. A change to the batch, the jail or the
# integrations runs make check-full before it lands.
.PHONY: check-house check-mutants check check-full check-unit check-compile check-contract check-launches check-cli \
        check-make check-gpu check-student-kit check-batch check-batch-full check-hostile check-exports \
        check-exports-full check-jail check-report
# The stages in the order make starts them. make walks this list depth first, starting
# what is ready, each job once a slot is free; what becomes ready behind the walk
# waits for its next pass, and a pass over the ~180 lab libraries of a fresh clone
# lasts until the last of them has started. So: the stages that need the grader alone
# first, longest first (the compile check's libraries wait for the grader:
# CHECK_FIRST), then the libraries, which fill the cores beside them, then what grades
# the libraries (check-integrations' own lab 3 library is made in that pass: its
# platforms run at the end in a fresh clone, first after a change). Where every
# library is there already (after a change to the grader), check-emulated, the
# longest, comes second: last, it ran alone for its last 17 s of a 96 s make check.
CHECK_LIBS_THERE := $(if $(filter-out $(wildcard $(CU_CHECKED)),$(CU_CHECKED)),,check-emulated)
check: check-integrations $(CHECK_LIBS_THERE) check-truth check-exports check-batch check-make check-jail check-docs \
       check-lab-cache check-traces check-house \
       check-compile check-emulated check-unit check-contract check-launches check-cli check-kepler
	@$(call check_done,$@)
check-full: docs-browser check-report check-batch-full check-exports-full check-hostile
	@$(call check_done,$@)

# When make started: make check says how long it took (make bench-loops reads it).
CHECK_T0 := $(shell date +%s)
# make check and check-full count what each stage costs: every recipe line runs
# through tests/timed-shell, which logs its target, wall and CPU time to
# CHECK_COSTS, and the tier prints the sums at its end (tests/check-costs.awk).
ifneq ($(filter $(CHECK_TIERS),$(MAKECMDGOALS)),)
CHECK_COSTS := $(BUILD)/tests/check-costs.log
$(shell mkdir -p $(BUILD)/tests && rm -f $(CHECK_COSTS))
export SMEMLAB_CHECK_COSTS := $(abspath $(CHECK_COSTS))
SHELL = $(CURDIR)/tests/timed-shell
.SHELLFLAGS = --target=$@ -c
# python3 as the tests call it (hundreds of times), without a version manager's shim
# between: pyenv's runs bash and a few programs each call, 0.1 CPU-s. The interpreter
# the shim chose is linked as $(CHECK_BIN)/python3, first on the tiers' PATH: the
# same interpreter and packages, called directly. (Nothing where python3 is no shim.)
CHECK_BIN := $(abspath $(BUILD))/tests/bin
PYTHON3_REAL := $(shell python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
ifneq ($(and $(PYTHON3_REAL),$(filter-out $(realpath $(PYTHON3_REAL)),$(realpath $(shell command -v python3)))),)
$(shell mkdir -p $(CHECK_BIN) && ln -sfn '$(PYTHON3_REAL)' $(CHECK_BIN)/python3)
export PATH := $(CHECK_BIN):$(PATH)
endif
endif
# $(call check_done,TIER): the tier's time, what each stage cost, its verdict.
check_done = secs=$$(( $$(date +%s) - $(CHECK_T0) )); echo "$$secs $$(hostname), $$(nproc) cores" > $(BUILD)/tests/$(1)-time.txt; \
    awk -v tier=$(1) -v total=$$secs -v ticks=$$(getconf CLK_TCK) -f tests/check-costs.awk $(CHECK_COSTS); \
    echo "make $(1): all passed ($$secs s)"

# The image tests read a real library built by nvcc (no GPU needed to build one),
# for every architecture of the kit's default list: their cubins differ in layout.
UNIT_TEST_LIB := $(BUILD)/tests/lab5-all-archs.so
$(UNIT_TEST_LIB): labs/lab5-matmul/lab5.cu $(SUPPORT_OBJ) common/smemlab.h $(FATBIN_GONE) | $(BUILD_JAIL)
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(call lab_lib,$(NVCC_BASE) $(foreach a,$(DEFAULT_ARCHS),-gencode arch=compute_$(a)$(comma)code=sm_$(a)) -gencode arch=compute_90$(comma)code=compute_90,$<,$@)
# A lab 1 library whose host assembly injects a foreign fatbinary (test_image.c).
# Built outside the jail (RUNNER env), whose assembler guard refuses .incbin: the
# test proves the grader ignores such code should a library ever carry it.
INJECTED_LIB := $(BUILD)/tests/lab1-injected.so
$(BUILD)/tests/foreign.fatbin: tests/unit/injected/foreign.cu
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) -std=c++17 --fatbin -gencode arch=compute_75,code=sm_75 $< -o $@
$(INJECTED_LIB): tests/unit/injected/lab1-injected.cu $(BUILD)/tests/foreign.fatbin $(SUPPORT_OBJ) common/smemlab.h $(FATBIN_GONE)
	$(call step,NVCC,$@)$(call lab_lib,$(NVCC_BASE) -gencode arch=compute_75$(comma)code=sm_75 -DFOREIGN_FATBIN='"$(BUILD)/tests/foreign.fatbin"',$<,$@,env)
# The emulator's tests run PTX that nvcc writes at test build time (no GPU needed):
# the small kernels of grader/ptx/tests/kernels/ (compute_90), and every lab file's as the
# compile check keeps it (above).
# SMEMLAB_EMU_LABS: how many lab files.
EMU_TEST_PTX := $(patsubst grader/ptx/tests/kernels/%.cu,$(EMU_PTX_DIR)/%.ptx,$(wildcard grader/ptx/tests/kernels/*.cu))
EMU_LAB_PTX := $(CU_FILES:%.cu=$(EMU_PTX_DIR)/labs/%.ptx) $(PLANTED_NAMES:%=$(EMU_PTX_DIR)/labs/planted/%.ptx)
EMU_PTX_FLAGS = -std=c++17 -I$(LAB_COMMON) $(NVCCFLAGS) -ptx -arch=compute_90
$(EMU_PTX_DIR)/%.ptx: grader/ptx/tests/kernels/%.cu
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) $(EMU_PTX_FLAGS) $< -o $@

# The SASS reader's tests (test_sass.c) read cubins built here as the listings
# of tests/sass/listings/NAME.smXX.txt were (nvdisasm on a GPU machine, CUDA
# 13.0: ptxas writes the same bytes), from NAME's source: sass.F is
# tests/sass/F.cu, emulator.F grader/ptx/tests/kernels/F.cu, DIR.F solutions/DIR/F.cu
# or solutions/*/DIR/F.cu. The flags are the listings', not NVCCFLAGS.
SASS_CUBIN_DIR := $(BUILD)/tests/sass
SASS_CUBINS := $(patsubst tests/sass/listings/%.txt,$(SASS_CUBIN_DIR)/%.cubin,$(wildcard tests/sass/listings/*.sm*.txt))
sass_part = $(word $(2),$(subst ., ,$(1)))
sass_dirs = $(if $(filter sass,$(1)),tests/sass,$(if $(filter emulator,$(1)),grader/ptx/tests/kernels,solutions/$(1) solutions/*/$(1)))
sass_src = $(firstword $(wildcard $(addsuffix /$(call sass_part,$(1),2).cu,$(call sass_dirs,$(call sass_part,$(1),1)))))
# A solution's cubin for an architecture of COMPILE_ARCH is the one the compile
# check's nvcc run kept (the same flags for the device code: the same bytes), not
# compiled again; where that run kept none (another COMPILE_ARCH), nvcc makes it.
sass_kept = $(if $(filter solutions/%,$(call sass_src,$(1))),$(BUILD)/compile-check/$(basename $(call sass_src,$(1))))
$(SASS_CUBIN_DIR)/%.cubin: $$(call sass_src,$$*) $(wildcard common/*.h) $$(addsuffix .so,$$(call sass_kept,$$*))
	@test -n "$(call sass_src,$*)" || { echo "no source for tests/sass/listings/$*.txt" >&2; exit 1; }
	@mkdir -p $(@D)
	$(if $(call sass_kept,$*),@if [ -f $(call sass_kept,$*).$(call sass_part,$*,3).cubin ]; then \
	    cp $(call sass_kept,$*).$(call sass_part,$*,3).cubin $@; else printf '  %-6s %s\n' NVCC $@; ,$(call step,NVCC,$@))$(SASS_NVCC)$(if $(call sass_kept,$*),; fi)
SASS_NVCC = $(NVCC) -std=c++17 -Icommon -O3 -lineinfo -arch=$(patsubst sm%,sm_%,$(call sass_part,$*,3)) \
    -cubin $(call sass_src,$*) -o $@

# A libFuzzer target for the PTX reader and the interpreter (needs clang):
# make emu-fuzz [EMU_FUZZ_SECONDS=60]. The corpus starts from the tests' and labs' PTX;
# what it finds goes to $(BUILD)/tests/emu-fuzz-corpus, crashes to the current folder.
EMU_FUZZ := $(BUILD)/tests/emu-fuzz
EMU_FUZZ_SECONDS ?= 60
# The PTX machine alone (grader/ptx/, which includes nothing of the grader): the
# adapters that make it the grader's device and meter are grader/measure/emulator/.
EMU_SRC := $(wildcard grader/ptx/*.c)
$(EMU_FUZZ): grader/ptx/tests/fuzz_ptx.c $(EMU_SRC) $(wildcard grader/ptx/*.h)
	@mkdir -p $(@D)
	clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined $< $(EMU_SRC) -o $@ -lm
.PHONY: emu-fuzz
emu-fuzz: $(EMU_FUZZ) $(EMU_TEST_PTX) $(EMU_LAB_PTX)
	@mkdir -p $(BUILD)/tests/emu-fuzz-corpus
	$(EMU_FUZZ) -max_total_time=$(EMU_FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    $(BUILD)/tests/emu-fuzz-corpus $(EMU_PTX_DIR)

# How fast the emulator runs lab 5's solution (warp instructions and lane operations a
# second): make emu-bench. EMU_STATS counts lanes; the grader's build does not.
EMU_BENCH := $(BUILD)/tests/emu-bench
$(EMU_BENCH): grader/ptx/tests/emu_bench.c $(EMU_SRC) $(wildcard grader/ptx/*.h)
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(C_ALL) -DEMU_STATS $< $(EMU_SRC) -o $@ -lm
.PHONY: emu-bench
emu-bench: $(EMU_BENCH) $(EMU_PTX_DIR)/labs/solutions/lab5-matmul/lab5.ptx
	$(EMU_BENCH) $(EMU_PTX_DIR)/labs/solutions/lab5-matmul/lab5.ptx

# A lab file's PTX left from a planted variant since removed is not counted as one
# (test_every_lab_file_loads holds the folder to SMEMLAB_EMU_LABS files).
EMU_LAB_PTX_STALE = $(filter-out $(EMU_LAB_PTX),$(shell find $(EMU_PTX_DIR)/labs -name '*.ptx' 2>/dev/null))
check-unit: $(UNIT_BIN) $(UNIT_TEST_LIB) $(INJECTED_LIB) $(EMU_TEST_PTX) $(EMU_LAB_PTX) $(SASS_CUBINS)
	$(if $(EMU_LAB_PTX_STALE),rm -f $(EMU_LAB_PTX_STALE))
	SMEMLAB_TEST_LIB=$(UNIT_TEST_LIB) SMEMLAB_INJECTED_LIB=$(INJECTED_LIB) \
	SMEMLAB_EMU_PTX=$(EMU_PTX_DIR) SMEMLAB_EMU_LABS=$(words $(EMU_LAB_PTX)) \
	SMEMLAB_SASS_CUBINS=$(SASS_CUBIN_DIR) $(if $(PLANTED_NAMES),SMEMLAB_WIDE_LIB=$(BUILD)/compile-check/planted/lab1-long-low.so) \
	$(UNIT_BIN)

check-compile: $(CU_CHECKED) $(if $(wildcard tests/gpu),$(TRACE_PROBE) $(BUILD)/tests/truth-run)

check-contract: $(CU_CHECKED) $(GRADER_ALL)
	bash tests/compile/check-contract.sh $(BUILD) $(GRADER)

check-launches: $(CU_CHECKED) $(GRADER_ALL)
	bash tests/compile/check-launches.sh $(BUILD) $(GRADER)

# (A solution's library, where the kit has solutions: graded through a meter server.)
CLI_SERVED_LIB := $(if $(wildcard solutions),$(BUILD)/compile-check/solutions/lab1-square/lab1.so)
check-cli: $(GRADER_ALL) $(BUILD)/compile-check/labs/lab1-square/lab1.so $(CLI_SERVED_LIB)
	SMEMLAB_SERVED_LIB=$(CLI_SERVED_LIB) bash tests/cli/test-cli.sh $(GRADER)

# Recorded traces of the lab access patterns (tests/traces/), from the tile model.
$(BUILD)/tests/gen-traces: $(BUILD)/tests/gen-traces.linked ;
$(BUILD)/tests/gen-traces.linked: $(call program,$(BUILD)/obj/tests/traces/gen-traces.o) $$(if $$(wildcard $(BUILD)/tests/gen-traces),,FORCE)
	@mkdir -p $(@D)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter-out FORCE,$^) -lm)
.PHONY: traces check-traces
traces: $(BUILD)/tests/gen-traces
	$< tests/traces
# The kept traces are exactly what the generator writes (no hand edits).
check-traces: $(BUILD)/tests/gen-traces
	@rm -rf $(BUILD)/tests/traces && mkdir -p $(BUILD)/tests/traces
	$< $(BUILD)/tests/traces
	@for f in $(BUILD)/tests/traces/*.trace; do \
	    cmp -s "$$f" tests/traces/$${f##*/} || { echo "tests/traces/$${f##*/} differs from what gen-traces.c writes: run make traces" >&2; exit 1; }; \
	done; echo "traces: tests/traces/*.trace match gen-traces.c"

# The trace backend alone, on a GPU (issue 9): requests and wavefronts of the
# lab 1-4 kernels against the hand-worked numbers, lines, races.
$(TRACE_PROBE): $(TRACE_PROBE).linked ;
$(TRACE_PROBE).linked: $(call program,$(TRACE_PROBE_OBJ)) $$(if $$(wildcard $(TRACE_PROBE)),,FORCE)
	@mkdir -p $(@D)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter-out FORCE,$^) $(LDLIBS_CUDA))
.PHONY: check-trace-gpu
check-trace-gpu: $(TRACE_PROBE) trace-backend $(BUILD)/solutions/lab1.so $(BUILD)/solutions/lab3.so \
                 $(BUILD)/solutions/lab4.so $(BUILD)/planted/lab1-no-sync.so $(BUILD)/planted/lab1-long-tile.so
	bash tests/gpu/check-trace.sh $(BUILD) $(TRACE_PROBE)

# The truth corpus (tests/truth/): the grader's counts and verdicts against
# Nsight Compute's on ~1000 generated kernels, every width and pattern.
$(BUILD)/tests/truth-run: tests/truth/truth-run.c
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(CPPFLAGS) $(C_ALL) $< -o $@ $(addprefix -L,$(CUDA_LIB)) \
	    $(addprefix -Wl$(comma)-rpath$(comma),$(CUDA_LIB)) -lcudart -ldl
# Every lab graded by emulation, as a student with no GPU grades it: solutions full
# marks but speed, skeletons lose points, every planted row but speed holds.
.PHONY: check-emulated
# The emulated twin (problems/problem.c), with no GPU: every solution and the planted
# variants of synchronisation graded again as a GPU backend grades them, the twin beside.
TWIN_CHECKED := $(foreach l,$(LABS),$(l)-solution) lab1-divergent-barrier lab7-barrier-in-branch \
    lab7-barrier-after-branch lab7-return-then-barrier lab7-cg-sync-in-branch lab7-cg-block-sync \
    lab9-barrier-in-guard lab6-halo-no-ghost \
    lab8-partial-mask \
    lab8-reduceshfl-return lab8-activemask lab1-warpsize \
    lab9-race-past-window lab7-gmem-past-in lab10-halo-past-in lab10-coef-smem-one lab10-table-in-regs \
    lab7-order-partial0 lab8-order-zero-store lab8-atomic-zero-late \
    lab1-flag-spin lab5-race-last-block lab9-edge-no-sync lab9-detect-emulator lab1-spin-for-show lab7-atomic-global \
    lab7-atomic-exch-partial lab7-gmem-ldg lab10-ro-writes-table lab8-exch-input \
    lab2-tile-for-show lab7-tree-for-show-shfl lab8-broadcast-for-show lab10-ldg-for-show lab9-tile-bypassed \
    lab5-tile-at-measured lab7-tree-at-measured lab8-xor-at-measured lab9-tile-at-measured \
    lab2-first-launch-unsized lab4-first-launch-short lab9-chapter-guard lab5-border-naive \
    lab9-border-naive lab8-xor-self lab8-up-one-lane lab5-coarse-border-naive
TWIN_ONLY = $(if $(CHECK_ONLY),$(filter $(TWIN_CHECKED),$(CHECK_ONLY)),$(TWIN_CHECKED))
check-emulated: $(CU_CHECKED) $(GRADER_ALL) $(BUILD)/tests/expect
	bash tests/emulator/check-labs.sh $(BUILD) $(GRADER)
	$(if $(and $(wildcard tests/planted),$(TWIN_ONLY)),SMEMLAB_TWIN=1 CHECK_ONLY="$(TWIN_ONLY)" bash tests/emulator/check-labs.sh $(BUILD) $(GRADER))
	$(if $(wildcard tests/planted),python3 tests/emulator/check-hints.py $(BUILD))

# Labs 1 to 4 graded as the course's Tesla K40 (--gpu kepler, docs/emulator.md#kepler):
# the course notes' K40 figures reproduced, the pads its 8-byte banks need, a kernel with
# an instruction sm_35 lacks not graded (tests/kepler/manifest.tsv).
.PHONY: check-kepler
ifeq ($(words $(wildcard solutions tests/planted)),2)
check-kepler: $(CU_CHECKED) $(GRADER_ALL)
	python3 tests/kepler/check-kepler.py $(BUILD) $(GRADER)
else
check-kepler:
	@echo "make check-kepler: skipped: it grades solutions/ and tests/planted/, which the student kit does not have."
endif

# The report page (docs/instructors.md#page): labs graded by emulation with --html, each
# page judged in headless chromium (its lines, checks and drawings; axe-core clean).
.PHONY: check-report
check-report: $(CU_CHECKED) $(GRADER_ALL) $(AXE) $(PLANTED_SRC)
	bash tests/report/test-pages.sh $(BUILD) $(GRADER) $(AXE)
# On a GPU: the same pages measured by the trace, written to $(BUILD)/report-pages/ for
# check-pages.py to judge where a browser is (the spec.tsv there says how).
REPORT_PAGE_LIBS := $(addprefix $(BUILD)/compile-check/,planted/lab3-pad-wrong-dim.so \
    solutions/lab3-padding/lab3.so planted/lab9-store-strided.so planted/lab1-no-sync.so \
    planted/lab1-shared-overrun.so planted/lab7-divergent-tree.so planted/lab1-unemulated.so \
    labs/lab3-padding/lab3.so)
.PHONY: report-pages-gpu
report-pages-gpu: $(GRADER_ALL) $(TRACE) $(REPORT_PAGE_LIBS) $(PLANTED_SRC)
	bash tests/report/test-pages.sh $(BUILD) $(GRADER) - trace
# The synchronisation corpus (tests/truth/gen-sync.py) run on the PTX machine with the
# grader's analysis: its verdicts beside compute-sanitizer's (check-truth.sh).
SYNC_EMULATE := $(BUILD)/tests/sync-emulate
$(SYNC_EMULATE): $(SYNC_EMULATE).linked ;
$(SYNC_EMULATE).linked: $(call program,$(BUILD)/obj/tests/truth/sync-emulate.o) $$(if $$(wildcard $(SYNC_EMULATE)),,FORCE)
	@mkdir -p $(@D)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter-out FORCE,$^) $(LDLIBS_CUDA))

# make check: the same corpus graded by the emulator, against what Nsight Compute
# measured on every card recorded (tests/truth/CARD-ncu.tsv, h100, ...): no GPU needed.
.PHONY: check-truth check-truth-gpu
# Every part is built by its own make lab-lib, many at once: what they share
# (the jail, support.o) is built here first, once (on a fresh clone the parts
# would each build it at the same moment).
# The corpus's host code (its own launchers) is compiled at -O0, as the planted variants'.
TRUTH_NVCCFLAGS = $(TEST_NVCCFLAGS)
# The corpus's parts, TRUTH_LIBS (each X.so from the X.cu beside it), built by one make
# (check-truth.sh) with lab-lib's flags (NVCCFLAGS and NVCC_ARCH as given) outside the
# jail: the kit's own generated code, as the planted variants (a make lab-lib a part
# cost 0.2 CPU-s more: its own make, the jail's nvcc -M and checks).
.PHONY: truth-libs
truth-libs: $(TRUTH_LIBS)
ifneq ($(TRUTH_LIBS),)
$(TRUTH_LIBS): %.so: %.cu $(SUPPORT_OBJ)
	$(call step,NVCC,$@)$(call lab_lib,$(NVCC_ALL),$<,$@,nojail)
endif
check-truth: $(GRADER_ALL) $(BUILD_JAIL) $(SUPPORT_OBJ) $(SYNC_EMULATE)
	NVCC="$(NVCC)" LAB_LIB_CACHE=$(LAB_CACHE) TEST_ARCH='$(TEST_ARCH)' TRUTH_NVCCFLAGS='$(TRUTH_NVCCFLAGS)' \
	    bash tests/truth/check-truth.sh $(BUILD) $(GRADER)
# On a GPU: both, whatever the first says, then what the card measured packed as one
# tarball to install (tests/truth/pack-recorded.sh): TRUTH_OUT=DIR puts it there
# (default build/truth-recorded), as truth-CARD.tar.gz beside the runs' output.
# TRUTH_ONLY=main|idioms|global|sync runs that corpus alone, TRUTH_ONLY=labs labs 7
# and 8 alone (truth-CARD-PART.tar.gz): a run in parts, each tarball its part's files.
check-truth-gpu: $(GRADER_ALL) $(TRACE) $(BUILD_JAIL) $(SUPPORT_OBJ) $(BUILD)/tests/truth-run $(SYNC_EMULATE)
	@rm -rf $(BUILD)/truth-logs && mkdir -p $(BUILD)/truth-logs
	truth=0; labs=0; \
	if [ "$(TRUTH_ONLY)" != labs ]; then \
	    NVCC="$(NVCC)" TRUTH_NVCCFLAGS='$(TRUTH_NVCCFLAGS)' bash tests/truth/check-truth.sh $(BUILD) $(GRADER) gpu 2>&1 | tee $(BUILD)/truth-logs/check-truth.log; \
	    truth=$${PIPESTATUS[0]}; \
	else rm -rf $(BUILD)/truth; fi; \
	if [ -z "$(TRUTH_ONLY)" ] || [ "$(TRUTH_ONLY)" = labs ]; then \
	    $(MAKE) --no-print-directory check-truth-labs-gpu 2>&1 | tee $(BUILD)/truth-logs/check-labs.log; \
	    labs=$${PIPESTATUS[0]}; \
	fi; \
	bash tests/truth/pack-recorded.sh $(BUILD) $(TRUTH_OUT); \
	[ $$truth = 0 ] && [ $$labs = 0 ] || { echo "make check-truth-gpu: failed (check-truth $$truth, check-labs $$labs)"; exit 1; }
# Labs 7 and 8's solutions and planted variants against ncu (tests/truth/check-labs.sh):
# each kernel the trace and the emulator graded, profiled at the size each measured.
.PHONY: check-truth-labs-gpu
ifeq ($(words $(wildcard solutions tests/planted)),2)
check-truth-labs-gpu: $(GRADER_ALL) $(TRACE) $(BUILD)/tests/truth-run $(BUILD)/solutions/lab7.so \
                      $(BUILD)/solutions/lab8.so $(filter $(BUILD)/planted/lab7-% $(BUILD)/planted/lab8-%,$(PLANTED))
	bash tests/truth/check-labs.sh $(BUILD) $(GRADER)
else
check-truth-labs-gpu:
	@echo "make check-truth-labs-gpu: skipped: it grades solutions/ and tests/planted/, which the student kit does not have."
endif

# The grader's folders keep to ARCHITECTURE.md's floors: no include up or
# sideways, none out of the PTX machine, no circle between files.
check-house:
	python3 tests/make/check-house.py

# The lab cache (grader/kit/lab-cache.sh) through make lab-lib and the jail:
# reused for the same inputs only, damage found, nothing stored of a failure.
.PHONY: check-lab-cache
check-lab-cache: $(BUILD_JAIL) $(SUPPORT_OBJ)
	bash tests/make/test-lab-cache.sh $(BUILD)

# make grade ends with the grader's exit status (a fake grader; no GPU, no nvcc).
# (test-calibrate reads its fragment back through this build's grader: built first.)
check-make: $(GRADER)
	bash tests/make/test-make-grade.sh
	bash tests/make/test-calibrate.sh $(GRADER)

# The student kit (make student-kit) builds, and inside it the README's
# commands and make check pass. CI runs it after make check.
check-student-kit: student-kit
	bash tests/kit/test-student-kit.sh $(KIT_DIR)

ifeq ($(words $(wildcard solutions tests/gpu)),2)
# CHECK_GPU_ONLY="lab7 lab9 lab3-pad-two": those labs whole and those variants alone.
GPU_PLANTED := $(if $(CHECK_GPU_ONLY),$(sort $(foreach t,$(CHECK_GPU_ONLY),$(filter $(BUILD)/planted/$(t).so $(BUILD)/planted/$(t)-%.so,$(PLANTED)))),$(PLANTED))
check-gpu: $(GRADER_ALL) $(BUILD)/tests/expect $(LABS:%=$(BUILD)/%.so) $(LABS:%=$(BUILD)/solutions/%.so) $(GPU_PLANTED) $(TRACE)
	CHECK_GPU_ONLY='$(CHECK_GPU_ONLY)' bash tests/gpu/check-gpu.sh $(BUILD) $(GRADER)
# Issue 41's speed evidence on the GPU at hand: the bench with the candidates (its binary, as
# make bench runs it: no make inside), the
# planted rows of speed graded by the trace, the solutions; SPEED_OUT and its .tar.gz.
SPEED_OUT ?= $(BUILD)/speed-results
SPEED_PLANTED := $(shell awk -F'\t' '$$4 == "speed" || $$1 ~ /^(lab7-grid-stride|lab10-lookup-one-key)\.cu$$/ {sub(/\.cu$$/, "", $$1); print $$1}' tests/planted/manifest.tsv | sort -u)
.PHONY: check-speed
check-speed: $(GRADER_ALL) $(BUILD)/tests/expect $(LABS:%=$(BUILD)/solutions/%.so) $(SPEED_PLANTED:%=$(BUILD)/planted/%.so) $(TRACE) \
             $(BENCH) $(MILESTONES_SO) $(CONV_MILESTONES_SO) $(CANDIDATES_SO) $(BENCH_PLANTED:%=$(BUILD)/planted/%.so)
	bash tests/gpu/check-speed.sh $(BUILD) $(GRADER) $(SPEED_OUT) \
	    $(call bench_run,$(CANDIDATES_SO) $(BENCH_PLANTED:%=$(BUILD)/planted/%.so))
else
check-gpu:
	@echo "make check-gpu: skipped: it grades solutions/ and tests/planted/, which the student kit does not have."
	@echo "Grade your own lab with make labN && make grade."
endif

# The grader's own tests, mutation-tested (tests/mutants/mutants.tsv): each
# one-line bug of grading code is applied in a scratch copy of the tree and
# its build, the tests its row names run, and one must fail. Before every
# change to grading code (CONTRIBUTING.md). MUTANTS=id,id runs those alone.
ifeq ($(words $(wildcard tests/mutants/mutants.tsv solutions)),2)
check-mutants: $(UNIT_BIN) $(UNIT_TEST_LIB) $(INJECTED_LIB) $(EMU_TEST_PTX) $(EMU_LAB_PTX) $(SASS_CUBINS) \
               $(CU_CHECKED) $(GRADER_ALL) $(BUILD)/tests/expect $(BATCH) $(BUILD_JAIL) $(SUPPORT_OBJ) \
               $(BUILD)/tests/gen-traces
	python3 tests/mutants/run-mutants.py --build $(BUILD) $(if $(MUTANTS),--only $(MUTANTS))
else
check-mutants:
	@echo "make check-mutants: skipped: it mutates the grader and grades solutions/ and tests/planted/, which the student kit does not have."
endif

# smemlab-batch without a GPU, a script a subject (tests/batch/test-batch-*.sh),
# each its own target so that they run side by side: fakes for nvcc and the
# grader where needed, real nvcc for compile errors, the real grader's no-GPU
# path. make check runs BATCH_TESTS (BATCH_TESTS=discovery: that one alone, as
# make check-mutants does); make check-full the kill and time-limit sections,
# which wait out time limits and killed runs, and labs 7 to 10 built and graded
# through the batch.
BATCH_TESTS ?= term jobs slurm discovery outcomes real
BATCH_TESTS_FULL := limits kill labs
check-batch: $(addprefix check-batch-,$(BATCH_TESTS))
check-batch-full: $(addprefix check-batch-,$(BATCH_TESTS_FULL))
check-batch-%: $(BATCH) $(GRADER_ALL) $(BUILD_JAIL) $(SUPPORT_OBJ)
	bash tests/batch/test-batch-$*.sh $(BUILD)

# A hostile class (issue 17) through the real batch and the real nvcc: each
# attack gets its reason within its limit, the honest next to them are built,
# the batch's own memory is measured and bounded (make check-full).
check-hostile: $(BATCH) $(BUILD_JAIL) $(SUPPORT_OBJ)
	bash tests/batch/test-hostile.sh $(BUILD)

# Classes as Moodle, Canvas, Blackboard and Gradescope export them, names with
# any characters, a roster; the gradebook opens in a spreadsheet with no formula.
check-exports: $(BATCH) $(GRADER_ALL) $(BUILD_JAIL) $(SUPPORT_OBJ)
	SMEMLAB_CHECK_TIER=fast bash tests/batch/test-exports.sh $(BUILD)
# The instructor's day: a Moodle and a Canvas export of 16 built and graded for real.
check-exports-full: $(BATCH) $(GRADER_ALL) $(BUILD_JAIL) $(SUPPORT_OBJ)
	SMEMLAB_CHECK_TIER=full bash tests/batch/test-exports.sh $(BUILD)

# The jail alone, on single files: every layer, the limits, make lab-lib's use of it.
check-jail: $(BUILD_JAIL) $(SUPPORT_OBJ)
	bash tests/jail/test-jail.sh $(BUILD)

# A generated class of lab 3 (solutions, skeletons, planted variants, files
# that do not compile; one comment each so that no two hashes are equal),
# graded on the GPU. bench-batch: BENCH_BATCH_N submissions, timed (the
# summary's Timing line: submissions/s, building against grading).
# check-gpu-batch: 30, and the gradebook checked against what each should get.
BENCH_BATCH_N ?= 300
GEN_CLASS = python3 tests/batch/gen-class.py --solution solutions/lab3-padding/lab3.cu \
    --skeleton labs/lab3-padding/lab3.cu --planted $(BUILD)/planted/src/lab3-missing-pad.cu
.PHONY: bench-batch check-gpu-batch
bench-batch check-gpu-batch: $(BATCH) $(GRADER_ALL) $(TRACE) $(BUILD_JAIL) $(SUPPORT_OBJ) $(BUILD)/planted/src/lab3-missing-pad.cu
	rm -rf $(BUILD)/$@
	$(GEN_CLASS) --count $(if $(filter bench-batch,$@),$(BENCH_BATCH_N),30) $(BUILD)/$@/class
	$(BATCH) --plain $(BATCH_FLAGS) -o $(BUILD)/$@/results lab3 $(BUILD)/$@/class | tee $(BUILD)/$@/run.log | grep -v '^\['
	python3 tests/batch/check-class.py $(BUILD)/$@/expected.tsv $(BUILD)/$@/results

