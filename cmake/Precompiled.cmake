# Precompiled headers (MESHBENCH_PCH, on with GCC): the standard library and nlohmann_json, which
# nearly every source includes, and GoogleTest for the test binaries, are parsed once per build
# tree into two precompiled headers that every target reuses, instead of once per unity batch
# (docs/development.md, "CI", has what it saves). Two donor targets build them; every other C++
# target takes one with REUSE_FROM. GCC accepts a precompiled header only where the macros it
# depends on are defined alike, so the headers here are ones no target's own definitions touch
# (Boost.Program_options, whose headers read the Boost target's definitions, stays out), and the
# test header is built with GoogleTest's definitions, which every test binary shares.
# clang-tidy's tree turns it off (scripts/check.sh): clang cannot read GCC's precompiled headers.
set(_mb_pch_default OFF)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(_mb_pch_default ON)
endif()
option(MESHBENCH_PCH "Precompile the standard library, nlohmann_json and GoogleTest headers (GCC)" ${_mb_pch_default})

set(MESHBENCH_PCH_HEADERS
  <algorithm> <array> <chrono> <cmath> <cstdint> <cstdio> <cstdlib> <filesystem> <fstream>
  <functional> <iostream> <map> <memory> <optional> <set> <sstream> <string> <string_view>
  <utility> <vector> <nlohmann/json.hpp>)

# The donors: called once the dependencies are found (GoogleTest only where tests are built).
function(meshbench_add_pch_donors)
  if(NOT MESHBENCH_PCH)
    return()
  endif()
  add_library(meshbench_pch_lib OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch_donor.cpp)
  # The warning flags too: -Wpedantic changes the predefined macros (__cpp_runtime_arrays).
  target_link_libraries(meshbench_pch_lib PRIVATE nlohmann_json::nlohmann_json meshbench_warnings)
  target_precompile_headers(meshbench_pch_lib PRIVATE ${MESHBENCH_PCH_HEADERS})
  if(TARGET GTest::gtest)
    add_library(meshbench_pch_test OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch_donor.cpp)
    target_link_libraries(meshbench_pch_test PRIVATE nlohmann_json::nlohmann_json GTest::gtest meshbench_warnings meshbench_test_code)
    target_precompile_headers(meshbench_pch_test PRIVATE ${MESHBENCH_PCH_HEADERS} <gtest/gtest.h>)
  endif()
endfunction()

# Every C++ library and executable under DIR (recursively) reuses a donor's header: the test
# donor's where the target is test code (meshbench_test_code, so the same -Og: GCC 12 crashed
# in its IPA passes on a -O2 file given the -Og header), the library donor's otherwise.
function(meshbench_use_pch dir)
  if(NOT MESHBENCH_PCH)
    return()
  endif()
  get_property(_targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(_t ${_targets})
    get_target_property(_type ${_t} TYPE)
    if(NOT _type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|EXECUTABLE)$" OR _t MATCHES "^meshbench_pch_")
      continue()
    endif()
    get_target_property(_sources ${_t} SOURCES)
    list(FILTER _sources INCLUDE REGEX "\\.cpp$")
    if(NOT _sources)
      continue()
    endif()
    get_target_property(_links ${_t} LINK_LIBRARIES)
    if(_links MATCHES "meshbench_test_code" AND TARGET meshbench_pch_test)
      target_precompile_headers(${_t} REUSE_FROM meshbench_pch_test)
    else()
      target_precompile_headers(${_t} REUSE_FROM meshbench_pch_lib)
    endif()
  endforeach()
  get_property(_subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(_sub ${_subdirs})
    meshbench_use_pch(${_sub})
  endforeach()
endfunction()
