# Every action of the project. `make` alone lists them.
# The virtual environment is created and filled from requirements.lock and requirements-test.lock
# (every file checked against its hash) on first use, and again only when either changes. Jupyter,
# for `make notebook` alone, comes from requirements-notebook.lock, and cosmic-ray, for `make
# mutate` alone, from requirements-mutate.lock, each installed the first time it is needed.

SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
NOTEBOOK_INSTALLED := $(VENV)/.notebook-installed
MUTATE_INSTALLED := $(VENV)/.mutate-installed
LOCK_VENV := .venv-lock
PIP_TOOLS := pip-tools==7.6.2
COMPILE := --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links
export NO_MKDOCS_2_WARNING := 1
export PYTHONDONTWRITEBYTECODE := 1

.DEFAULT_GOAL := help
.PHONY: sandbox help venv serve site offline pdf regenerate check claims chapter bench costs numerics bench-site bench-tools test lint clean notebook lock corpus mutate miniature-long miniature-ablation miniature-gpu miniature-seeds miniature-seeds-d miniature-seeds-wordnet miniature-thesis miniature-sizes bench-miniature

help: ## List the targets
	@echo "Targets (run from the repository root):"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | awk -F'\t' '{printf "  make %-11s %s\n", $$1, $$2}'

$(INSTALLED): requirements.lock requirements-test.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || \
	  { echo "Python 3.11 is required (found $$($(PYTHON) --version)); set PYTHON=/path/to/python3.11"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
	@# The test runner's extras (pytest-xdist), pinned to the same versions where they overlap
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements-test.lock
	@# The project itself, editable and offline (its dependencies are the locks above): the
	@# `explainer` command and the site's MkDocs plugin (the `explainer` entry point)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation --editable .
	@# No __pycache__ in the tree from any command run with this environment
	echo 'import sys; sys.dont_write_bytecode = True' > \
	  "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/explainer_no_bytecode.pth"
	touch $(INSTALLED)

venv: $(INSTALLED) ## Create .venv and install the pinned dependencies (seconds when up to date)

$(NOTEBOOK_INSTALLED): requirements-notebook.lock $(INSTALLED)
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements-notebook.lock
	touch $(NOTEBOOK_INSTALLED)

$(MUTATE_INSTALLED): requirements-mutate.lock $(INSTALLED)
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements-mutate.lock
	touch $(MUTATE_INSTALLED)

lock: ## Rebuild requirements.lock, requirements-notebook.lock, requirements-test.lock and requirements-mutate.lock, with hashes, from the .in files (pip-compile; pins kept)
	test -x $(LOCK_VENV)/bin/pip-compile || \
	  { $(PYTHON) -m venv $(LOCK_VENV) && $(LOCK_VENV)/bin/pip install --quiet $(PIP_TOOLS); }
	$(LOCK_VENV)/bin/pip-compile $(COMPILE) -o requirements.lock requirements.in
	$(LOCK_VENV)/bin/pip-compile $(COMPILE) -o requirements-notebook.lock requirements-notebook.in
	$(LOCK_VENV)/bin/pip-compile $(COMPILE) -o requirements-test.lock requirements-test.in
	$(LOCK_VENV)/bin/pip-compile $(COMPILE) -o requirements-mutate.lock requirements-mutate.in
	@# PyTorch must stay the CPU build: a CUDA build (nvidia-* and triton wheels) is an error
	@grep -qE '^torch==[0-9.]+\+cpu ' requirements.lock || \
	  { echo "make lock: requirements.lock does not pin torch's +cpu build"; exit 1; }
	@! grep -qiE '^(nvidia-|triton==)' requirements.lock requirements-notebook.lock requirements-test.lock requirements-mutate.lock || \
	  { echo "make lock: a CUDA package entered the lock"; exit 1; }

serve: $(INSTALLED) ## Build and serve the site on http://127.0.0.1:8000
	@# Not --dirtyreload: it rebuilds only the edited page, so other pages keep stale equation and
	@# figure numbers and references to it (MkDocs itself warns of inaccurate navigation and links)
	$(VENV)/bin/mkdocs serve --strict -a 127.0.0.1:8000

site: $(INSTALLED) ## Build the static site into site/ (mkdocs build --strict)
	$(VENV)/bin/mkdocs build --strict  # not --quiet: it hides the warnings --strict counts

offline: $(INSTALLED) ## A copy of the site to open from a folder, search included: site-offline/index.html
	$(VENV)/bin/mkdocs build --strict -f mkdocs-offline.yml

pdf: $(INSTALLED) ## The whole book as one PDF, build/book.pdf (headless Chromium; checks math and links)
	$(PY) -m explainer_tools.website.pdf

regenerate: $(INSTALLED) ## Run changed chapter scripts; write outputs, figures; embed into Markdown
	$(PY) -m explainer_tools regenerate $(SCRIPTS)

check: $(INSTALLED) ## Regenerate into scratch, compare with committed files; check claims and errata
	$(PY) -m explainer_tools check

claims: $(INSTALLED) ## Check that every number quoted in prose is in the output block it cites
	$(PY) -m explainer_tools claims

chapter: $(INSTALLED) ## Scaffold a chapter: make chapter N=9 SLUG=generalization TITLE="..."
	@test -n "$(N)" -a -n "$(SLUG)" -a -n "$(TITLE)" || \
	  { echo 'usage: make chapter N=9 SLUG=generalization TITLE="Generalization"'; exit 2; }
	$(PY) -m explainer_tools chapter "$(N)" "$(SLUG)" "$(TITLE)"

bench: $(INSTALLED) ## Time a clean regenerate against the scripts' own compute (writes nothing)
	$(PY) -m explainer_tools bench

costs: $(INSTALLED) ## Time every script once; record it in outputs/run_seconds.json (regenerate and check start the longest first)
	$(PY) -m explainer_tools costs

numerics: $(INSTALLED) ## Which floating-point kernels compute other bits here than on the machine that committed the outputs (RECORD=1: this machine becomes the reference)
	$(PY) -m explainer_tools.scripts.numerics $(if $(RECORD),--record)

bench-site: $(INSTALLED) ## The site's budgets: build, bytes and render time per page, serve re-render, Lighthouse if installed
	$(PY) -m explainer_tools.website.site_bench

bench-tools: ## Install Lighthouse 12.2.3 for make bench-site into bench-tools/node_modules (npm ci; node 20 needed)
	cd bench-tools && npm ci --no-audit --no-fund

bench-miniature: $(INSTALLED) ## Time Chapters 21-22's default tier (wall and CPU per script) against its 150 s budget (writes nothing)
	$(PY) -m explainer_tools.scripts.bench --miniature

lint: $(INSTALLED) ## ruff over all Python code
	$(VENV)/bin/ruff check explainer_code explainer_tools tests

# pytest on two workers (pytest-xdist, requirements-test.lock); TEST_WORKERS=0 runs it in one process.
# Work units (tests/conftest.py's scheduler): one file each, the browser suite as one.
TEST_WORKERS ?= 2
sandbox: $(INSTALLED) ## Say whether chapter scripts run in the kernel's sandbox here, and which (warm, or bubblewrap per script; apt-get install bubblewrap), or with audit hooks only
	$(PY) -m explainer_tools.scripts.sandbox_report

test: $(INSTALLED) ## Run every test: lint, make check, pytest on two workers (browser tests need Chromium; the sandbox needs bubblewrap)
	$(MAKE) --no-print-directory sandbox
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory check
	EXPLAINER_CHECK_PASSED=1 $(PY) -m pytest $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS))  # tests that repeat what check just did skip

