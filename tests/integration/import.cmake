# meshbench import: nccl-tests and OSU logs (tests/data/import) into results files, then report,
# compare and history on them; Megatron-LM training logs (tests/data/megatron-logs) read. No MPI
# run: each case reads only the fixture logs.
foreach(_case compare_after_upgrade compare_uniformly_slower history_step megatron_logs osu_logs public_refusals refusals)
  string(REPLACE "_" "." _name ${_case})
  add_test(NAME integration.import.${_name}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/import_test.py ${_case})
  set_tests_properties(integration.import.${_name} PROPERTIES
    LABELS "integration;analysis" TIMEOUT 300
    ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>;IMPORT_DATA=${MESHBENCH_TEST_DATA}/import")
endforeach()

# tests/data/import/public: one test per public log (SOURCES.md there), each imported unchanged.
file(GLOB _public_logs CONFIGURE_DEPENDS ${MESHBENCH_TEST_DATA}/import/public/*.log)
foreach(_log ${_public_logs})
  get_filename_component(_name ${_log} NAME)
  add_test(NAME integration.import.public.${_name}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/import_test.py public_log ${_name})
  set_tests_properties(integration.import.public.${_name} PROPERTIES
    LABELS "integration;analysis" TIMEOUT 60
    ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>;IMPORT_DATA=${MESHBENCH_TEST_DATA}/import")
endforeach()
