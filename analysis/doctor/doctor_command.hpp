#pragma once
#include "common/cli.hpp"

namespace meshbench::analysis {
// meshbench doctor
int doctor_command(const Args& args);
}
