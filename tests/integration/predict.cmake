# meshbench predict end to end: nccl-tests' sweep on 2 x p5 as JSON, one row per size, busbw
# rising with size. Included by tests/CMakeLists.txt, which sets MESHBENCH_EXE.
add_test(NAME mapping_predict_p5_x2_json
  COMMAND ${MESHBENCH_LEAVES_NO_SCRATCH} /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/predict_check.py ${MESHBENCH_EXE})
set_tests_properties(mapping_predict_p5_x2_json PROPERTIES LABELS "integration;mapping" TIMEOUT 60)
