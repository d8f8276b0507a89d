#!/bin/sh
# Run before `npm test`: installs bubblewrap (the OS sandbox of the shell runner) where that is possible,
# so the tests exercise it. Never fails: without root or apt-get the shell runner works unsandboxed and
# its tests check that it says so.
command -v bwrap >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "bubblewrap not installed (needs root and apt-get); shell commands will run without the OS sandbox" >&2
  exit 0
fi
echo "Installing bubblewrap for the shell sandbox…" >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null 2>&1 \
  || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null 2>&1; } \
  || echo "Could not install bubblewrap; shell commands will run without the OS sandbox" >&2
exit 0
