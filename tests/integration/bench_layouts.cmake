# meshbench run --plan with a plan file of several layouts, and report's Layouts, under mpirun
# (8 CPU ranks oversubscribed on this machine).
foreach(_case two_layouts_in_one_launch explore_hand_off bad_input)
  add_test(NAME integration.run.layouts_${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bench_layouts_test.py ${_case})
  set_tests_properties(integration.run.layouts_${_case} PROPERTIES
    LABELS "integration;bench" TIMEOUT 300
    ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>;MESHBENCH_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endforeach()
