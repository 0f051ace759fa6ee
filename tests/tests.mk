# tests.mk - `make check` (no GPU needed) and `make check-gpu` (on a GPU).

CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(BUILD)/tests/unit-tests
# Compile tests build every lab file for one architecture: fast, and enough to
# prove the file compiles and exports the contract's launchers.
COMPILE_ARCH ?= -arch=sm_75
CU_FILES := $(wildcard labs/*/*.cu solutions/*/*.cu tests/planted/*.cu)
CU_CHECKED := $(CU_FILES:%.cu=$(BUILD)/compile-check/%.so)

$(UNIT_BIN): $(UNIT_SRC) tests/unit/suites.def $(GRADER_CORE:%.c=$(BUILD)/obj/%.o)
	@mkdir -p $(@D)
	@pkg-config --exists check || { echo "Check (the C unit-test library) is missing: sudo apt-get install check" >&2; exit 3; }
	$(CC) $(CPPFLAGS) -iquote grader -iquote grader/reference $(CHECK_CFLAGS) $(CFLAGS) $(UNIT_SRC) $(GRADER_CORE:%.c=$(BUILD)/obj/%.o) \
	    -o $@ $(CHECK_LIBS) $(LDLIBS_CUDA)

$(BUILD)/compile-check/%.so: %.cu common/support.cu common/smemlab.h
	@mkdir -p $(@D)
	@$(NVCC) $(filter-out $(NVCC_ARCH),$(NVCCFLAGS)) $(COMPILE_ARCH) -shared $< common/support.cu -o $@
	@echo "compiles: $<"

# Planted wrong variants, built for the GPU at hand.
PLANTED := $(patsubst tests/planted/%.cu,$(BUILD)/planted/%.so,$(wildcard tests/planted/*.cu))
$(BUILD)/planted/%.so: tests/planted/%.cu common/support.cu common/smemlab.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -shared $< common/support.cu -o $@

$(BUILD)/tests/expect: tests/gpu/expect.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(addprefix -L,$(DEPS_LIB)) $(addprefix -Wl$(comma)-rpath$(comma),$(DEPS_LIB)) -lcjson

.PHONY: check check-unit check-compile check-contract check-cli check-gpu
check: check-unit check-compile check-contract check-cli check-docs
	@echo "make check: all passed"

check-unit: $(UNIT_BIN)
	$(UNIT_BIN)

check-compile: $(CU_CHECKED)

check-contract: $(CU_CHECKED) $(GRADER)
	bash tests/compile/check-contract.sh $(BUILD) $(GRADER)

check-cli: $(GRADER)
	bash tests/cli/test-cli.sh $(GRADER)

check-gpu: $(GRADER) $(BUILD)/tests/expect $(LABS:%=$(BUILD)/%.so) $(LABS:%=$(BUILD)/solutions/%.so) $(PLANTED)
	bash tests/gpu/check-gpu.sh $(BUILD) $(GRADER)
