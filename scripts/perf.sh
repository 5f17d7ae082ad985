#!/usr/bin/env bash
# Scale benchmarks: print figures (time, memory). Not tests: the targets they check are met
# here, in numbers you can read, not in timed unit tests.
#   scripts/perf.sh            (after scripts/test.sh or a build into build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MESHBENCH_BUILD_DIR:-$root/build}"
cmake --build "$build" -j "$(nproc)" --target meshbench perf_topology_scale perf_mapping_scale perf_explore_scale perf_nic_counters >/dev/null
echo "== topology: 1024 and 8192 p5 nodes (65,536 GPUs)"
"$build/perf/perf_topology_scale"
echo
echo "== mapping: 8192 p5 nodes, TP8 PP8 EP8: generate, deduplicate, score"
"$build/perf/perf_mapping_scale"
echo
echo "== explore: DeepSeek-V3 on 256 p5 nodes (2,048 GPUs), every layout"
"$build/perf/perf_explore_scale"
echo
echo "== NIC counters: one reading of this host's and of a canned EFA tree"
"$build/perf/perf_nic_counters"
