# meshbench doctor and meshbench logs: the binary on this machine, alone and under mpirun.
set(_doctor_env
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
  OMPI_MCA_rmaps_base_oversubscribe=1)
foreach(_name local mpi secrets logs)
  add_test(NAME doctor_${_name}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/doctor_${_name}.sh ${MESHBENCH_EXE})
  set_tests_properties(doctor_${_name} PROPERTIES
    LABELS "integration;analysis;doctor"
    ENVIRONMENT "${_doctor_env}"
    TIMEOUT 300)
endforeach()
set_tests_properties(doctor_secrets PROPERTIES LABELS "integration;analysis;doctor;mpi")
# doctor_mpi measures clock offsets between ranks (timing: scripts/flake.sh reruns it).
set_tests_properties(doctor_mpi PROPERTIES LABELS "integration;analysis;doctor;mpi;timing")
