# Runs of the conformance suite under each CPU ISA, and of the AXT test under
# the lower ones (SPX_ARCH lowers the run-time choice; a request above the CPU
# falls back; test_axt itself already walks every ISA up to the active one).
foreach(arch scalar avx2 avx512)
  if(TARGET test_conformance)
    add_test(NAME test_conformance_${arch} COMMAND test_conformance
      WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
    set_tests_properties(test_conformance_${arch} PROPERTIES
      ENVIRONMENT "SPX_ARCH=${arch};SPX_MATRICES=${SPX_TEST_MATRICES};SPX_TEST_DATA=${CMAKE_CURRENT_SOURCE_DIR}"
      TIMEOUT 900)
  endif()
  if(TARGET test_axt AND NOT arch STREQUAL "avx512")
    add_test(NAME test_axt_${arch} COMMAND test_axt WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
    set_tests_properties(test_axt_${arch} PROPERTIES
      ENVIRONMENT "SPX_ARCH=${arch};SPX_MATRICES=${SPX_TEST_MATRICES}"
      TIMEOUT 900)
  endif()
endforeach()
