# Install into a scratch prefix and build a program against SpX (CMake package
# and pkg-config). Not under sanitizers: the user's program is built plainly.
if(NOT SPX_SANITIZE)
  add_test(NAME install_find_package
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/check.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(install_find_package PROPERTIES PASS_REGULAR_EXPRESSION "install check passed" TIMEOUT 300)
endif()
