#pragma once
#include "common/cli.hpp"

namespace meshbench::analysis {
// meshbench import nccl-tests|osu LOG... --out FILE.h5, or megatron-log LOG
int import_command(const Args& args);
// meshbench import megatron-log LOG: a training log's step time, layout and memory, as explore --measured reads it
int import_megatron_log(const Args& args);
}
