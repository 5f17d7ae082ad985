#!/usr/bin/env bash
# Reruns tests N times and prints how often each passed: the tests that time something (CTest
# label `timing`), or those a ctest -R regex selects. Exits 1 if any test failed at least once.
#   scripts/flake.sh [N [REGEX]]      (default N 10; after scripts/test.sh or a build into build/)
# Each round is one ctest invocation (fixtures such as the report runs' setup are rerun with the
# tests that need them). Round K's output (ctest --output-on-failure --verbose: every test's own
# lines, for the figures they print) is kept in BUILD/flake/round-K.log.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MESHBENCH_BUILD_DIR:-$root/build}"
n="${1:-10}"
regex="${2:-}"
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "flake.sh: error: N must be a positive count (got '$n'); usage: scripts/flake.sh [N [REGEX]]" >&2; exit 2; }
[[ -f $build/CTestTestfile.cmake ]] ||
  { echo "flake.sh: error: no test build in $build; run scripts/test.sh first (or set MESHBENCH_BUILD_DIR)" >&2; exit 2; }
select=(-L '^timing$')
what="tests labelled timing"
if [[ -n $regex ]]; then select=(-R "$regex"); what="tests matching '$regex'"; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$build"
mapfile -t names < <(ctest -N "${select[@]}" | sed -nE 's/^ *Test +#[0-9]+: (.*)$/\1/p')
[[ ${#names[@]} -gt 0 ]] || { echo "flake.sh: error: no $what in $build" >&2; exit 2; }
echo "flake.sh: ${#names[@]} $what, $n round(s), in $build"
rm -rf flake
mkdir -p flake
declare -A passed=() failed=() skipped=()
started=$SECONDS
for ((k = 1; k <= n; k++)); do
  log="flake/round-$k.log"
  t=$SECONDS
  ctest --verbose --output-on-failure --timeout 900 "${select[@]}" >"$log" 2>&1 || true
  # "  3/12 Test  #7: name ......   Passed   12.3 sec" (or ***Failed, ***Timeout, ***Skipped, Not Run)
  round_failed=()
  while read -r name verdict; do
    # Fixture setups (the report runs) are not selected but run with the tests that need them.
    [[ " ${names[*]} " == *" $name "* ]] || names+=("$name")
    case "$verdict" in
      Passed) passed[$name]=$((${passed[$name]:-0} + 1)) ;;
      *Skipped* | *Not*) skipped[$name]=$((${skipped[$name]:-0} + 1)) ;;
      *)
        failed[$name]=$((${failed[$name]:-0} + 1))
        round_failed+=("$name")
        ;;
    esac
  done < <(sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.*[ ]*(\*\*\*[A-Za-z]+|Passed|Not Run)( .*)?$/\1 \2/p' "$log")
  # Said each round, so that a run stopped part way still tells which round failed what.
  echo "flake.sh: round $k/$n done in $((SECONDS - t)) s: ${#round_failed[@]} failed${round_failed:+ (${round_failed[*]}, see $build/$log)}"
done
status=0
printf '%-45s %8s %8s %8s\n' test passed failed skipped
for name in "${names[@]}"; do
  printf '%-45s %5d/%-2d %8d %8d\n' "$name" "${passed[$name]:-0}" "$n" "${failed[$name]:-0}" "${skipped[$name]:-0}"
  [[ -z ${failed[$name]:-} ]] || status=1
done
echo "flake.sh: $n round(s) in $((SECONDS - started)) s; $([[ $status == 0 ]] && echo "no test failed" || echo "FLAKY: see $build/flake/round-*.log")"
exit "$status"
