# meshbench run under mpirun on this machine.
foreach(_case runs_mappings pandas_reads_measurements corrupt_result_is_detected sigkill_then_resume sigstop_then_resume bad_input)
  add_test(NAME integration.run.${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bench_run_test.py ${_case})
  set_tests_properties(integration.run.${_case} PROPERTIES
    LABELS "integration;bench" TIMEOUT 600 ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>")
endforeach()
# The fault tests start several mpirun jobs; on two cores they must not overlap with each other.
# They time how long the run takes to end (timing: scripts/flake.sh reruns them).
set_tests_properties(integration.run.sigkill_then_resume integration.run.sigstop_then_resume PROPERTIES RUN_SERIAL TRUE
  LABELS "integration;bench;timing")
