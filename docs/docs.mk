# docs/docs.mk - the course, rendered with pandoc. Included by the top
# Makefile (paths are relative to the kit's root):
#
#   make docs        build/docs/: one HTML page per docs/*.md listed in
#                    docs/pages.yaml, the shared stylesheet, the bank figures
#                    (drawn by docs/tools/bankmap.c from the grader's bank
#                    model), and build/docs/smemlab.pdf where LaTeX exists
#   make check-docs  the same, and fails on a pandoc warning, a broken
#                    internal link or image, a missing or invalid figure, a
#                    number or check name other than the grader's (facts.lua),
#                    or a ```{.cuda .compile} block that does not compile;
#                    self-tests prove each check fails (part of make check)
#   make docs-browser  renders every page in headless chromium as on a 390-px
#                    phone (links, figures, width; screenshots in
#                    build/docs-screenshots/), with its self-test (part of
#                    make check-full)
#
# Uses BUILD, CC, C_ALL, NVCC and the grader's archive ($(call program,...))
# of the top Makefile.

BUILD ?= build
CC ?= cc
NVCC ?= nvcc
PANDOC ?= pandoc

DOCS_OUT := $(BUILD)/docs
DOCS_TOOLS := docs/tools
DOCS_PAGES := $(shell sed -n 's/^ *- *file: *//p' docs/pages.yaml)
DOCS_MD := $(DOCS_PAGES:%=docs/%.md)
DOCS_HTML := $(DOCS_PAGES:%=$(DOCS_OUT)/%.html)
DOCS_CODE := $(DOCS_OUT)/code
DOCS_FIGDIR := $(DOCS_OUT)/figures
DOCS_FIGS := $(DOCS_FIGDIR)/.stamp
DOCS_BANKMAP := $(DOCS_OUT)/tools/bankmap
DOCS_PDF := $(DOCS_OUT)/smemlab.pdf
DOCS_FILTERS := $(DOCS_TOOLS)/nav.lua $(DOCS_TOOLS)/check-links.lua $(DOCS_TOOLS)/extract-code.lua \
    $(DOCS_TOOLS)/facts.lua
# The numbers the pages state (points, check names, sizes), printed from the
# grader's lab tables; facts.lua holds every page to them.
DOCS_LABFACTS := $(DOCS_OUT)/tools/labfacts
DOCS_FACTS := $(DOCS_OUT)/facts.txt
DOCS_COURSE_FACTS := $(DOCS_OUT)/course-facts.txt
# The two tools are programs of the grader's archive (the top Makefile's
# $(call program,...)): each links what it calls of the model and the tables.
DOCS_TOOL_OBJ = $(BUILD)/obj/$(DOCS_TOOLS)/$(1).o

# The HTML command, without the page list: the self-test runs it too.
DOCS_PANDOC := $(PANDOC) --fail-if-warnings --from=markdown --to=html5 --standalone \
    --template=$(DOCS_TOOLS)/template.html --toc --toc-depth=3 --section-divs \
    --highlight-style=breezedark \
    --lua-filter=$(DOCS_TOOLS)/nav.lua --lua-filter=$(DOCS_TOOLS)/check-links.lua \
    --lua-filter=$(DOCS_TOOLS)/extract-code.lua --lua-filter=$(DOCS_TOOLS)/facts.lua

DOCS_NEED_PANDOC = @command -v $(PANDOC) >/dev/null 2>&1 || { \
    echo "pandoc not found: run make deps (or apt-get install pandoc)" >&2; exit 3; }

.PHONY: docs docs-html docs-pdf check-docs docs-selftest docs-sections docs-clean

docs: docs-html docs-pdf
	@echo "Docs: $(DOCS_OUT)/index.html"

docs-html: $(DOCS_HTML) $(DOCS_OUT)/style.css

# --- figures: generated from the grader's model, never drawn by hand ---------
$(call DOCS_TOOL_OBJ,bankmap) $(call DOCS_TOOL_OBJ,labfacts): $(BUILD)/obj/$(DOCS_TOOLS)/%.o: $(DOCS_TOOLS)/%.c
	@mkdir -p $(@D)
	$(call step,CC,$<)$(CC) $(DEPFLAGS) $(C_ALL) -Igrader/model -iquote grader -c $< -o $@
