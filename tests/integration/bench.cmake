# meshbench run under mpirun on this machine.
foreach(_case runs_mappings pandas_reads_measurements corrupt_result_is_detected sigkill_then_resume sigstop_then_resume rounds_then_resume bad_input)
  add_test(NAME integration.run.${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bench_run_test.py ${_case})
  set_tests_properties(integration.run.${_case} PROPERTIES
    LABELS "integration;bench" TIMEOUT 600 ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>")
endforeach()
# The fault tests start several mpirun jobs; on two cores they must not overlap with each other.
# They time how long the run takes to end (timing: scripts/flake.sh reruns them).
set_tests_properties(integration.run.sigkill_then_resume integration.run.sigstop_then_resume PROPERTIES RUN_SERIAL TRUE
  LABELS "integration;bench;timing")

# Points too big for device memory are skipped with a recorded failure (a given memory figure).
add_test(NAME integration.run.oversized_points_skipped
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bench_memory_test.py oversized_points_skipped)
set_tests_properties(integration.run.oversized_points_skipped PROPERTIES
  LABELS "integration;bench" TIMEOUT 300 ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>")

# The shared driver with fake groups on 2 ranks: warm-up and batch sizing, a rank that cannot
# allocate a point's buffers, and the rank-time reduction.
add_executable(bench_driver_probe ${CMAKE_CURRENT_LIST_DIR}/bench_driver_probe.cpp)
target_link_libraries(bench_driver_probe PRIVATE meshbench_bench meshbench_warnings)
target_include_directories(bench_driver_probe PRIVATE ${PROJECT_SOURCE_DIR})
add_test(NAME integration.run.driver_with_fake_groups
  COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --oversubscribe $<TARGET_FILE:bench_driver_probe>)
set_tests_properties(integration.run.driver_with_fake_groups PROPERTIES
  LABELS "integration;bench" TIMEOUT 120
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")

# measure and the Runner through a fake backend on 2 ranks: where per-iteration timing stops,
# the point's result, isolated points, rounds pooling, resumed and oversized points
# (GoogleTest on both ranks; rank 0 prints).
add_executable(bench_fake_backend_test ${CMAKE_CURRENT_LIST_DIR}/bench_fake_backend_test.cpp)
target_link_libraries(bench_fake_backend_test PRIVATE meshbench_bench GTest::gtest meshbench_warnings)
target_include_directories(bench_fake_backend_test PRIVATE ${PROJECT_SOURCE_DIR})
add_test(NAME integration.run.measure_and_runner_with_fake_backend
  COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --oversubscribe $<TARGET_FILE:bench_fake_backend_test>)
set_tests_properties(integration.run.measure_and_runner_with_fake_backend PROPERTIES
  LABELS "integration;bench" TIMEOUT 120
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")
