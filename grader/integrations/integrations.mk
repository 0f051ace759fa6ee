# integrations.mk - where instructors already are: Gradescope, Autolab, and
# the tests of those and of the Slurm path (docs/instructors.md). Included by
# the top Makefile.
#
#   make gradescope LAB=lab3   build/gradescope/lab3/autograder.zip
#   make autolab LAB=lab3      build/autolab/lab3/autograde-Makefile, autograde.tar
#   make deps-instructor       the Debian packages these and their tests need
#   make check-integrations    run both autograders in folders laid out like
#                              Gradescope's and Autolab's (part of make check)
#   make check-integrations-full  the other layouts: /autograder, the documented
#                              try-outs (part of make check-full)
#   make check-slurm           a one-machine Slurm cluster, started and stopped
#                              by the test (part of make check-full)

INSTRUCTOR_PACKAGES := jq zip unzip slurm-wlm munge
# What an autograder needs of the kit: enough to build the grader and to ask
# the Makefile for its nvcc flags. No solutions, no planted variants.
INTEGRATION_KIT := Makefile common grader tests/tests.mk docs/docs.mk docs/pages.yaml
# the course file goes with the grader, as course.conf where the grader looks for it
stage_course = $(if $(COURSE_FILE),cp $(COURSE_FILE) $(1)/course.conf,true)
INTEGRATION_LAB = $(if $(filter $(LAB_ID),$(LABS)),$(LAB_ID),$(error LAB=$(LAB) is not a lab: say which one, e.g. LAB=lab3 (the labs are $(LABS))))
GRADESCOPE_OUT = $(BUILD)/gradescope/$(INTEGRATION_LAB)
AUTOLAB_OUT = $(BUILD)/autolab/$(INTEGRATION_LAB)

# deps-instructor installs INSTRUCTOR_PACKAGES through the Makefile's one installer.
.PHONY: gradescope autolab check-integrations check-integrations-full check-slurm check-integrations-formats \
        check-integrations-gradescope check-integrations-autolab

