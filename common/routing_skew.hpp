#pragma once

// The routing skew of a mixture-of-experts layer's token traffic: one number with one meaning
// wherever meshbench uses it. It is the exponent s of a Zipf popularity over an EP group's n
// ranks (rank k, in a seeded random order, receives a share ∝ k^-s): `run --a2av-skew` draws
// all_to_allv's traffic matrix from it, and `plan`, `explore` and the cost model price the busiest
// rank from it. 0 is balanced, as the published training runs force it
// (`--moe-router-force-load-balancing`; docs/explore.md, "Routing skew").

namespace meshbench {

inline constexpr double kDefaultRoutingSkew = 0.0;

// The busiest rank's share over the mean under Zipf(skew) over n ranks: n / Σ_{k=1..n} k^-skew.
// 1 when skew is 0 or n is 1.
double routing_imbalance(int n, double skew);

// InputError in one line unless `skew` (an --a2av-skew) is 0 or more.
void check_routing_skew(double skew);

}  // namespace meshbench
