# meshbench report and compare on files written by `meshbench run` under mpirun (4 ranks).
# The setup test writes two honest runs of one configuration; the others read them.
set(_report_fixtures ${CMAKE_CURRENT_BINARY_DIR}/report_fixtures)
add_test(NAME integration.report.setup
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report_test.py setup ${_report_fixtures})
set_tests_properties(integration.report.setup PROPERTIES
  FIXTURES_SETUP report_runs RUN_SERIAL TRUE LABELS "integration;analysis" TIMEOUT 1800
  ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>")
foreach(_case report_text report_formats report_workload report_plots report_plot_without_matplotlib report_export
              compare_planted_slowdown compare_same_file compare_honest_rerun compare_bad_input
              compare_set_verdicts compare_set_bad_input history_planted_step compare_json_schema
              results_columns_unchanged)
  string(REGEX REPLACE "^([a-z]+)_(.*)$" "\\1.\\2" _name ${_case})
  add_test(NAME integration.${_name}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report_test.py ${_case})
  set_tests_properties(integration.${_name} PROPERTIES
    FIXTURES_REQUIRED report_runs LABELS "integration;analysis" TIMEOUT 600
    ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>;REPORT_FIXTURES=${_report_fixtures}")
endforeach()
# These two read verdicts off the measured times of the two runs (timing: scripts/flake.sh
# reruns them, and with them the setup that measures the runs).
set_tests_properties(integration.compare.planted_slowdown integration.compare.honest_rerun PROPERTIES
  LABELS "integration;analysis;timing")
# Runs of its own (2 ranks, shared memory and TCP): serial, so that no other test shares the cores.
add_test(NAME integration.compare.tcp_whole_run
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report_test.py compare_tcp_whole_run)
set_tests_properties(integration.compare.tcp_whole_run PROPERTIES
  RUN_SERIAL TRUE LABELS "integration;analysis;timing" TIMEOUT 1200 ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>")
# The kept shared-memory -> TCP pair (tests/data/compare_tcp): read only, no runs of its own.
add_test(NAME integration.compare.kept_tcp_pair
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report_test.py compare_kept_tcp_pair)
set_tests_properties(integration.compare.kept_tcp_pair PROPERTIES
  LABELS "integration;analysis" TIMEOUT 300 ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>")
# compare A B against compare A -- B on the kept runs and fresh synthetic reruns: no MPI.
add_test(NAME integration.compare.two_files_is_a_set_of_one
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report_test.py compare_two_files_is_a_set_of_one)
set_tests_properties(integration.compare.two_files_is_a_set_of_one PROPERTIES
  LABELS "integration;analysis" TIMEOUT 300 ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>")
# report --html in headless chromium, and report --plot's placement picture, on the setup's run.
foreach(_case html_browser html_placement_pixels html_bad_input plot_placement)
  add_test(NAME integration.report.${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report_html_test.py ${_case})
  set_tests_properties(integration.report.${_case} PROPERTIES
    FIXTURES_REQUIRED report_runs LABELS "integration;analysis" TIMEOUT 900
    ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>;REPORT_FIXTURES=${_report_fixtures}")
endforeach()
