# Runs of the conformance suite under each CPU ISA, and of the AXT test under
# the lower ones (SPX_ARCH lowers the run-time choice; a request above the CPU
# falls back; test_axt itself already walks every ISA up to the active one),
# each with its parts (NAME_PART_ARCH).
foreach(arch scalar avx2 avx512)
  if(TARGET test_conformance)
    spx_add_test(test_conformance _${arch} SPX_ARCH=${arch})
  endif()
  if(TARGET test_axt AND NOT arch STREQUAL "avx512")
    spx_add_test(test_axt _${arch} SPX_ARCH=${arch})
  endif()
endforeach()