# $(call stage_prebuilt,KIT): this build's lab tools (the grader, the build jail,
# support.o and what they are made of) in KIT/build, newer than every source there,
# and KIT/build/PREBUILT: a handin's make lab-tools has nothing to do, so a handin
# costs the student's build and the grading alone (the grader built from nothing:
# 74-94 s on 2 cores). prebuilt.sh, where the autograder runs, builds it again when
# the shipped one does not run there or its device code does not fit the GPU
# (build/tools-arch: the NVCC_ARCH it was built with).
PREBUILT_FILES = smemlab-grade smemlab-record record smemlab-build-jail smemlab-jail-bin libsmemlab.a \
                 grader_kernels.fatbin obj/grader obj/common .kit-version \
                 $(notdir $(wildcard $(BUILD)/*.linked $(BUILD)/tools-arch))
stage_prebuilt = mkdir -p $(1)/build && (cd $(BUILD) && tar -cf - $(PREBUILT_FILES)) | tar -xf - -C $(1)/build && \
    sleep 1 && now=$$(date +%s) && find $(1)/build -exec touch -h -d @$$now {} + && date -u +%FT%TZ > $(1)/build/PREBUILT && \
    { ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(MAKE) -C $(1) lab-tools 2>&1 | grep -E '^  (CC|AR|LINK|NVCC) ' || \
      { echo "the prebuilt grader was not up to date in $(1) (make lab-tools built the above): a handin would build it" >&2; exit 1; }; }

# $(call stage_kit,DIR): copy the kit's files an autograder needs into DIR.
# Its VERSION is this kit's (git describe here): the autograder's records name it.
stage_kit = rm -rf $(1) && mkdir -p $(1) && tar -cf - $(INTEGRATION_KIT) | tar -xf - -C $(1) && $(call stage_course,$(1)) && \
    echo '$(KIT_VERSION)' > $(1)/VERSION

gradescope: lab-tools
	@command -v zip >/dev/null || { echo "zip is missing: make deps-instructor (apt-get install zip)" >&2; exit 3; }
	@rm -rf $(GRADESCOPE_OUT) && mkdir -p $(GRADESCOPE_OUT)/zip
	@$(call stage_kit,$(GRADESCOPE_OUT)/zip/kit)
	@$(call stage_prebuilt,$(GRADESCOPE_OUT)/zip/kit)
	@cp grader/integrations/gradescope/setup.sh grader/integrations/gradescope/run_autograder $(GRADESCOPE_OUT)/zip/
	@echo $(INTEGRATION_LAB) > $(GRADESCOPE_OUT)/zip/smemlab-lab
	@# -y: links stay links (the jail runs its assembler guard, smemlab-jail-bin/as, only as
	@# a link to itself: a copy of it is refused, Permission denied)
	@cd $(GRADESCOPE_OUT)/zip && zip -q -r -y -X ../autograder.zip .
	@rm -rf $(GRADESCOPE_OUT)/zip
	@echo "Wrote $(GRADESCOPE_OUT)/autograder.zip: upload it as the autograder of a Gradescope"
	@echo "programming assignment; students submit $(INTEGRATION_LAB).cu (docs/instructors.md#gradescope)."

autolab: lab-tools
	@rm -rf $(AUTOLAB_OUT) && mkdir -p $(AUTOLAB_OUT)/tar
	@$(call stage_kit,$(AUTOLAB_OUT)/tar/smemlab-autolab/kit)
	@$(call stage_prebuilt,$(AUTOLAB_OUT)/tar/smemlab-autolab/kit)
	@tar -cf $(AUTOLAB_OUT)/autograde.tar -C $(AUTOLAB_OUT)/tar smemlab-autolab
	@rm -rf $(AUTOLAB_OUT)/tar
	@sed 's/@LAB@/$(INTEGRATION_LAB)/' grader/integrations/autolab/autograde-Makefile > $(AUTOLAB_OUT)/autograde-Makefile
	@echo "Wrote $(AUTOLAB_OUT)/autograde-Makefile and autograde.tar. In the assessment: handin"
	@echo "filename $(INTEGRATION_LAB).cu, one problem per kernel, named:" \
	    $$($(GRADER) --list | awk -v lab=$(INTEGRATION_LAB) '/^lab[0-9]/ { on = ($$1 == lab); next } on && NF { print $$1 }')
	@echo "(points: docs/instructors.md#rubric; set-up: docs/instructors.md#autolab)"
autolab: $(GRADER)

# Without a GPU the tests build students' files for one architecture (fast): the
# test stages' own (TEST_ARCH, tests/tests.mk: the compute_90 PTX the emulator runs
# and sm_90's code it reads); with one, for that GPU, as the autograders would.
INTEGRATION_ARCH = $(if $(GPU_CC),,NVCC_ARCH='$(TEST_ARCH)')
INTEGRATION_REF := $(BUILD)/compile-check/solutions/lab3-padding/lab3.so
ifneq ($(wildcard solutions/lab3-padding),)
# make check: one layout each, the kit given this run's grader (seed_kit in
# tests/integrations/lib.sh); make check-full: every other layout, the grader
# built from nothing in each as the platforms build it.
# (Each platform its own target, so that make check runs them side by side: each
# waits on its handins' builds and grades, a minute alone.)
check-integrations: check-integrations-gradescope check-integrations-autolab check-integrations-formats
check-integrations-formats:
	bash tests/integrations/test-formats.sh
check-integrations-gradescope check-integrations-autolab: check-integrations-%: $(GRADER_ALL) $(BUILD_JAIL) $(SUPPORT_OBJ) $(INTEGRATION_REF)
	$(INTEGRATION_ARCH) SMEMLAB_CHECK_TIER=fast bash tests/integrations/test-$*.sh $(BUILD) $(INTEGRATION_REF)
check-integrations-full: $(GRADER) $(INTEGRATION_REF)
	$(INTEGRATION_ARCH) SMEMLAB_CHECK_TIER=full bash tests/integrations/test-gradescope.sh $(BUILD) $(INTEGRATION_REF)
	$(INTEGRATION_ARCH) SMEMLAB_CHECK_TIER=full bash tests/integrations/test-autolab.sh $(BUILD) $(INTEGRATION_REF)

check-slurm: $(GRADER) $(BATCH) $(INTEGRATION_REF)
	bash tests/slurm/test-slurm.sh $(BUILD) $(INTEGRATION_REF)
else
# The student kit: the tests grade the lab 3 solution, which it does not have.
check-integrations check-integrations-full check-slurm check-integrations-formats check-integrations-gradescope \
check-integrations-autolab:
	@echo "make $@: skipped: it grades solutions/lab3-padding, which the student kit does not have."
endif

# (make check lists check-integrations among its stages, tests/tests.mk: first.)
check-full: check-integrations-full check-slurm
