# meshbench import: nccl-tests and OSU logs (tests/data/import) into results files, then report,
# compare and history on them. No MPI run: each case reads only the fixture logs.
foreach(_case compare_after_upgrade compare_uniformly_slower history_step osu_logs refusals)
  string(REPLACE "_" "." _name ${_case})
  add_test(NAME integration.import.${_name}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/import_test.py ${_case})
  set_tests_properties(integration.import.${_name} PROPERTIES
    LABELS "integration;analysis" TIMEOUT 300
    ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>;IMPORT_DATA=${MESHBENCH_TEST_DATA}/import")
endforeach()
