// hwloc XML (lstopo --of xml): told from NCCL XML by pugixml, loaded by the hwloc library, then
// read by meshbench's hwloc walker.
#include <dlfcn.h>

#include "tests/fuzz/entries.hpp"
#include "tests/fuzz/topology_file.hpp"

namespace meshbench::fuzz {

namespace {

// hwloc opens its libxml2 plugin for each topology and closes it after, so LeakSanitizer could
// not name the library of a leak inside it. Held open, such a leak names libxml2 or the plugin
// and tests/fuzz/lsan.supp can tell it from one of meshbench's. Where the plugin is elsewhere
// or absent, hwloc uses its own parser and nothing changes.
const bool kPluginHeld = [] { return dlopen("/usr/lib/x86_64-linux-gnu/hwloc/hwloc_xml_libxml.so", RTLD_NOW | RTLD_GLOBAL) != nullptr; }();

}  // namespace

void hwloc_xml(std::string_view input) {
  (void)kPluginHeld;
  load_topology_input(input, "lstopo.xml");
}

}  // namespace meshbench::fuzz
