#include "common/cli.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "common/error.hpp"

namespace meshbench {

std::optional<po::variables_map> parse_command(std::string_view command, std::string_view summary, const po::options_description& options,
                                               const Args& args, std::ostream& out, const po::positional_options_description* positional,
                                               bool keep_separator) {
  po::options_description all;
  all.add(options);
  // clang-format off
  all.add_options()("help,h", "print this help and exit");
  // clang-format on
  po::variables_map vm;
  try {
    po::command_line_parser parser(args);
    parser.options(all);
    if (positional != nullptr) parser.positional(*positional);
    if (keep_separator && positional != nullptr) {
      // Runs before the parser's own styles, which would take "--" as the end of the options.
      parser.extra_style_parser([name = positional->name_for_position(0)](std::vector<std::string>& rest) {
        std::vector<po::option> kept;
        if (!rest.empty() && rest.front() == "--") {
          kept.emplace_back(name, std::vector<std::string>{"--"});
          rest.erase(rest.begin());
        }
        return kept;
      });
    }
    po::store(parser.run(), vm);
    if (vm.count("help") != 0U) {
      out << "usage: meshbench " << command << " [options]\n" << summary << "\n\n" << all << "\n";
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + "; see 'meshbench " + std::string(command) + " --help'");
  }
  return vm;
}

std::string_view to_string(OutputFormat format) {
  switch (format) {
    case OutputFormat::text: return "text";
    case OutputFormat::json: return "json";
    case OutputFormat::csv: return "csv";
    case OutputFormat::markdown: return "markdown";
  }
  return "text";
}

OutputFormat parse_output_format(const std::string& name, std::initializer_list<OutputFormat> allowed) {
  std::ostringstream names;
  for (OutputFormat f : allowed) {
    if (to_string(f) == name) return f;
    names << (names.tellp() > 0 ? "|" : "") << to_string(f);
  }
  throw InputError("unknown format '" + name + "'; use --format " + names.str());
}

}  // namespace meshbench
