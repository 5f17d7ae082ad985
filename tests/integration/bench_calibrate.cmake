# meshbench calibrate without results files (the probe), run --cost-model and run --calibrate,
# under mpirun on this machine.
foreach(_case probe_writes_calibration_2 probe_writes_calibration_4 cost_model_plans_the_run run_calibrate_measures_top_and_baseline
    bad_input)
  add_test(NAME integration.calibrate_probe.${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bench_calibrate_test.py ${_case})
  set_tests_properties(integration.calibrate_probe.${_case} PROPERTIES
    LABELS "integration;bench" TIMEOUT 600 ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>")
endforeach()
