"""How a cost model orders the mappings of one run, judged where the measurement can tell them
apart (tests/perf/calibration_accuracy.sh). A mapping's measured cost per round: with a workload
its step time (Σ calls × the round's median of each op), without one the sum of the round's
medians over the points measured for every mapping, the same two sums `report` compares. Its
noise: the range over its rounds. Two mappings are apart when their mean costs differ by more
than their noises together; the model orders such a pair right or wrong, or prices it alike
(within 1%).

  mapping_order.py RUN.h5 REPORT.json PREDICTOR      prints "apart P: right R, wrong W, alike A"
"""
import json
import sys
from collections import defaultdict

import h5py


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def per_round_costs(h5_path, report):
    ranking = report["ranking"]
    rounds = defaultdict(dict)
    with h5py.File(h5_path) as f:
        for r in f["/round_medians"][()]:
            if text(r["timing"]) == ranking["timing"] and text(r["concurrency"]) == ranking["concurrency"]:
                rounds[(text(r["mapping"]), text(r["dim"]), text(r["op"]), int(r["bytes"]))][int(r["round"])] = float(r["t_median_us"])
    costs = {}
    names = [m["name"] for m in ranking["mappings"]]
    if ranking["basis"] == "workload":
        for m in ranking["mappings"]:
            per_round = defaultdict(float)
            for op in m["ops"]:
                for k, t in rounds[(m["name"], op["source_dim"], op["op"], int(op["bytes"]))].items():
                    per_round[k] += op["calls_per_step"] * t
            costs[m["name"]] = list(per_round.values())
    else:
        points = None
        for name in names:
            mine = {key[1:] for key in rounds if key[0] == name}
            points = mine if points is None else points & mine
        for name in names:
            per_round = defaultdict(float)
            for p in points:
                for k, t in rounds[(name,) + p].items():
                    per_round[k] += t
            costs[name] = list(per_round.values())
    return costs


def main():
    h5_path, report_path, predictor = sys.argv[1:4]
    report = json.load(open(report_path))
    costs = per_round_costs(h5_path, report)
    predicted = {t["mapping"]: t["predicted_us"] for p in report["prediction_accuracy"]["predictors"] if p["name"] == predictor
                 for t in p["totals"] if t["dim"] == "step"}
    names = sorted(n for n in costs if n in predicted and costs[n])
    right = wrong = alike = 0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ma, mb = sum(costs[a]) / len(costs[a]), sum(costs[b]) / len(costs[b])
            noise = (max(costs[a]) - min(costs[a])) + (max(costs[b]) - min(costs[b]))
            if abs(ma - mb) <= noise:
                continue
            if abs(predicted[a] - predicted[b]) <= 0.01 * max(predicted[a], predicted[b]):
                alike += 1
            elif (ma < mb) == (predicted[a] < predicted[b]):
                right += 1
            else:
                wrong += 1
    print(f"apart {right + wrong + alike} of {len(names) * (len(names) - 1) // 2}: right {right}, wrong {wrong}, alike {alike}")


if __name__ == "__main__":
    main()
