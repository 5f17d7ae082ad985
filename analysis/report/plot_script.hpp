#pragma once
// Running an embedded matplotlib script (`report --plot`, `history --plot`): the interpreter,
// a private scratch folder, the one-line errors, and the PNGs moved into place only when the
// script succeeded.
#include <string>
#include <vector>

namespace meshbench::analysis {

// The interpreter: $MESHBENCH_PYTHON when set, else Debian's /usr/bin/python3.
std::string plot_python();

// One file of a plotting script: its name (a Python module name plus ".py") and its text.
struct PlotScriptFile {
  const char* name;
  const char* text;
};

// Writes `files` into a private folder, runs the first as `python FIRST INPUT.json OUTDIR` (INPUT.json holding `input_json`) (the
// others are modules it may import), then moves every file it printed, one per line, into `dir`
// (created). Returns their paths there. InputError in one line when the folder cannot be
// created or written, python3 or matplotlib is missing (the script exits 3), or the script
// fails; then nothing is left in `dir`, and a folder this call created is removed.
std::vector<std::string> run_plot_script(const std::vector<PlotScriptFile>& files, const std::string& input_json, const std::string& dir);

}  // namespace meshbench::analysis
