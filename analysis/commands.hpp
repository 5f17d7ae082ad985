#pragma once
#include "common/cli.hpp"

namespace meshbench::analysis {
// meshbench report
int report_command(const Args& args);
// meshbench compare
int compare_command(const Args& args);
// meshbench doctor
int doctor_command(const Args& args);
// meshbench logs
int logs_command(const Args& args);
}
