# scenebench: `make render ENV=calib N=8` and `make test` work on a fresh machine.
# The first call creates .venv and installs the pinned dependencies; a changed
# pyproject.toml reinstalls them.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3 2>/dev/null)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

ENV       ?= calib
N         ?= 8
QUALITY   ?= standard
OUT       ?= out
EXECUTOR  ?= local
WORKERS   ?= auto
WORKERS_PER_GPU ?= 1
DEVICE    ?= auto
SEED      ?= 0
STRATUM   ?= random
NEW_RUN   ?= 0
BENCHMARK ?= realitybench
SCALE     ?= 1.0
RUNS      ?=
FORMAT    ?= hf
DATASETS  ?= datasets
PYTEST_ARGS ?=
MODULES   ?=
MUTANTS_WORKERS ?= 2

.PHONY: render test bench clean deps export benchmark new-env mutants harness-check harness-check-vlmevalkit

deps: $(STAMP)

$(STAMP): pyproject.toml scripts/ensure_system_libs.sh
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' || \
	  { echo "scenebench needs Python 3.11 (bpy 4.5 wheels exist only for it); found $(PYTHON). Install python3.11 or run make PYTHON=/path/to/python3.11"; exit 1; }
	@bash scripts/ensure_system_libs.sh
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@# opencv-contrib replaced opencv-python-headless (both own cv2/): an old venv drops both, then gets contrib
	@if $(PY) -m pip show -q opencv-python-headless 2>/dev/null; then \
	  $(PY) -m pip uninstall --quiet -y opencv-python-headless opencv-contrib-python-headless; fi
	$(PY) -m pip install --quiet -e '.[test]'
	@$(PY) -c 'import bpy, open3d, ray; assert bpy.app.version[:2] == (4, 5), bpy.app.version_string'
	@touch $(STAMP)

render: $(STAMP)
	$(VENV)/bin/scenebench render env=$(ENV) n=$(N) render=$(QUALITY) out=$(OUT) executor=$(EXECUTOR) \
	  workers=$(WORKERS) workers_per_gpu=$(WORKERS_PER_GPU) device=$(DEVICE) seed=$(SEED) stratum=$(STRATUM) \
	  new_run=$(if $(filter 1 true yes,$(NEW_RUN)),true,false)

# make export BENCHMARK=realitybench [RUNS="out/tape_gap ..."] [OUT=datasets] [FORMAT=hf|vlmevalkit]
export: $(STAMP)
	$(VENV)/bin/scenebench export --benchmark $(BENCHMARK) --format $(FORMAT) \
	  $(if $(RUNS),--runs $(RUNS),) --out $(if $(filter out,$(OUT)),$(DATASETS),$(OUT))

# make benchmark BENCHMARK=realitybench [SCALE=1.0] [QUALITY=standard]: render every environment, then
# export; QUALITY given on the command line replaces the benchmark file's preset (runs in a folder of their own)
benchmark: $(STAMP)
	$(VENV)/bin/scenebench benchmark --benchmark $(BENCHMARK) --scale $(SCALE) --out $(OUT) \
	  --datasets $(DATASETS) --executor $(EXECUTOR) --workers $(WORKERS) --device $(DEVICE) \
	  $(if $(filter command line environment,$(origin QUALITY)),--quality $(QUALITY),)

# make new-env NAME=<name>: scaffold an environment that renders and tests at once
new-env: $(STAMP)
	$(PY) -m scenebench.scaffold NAME=$(NAME)

test: $(STAMP)
	$(PY) -m pytest -p no:cacheprovider $(PYTEST_ARGS)

# make mutants [MODULES="scorers/terms.py geometry/"] [MUTANTS_WORKERS=2] [MUTANTS_ARGS=--fresh]: mutation
# testing, one module at a time against its own tests (docs/testing.md). Not part of `make test`.
# A module whose source and tests are unchanged is not rerun; results in mutants/ (git-ignored).
mutants: $(STAMP)
	@$(PY) -c 'import importlib.metadata as m, sys; sys.exit(m.version("mutmut") != "3.8.1")' 2>/dev/null || \
	  $(PY) -m pip install --quiet -e '.[test,mutants]'
	$(PY) scripts/mutants_run.py --workers $(MUTANTS_WORKERS) $(MUTANTS_ARGS) $(MODULES); run=$$?; \
	  $(PY) scripts/mutants_report.py $(MODULES) && exit $$run

# make harness-check: a real lmms-eval run (its own venv, .venv-harness: lmms-eval pulls torch) of an
# exported task group against a stub server on 127.0.0.1, compared with `scenebench score`. Not in `make test`.
HARNESS_VENV  := .venv-harness
HARNESS_STAMP := $(HARNESS_VENV)/.installed
$(HARNESS_STAMP): scripts/harness/lmms-eval.txt
	@test -x $(HARNESS_VENV)/bin/python || $(PYTHON) -m venv $(HARNESS_VENV)
	$(HARNESS_VENV)/bin/python -m pip install --quiet -r scripts/harness/lmms-eval.txt
	@# PyPI's torchvision is built for PyPI's CUDA torch: next to a CPU torch its ops do not load and
	@# importing it fails. lmms-eval's openai model never uses it, so such a broken copy is removed.
	@$(HARNESS_VENV)/bin/python -c 'import torchvision' 2>/dev/null || \
	  $(HARNESS_VENV)/bin/python -m pip uninstall --yes --quiet torchvision
	@touch $(HARNESS_STAMP)

# Its VLMEvalKit leg: VLMEvalKit's code (scripts/harness/vlmevalkit.txt, no torch) installed with
# --no-deps into .venv-vlmevalkit and run on top of scenebench's venv; `make harness-check-vlmevalkit`
# runs that leg alone.
VLMEVAL_DIR   := .venv-vlmevalkit
VLMEVAL_STAMP := $(VLMEVAL_DIR)/.installed
$(VLMEVAL_STAMP): scripts/harness/vlmevalkit.txt $(STAMP)
	$(PY) -m pip install --quiet --no-deps --upgrade --target $(VLMEVAL_DIR) -r scripts/harness/vlmevalkit.txt
	@touch $(VLMEVAL_STAMP)

harness-check: $(STAMP) $(HARNESS_STAMP) $(VLMEVAL_STAMP)
	$(PY) scripts/harness_check.py --lmms-python $(HARNESS_VENV)/bin/python --vlmevalkit-path $(VLMEVAL_DIR)

harness-check-vlmevalkit: $(STAMP) $(VLMEVAL_STAMP)
	$(PY) scripts/harness_check.py --vlmevalkit-path $(VLMEVAL_DIR)

bench: $(STAMP)
	$(PY) bench/render_overhead.py --n 8
	$(PY) bench/render_overhead.py --n 32
	$(PY) bench/export_throughput.py
	$(PY) bench/egopath_graph.py
	$(PY) bench/egopath_views.py
	$(PY) bench/mutants_floor.py

clean:
	rm -rf $(VENV) $(HARNESS_VENV) out .pytest_cache *.egg-info
