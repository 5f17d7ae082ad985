#!/usr/bin/env bash
# Runs a test command with a temporary folder of its own (TMPDIR) and fails it if the command
# left anything there: scratch files that outlive their test pile up under /tmp run after run.
#   leaves_no_scratch.sh COMMAND [ARG...]    (the command's exit status, or 1 for leftovers)
set -uo pipefail
scratch="$(mktemp -d)" || { echo "leaves_no_scratch.sh: cannot make a temporary folder" >&2; exit 1; }
trap 'rm -rf -- "$scratch"' EXIT
TMPDIR="$scratch" "$@"
status=$?
mapfile -t left < <(find "$scratch" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)
if [ "${#left[@]}" -gt 0 ]; then
  echo "FAIL: the test left ${#left[@]} entr$([ "${#left[@]}" -eq 1 ] && echo y || echo ies) in its temporary folder: ${left[*]}" >&2
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
