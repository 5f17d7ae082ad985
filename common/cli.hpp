#pragma once
#include <boost/program_options.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshbench {

namespace po = boost::program_options;

using Args = std::vector<std::string>;

// Parses a subcommand's arguments. Adds --help; on --help prints the usage and every option
// with its default to `out` and returns nullopt. Unknown options and bad values become
// InputError naming the option and pointing at --help. With `keep_separator`, a lone "--" is
// kept among the positional values, where it separates two lists (compare's baselines from its
// new runs), instead of ending the options.
std::optional<po::variables_map> parse_command(std::string_view command, std::string_view summary, const po::options_description& options,
                                               const Args& args, std::ostream& out,
                                               const po::positional_options_description* positional = nullptr, bool keep_separator = false);

// Output formats shared by the subcommands that print results.
enum class OutputFormat { text, json, csv, markdown };
OutputFormat parse_output_format(const std::string& name, std::initializer_list<OutputFormat> allowed);
std::string_view to_string(OutputFormat format);

}  // namespace meshbench
