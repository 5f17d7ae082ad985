#!/usr/bin/env bash
# The guard rails before a commit: clang-format (.clang-format) and clang-tidy (.clang-tidy) on
# the C++ sources. Installs clang-format (14, the style's) and clang-tidy 22 when missing: 22 skips
# the system headers' declarations that 14 matched in every batch, and runs the same named checks
# (.clang-tidy) in under half the time (docs/development.md, "Guard rails"). clang-tidy reads the compile
# database of build-tidy/ (or $MESHBENCH_TIDY_DIR), a unity tree that is configured, never built:
# it checks the batch files that hold the sources, one batch a target, so the standard library,
# GoogleTest and nlohmann_json are parsed and matched once a target instead of once a file
# (docs/development.md, "Guard rails"). A changed file is checked with its target's batch.
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
MESHBENCH_PACKAGES+=("${MESHBENCH_CHECK_PACKAGES[@]}")
meshbench_install_deps || exit 2
build="${MESHBENCH_TIDY_DIR:-$root/build-tidy}"
# Configured on every call (a second or two): the database follows new files and flags. A
# target's sources are one batch (CMAKE_UNITY_BUILD_BATCH_SIZE=0), as build/ compiles them: two
# files of one target that define one file-local name are an error (clang-diagnostic-error). No
# precompiled headers: clang cannot read GCC's.
mkdir -p "$build"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${MESHBENCH_CMAKE_ARGS:-} -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 -DMESHBENCH_PCH=OFF > "$build/check-configure.log" 2>&1 ||
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
# The batches that hold the changed (or all) source files; headers are checked through them. A
# file in no batch is not compiled by this build (without CUDA, the NCCL backend's).
mapfile -t batch_files < <(grep -oE '"file": "[^"]*/Unity/unity_[0-9]+_cxx\.cxx"' "$build/compile_commands.json" |
  sed -E 's/^"file": "(.*)"$/\1/' | sort -u)
mapfile -t batches < <(printf '%s\n' "${files[@]}" | grep '\.cpp$' | sed "s|^|$root/|" |
  awk 'NR == FNR { wanted["#include \"" $0 "\""] = 1; next } ($0 in wanted) { print FILENAME }' - "${batch_files[@]}" |
  sort -u || true)
if [[ $all -eq 1 && ${#batches[@]} -eq 0 ]]; then
  echo "check.sh: error: no unity batch in $build holds the sources; delete $build and run again" >&2
  exit 2
fi
# bugprone-suspicious-include is off for the batches, which include source files by design; the
# same rule for our own files: none includes an implementation file.
if grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<][^">]*\.(c|cc|cpp|cxx)[">]' "${files[@]}" > "$build/check-include.log"; then
  echo "check.sh: these lines include an implementation file (bugprone-suspicious-include):"
  sed 's/^/  /' "$build/check-include.log"
  status=1
fi
if [[ ${#batches[@]} -gt 0 ]]; then
  started=$SECONDS
  # The sources a batch includes are headers to clang-tidy: the filter shows their findings as
  # HeaderFilterRegex shows the headers'. The configuration is the repository's wherever the tree
  # is; GCC's own warning flags (-Wno-subobject-linkage) are unknown to clang, not an error.
  # clang 22 flags libstdc++ 12's own use of the deprecated get_temporary_buffer inside every
  # std::stable_sort; GCC's -Wdeprecated-declarations (an error in CI) still covers our code.
  # shellcheck disable=SC2016 # a sed expression: the $ is a character to escape
  root_re="$(printf '%s' "$root" | sed 's/[][\.*^$()+?{}|]/\\&/g')"
  filter="^.*/(common|topology|mapping|bench|results|analysis|slurm|app)/.*\.hpp\$|^$root_re/(common|topology|mapping|bench|results|analysis|slurm|testbed|app|tests)/.*\.cpp\$"
  tidy_failed=0
  printf '%s\n' "${batches[@]}" | xargs -P "$(nproc)" -n 1 "$MESHBENCH_CLANG_TIDY" -p "$build" --quiet --config-file="$root/.clang-tidy" \
    --header-filter="$filter" --checks=-bugprone-suspicious-include --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-deprecated-declarations \
    > "$build/check-tidy.log" 2>&1 ||
    tidy_failed=1
  findings="$(grep -cE '(warning|error): ' "$build/check-tidy.log" || true)"
  sources="$(cat "${batches[@]}" | grep -c '^#include' || true)"
  echo "check.sh: clang-tidy on ${#batches[@]} batch(es) of $sources file(s): $findings finding(s) in $((SECONDS - started)) s"
  if [[ $findings -gt 0 ]]; then
    grep -E -A3 '(warning|error): ' "$build/check-tidy.log" | head -200
    status=1
  elif [[ $tidy_failed -ne 0 ]]; then
    echo "check.sh: clang-tidy failed without a finding:" >&2
    tail -n 20 "$build/check-tidy.log" >&2
    status=1
  fi
fi
[[ $status -eq 0 ]] && echo "check.sh: clean (${#files[@]} file(s))"
exit "$status"
