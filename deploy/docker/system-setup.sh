#!/usr/bin/env bash
# What `make test` needs from the machine, installed and started when missing
# (`make system-setup`, a prerequisite of `make test` and `make images`):
#
# - prometheus (promtool) for tests/ops/monitoring: Debian's package; its own service
#   must not start (policy-rc.d answers 101 while apt runs);
# - docker.io (the engine; Debian bookworm's is 20.10) and debootstrap (the base
#   images are made locally: no registry is reachable);
# - postgresql, whose binaries the lobby's PostgreSQL tests run (tests/support/postgres.py);
# - chromium, the browser the web client's tests drive (tests/system/web, Playwright
#   from PyPI pointed at /usr/bin/chromium: nothing is downloaded at run time);
# - dockerd, started in the background when its socket does not answer, without
#   a bridge or iptables rules (every container uses the host's network), logging
#   to /var/log/cardroom-dockerd.log.
#
# Idempotent and quick when everything is there: no apt-get call at all.
# Needs root for what is missing (CI runs as root).
set -euo pipefail

DOCKERD_LOG=/var/log/cardroom-dockerd.log
SOCKET=/var/run/docker.sock

missing=()
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
# The lobby's tests on PostgreSQL start a throwaway server from the package's
# binaries (tests/support/postgres.py); the package's own cluster stays down.
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "system-setup: apt-get install ${missing[*]}" >&2
  apt-get update -qq
  no_start=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    no_start=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' >"$no_start" && chmod +x "$no_start"
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
  if [ -n "$no_start" ]; then rm -f "$no_start"; fi
fi

# docker.io ships its CLI too; a CLI installed elsewhere (/usr/local/bin) is fine.
if ! docker info >/dev/null 2>&1; then
  echo "system-setup: starting dockerd (log: $DOCKERD_LOG)" >&2
  nohup dockerd --bridge=none --iptables=false >>"$DOCKERD_LOG" 2>&1 </dev/null &
  for _ in $(seq 1 60); do
    if [ -S "$SOCKET" ] && docker info >/dev/null 2>&1; then
      break
    fi
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    echo "system-setup: dockerd did not answer on $SOCKET within 60 s:" >&2
    tail -n 30 "$DOCKERD_LOG" >&2
    exit 1
  fi
fi
