#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install everything ane needs to build and test, from Debian bookworm and
# bookworm-backports only.  Idempotent: a second run is a fast no-op.
#
# The backports apt source is derived from the mirror already configured in
# /etc/apt/sources.list.d/debian.sources (or /etc/apt/sources.list); no host
# name is written into this repository.
set -euo pipefail

log() { printf 'setup-deps: %s\n' "$*" >&2; }

BPO_LIST=/etc/apt/sources.list.d/ane-bookworm-backports.sources
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# Userspace packages from bookworm proper.
PKGS=(
	build-essential pkg-config kmod cpio gzip xz-utils zstd file
	qemu-system-x86 busybox-static libdrm-dev
	flex bison bc libelf-dev libssl-dev dwarves python3 rsync
	sparse perl
	libopenblas-dev libdnnl-dev
	libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata
	libjson-c-dev                    # the tools' --json (anectl, the benches)
	python3-numpy python3-torch python3-torchvision
)
# Kernel packages: backports only.  Resolved through the metapackages so
# the image and the headers are exactly the same version.
KPKGS=(linux-image-amd64 linux-headers-amd64 linux-source-6.12)

mirror_uri() {
	local f uri=
	for f in /etc/apt/sources.list.d/debian.sources; do
		[ -r "$f" ] || continue
		# First stanza that carries the main "bookworm" suite.
		uri=$(awk '
			/^[[:space:]]*$/ { if (suites ~ /(^| )bookworm( |$)/ && u != "") { print u; exit } u=""; suites=""; next }
			/^URIs:/ { u=$2 }
			/^Suites:/ { $1=""; suites=$0 " " }
			END { if (suites ~ /(^| )bookworm( |$)/ && u != "") print u }
		' "$f" | head -n1)
		[ -n "$uri" ] && break
	done
	if [ -z "$uri" ] && [ -r /etc/apt/sources.list ]; then
		uri=$(awk '$1=="deb" && $3=="bookworm" { print $2; exit }' /etc/apt/sources.list)
	fi
	[ -n "$uri" ] || { log "cannot find the bookworm mirror in the apt sources"; exit 1; }
	printf '%s\n' "$uri"
}

have_all() {
	local p
	[ -r "$BPO_LIST" ] || return 1
	for p in "${PKGS[@]}" "${KPKGS[@]}" libsystemd-dev; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
	done
	# The headers must match the image exactly.
	kver_installed >/dev/null || return 1
}

# Print the newest installed backports 6.12+ kernel version that has both
# an image and matching headers.
kver_installed() {
	local d v
	for d in $(ls -d /lib/modules/6.* 2>/dev/null | sort -rV); do
		v=${d##*/}
		[ -r "/boot/vmlinuz-$v" ] && [ -e "$d/build/Makefile" ] && { echo "$v"; return 0; }
	done
	return 1
}

if [ "${1:-}" = "--kver" ]; then
	kver_installed
	exit
fi

if have_all; then
	exit 0
fi

if [ ! -r "$BPO_LIST" ]; then
	uri=$(mirror_uri)
	log "adding bookworm-backports from $uri"
	$SUDO tee "$BPO_LIST" >/dev/null <<SRC
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

export DEBIAN_FRONTEND=noninteractive
log "apt-get update"
$SUDO apt-get update -qq
log "installing build and VM packages"
$SUDO apt-get install -y -qq --no-install-recommends "${PKGS[@]}" >/dev/null
log "installing the bookworm-backports kernel, headers and source"
$SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports \
	"${KPKGS[@]}" >/dev/null
# sd-bus for aned and libane's broker client: libsystemd-dev at exactly the
# version of the installed libsystemd0 (bookworm's, or bookworm-backports'
# when the backports kernel's dependencies brought that one in).
sdver=$(dpkg-query -W -f='${Version}' libsystemd0 2>/dev/null || true)
log "installing libsystemd-dev${sdver:+ $sdver}"
$SUDO apt-get install -y -qq --no-install-recommends "libsystemd-dev${sdver:+=$sdver}" >/dev/null
kv=$(kver_installed) || { log "no backports kernel with matching headers after install"; exit 1; }
log "kernel $kv ready"
