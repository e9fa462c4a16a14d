# TF Lab: `make run` starts the dashboard, `make test` runs every test tier.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8501
CHROMIUM ?= /usr/bin/chromium

.PHONY: install run test test-unit test-app test-browser browser cli-help clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

install: $(STAMP)

run: install
	$(PY) -m streamlit run app.py --server.address 127.0.0.1 --server.port $(PORT)

# Browser tests drive Debian's chromium; install it when missing and we are root.
browser:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = "0" ]; then apt-get update -qq && apt-get install -y -qq chromium; \
	  else echo "Browser tests need $(CHROMIUM): sudo apt-get install chromium"; exit 1; fi; }

test: install browser
	$(PY) -m pytest

test-unit: install
	$(PY) -m pytest tests/unit

test-app: install
	$(PY) -m pytest tests/app

test-browser: install browser
	$(PY) -m pytest tests/browser

clean:
	rm -rf $(VENV) .pytest_cache
