#!/usr/bin/env bash
# The two base images of the service images, made locally: no registry is ever
# reached (nothing can be pulled on our machines), so the root filesystem comes
# from debootstrap and a Debian mirror this machine's apt already uses.
#
#   cardroom/base-build:TAG    Debian bookworm minbase + python3 + python3-venv
#                              (venv brings ensurepip's pip: the build stage only)
#   cardroom/base-runtime:TAG  the same tree without python3-venv, pip's and
#                              setuptools' wheels, apt's lists, docs and locales
#
# Usage: base-image.sh TAG   (TAG: a hash of this recipe, given by images.py; an
# image that exists already is kept, so a second run costs nothing).
set -euo pipefail
tag="${1:?usage: base-image.sh TAG}"
build_image="cardroom/base-build:$tag"
runtime_image="cardroom/base-runtime:$tag"
if docker image inspect "$build_image" >/dev/null 2>&1 &&
  docker image inspect "$runtime_image" >/dev/null 2>&1; then
  exit 0
fi

# The mirror: the first Debian archive (not -security) named in apt's sources,
# one-line (*.list) or deb822 (*.sources, "URIs:") format; never a hard-coded host.
mirror_of_sources() {
  local file
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] || continue
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' \
      "$file"
  done
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$file"
  done
}
mirror="$(mirror_of_sources | grep -E '/debian/?$' | grep -v security | head -n 1 || true)"
if [ -z "$mirror" ]; then
  echo "base-image.sh: no Debian mirror in /etc/apt/sources.list{,.d}" >&2
  exit 1
fi

work="$(mktemp -d /var/tmp/cardroom-rootfs.XXXXXX)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
echo "base-image.sh: debootstrap bookworm from $mirror" >&2
debootstrap --variant=minbase --include=python3,python3-venv bookworm "$root" "$mirror" \
  >"$work/debootstrap.log" 2>&1 || {
  tail -n 40 "$work/debootstrap.log" >&2
  exit 1
}
# Files that only make the image bigger (apt's lists and caches, docs, locales).
slim() {
  rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/cache/debconf/*-old \
    "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/info/* "$1"/usr/share/locale/* \
    "$1"/var/log/* "$1"/tmp/* "$1"/root/.cache
}
slim "$root"
# Reproducible as far as the mirror is: every mtime the same, no random machine-id.
: >"$root/etc/machine-id"
import_tree() {
  find "$1" -xdev -exec touch --no-dereference --date=@0 {} +
  tar --numeric-owner --sort=name -C "$1" -c . | docker import - "$2" >/dev/null
}
import_tree "$root" "$build_image"

# The runtime tree: nothing that installs Python packages.  dpkg purges the
# packages (their files and dpkg's record of them).
chroot "$root" dpkg --purge python3-venv python3.11-venv python3-pip-whl \
  python3-setuptools-whl >>"$work/debootstrap.log" 2>&1
rm -rf "$root"/usr/share/python-wheels "$root"/usr/lib/python3.11/ensurepip
slim "$root"
import_tree "$root" "$runtime_image"
echo "base-image.sh: built $build_image and $runtime_image" >&2
