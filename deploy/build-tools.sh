#!/usr/bin/env bash
# What `make setup` (so `make run` and `make test`) needs from the machine besides
# Python 3.11, installed from Debian's packages when missing:
#
# - node and npm: the web client's build (buf, tsc, esbuild from clients/web's lock
#   file) and the Node clients of the gateway's tests (clients/node);
# - a C compiler and Python's headers: mypyc compiles the hand engine (libs/poker_rules);
# - curl: the gateway's Connect JSON tests call it as a user would.
#
# Quick when everything is there (no apt-get call at all).  Installing needs root;
# without it, it says what to install and fails.
set -euo pipefail

PYTHON=${1:-python3}
missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v curl >/dev/null 2>&1 || missing+=(curl)
include=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
[ -e "$include/Python.h" ] || missing+=(python3-dev)
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "build-tools: missing ${missing[*]}: install them (Debian: apt-get install ${missing[*]}), or run make as root" >&2
  exit 1
fi
echo "build-tools: apt-get install ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