$(DOCS_BANKMAP): $(DOCS_BANKMAP).linked ;
$(DOCS_BANKMAP).linked: $(call program,$(call DOCS_TOOL_OBJ,bankmap)) $$(if $$(wildcard $(DOCS_BANKMAP)),,FORCE)
	@mkdir -p $(@D)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter-out FORCE,$^) -lm -lpthread)

# Every figure bankmap knows must come out as SVG that parses as XML and has a
# viewBox and a <title>.
$(DOCS_FIGS): $(DOCS_BANKMAP)
	@rm -rf $(@D) && mkdir -p $(@D)
	@$(DOCS_BANKMAP) $(@D) > $(@D)/model.txt
	@xml=$$(command -v xmllint >/dev/null 2>&1 && echo xmllint || { command -v python3 >/dev/null 2>&1 && echo python3; }); \
	for name in $$($(DOCS_BANKMAP) --list); do \
	    f=$(@D)/$$name.svg; \
	    [ -s $$f ] || { echo "missing figure: $$f" >&2; exit 1; }; \
	    grep -q 'viewBox=' $$f && grep -q '<title' $$f || { echo "$$f: no viewBox or <title>" >&2; exit 1; }; \
	    case $$xml in \
	    xmllint) xmllint --noout $$f || exit 1;; \
	    python3) python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' $$f || { echo "$$f: not valid XML" >&2; exit 1; };; \
	    esac; \
	done; \
	echo "figures: $$($(DOCS_BANKMAP) --list | wc -l) written to $(@D)/ ($${xml:-no XML checker found, not} validated; the model's numbers are in $(@D)/model.txt)"
	@touch $@

$(DOCS_LABFACTS): $(DOCS_LABFACTS).linked ;
$(DOCS_LABFACTS).linked: $(call program,$(call DOCS_TOOL_OBJ,labfacts)) $$(if $$(wildcard $(DOCS_LABFACTS)),,FORCE)
	@mkdir -p $(@D)
	$(call step,LINK,$(@:.linked=))$(call relink,$(CC) $(C_ALL) $(filter-out FORCE,$^) $(CRYPTO_LIBS) -lm)
# The pages are held to the kit's tables (DOCS_FACTS), and show the course's numbers
# (DOCS_COURSE_FACTS: the course file, COURSE_FILE, the kit's course.conf where there is
# one, applied as the grader applies it): a course that sets lab 9's speed to 0 renders
# "0" where the page says 2, and a check it leaves out "(not graded in this course)".
# A stamp of the course file's path makes them again when a course file comes or goes.
$(DOCS_FACTS): $(DOCS_LABFACTS)
	@$< --course none > $@.tmp && mv $@.tmp $@
$(DOCS_COURSE_FACTS): $(DOCS_LABFACTS) $(COURSE_FILE) $(DOCS_OUT)/course-path
	@$< --course $(or $(COURSE_FILE),none) > $@.tmp && mv $@.tmp $@
$(DOCS_OUT)/course-path: FORCE
	@mkdir -p $(@D) && echo '$(COURSE_FILE)' | cmp -s - $@ || echo '$(COURSE_FILE)' > $@

# --- HTML: every page depends on every page, since links cross pages ---------
$(DOCS_OUT)/style.css: docs/style.css
	@mkdir -p $(@D)
	cp $< $@

$(DOCS_HTML): $(DOCS_OUT)/%.html: docs/%.md $(DOCS_MD) docs/pages.yaml $(DOCS_FILTERS) \
              $(DOCS_TOOLS)/template.html $(DOCS_FIGS) $(DOCS_FACTS) $(DOCS_COURSE_FACTS)
	$(DOCS_NEED_PANDOC)
	@mkdir -p $(DOCS_CODE)
	@rm -f $(DOCS_CODE)/$*.block*.cu
	@echo "pandoc  $< -> $@"
	@$(DOCS_PANDOC) --metadata-file=docs/pages.yaml -M codedir=$(DOCS_CODE) -M facts=$(DOCS_FACTS) -M course_facts=$(DOCS_COURSE_FACTS) $< -o $@

