#pragma once
#include "common/cli.hpp"

namespace meshbench::mapping {
// meshbench explore
int explore_command(const Args& args);
// meshbench groups
int groups_command(const Args& args);
// meshbench plan
int plan_command(const Args& args);
// meshbench predict
int predict_command(const Args& args);
// meshbench workload
int workload_command(const Args& args);
}
