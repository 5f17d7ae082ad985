#!/usr/bin/env bash
# The guard rails before a commit: clang-format (.clang-format) and clang-tidy (.clang-tidy) on
# the C++ sources. Installs clang-format and clang-tidy when missing. clang-tidy reads the compile
# database of build-tidy/ (or $MESHBENCH_TIDY_DIR), a tree that is configured, never built, and
# never a unity build: it holds one entry per source file, which a unity tree's database does not.
#   scripts/check.sh            the files changed against main (committed or not)
#   scripts/check.sh --all      every source file (what CI runs)
#   scripts/check.sh --fix      rewrite the changed files' formatting in place, then check
# Exit 0 when clean, 1 with the findings printed, 2 when the tools cannot run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
all=0 fix=0
for arg in "$@"; do
  case "$arg" in
    --all) all=1 ;;
    --fix) fix=1 ;;
    *) echo "check.sh: unknown argument '$arg'; use --all or --fix" >&2; exit 2 ;;
  esac
done
# shellcheck source=deps.sh
source "$root/scripts/deps.sh"
MESHBENCH_PACKAGES+=(clang-format clang-tidy)
meshbench_install_deps || exit 2
build="${MESHBENCH_TIDY_DIR:-$root/build-tidy}"
# Configured on every call (a second or two): the database follows new files and flags.
mkdir -p "$build"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${MESHBENCH_CMAKE_ARGS:-} -DCMAKE_UNITY_BUILD=OFF > "$build/check-configure.log" 2>&1 ||
  { cat "$build/check-configure.log" >&2; exit 2; }
# Sources only: the generated files and the test data are not ours to format.
sources_pattern='^(common|topology|mapping|bench|results|analysis|slurm|testbed|app|tests)/.*\.(cpp|hpp)$'
if [[ $all -eq 1 ]]; then
  mapfile -t files < <(git ls-files | grep -E "$sources_pattern" | grep -v '^tests/data/')
else
  base="$(git merge-base HEAD main 2> /dev/null || git rev-parse HEAD)"
  mapfile -t files < <({ git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u |
    grep -E "$sources_pattern" | grep -v '^tests/data/' | while read -r f; do [[ -f $f ]] && echo "$f"; done)
fi
if [[ ${#files[@]} -eq 0 ]]; then
  echo "check.sh: no C++ files to check"
  exit 0
fi
status=0
if [[ $fix -eq 1 ]]; then clang-format -i "${files[@]}"; fi
if ! clang-format --dry-run -Werror "${files[@]}" 2> "$build/check-format.log"; then
  echo "check.sh: clang-format would change these files (scripts/check.sh --fix rewrites them):"
  grep -oE '^[^:]+:[0-9]+:[0-9]+: (warning|error)' "$build/check-format.log" | cut -d: -f1 | sort -u | sed 's/^/  /'
  status=1
fi
# Translation units only; headers are checked through them (HeaderFilterRegex).
# Translation units this build compiles (without CUDA, the NCCL backend's are not among them).
mapfile -t units < <(printf '%s\n' "${files[@]}" | grep '\.cpp$' | while read -r f; do
  grep -qF "\"file\": \"$root/$f\"" "$build/compile_commands.json" && echo "$f"; done || true)
if [[ $all -eq 1 && ${#units[@]} -eq 0 ]]; then
  echo "check.sh: error: $build/compile_commands.json names none of the sources; delete $build and run again" >&2
  exit 2
fi
if [[ ${#units[@]} -gt 0 ]]; then
  started=$SECONDS
  if ! printf '%s\n' "${units[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet > "$build/check-tidy.log" 2>&1; then
    status=1
  fi
  findings="$(grep -cE '(warning|error): ' "$build/check-tidy.log" || true)"
  echo "check.sh: clang-tidy on ${#units[@]} file(s): $findings finding(s) in $((SECONDS - started)) s"
  if [[ $findings -gt 0 ]]; then
    grep -E -A3 '(warning|error): ' "$build/check-tidy.log" | head -200
    status=1
  fi
fi
[[ $status -eq 0 ]] && echo "check.sh: clean (${#files[@]} file(s))"
exit "$status"