# --- PDF: the whole course as one book, where a LaTeX engine is installed ---
# pdflatex first (texlive-latex-recommended has all it needs); xelatex and
# lualatex also need OpenType fonts, so each is tried until one succeeds.
# Highlighted code needs framed.sty (texlive-latex-extra); without it the
# code is set plain.
DOCS_PDF_FLAGS = --from=markdown --to=latex --metadata-file=docs/pages.yaml \
    -M title="smemlab: CUDA shared memory labs" -V documentclass=report --top-level-division=chapter \
    -V geometry:margin=2.3cm -V colorlinks=true -V linkcolor=blue -V urlcolor=blue \
    --toc --toc-depth=2 -H $(DOCS_TOOLS)/pdf-header.tex \
    --lua-filter=$(DOCS_TOOLS)/pdf-book.lua --resource-path=$(DOCS_OUT)

$(DOCS_PDF): $(DOCS_MD) docs/pages.yaml $(DOCS_TOOLS)/pdf-book.lua $(DOCS_TOOLS)/pdf-header.tex $(DOCS_FIGS)
	$(DOCS_NEED_PANDOC)
	@engines=$$(for e in pdflatex xelatex lualatex; do command -v $$e >/dev/null 2>&1 && echo $$e; done); \
	if [ -z "$$engines" ]; then \
	    echo "PDF skipped: no LaTeX engine (apt-get install texlive-latex-recommended)"; exit 0; fi; \
	figs=true; \
	command -v rsvg-convert >/dev/null 2>&1 || { figs=false; \
	    echo "PDF: no rsvg-convert to turn the SVG figures into PDF (apt-get install librsvg2-bin): figures left out"; }; \
	hl=--highlight-style=tango; \
	kpsewhich framed.sty >/dev/null 2>&1 || hl=--no-highlight; \
	for engine in $$engines; do \
	    echo "pandoc  docs/*.md -> $@ ($$engine)"; \
	    if $(PANDOC) $(DOCS_PDF_FLAGS) -M pdf-figures=$$figs $$hl --pdf-engine=$$engine docs/index.md -o $@ \
	        2> $(DOCS_OUT)/pdf-$$engine.log; then exit 0; fi; \
	    echo "  $$engine failed (messages in $(DOCS_OUT)/pdf-$$engine.log)"; \
	done; \
	cat $(DOCS_OUT)/pdf-$${engine}.log >&2; exit 1

docs-pdf: $(DOCS_PDF)

# --- checks ----------------------------------------------------------------
# Links, images and warnings are checked while the pages are built (above);
# here the compilable blocks the pages wrote out are compiled, and the
# self-test shows that each check can fail.
$(DOCS_CODE)/.compiled: $(DOCS_HTML) $(DOCS_TOOLS)/compile-blocks.sh common/smemlab.h
	bash $(DOCS_TOOLS)/compile-blocks.sh $(NVCC) $(DOCS_CODE)
	@touch $@

docs-selftest: $(DOCS_FILTERS) $(DOCS_TOOLS)/template.html
	$(DOCS_NEED_PANDOC)
	bash $(DOCS_TOOLS)/selftest.sh $(NVCC) $(DOCS_PANDOC)

# The course as its readers see it: every page in headless chromium on a
# phone's width; every internal link and figure must resolve there, no page
# may be wider than the phone; a screenshot of each page for review.
DOCS_SHOTS := $(BUILD)/docs-screenshots
.PHONY: docs-browser
docs-browser: $(DOCS_HTML) $(DOCS_OUT)/style.css
	python3 $(DOCS_TOOLS)/browser-check.py $(DOCS_OUT) $(DOCS_SHOTS)
	bash $(DOCS_TOOLS)/browser-selftest.sh

check-docs: docs $(DOCS_CODE)/.compiled docs-selftest docs-sections
	@echo "make check-docs: all passed"

# Every section a lab table sends a student to (Next:, the report page) is on its page.
docs-sections:
	python3 $(DOCS_TOOLS)/check-sections.py .

docs-clean:
	rm -rf $(DOCS_OUT)
