# Every dependency through CMake's own find modules, a package config, or pkg-config.
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(Boost REQUIRED COMPONENTS program_options)
find_package(pugixml REQUIRED)
find_package(nlohmann_json REQUIRED)
# yaml-cpp reads YAML workload files. Its package config names the imported target yaml-cpp
# (0.7, Debian 12) or yaml-cpp::yaml-cpp (0.8 on); MESHBENCH_YAML_CPP is whichever exists.
find_package(yaml-cpp REQUIRED)
if(TARGET yaml-cpp::yaml-cpp)
  set(MESHBENCH_YAML_CPP yaml-cpp::yaml-cpp)
else()
  set(MESHBENCH_YAML_CPP yaml-cpp)
endif()
find_package(Threads REQUIRED)
if(MESHBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

set(MESHBENCH_BACKENDS "mpi")
set(MESHBENCH_NCCL_FOUND FALSE)
set(MESHBENCH_NCCL_VERSION "")
if(MESHBENCH_WITH_NCCL)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    # NCCL ships no CMake package; look next to the CUDA toolkit first (this is where
    # the CUDA installs of this project's machines put it), then the usual prefixes.
    find_path(NCCL_INCLUDE_DIR nccl.h
      HINTS ENV NCCL_HOME ${NCCL_ROOT} ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}
      PATH_SUFFIXES include)
    find_library(NCCL_LIBRARY nccl
      HINTS ENV NCCL_HOME ${NCCL_ROOT} ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}
      PATH_SUFFIXES lib lib64)
    if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
      file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_major REGEX "^#define NCCL_MAJOR")
      file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_minor REGEX "^#define NCCL_MINOR")
      file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_patch REGEX "^#define NCCL_PATCH")
      string(REGEX MATCH "[0-9]+" _nccl_major "${_nccl_major}")
      string(REGEX MATCH "[0-9]+" _nccl_minor "${_nccl_minor}")
      string(REGEX MATCH "[0-9]+" _nccl_patch "${_nccl_patch}")
      set(MESHBENCH_NCCL_VERSION "${_nccl_major}.${_nccl_minor}.${_nccl_patch}")
      add_library(meshbench::nccl UNKNOWN IMPORTED)
      set_target_properties(meshbench::nccl PROPERTIES
        IMPORTED_LOCATION "${NCCL_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
      set(MESHBENCH_NCCL_FOUND TRUE)
      set(MESHBENCH_BACKENDS "mpi nccl")
    endif()
  endif()
endif()

# The host<->GPU copies (run --host-copies) need only the CUDA runtime, found with or without NCCL.
set(MESHBENCH_CUDA_FOUND FALSE)
if(MESHBENCH_WITH_NCCL AND CUDAToolkit_FOUND)
  set(MESHBENCH_CUDA_FOUND TRUE)
endif()

# libfabric is optional: with it, `doctor` asks fi_getinfo which providers exist (efa with an
# RDM endpoint or a tcp/sockets fallback); without it that check says SKIP and why.
pkg_check_modules(LIBFABRIC QUIET IMPORTED_TARGET libfabric)
