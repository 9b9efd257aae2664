# The README shows EXAMPLE whole: fail when its text there differs from the file.
#   cmake -DREADME=README.md -DEXAMPLE=examples/spmv.c -P in_readme.cmake
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "```c\n${example}```" at)
if(at LESS 0)
  message(FATAL_ERROR "${README} does not show ${EXAMPLE} as it is: copy the file into its c block")
endif()
