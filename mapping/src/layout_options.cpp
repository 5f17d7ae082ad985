#include "layout_options.hpp"

namespace meshbench::mapping::detail {

void add_layout_options(po::options_description& options, Layout& l) {
  // clang-format off
  options.add_options()
      ("tp", po::value<int>(&l.tp)->default_value(1)->value_name("T"), "tensor-parallel size")
      ("cp", po::value<int>(&l.cp)->default_value(1)->value_name("C"), "context-parallel size")
      ("pp", po::value<int>(&l.pp)->default_value(1)->value_name("P"), "pipeline-parallel size")
      ("ep", po::value<int>(&l.ep)->default_value(1)->value_name("E"), "expert-parallel size")
      ("etp", po::value<int>(&l.etp)->default_value(0, "same as --tp")->value_name("X"), "expert tensor-parallel size")
      ("order", po::value<std::string>(&l.order)->default_value(kDefaultOrder)->value_name("O"),
       "Megatron-Core's order string: tp, cp, ep, dp, pp joined by '-', the first varying fastest");
  // clang-format on
}

void apply_file_layout(const po::variables_map& vm, const FileLayout& file, Layout& l) {
  auto take = [&vm](const char* option, const std::optional<int>& from_file, int& size) {
    if (from_file && (vm.count(option) == 0 || vm[option].defaulted())) size = *from_file;
  };
  take("tp", file.tp, l.tp);
  take("cp", file.cp, l.cp);
  take("pp", file.pp, l.pp);
  take("ep", file.ep, l.ep);
  take("etp", file.etp, l.etp);
  if (file.order && (vm.count("order") == 0 || vm["order"].defaulted())) l.order = *file.order;
}

}  // namespace meshbench::mapping::detail
