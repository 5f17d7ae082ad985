#pragma once
// The individual checks of `meshbench doctor`, each a pure function of gathered facts so that
// every rule is unit-tested on canned facts (identical and differing ranks, node types, ...).
#include <vector>

#include "analysis/doctor/clock_offset.hpp"
#include "analysis/doctor/doctor_check.hpp"
#include "analysis/doctor/doctor_env.hpp"
#include "analysis/doctor/doctor_facts.hpp"

namespace meshbench::analysis {

// env.template: the template's variables on every rank. Unset: WARN (FAIL with strict). A
// different value: FAIL with a template given by file or with strict, WARN with the built-in one
// (the built-in values are a suggestion, and partly legacy: docs/doctor.md, "Environment template").
Check check_env_template(const std::vector<RankFacts>& ranks, const EnvTemplate& tmpl, bool strict);
// env.identical: behaviour variables (is_behaviour_variable) equal on every rank; FAIL names the
// variable and which ranks/hosts have which value.
Check check_env_identical(const std::vector<RankFacts>& ranks);
// env.legacy: legacy_env_findings over every rank, given the versions found; WARN, or FAIL for a
// known-failing combination. Findings on a variable the template sets to that value are noted
// in details but do not count: the template check is where the team's choice is judged.
Check check_env_legacy(const std::vector<RankFacts>& ranks, const std::vector<NodeFacts>& nodes, const EnvTemplate& tmpl);

// versions.<component>: one check per component. Different across ranks/nodes: FAIL; absent
// everywhere: SKIP with the reader's reason; libfabric below 1.17: FAIL where a node has EFA,
// WARN otherwise; below the minimums of the node type (p5: CUDA 12.0, NCCL 2.18.5,
// aws-ofi-nccl 1.7.3, EFA installer 1.29.0): FAIL.
std::vector<Check> check_versions(const std::vector<RankFacts>& ranks, const std::vector<NodeFacts>& nodes,
                                  const std::vector<std::string>& node_types);

// The node type each node is checked against ("" where unknown), from the --node-type option.
std::vector<std::string> resolve_node_types(const std::vector<NodeFacts>& nodes, const std::string& option);

// fabric.provider: evaluate_fabric on every node; the worst node decides.
Check check_fabric(const std::vector<NodeFacts>& nodes, const std::vector<std::string>& node_types);
// devices.gpus / devices.efa: counts equal across nodes and as the node type says.
Check check_gpu_count(const std::vector<NodeFacts>& nodes, const std::vector<std::string>& node_types);
Check check_efa_count(const std::vector<NodeFacts>& nodes, const std::vector<std::string>& node_types);
// devices.mtu: ENA interfaces at 9001 where the node has EFA; the same MTU per interface name
// across nodes.
Check check_mtu(const std::vector<NodeFacts>& nodes);

// clock.offset: |offset| above the threshold FAILs; offsets printed per node.
Check check_clock(const ClockMeasurement& clock, double threshold_ms);

// gpu.health: uncorrected ECC errors or GPUs missing from NVML (fallen off the bus) FAIL;
// temperature from kGpuWarnTemperatureC WARN, from kGpuFailTemperatureC FAIL; SKIP where neither
// NVML nor nvidia-smi exists.
Check check_gpu_health(const std::vector<NodeFacts>& nodes);

}  // namespace meshbench::analysis
