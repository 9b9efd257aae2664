# One run of the spx program (or an example program) for ctest (tests/cli.cmake,
# examples/CMakeLists.txt):
#   cmake -DSPX=program -DARGS="a|b|c" -DRC=code [-DSTDOUT_RE=re] [-DSTDERR_RE=re]
#         [-DSTDOUT_NOT_RE=re] [-DJSON_KEYS="k1|k2"] [-DOUT_FILE=f -DEXPECT=g]
#         [-DNO_FILE=f] [-DNO_GPU_RC=code -DNO_GPU_STDERR_RE=re]
#         [-DFORMATS_RE=re] [-DFORMATS_NOT_RE=re] [-DPEERS_RE=re] -P run.cmake
# Fails unless the exit code is RC, stdout and stderr match their regexes
# (stdout not STDOUT_NOT_RE), stdout holds exactly the JSON keys listed (each
# once, no others), the file OUT_FILE (removed before the run) has the same
# text as EXPECT, and NO_FILE (removed before) was not created. With NO_GPU_RC,
# on a machine where `spx formats` shows no available CUDA device, the run must
# instead exit NO_GPU_RC with stderr matching NO_GPU_STDERR_RE and write no
# OUT_FILE. With FORMATS_RE (FORMATS_NOT_RE) the test applies only where the
# registry, as `spx formats` prints it, matches (does not match) the regex;
# elsewhere it prints "SKIP: precondition" (the test's SKIP_REGULAR_EXPRESSION).
# PEERS_RE is the same on `spx bench --list-peers`: tests of a peer that a
# build without its library does not have.
string(REPLACE "|" ";" args "${ARGS}")
if(DEFINED NO_GPU_RC OR DEFINED FORMATS_RE OR DEFINED FORMATS_NOT_RE)
  execute_process(COMMAND "${SPX}" formats OUTPUT_VARIABLE formats RESULT_VARIABLE frc)
endif()
if((DEFINED FORMATS_RE AND NOT formats MATCHES "${FORMATS_RE}") OR
   (DEFINED FORMATS_NOT_RE AND formats MATCHES "${FORMATS_NOT_RE}"))
  message("SKIP: precondition: spx formats does not fit this test")
  return()
endif()
if(DEFINED PEERS_RE)
  execute_process(COMMAND "${SPX}" bench --list-peers OUTPUT_VARIABLE peers RESULT_VARIABLE prc)
  if(NOT peers MATCHES "${PEERS_RE}")
    message("SKIP: precondition: no peer matching '${PEERS_RE}' in this build")
    return()
  endif()
endif()
if(DEFINED NO_GPU_RC)
  if(NOT formats MATCHES "device cuda +available")
    set(RC ${NO_GPU_RC})
    set(STDERR_RE "${NO_GPU_STDERR_RE}")
    set(STDOUT_RE "")
    set(NO_FILE "${OUT_FILE}")
    set(OUT_FILE "")
  endif()
endif()
if(OUT_FILE)
  file(REMOVE "${OUT_FILE}")
endif()
if(NO_FILE)
  file(REMOVE "${NO_FILE}")
endif()
execute_process(COMMAND "${SPX}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(shown "command: ${SPX} ${ARGS}\nexit code: ${rc}\nstdout:\n${out}\nstderr:\n${err}")
if(NOT rc STREQUAL "${RC}")
  message(FATAL_ERROR "expected exit code ${RC}\n${shown}")
endif()
if(DEFINED STDOUT_RE AND NOT out MATCHES "${STDOUT_RE}")
  message(FATAL_ERROR "stdout does not match '${STDOUT_RE}'\n${shown}")
endif()
if(DEFINED STDOUT_NOT_RE AND out MATCHES "${STDOUT_NOT_RE}")
  message(FATAL_ERROR "stdout matches '${STDOUT_NOT_RE}'\n${shown}")
endif()
if(NO_FILE AND EXISTS "${NO_FILE}")
  message(FATAL_ERROR "${NO_FILE} was written\n${shown}")
endif()
if(DEFINED STDERR_RE AND NOT err MATCHES "${STDERR_RE}")
  message(FATAL_ERROR "stderr does not match '${STDERR_RE}'\n${shown}")
endif()
if(DEFINED JSON_KEYS)
  string(REPLACE "|" ";" keys "${JSON_KEYS}")
  string(REGEX MATCHALL "\"[A-Za-z0-9_]+\":" found "${out}")
  list(LENGTH keys want)
  list(LENGTH found got)
  if(NOT want EQUAL got)
    message(FATAL_ERROR "expected ${want} JSON keys, found ${got}: ${found}\n${shown}")
  endif()
  foreach(k IN LISTS keys)
    list(FIND found "\"${k}\":" at)
    if(at LESS 0)
      message(FATAL_ERROR "JSON key '${k}' missing\n${shown}")
    endif()
  endforeach()
endif()
if(OUT_FILE)
  file(READ "${OUT_FILE}" got_text)
  file(READ "${EXPECT}" want_text)
  if(NOT got_text STREQUAL want_text)
    message(FATAL_ERROR "${OUT_FILE}:\n${got_text}\ndiffers from ${EXPECT}:\n${want_text}\n${shown}")
  endif()
endif()
