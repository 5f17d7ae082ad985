# docs/architecture.md's drawing of the modules and their links against the build's own targets.
add_test(NAME integration.architecture.drawing_matches_build
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/architecture_check.py ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(integration.architecture.drawing_matches_build PROPERTIES LABELS "integration" TIMEOUT 120)
