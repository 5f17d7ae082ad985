# MESHBENCH_FUZZ=ON (clang only; scripts/fuzz.sh configures it in build-fuzz/): every project
# library is compiled with libFuzzer's coverage and AddressSanitizer + UndefinedBehaviorSanitizer,
# and tests/fuzz/ adds one libFuzzer executable per parser (fuzz_<target>). The normal build is
# untouched; its test_fuzz_regressions replays the saved inputs without clang.
option(MESHBENCH_FUZZ "Build the libFuzzer targets of tests/fuzz/ (needs clang)" OFF)
if(MESHBENCH_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "MESHBENCH_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14, or run scripts/fuzz.sh")
  endif()
  # UBSan findings abort instead of printing and going on, so libFuzzer saves the input.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=address,undefined)
endif()
