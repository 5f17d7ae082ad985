#!/usr/bin/env bash
# Runs shellcheck over the scripts `meshbench slurm` writes (each platform, bench, train and gate, with and
# without container, doctor, io step and hostfile) and over slurm/localcluster/ and these tests' own
# scripts. Skips (77) without shellcheck.
#   slurm_shellcheck_test.sh MESHBENCH
set -euo pipefail
meshbench="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
command -v shellcheck >/dev/null || { echo "SKIP: shellcheck is not installed"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

printf 'n0\nn0\nn1\nn1\n' >"$work/hostfile"
n=0
for platform in hyperpod parallelcluster generic; do
  for extra in "" "--doctor --doctor-args=--format=json --io /fsx/ckpt --container-image img:1 --container-mounts /fsx:/fsx --hostfile $work/hostfile"; do
    # shellcheck disable=SC2086  # $extra is a list of options on purpose
    "$meshbench" slurm --platform "$platform" -o "$work/bench-$n.sbatch" --run-args "--tp 2" --output-dir /fsx/x $extra >/dev/null
    # shellcheck disable=SC2086
    "$meshbench" slurm --platform "$platform" --job train -o "$work/train-$n.sbatch" --command "python train.py" \
      --output-dir /fsx/x ${extra//--doctor --doctor-args=--format=json --io \/fsx\/ckpt/} >/dev/null
    # shellcheck disable=SC2016,SC2086  # $LD_LIBRARY_PATH expands in the job, not here
    "$meshbench" slurm --platform "$platform" --job gate -o "$work/gate-$n.sbatch" --run-args "--tp 2 --rounds 3" \
      --output-dir /fsx/x --history /fsx/gate/history --new-env 'LD_LIBRARY_PATH=/opt/nccl-new/lib:$LD_LIBRARY_PATH' \
      ${extra//--io \/fsx\/ckpt/} >/dev/null
    n=$((n + 1))
  done
done
shellcheck "$work"/*.sbatch
echo "ok: $(find "$work" -name "*.sbatch" | wc -l) generated job scripts"
cd "$root"
shellcheck -x slurm/localcluster/*.sh tests/integration/cluster_*.sh tests/integration/slurm_*.sh
echo "ok: slurm/localcluster and the cluster tests' scripts"
