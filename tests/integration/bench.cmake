# meshbench run under mpirun on this machine.
foreach(_case runs_mappings pandas_reads_measurements corrupt_result_is_detected sigkill_then_resume sigstop_then_resume rounds_then_resume bad_input
    send_recv_across_pp machine_state_remeasures nic_counters_canned_efa reader_during_the_run)
  add_test(NAME integration.run.${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bench_run_test.py ${_case})
  set_tests_properties(integration.run.${_case} PROPERTIES
    LABELS "integration;bench" TIMEOUT 600 ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>;MESHBENCH_TEST_DATA=${MESHBENCH_TEST_DATA}")
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

# A program of its own, linked with the bench library, run on 2 ranks as test NAME.
function(meshbench_two_rank_test NAME TARGET)
  add_executable(${TARGET} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${TARGET}.cpp)
  target_link_libraries(${TARGET} PRIVATE meshbench_bench meshbench_warnings ${ARGN})
  target_include_directories(${TARGET} PRIVATE ${PROJECT_SOURCE_DIR})
  add_test(NAME ${NAME} COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --oversubscribe $<TARGET_FILE:${TARGET}>)
  set_tests_properties(${NAME} PROPERTIES
    LABELS "integration;bench" TIMEOUT 120
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")
endfunction()

# The shared driver with fake groups on 2 ranks: warm-up and batch sizing, a rank that cannot
# allocate a point's buffers, and the rank-time reduction.
meshbench_two_rank_test(integration.run.driver_with_fake_groups bench_driver_probe)

# measure and the Runner through a fake backend on 2 ranks: where per-iteration timing stops,
# the point's result, isolated points, rounds pooling, resumed and oversized points
# (GoogleTest on both ranks; rank 0 prints).
meshbench_two_rank_test(integration.run.measure_and_runner_with_fake_backend bench_fake_backend_test GTest::gtest)
target_compile_definitions(bench_fake_backend_test PRIVATE MESHBENCH_TEST_DATA="${MESHBENCH_TEST_DATA}")
