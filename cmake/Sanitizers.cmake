# MESHBENCH_SANITIZE: build every target (libraries, the binary, tests, benchmarks) with the
# compiler's sanitizers. Two combinations are supported, the ones scripts/test.sh runs:
#   address,undefined   AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer
#   thread              ThreadSanitizer (cannot be combined with address)
# Run-time options and suppressions live in tests/sanitizers/ (see docs/development.md).
set(MESHBENCH_SANITIZE "" CACHE STRING "Sanitizers: empty, 'address,undefined' or 'thread'")

if(MESHBENCH_SANITIZE)
  string(REPLACE " " "" _mb_sanitize "${MESHBENCH_SANITIZE}")
  string(REPLACE "," ";" _mb_sanitize_list "${_mb_sanitize}")
  foreach(_s ${_mb_sanitize_list})
    if(NOT _s MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "MESHBENCH_SANITIZE: unknown sanitizer '${_s}'; use 'address,undefined' or 'thread'")
    endif()
  endforeach()
  if("thread" IN_LIST _mb_sanitize_list AND "address" IN_LIST _mb_sanitize_list)
    message(FATAL_ERROR "MESHBENCH_SANITIZE: 'thread' and 'address' cannot be combined; build them in two build trees")
  endif()
  set(_mb_sanitize_flags -fsanitize=${_mb_sanitize} -fno-omit-frame-pointer)
  if("undefined" IN_LIST _mb_sanitize_list)
    # A finding ends the program (non-zero status) instead of printing and carrying on, so a
    # test cannot pass over one.
    list(APPEND _mb_sanitize_flags -fno-sanitize-recover=undefined)
  endif()
  # -Og -g1 instead of RelWithDebInfo's -O2 -g: the sanitizer build is CI's longest step, and
  # full debug information for every template of every test is most of its compile and link
  # time. -Og is -O1 less the passes GCC's manual lists as getting in a debugger's way (dead
  # store elimination, SRA, if-conversion, inlining of functions called once, ...): the
  # sanitizers instrument the same loads, stores and operations, and a finding's stack is the
  # source's. Their documentation advises -O1 for the speed of the instrumented program, which
  # the unit tests barely feel; -Og compiles a unity batch in about two thirds of -O1's time
  # (docs/development.md, "CI"). -g1 keeps the line tables, so a finding's stack still names
  # file and line (the unwinder itself reads .eh_frame, not debug information).
  if(CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
    set(CMAKE_C_FLAGS_RELWITHDEBINFO "-Og -g1 -DNDEBUG")
    set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-Og -g1 -DNDEBUG")
  endif()
  add_compile_options(${_mb_sanitize_flags})
  add_link_options(-fsanitize=${_mb_sanitize})
  message(STATUS "meshbench: sanitizers ${_mb_sanitize}")
endif()
