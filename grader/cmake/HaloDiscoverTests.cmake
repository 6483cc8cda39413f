# Run after a test binary is built (cmake -P): lists its doctest cases and writes the CTest
# file that registers one test per case. Labels come from the case name, which always reads
# "<section> <slug> / <kind> / <description>", so no test needs to be run to label it (tests of
# the runtime itself carry only the extra labels).
#
# Inputs: EXE, PREFIX, LABELS (extra, ;-separated), TIMEOUT, OUT, ENVIRONMENT (NAME=value
# entries separated by |, for every test; may be empty).

# CMake trims a trailing space from -D values, so the prefix comes without it.
if(NOT PREFIX STREQUAL "")
  set(PREFIX "${PREFIX} ")
endif()

execute_process(COMMAND "${EXE}" --list-test-cases OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cannot list the tests of ${EXE} (exit ${rc}):\n${listing}")
endif()

set(environment "")
if(NOT ENVIRONMENT STREQUAL "")
  string(REPLACE "|" ";" env_list "${ENVIRONMENT}")
  set(environment " ENVIRONMENT [==[${env_list}]==]")
endif()

string(REPLACE ";" "" listing "${listing}")  # no test name holds one; keeps the list split honest
string(REPLACE "\n" ";" lines "${listing}")
set(script "")
foreach(name IN LISTS lines)
  if(name STREQUAL "" OR name MATCHES "^\\[doctest\\]" OR name MATCHES "^====")
    continue()
  endif()
  set(labels "${LABELS}")
  if(name MATCHES "^([0-9.]+) [^/]+ / ([a-z-]+) / ")  # a section's test
    set(labels "${CMAKE_MATCH_1};${CMAKE_MATCH_2};${LABELS}")
  endif()
  string(REPLACE "," "\\," filter "${name}")  # doctest splits filters at commas
  string(APPEND script
    "add_test([==[${PREFIX}${name}]==] [==[${EXE}]==] [==[--test-case=${filter}]==])\n"
    "set_tests_properties([==[${PREFIX}${name}]==] PROPERTIES LABELS [==[${labels}]==] "
    "TIMEOUT ${TIMEOUT} SKIP_RETURN_CODE 77${environment})\n")
endforeach()
file(WRITE "${OUT}" "${script}")
