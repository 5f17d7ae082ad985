# run's GPU health sampling and doctor's GPU reading against the stand-in NVML library
# (tests/gpu/stand_ins/fake_nvml.c) on this machine's CPU slots: no GPU needed.
foreach(_case throttle_flagged_on_its_point nvml_absent_or_off doctor_reads_throttle_and_replays)
  add_test(NAME integration.gpu_health.${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/gpu_health_test.py ${_case})
  set_tests_properties(integration.gpu_health.${_case} PROPERTIES
    LABELS "integration;bench" TIMEOUT 300
    ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>;MESHBENCH_FAKE_NVML_LIBRARY=$<TARGET_FILE:fake_nvml>")
endforeach()
