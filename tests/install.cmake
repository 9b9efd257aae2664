# Install into a scratch prefix and link tests/install/use_spx.c four ways
# (pkg-config shared and --static, CMake SpX::spx and SpX::spx_static), each
# run without LD_LIBRARY_PATH; the installed spx program must run too (see
# tests/install/check.sh). Not under sanitizers: the user's program is built
# plainly.
if(NOT SPX_SANITIZE)
  add_test(NAME install
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/check.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(install PROPERTIES PASS_REGULAR_EXPRESSION "install check passed" TIMEOUT 300)
endif()