mutate: $(MUTATE_INSTALLED) ## Mutation test (cosmic-ray, requirements-mutate.lock): does a module's test fail for each generated mutant? MODULE=explainer_tools.glue (or a package) runs one; all take hours
	$(PY) tests/mutation.py $(MODULE)

# Jupyter refuses to start as root ("Running as root is not recommended") unless told it may: in a
# container, or on a machine where everything runs as root, `make notebook` passes --allow-root.
USER_ID ?= $(shell id -u)
JUPYTER_AS_ROOT := $(if $(filter 0,$(USER_ID)),--allow-root)

notebook: $(NOTEBOOK_INSTALLED) ## Open the companion notebook (notebooks/gpt2_under_the_hood.py) in Jupyter
	@echo "Jupyter opens notebooks/gpt2_under_the_hood.py as a notebook (jupytext); saving writes"
	@echo "the .py back. The site's copy, docs/notebooks/*.ipynb, is rewritten only by make regenerate."
	PYTHONHASHSEED=0 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 JUPYTER_PLATFORM_DIRS=1 \
	  $(VENV)/bin/jupyter notebook $(JUPYTER_AS_ROOT) \
	  --JupyterNotebookApp.default_url=/notebooks/notebooks/gpt2_under_the_hood.py

corpus: $(INSTALLED) ## Rebuild the notebook's frozen training text from today's pages (on purpose only)
	PYTHONPATH=explainer_code $(PY) -m gpt_lab.corpus --rebuild

