#pragma once
#include <string>

#include "mapping/plan.hpp"

namespace meshbench::mapping {

// The dimensions worth showing: groups of more than one rank (dp counts dp·cp, where DP traffic
// runs) and, for ETP and EDP, a time in some mapping (with EP = 1 and no MoE workload they only
// repeat TP and DP).
std::vector<Dim> active_dims(const Plan& plan);

// "1.2 ms", "850 us", "3.40 s".
std::string format_time_us(double us);

// One sentence on why the best mapping wins over the runner-up, e.g. "order:tp-cp-ep-dp-pp
// keeps tp, ep inside a node and sends only pp across nodes (1 flow per NIC); the runner-up
// order:pp-ep-tp sends tp, ep across nodes, 1.6x slower, mostly in tp (2.1 ms vs 0.4 ms)."
std::string why_best(const Plan& plan);

// The readable ranking `plan` prints: header, one row per mapping (name, order, dimensions
// inside a node / across nodes with flows per NIC, time per dimension and in total), the
// sentence, and whether TP stays inside a node.
std::string plan_text(const Plan& plan, int top);

}  // namespace meshbench::mapping
