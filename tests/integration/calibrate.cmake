# meshbench calibrate FILE and report --cost-model on a run of 2 ranks under mpirun.
add_test(NAME integration.calibrate.from_results
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/calibrate_test.py)
set_tests_properties(integration.calibrate.from_results PROPERTIES
  LABELS "integration;analysis" TIMEOUT 900 ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>")