clean: ## Remove the built site and caches (keeps .venv)
	rm -rf site build .cache .pytest_cache .ruff_cache

miniature-long: $(INSTALLED) ## Chapter 22's longer CPU tier (the recorded reduced sweep: 375 s): writes explainer_code/data/ch22_long_tier.json
	cd explainer_code && ../$(PY) -m miniature.tiers long

SEEDS_DATA = data/ch22_seeds
# Each call of a seeds tier records the kernel id of the machine it ran on (make numerics):
# a chapter script that compares its run with the file needs it.
KERNELS = export EXPLAINER_KERNELS=$$($(PY) -m explainer_tools.scripts.numerics --id)
miniature-ablation: $(INSTALLED) ## Chapter 22's ablation on the Markov source: LoRA, subspace and full (seed 0; a few CPU-minutes), which ch22_markov.py reads beside its own SubLoRA run; writes explainer_code/data/ch22_ablation.json
	$(KERNELS) && cd explainer_code && ../$(PY) -m miniature.tiers ablation

miniature-seeds: $(INSTALLED) ## Chapter 22's seeds tier: 4 CPU processes side by side (35 runs of about 30 CPU-s each); writes explainer_code/data/ch22_seeds_*.json
	$(KERNELS) && cd explainer_code && \
	CH22_SEED_SOURCES=markov CH22_SEED_KINDS=sublora,lora ../$(PY) -m miniature.tiers seeds --out $(SEEDS_DATA)_tier.json & \
	CH22_SEED_SOURCES=markov CH22_SEED_KINDS=subspace ../$(PY) -m miniature.tiers seeds --out $(SEEDS_DATA)_more.json & \
	CH22_SEED_SOURCES=markov CH22_SEED_KINDS=full ../$(PY) -m miniature.tiers seeds --out $(SEEDS_DATA)_full.json & \
	CH22_SEED_SOURCES=repeat ../$(PY) -m miniature.tiers seeds --out $(SEEDS_DATA)_repeat.json & \
	wait

OUT ?= build/miniature-gpu
TORCHRUN ?= $(if $(wildcard $(VENV)/bin/torchrun),$(CURDIR)/$(VENV)/bin/torchrun,torchrun)
miniature-seeds-d: $(INSTALLED) ## Chapter 22's d sweep over five seeds (d = 250, 500, 2,000; 15 runs of about 1 CPU-min, one process): writes explainer_code/data/ch22_seeds_dsweep.json
	$(KERNELS) && cd explainer_code && ../$(PY) -m miniature.tiers seeds-d

miniature-seeds-wordnet: $(INSTALLED) ## Chapter 22's WordNet run over five seeds (5 runs of about 2 CPU-min, one process): writes explainer_code/data/ch22_seeds_wordnet.json
	$(KERNELS) && cd explainer_code && ../$(PY) -m miniature.tiers seeds-wordnet

miniature-thesis: $(INSTALLED) ## Chapter 22's thesis tier on the copying source: seeds and ablations side by side, then the variants (dense, LoRA, SubLoRA; 5 seeds each), which keep the runs already in their file (delete it to rerun them); writes explainer_code/data/ch22_thesis_*.json
	$(KERNELS) && cd explainer_code && { \
	../$(PY) -m miniature.thesis seeds --out data/ch22_thesis_seeds.json & \
	../$(PY) -m miniature.thesis ablations --out data/ch22_thesis_ablations.json & \
	wait; } && \
	../$(PY) -m miniature.thesis variants --out data/ch22_thesis_variants.json

miniature-sizes: $(INSTALLED) ## Chapter 25's size sweep on the copying source: four GPT shapes x seeds 0-2 with Chapter 22's thesis recipe, one process per seed side by side (about 30 CPU-min); writes explainer_code/data/ch22_thesis_sizes_seed*.json
	$(KERNELS) && cd explainer_code && { \
	for s in 0 1 2; do ../$(PY) -m miniature.thesis sizes --seeds $$s --out data/ch22_thesis_sizes_seed$$s.json & done; \
	wait; }

miniature-gpu: ## Chapter 22's GPU tier under torchrun on every visible GPU (any Python with torch + numpy): writes $(OUT)/ch22_gpu_tier.json
	mkdir -p $(OUT)
	cd explainer_code && $(TORCHRUN) --standalone --nproc-per-node=gpu -m miniature.tiers gpu --out $(abspath $(OUT))/ch22_gpu_tier.json
