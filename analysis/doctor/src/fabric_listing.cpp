#include <cstdlib>
#include <set>
#include <tuple>

#include "analysis/doctor/fabric.hpp"

#ifdef MESHBENCH_HAVE_LIBFABRIC
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "analysis/doctor/src/doctor_dynlib.hpp"
#endif

namespace meshbench::analysis {

#ifdef MESHBENCH_HAVE_LIBFABRIC
namespace {

std::string ep_type_name(fi_ep_type type) {
  switch (type) {
    case FI_EP_RDM: return "FI_EP_RDM";
    case FI_EP_DGRAM: return "FI_EP_DGRAM";
    case FI_EP_MSG: return "FI_EP_MSG";
    case FI_EP_UNSPEC: return "FI_EP_UNSPEC";
    default: return "FI_EP_" + std::to_string(static_cast<int>(type));
  }
}

std::string or_empty(const char* s) { return s == nullptr ? std::string() : std::string(s); }

}  // namespace

// libfabric is loaded when the doctor asks (DynLib), not linked: loading it runs its providers'
// constructors, and Debian's PSM provider (libinfinipath) sleeps about 0.2 s in its own, which
// every meshbench command and every test process paid at start when it was linked. Its
// functions are the default versions of its symbols, the ones these headers declare.
FabricListing read_fabric() {
  FabricListing found;
  found.listed = true;
  found.fi_provider_env = or_empty(std::getenv("FI_PROVIDER"));
  const detail::DynLib lib({"libfabric.so.1", "libfabric.so"});
  const auto getinfo = lib.symbol<decltype(&fi_getinfo)>("fi_getinfo");
  const auto freeinfo = lib.symbol<decltype(&fi_freeinfo)>("fi_freeinfo");
  const auto error_text = lib.symbol<decltype(&fi_strerror)>("fi_strerror");
  if (getinfo == nullptr || freeinfo == nullptr || error_text == nullptr) {
    found.listed = false;
    found.note = "libfabric could not be loaded (tried " + lib.tried() + ")";
    return found;
  }
  fi_info* info = nullptr;
  // No hints: every provider and endpoint type, as `fi_info` with no options lists them.
  const int rc = getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0, nullptr, &info);
  if (rc != 0) {
    found.note = "fi_getinfo returned " + std::to_string(rc) + " (" + error_text(-rc) + ")";
    return found;
  }
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  for (const fi_info* i = info; i != nullptr; i = i->next) {
    FabricEntry e;
    if (i->fabric_attr != nullptr) {
      e.provider = or_empty(i->fabric_attr->prov_name);
      e.fabric = or_empty(i->fabric_attr->name);
    }
    if (i->domain_attr != nullptr) e.domain = or_empty(i->domain_attr->name);
    if (i->ep_attr != nullptr) e.ep_type = ep_type_name(i->ep_attr->type);
    // One entry per capability set and address format; the tuple is what the check needs.
    if (seen.emplace(e.provider, e.fabric, e.domain, e.ep_type).second) found.entries.push_back(std::move(e));
  }
  freeinfo(info);
  return found;
}
#else
FabricListing read_fabric() {
  FabricListing found;
  const char* p = std::getenv("FI_PROVIDER");
  found.fi_provider_env = p == nullptr ? "" : p;
  found.note = "meshbench was built without libfabric (pkg-config libfabric not found)";
  return found;
}
#endif

}  // namespace meshbench::analysis
