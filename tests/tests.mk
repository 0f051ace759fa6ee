# tests.mk - `make check` (no GPU needed) and `make check-gpu` (on a GPU).

CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(BUILD)/tests/unit-tests
# Compile tests build every lab file for one architecture: fast, and enough to
# prove the file compiles and exports the contract's launchers.
COMPILE_ARCH ?= -arch=sm_75
# Planted wrong variants are patches against a solution (tests/planted/README.md):
# the defect stays a few readable lines, and a change to the solution that
# breaks one shows up as a patch that no longer applies.
PLANTED_NAMES := $(patsubst tests/planted/%.patch,%,$(wildcard tests/planted/*.patch))
PLANTED_SRC := $(PLANTED_NAMES:%=$(BUILD)/planted/src/%.cu)
.SECONDARY: $(PLANTED_SRC) # generated sources stay, for reading and for the next build
CU_FILES := $(wildcard labs/*/*.cu solutions/*/*.cu)
CU_CHECKED := $(CU_FILES:%.cu=$(BUILD)/compile-check/%.so) \
              $(PLANTED_NAMES:%=$(BUILD)/compile-check/planted/%.so)

$(UNIT_BIN): $(UNIT_SRC) tests/unit/suites.def $(GRADER_CORE:%.c=$(BUILD)/obj/%.o)
	@mkdir -p $(@D)
	@pkg-config --exists check || { echo "Check (the C unit-test library) is missing: sudo apt-get install check" >&2; exit 3; }
	$(CC) $(CPPFLAGS) -iquote grader -iquote grader/reference $(CHECK_CFLAGS) $(C_ALL) $(UNIT_SRC) $(GRADER_CORE:%.c=$(BUILD)/obj/%.o) \
	    -o $@ $(CHECK_LIBS) $(LDLIBS_CUDA)

COMPILE_ONE = @mkdir -p $(@D); \
    $(NVCC) $(NVCC_BASE) $(COMPILE_ARCH) -shared $< common/support.cu -o $@ \
    && echo "compiles: $<"
$(BUILD)/compile-check/planted/%.so: $(BUILD)/planted/src/%.cu common/support.cu common/smemlab.h
	$(COMPILE_ONE)
$(BUILD)/compile-check/%.so: %.cu common/support.cu common/smemlab.h
	$(COMPILE_ONE)

$(BUILD)/planted/src/%.cu: tests/planted/%.patch $(wildcard solutions/*/*.cu)
	@mkdir -p $(@D)
	@command -v patch >/dev/null || { echo "patch is missing: run make deps (apt-get install patch)" >&2; exit 3; }
	patch -s -p0 -o $@ -i $<

# Planted wrong variants, built for the GPU at hand.
PLANTED := $(PLANTED_NAMES:%=$(BUILD)/planted/%.so)
$(BUILD)/planted/%.so: $(BUILD)/planted/src/%.cu common/support.cu common/smemlab.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_ALL) -shared $< common/support.cu -o $@

$(BUILD)/tests/expect: tests/gpu/expect.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(C_ALL) $< -o $@ $(addprefix -L,$(DEPS_LIB)) $(addprefix -Wl$(comma)-rpath$(comma),$(DEPS_LIB)) -lcjson

.PHONY: check check-unit check-compile check-contract check-cli check-gpu check-batch
check: check-unit check-compile check-contract check-cli check-docs check-batch
	@echo "make check: all passed"

check-unit: $(UNIT_BIN)
	$(UNIT_BIN)

check-compile: $(CU_CHECKED)

check-contract: $(CU_CHECKED) $(GRADER)
	bash tests/compile/check-contract.sh $(BUILD) $(GRADER)

check-cli: $(GRADER)
	bash tests/cli/test-cli.sh $(GRADER)

# smemlab-batch without a GPU: fakes for nvcc and the grader where needed
# (tests/batch/), real nvcc for compile errors, the real grader's no-GPU path.
check-batch: $(BATCH) $(GRADER)
	bash tests/batch/test-batch.sh $(BUILD)

# A generated class of lab 3 (solutions, skeletons, planted variants, files
# that do not compile; one comment each so that no two hashes are equal),
# graded on the GPU. bench-batch: BENCH_BATCH_N submissions, timed (the
# summary's Timing line: submissions/s, building against grading).
# check-gpu-batch: 30, and the gradebook checked against what each should get.
BENCH_BATCH_N ?= 300
GEN_CLASS = python3 tests/batch/gen-class.py --solution solutions/lab3-padding/lab3.cu \
    --skeleton labs/lab3-padding/lab3.cu --planted $(BUILD)/planted/src/lab3-missing-pad.cu
.PHONY: bench-batch check-gpu-batch
bench-batch check-gpu-batch: $(BATCH) $(GRADER) $(BUILD)/planted/src/lab3-missing-pad.cu
	rm -rf $(BUILD)/$@
	$(GEN_CLASS) --count $(if $(filter bench-batch,$@),$(BENCH_BATCH_N),30) $(BUILD)/$@/class
	$(BATCH) --plain $(BATCH_FLAGS) -o $(BUILD)/$@/results lab3 $(BUILD)/$@/class | tee $(BUILD)/$@/run.log | grep -v '^\['
	python3 tests/batch/check-class.py $(BUILD)/$@/expected.tsv $(BUILD)/$@/results

check-gpu: $(GRADER) $(BUILD)/tests/expect $(LABS:%=$(BUILD)/%.so) $(LABS:%=$(BUILD)/solutions/%.so) $(PLANTED)
	bash tests/gpu/check-gpu.sh $(BUILD) $(GRADER)
