# Faults on the local test cluster (issue 13, docs/reliability.md "Faults"): a link down, packet
# loss, one node's ranks killed, one node frozen, the results filesystem full, an unwritable
# results folder, a clock step during doctor. Root and `ip netns` needed (CI has both); elsewhere
# they skip (77). Cluster names: fx + the case's two letters + the build tree's hash.
string(MD5 _mb_faults_hash "${CMAKE_BINARY_DIR}")
string(SUBSTRING "${_mb_faults_hash}" 0 6 _mb_faults_hash)
set(_mb_faults_code_link_down ld)
set(_mb_faults_code_packet_loss pl)
set(_mb_faults_code_ranks_killed rk)
set(_mb_faults_code_node_frozen nf)
set(_mb_faults_code_disk_full df)
set(_mb_faults_code_unwritable uw)
set(_mb_faults_code_clock_step cs)
foreach(_case link_down packet_loss ranks_killed node_frozen disk_full unwritable clock_step)
  add_test(NAME integration.faults.${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/faults_test.py ${_case} ${PROJECT_BINARY_DIR}
            fx${_mb_faults_code_${_case}}${_mb_faults_hash})
  set_tests_properties(integration.faults.${_case} PROPERTIES
    LABELS "integration;cluster;faults"
    SKIP_RETURN_CODE 77
    RESOURCE_LOCK meshbench_localcluster
    TIMEOUT 300
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")
endforeach()
