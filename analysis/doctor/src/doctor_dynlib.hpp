#pragma once
// Private: dlopen of optional vendor libraries (CUDA, NCCL, NVML, libfabric) so meshbench never
// needs them at link time and a node without them still runs doctor.
#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace meshbench::analysis::detail {

class DynLib {
 public:
  // Tries the names in order; the first that loads wins. tried() lists them for SKIP reasons.
  explicit DynLib(std::initializer_list<const char*> names) {
    for (const char* name : names) {
      tried_ += (tried_.empty() ? "" : ", ") + std::string(name);
      // RTLD_NODELETE: a library stays mapped once loaded, as a linked one would. libfabric's
      // providers allocate in their constructors and keep the blocks in their globals; unloaded,
      // those blocks were LeakSanitizer findings that no suppression can name.
      handle_ = dlopen(name, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
      if (handle_ != nullptr) return;
    }
  }
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;
  ~DynLib() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  bool loaded() const { return handle_ != nullptr; }
  const std::string& tried() const { return tried_; }

  template <typename Fn>
  Fn symbol(const char* name) const {
    return handle_ == nullptr ? nullptr : reinterpret_cast<Fn>(dlsym(handle_, name));
  }

  // The file the symbol was loaded from: says which of several installed copies is in use.
  static std::string path_of(const void* symbol) {
    Dl_info info{};
    if (symbol != nullptr && dladdr(symbol, &info) != 0 && info.dli_fname != nullptr) return info.dli_fname;
    return {};
  }

 private:
  void* handle_ = nullptr;
  std::string tried_;
};

}  // namespace meshbench::analysis::detail
