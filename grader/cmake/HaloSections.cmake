# How a section becomes test binaries and CTest tests.
#
# Every section has one set of test sources (grader/sections/<folder>/*.cpp) and is built
# against one or more kernel trees: the student's (grade), the reference solutions, the
# generated stubs and each known-wrong kernel (check). Kernels are compiled for the CPU
# backend as C++ with load/store instrumentation, through a generated one-line wrapper that
# includes the CUDA dialect first and then the .cu file itself (so diagnostics and debug info
# name the student's file and line).

# -O1 keeps one instrumented access per source-level access (no vectorised or merged loads);
# -gline-tables-only: a diagnostic names a kernel's file and line (addr2line, the validator's
# findings), never a variable, and LLVM makes the same code with or without debug info. The
# variables' locations were a fifth of a 7.9 kernel's compile (0.9 of 4.4 s through the launcher),
# and with them its IR was 6 MB, which the validator reads; the 130 known-wrong and learner
# kernels' failing tests and quoted lines were the same with either (docs/results/check-times.md).
# -gdwarf-4 because binutils 2.40's addr2line attributes lines of an #included file to the
# including wrapper in clang 14's DWARF 5 output.
# -fno-builtin-mem*: clang would turn a zeroing or copying loop into llvm.memset/memcpy, whose
# accesses the instrumentation never sees (and the validator refuses).
# -UNDEBUG: a kernel's assert() is a student's debugging aid, on in every build type.
# -fsanitize=array-bounds,integer-divide-by-zero: the compiler checks an index against an array it
# knows the size of, and a divisor against 0, and calls the runtime's handlers
# (grader/cpu/ubsan_handlers.cpp) before the access or the division: a write past a local array is
# named, and a division by zero is the same on x86-64 (a trap) and aarch64 (none).
# -fsigned-char: a plain char is signed on x86-64 (and so under nvcc there) but unsigned on aarch64
# Linux; a kernel's char means the same on every machine that grades it.
# No sinking or hoisting of code common to two branches, and no tail merging: LLVM merges the two
# branches' instrumented loads of one array into one call whose source line is 0 ("file.cu:?"), and
# x86-64 and aarch64 merge different ones; kept apart, every access keeps its own line on both.
# (Only accesses both branches make alike are merged, and a thread runs one branch: no count changes.)
# No VectorCombine: by each target's cost model it splits a float4 load whose lanes are used one by
# one into scalar loads, or widens a float load into a float4 load, differently on aarch64 and x86-64
# (7.9's window N_s[..][tx + 2] with R = 3 or 4: three 4-byte reads on aarch64, at the line that uses
# them, one 16-byte read on x86-64); without it every access is the size the source writes, on both.
# (SHELL: keeps CMake from dropping the repeated -mllvm; tools/halo/core/validate.py reads this list.)
set(HALO_KERNEL_FLAGS -O1 -gline-tables-only -gdwarf-4 -fno-omit-frame-pointer -fsanitize-coverage=func,trace-loads,trace-stores
    -fsanitize=array-bounds,integer-divide-by-zero -fsanitize-recover=array-bounds,integer-divide-by-zero
    -fno-builtin-memset -fno-builtin-memcpy -fno-builtin-memmove -fsigned-char -UNDEBUG
    "SHELL:-mllvm -simplifycfg-sink-common=false" "SHELL:-mllvm -simplifycfg-hoist-common=false"
    "SHELL:-mllvm -enable-tail-merge=false" "SHELL:-mllvm -disable-vector-combine")
# -S: without site and the installation's .pth files, as the launcher starts (core/site_packages.py).
set(HALO_WORKBOOK "${Python3_EXECUTABLE}" -S "${PROJECT_SOURCE_DIR}/workbook")
set(HALO_TEST_TIMEOUT 120)

# Reads chapters/manifest.toml (through the Python tools, which own its format) into
# HALO_SECTIONS and HALO_<id>_{SLUG,FOLDER,KERNELS,QUESTIONS}, and the test names each section's
# sources compile for each backend into HALO_<id>_{cpu,cuda}_TESTS (tools/halo/core/test_list.py):
# the list is the grader's, never discovered by running a program built with a student's code.
# One Python process for the whole chapter, not one a section: each start is part of every first configure.
function(halo_read_manifest)
  set(backends --tests cpu)
  if(HALO_HAVE_CUDA)  # only GPU builds need the CUDA list
    list(APPEND backends --tests cuda)
  endif()
  execute_process(
    COMMAND ${HALO_WORKBOOK} internal sections ${backends}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "Halo: cannot read chapters/manifest.toml and the test lists of grader/sections/:\n${err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    "${PROJECT_SOURCE_DIR}/chapters/manifest.toml" ${HALO_QUESTION_FILES})
  string(REPLACE ";" "" out "${out}")  # no test name holds one; keeps the list split honest
  string(REPLACE "\n" ";" lines "${out}")
  set(sections "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^section\\|([^|]+)\\|([^|]+)\\|([^|]+)\\|(.*)$")
      set(id "${CMAKE_MATCH_1}")
      list(APPEND sections "${id}")
      set(HALO_${id}_SLUG "${CMAKE_MATCH_2}" PARENT_SCOPE)
      set(HALO_${id}_FOLDER "${CMAKE_MATCH_3}" PARENT_SCOPE)
      string(REPLACE "," ";" kernels "${CMAKE_MATCH_4}")
      set(HALO_${id}_KERNELS "${kernels}" PARENT_SCOPE)
    elseif(line MATCHES "^question\\|([^|]+)\\|([^|]+)$")
      list(APPEND HALO_${CMAKE_MATCH_1}_QUESTIONS "${CMAKE_MATCH_2}")
      set(HALO_${CMAKE_MATCH_1}_QUESTIONS "${HALO_${CMAKE_MATCH_1}_QUESTIONS}" PARENT_SCOPE)
    elseif(line MATCHES "^test\\|([^|]+)\\|(cpu|cuda)\\|(.+)$")
      set(var HALO_${CMAKE_MATCH_1}_${CMAKE_MATCH_2}_TESTS)
      list(APPEND ${var} "${CMAKE_MATCH_3}")
      set(${var} "${${var}}" PARENT_SCOPE)
    endif()
  endforeach()
  set(HALO_SECTIONS "${sections}" PARENT_SCOPE)
endfunction()

# An object library with the section's kernels from `dir`, for the CPU backend.
function(halo_cpu_kernels target dir)
  set(sources "")
  foreach(kernel IN LISTS ARGN)
    string(MAKE_C_IDENTIFIER "${target}_${kernel}" id)
    set(wrapper "${CMAKE_CURRENT_BINARY_DIR}/kernel_wrappers/${id}.cpp")
    file(CONFIGURE OUTPUT "${wrapper}" CONTENT
      "// Generated: the CUDA dialect, the chapter's #defines, then the kernel file itself.\n#include \"halo/cpu/cuda_dialect.hpp\"\n#include \"halo/chapter_defines.hpp\"\n#include \"${dir}/${kernel}\"\n")
    set_property(SOURCE "${wrapper}" APPEND PROPERTY OBJECT_DEPENDS "${dir}/${kernel}")
    list(APPEND sources "${wrapper}")
  endforeach()
  add_library(${target} OBJECT ${sources})
  # The compiler runs in the sandbox, after the kernel files are validated (compile_sandboxed.py).
  # -S: the launcher needs the standard library only, and each kernel edit's compile starts it, so
  # it skips site and the .pth files of the installation (a tenth of a second on some machines).
  set(launcher "${Python3_EXECUTABLE}" -S "${PROJECT_SOURCE_DIR}/tools/halo/core/compile_sandboxed.py"
               --pch-dir "${CMAKE_BINARY_DIR}/kernel-headers-pch")  # the grader's headers read once a build
  foreach(kernel IN LISTS ARGN)
    list(APPEND launcher --kernel-file "${dir}/${kernel}")
  endforeach()
  if(HALO_MODE STREQUAL "check")  # the files that passed, for the IR corpus test (core/validated_record.py)
    list(APPEND launcher --validated-record "${HALO_VALIDATED_KERNELS}")
  endif()
  set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${launcher};--")
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/grader/include" "${HALO_GENERATED_INCLUDE}" "${dir}")
  add_dependencies(${target} halo_chapter_data)
  target_compile_options(${target} PRIVATE ${HALO_KERNEL_FLAGS} -Wall)
endfunction()

# The test names `sources` compile for `backend` (cpu or cuda), read from the sources at configure
# time (tools/halo/core/test_list.py), for the check build's own test programs (the sections' lists
# come with the manifest, halo_read_manifest).
function(halo_list_tests out backend)
  execute_process(COMMAND ${HALO_WORKBOOK} internal list-tests --backend ${backend} ${ARGN}
                  OUTPUT_VARIABLE listing ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "Halo: cannot list the tests of ${ARGN}:\n${err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ARGN})
  string(REPLACE ";" "" listing "${listing}")  # no test name holds one; keeps the list split honest
  string(REPLACE "\n" ";" names "${listing}")
  list(FILTER names EXCLUDE REGEX "^$")
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

# One CTest test per name, running `program --test-case=<name>`, labelled by section and kind
# (read from the name "7.2 basic-1d / correct / ..."), plus `labels`. `prefix` (e.g. "solutions:")
# is put before each test name, followed by a space. GPU programs (a "gpu" label) run with
# HALO_GPU_TEST_ENVIRONMENT: the load counter preloaded.
function(halo_register_tests program raw_prefix labels)
  set(prefix "${raw_prefix}")
  if(NOT prefix STREQUAL "")
    set(prefix "${prefix} ")
  endif()
  foreach(name IN LISTS ARGN)
    set(all_labels "${labels}")
    if(name MATCHES "^([0-9.]+) [^/]+ / ([a-z-]+) / ")
      set(all_labels "${CMAKE_MATCH_1};${CMAKE_MATCH_2};${labels}")
    endif()
    string(REPLACE "," "\\," filter "${name}")  # doctest splits filters at commas
    add_test(NAME "${prefix}${name}" COMMAND "${program}" "--test-case=${filter}")
    set_tests_properties("${prefix}${name}" PROPERTIES LABELS "${all_labels}" TIMEOUT ${HALO_TEST_TIMEOUT}
                         SKIP_RETURN_CODE 77)
    if("gpu" IN_LIST labels)
      set_tests_properties("${prefix}${name}" PROPERTIES ENVIRONMENT "${HALO_GPU_TEST_ENVIRONMENT}")
    endif()
    # No COST hint that starts the largest launches first: with an endless loop in the kernel,
    # the small tests that come first in the file find it within their small CPU limits, and the
    # large ones then fail at once with their message (judge_client.cpp) instead of each spending
    # its own large limit.
    if(HALO_MODE STREQUAL "grade")  # load reports where ./workbook grade and plain ctest's summary read them
      set_property(TEST "${prefix}${name}" APPEND PROPERTY ENVIRONMENT "HALO_REPORT_DIR=${CMAKE_BINARY_DIR}/report")
    endif()
  endforeach()
endfunction()

# A target of its own that compiles nothing but `name`'s precompiled header, made of `headers`
# with `options` and the usage requirements of `library`: the targets that include those headers
# first take it with REUSE_FROM (a precompiled header serves only compiles with the options it was
# made with).
function(halo_precompiled_headers name options library)
  file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp"
       CONTENT "// Generated: nothing of its own; the precompiled header of ${name} is made with it.\n")
  add_library(${name} OBJECT "${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp")
  target_link_libraries(${name} PRIVATE ${library})
  target_compile_options(${name} PRIVATE ${options})
  target_precompile_headers(${name} PRIVATE ${ARGN})
  add_dependencies(${name} halo_chapter_data)  # an imported `library` brings no order of its own
endfunction()

# What every section's judge includes first (doctest and the test support), parsed once for every
# judge, not once a section.
# -ffile-prefix-map: a judge's and an entry table's objects name no path of their tree (doctest's
# __FILE__ is the source's path from the tree's root), so that one build of them serves every tree
# of the same inputs (core/judge_cache.py, HALO_GRADER_JUDGES below).
set(HALO_TREE_NEUTRAL "-ffile-prefix-map=${PROJECT_SOURCE_DIR}/=")
set(HALO_JUDGE_OPTIONS -O0 -Wall ${HALO_GRADER_DEBUG} ${HALO_TREE_NEUTRAL})
# A worker's entry table instantiates halo::launch for each kernel, whose per-thread trampoline runs
# once a CUDA thread: optimised (at -O0, 7.4's tests took 28 % more CPU time). What each
# section's table includes (the runtime's CUDA dialect, the serving code and the wire) is parsed
# once for all of them; none of it uses a name of chapter_defines.hpp, which the table includes
# before it and which stays out of the precompiled header (the same text then).
set(HALO_WORKER_ENTRY_OPTIONS -O2 -Wall ${HALO_GRADER_DEBUG} ${HALO_TREE_NEUTRAL})

# The judge of a section: its tests and the references, no student code. One per section,
# whichever tree is graded.
function(halo_judge sid folder)
  if(TARGET judge_${sid})
    return()
  endif()
  if(HALO_GRADER_JUDGES AND EXISTS "${HALO_GRADER_JUDGES}/${sid}/worker_entries.o")
    halo_imported_judge(${sid})
    return()
  endif()
  if(NOT TARGET halo_judge_headers)
    halo_precompiled_headers(halo_judge_headers "${HALO_JUDGE_OPTIONS}" halo_testing_judge
                             "${PROJECT_SOURCE_DIR}/grader/testing/halo_test.hpp")
    halo_precompiled_headers(halo_worker_entry_headers "${HALO_WORKER_ENTRY_OPTIONS}" halo_cpu_runtime
                             "${PROJECT_SOURCE_DIR}/grader/include/halo/cpu/cuda_runtime.hpp"
                             "${PROJECT_SOURCE_DIR}/grader/remote/worker_serve.hpp")
  endif()
  add_executable(judge_${sid} ${ARGN})
  target_include_directories(judge_${sid} PRIVATE "${PROJECT_SOURCE_DIR}/grader/sections/${folder}")
  target_link_libraries(judge_${sid} PRIVATE halo_testing_judge)
  add_dependencies(judge_${sid} halo_chapter_data)  # its tests include it (built test support brought the order)
  # The section's tests are glue (inputs, launches, reports): the computing they call, references
  # and comparisons, is in halo_testing, optimised. Unoptimised, a section compiles in half the time.
  target_compile_options(judge_${sid} PRIVATE ${HALO_JUDGE_OPTIONS})
  target_precompile_headers(judge_${sid} REUSE_FROM halo_judge_headers)
  # The worker's entry table for this section (grader/remote/worker_entries.cpp).
  add_library(halo_worker_entries_${sid} OBJECT "${PROJECT_SOURCE_DIR}/grader/remote/worker_entries.cpp")
  target_include_directories(halo_worker_entries_${sid} PRIVATE "${PROJECT_SOURCE_DIR}/grader/sections/${folder}"
                             "${PROJECT_SOURCE_DIR}/grader/include" "${HALO_GENERATED_INCLUDE}")
  target_compile_options(halo_worker_entries_${sid} PRIVATE ${HALO_WORKER_ENTRY_OPTIONS})
  target_precompile_headers(halo_worker_entries_${sid} REUSE_FROM halo_worker_entry_headers)
  target_link_libraries(halo_worker_entries_${sid} PRIVATE halo_cpu_runtime)
  add_dependencies(halo_worker_entries_${sid} halo_chapter_data)
endfunction()

# The judge and the worker entry table of a section linked from the objects that another tree of
# the same inputs compiled (HALO_GRADER_JUDGES: a folder core/judge_cache.py chose by the hash of
# every input they are made of). Only the link is this tree's: halo_project_root, the one object
# that names the tree, comes with halo_testing_judge's usage requirements.
function(halo_imported_judge sid)
  set(from "${HALO_GRADER_JUDGES}/${sid}")
  file(GLOB objects "${from}/judge/*.o")
  add_executable(judge_${sid} ${objects})
  set_target_properties(judge_${sid} PROPERTIES LINKER_LANGUAGE CXX)
  target_link_libraries(judge_${sid} PRIVATE halo_testing_judge)
  add_library(halo_worker_entries_${sid} OBJECT IMPORTED)
  set_target_properties(halo_worker_entries_${sid} PROPERTIES IMPORTED_OBJECTS "${from}/worker_entries.o")
endfunction()

# One CPU test program for the kernels of one tree: a worker built from them (`target`_worker)
# and `target`, a launcher that runs the section's judge with that worker. The launcher is what
# CTest and the tools run; the judge's exit status is the verdict, never the worker's.
function(halo_cpu_binary target sid kernel_dir)
  halo_cpu_kernels(${target}_kernels "${kernel_dir}" ${ARGN})
  halo_cpu_program(${target} ${sid} "${kernel_dir}" ${target}_kernels)
endfunction()

# The program of a whole tree. In a section of several kernel files it is made of an object
# library a file, <prefix>_<file id>, for other programs to share: the known-wrong and learner
# trees link the reference's (halo_tree_program), the proofs of the tests-of lines the stubs'.
function(halo_cpu_binary_per_file target prefix sid kernel_dir kernels)
  list(LENGTH kernels count)
  if(count LESS 2)
    halo_cpu_binary(${target} ${sid} "${kernel_dir}" ${kernels})
    return()
  endif()
  set(libraries "")
  foreach(kernel IN LISTS kernels)
    string(MAKE_C_IDENTIFIER "${kernel}" kid)
    halo_cpu_kernels(${prefix}_${kid} "${kernel_dir}" ${kernel})
    list(APPEND libraries ${prefix}_${kid})
  endforeach()
  halo_cpu_program(${target} ${sid} "${kernel_dir}" ${libraries})
endfunction()

# The same from object libraries of kernel files already made (ARGN), which may come from
# several trees: a known-wrong tree links the reference's object of each file it left unchanged.
function(halo_cpu_program target sid kernel_dir)
  set(objects "")
  foreach(library IN LISTS ARGN)
    list(APPEND objects $<TARGET_OBJECTS:${library}>)
  endforeach()
  add_executable(${target}_worker ${objects} $<TARGET_OBJECTS:halo_worker_entries_${sid}>)
  target_link_libraries(${target}_worker PRIVATE halo_worker_main)
  file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${target}"
       CONTENT "#!/bin/sh\n# Generated: the judge of this section with the worker built from ${kernel_dir}\nexec '$<TARGET_FILE:judge_${sid}>' '--halo-worker=$<TARGET_FILE:${target}_worker>' \"$@\"\n"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endfunction()

# The same tests built for the CUDA backend, with the kernels built by nvcc. The section's tests
# are host code, compiled once by the C++ compiler (an object library; grader/CMakeLists.txt says
# why not nvcc) and linked with the kernels of each tree.
function(halo_cuda_binary target folder kernel_dir)
  string(MAKE_C_IDENTIFIER "halo_tests_${folder}_cuda" test_objects)
  if(NOT TARGET ${test_objects})
    file(GLOB tests CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/grader/sections/${folder}/*.cpp")
    add_library(${test_objects} OBJECT ${tests})
    # Without -Wall: a section's hints for the CPU backend's findings go unused here.
    target_compile_options(${test_objects} PRIVATE -O2 ${HALO_GRADER_DEBUG})
    target_link_libraries(${test_objects} PRIVATE halo_testing_cuda)
  endif()
  # nvcc compiles a generated copy of each kernel file (tools/halo/core/gpu_kernel_source.py): the
  # CUDA dialect (the stub marker HALO_TODO() compiles to nothing on the GPU) and the chapter's
  # #defines as on the CPU backend, less those the file declares itself, then the file after a
  # #line, with `extern "C"` taken out before kernels.
  set(dialect "${PROJECT_SOURCE_DIR}/grader/include/halo/cuda/cuda_dialect.hpp")
  set(defines "${HALO_GENERATED_INCLUDE}/halo/chapter_defines.hpp")
  set(generator "${PROJECT_SOURCE_DIR}/tools/halo/core/gpu_kernel_source.py")
  set(kernels "")
  foreach(kernel IN LISTS ARGN)
    set(copy "${CMAKE_CURRENT_BINARY_DIR}/gpu_kernels/${target}/${kernel}")
    add_custom_command(OUTPUT "${copy}"
      COMMAND "${Python3_EXECUTABLE}" "${generator}" --dialect "${dialect}" --defines "${defines}"
              "${kernel_dir}/${kernel}" "${copy}"
      DEPENDS "${kernel_dir}/${kernel}" "${generator}" "${PROJECT_SOURCE_DIR}/tools/halo/core/own_names.py"
              "${PROJECT_SOURCE_DIR}/tools/halo/core/extern_c.py" "${PROJECT_SOURCE_DIR}/tools/halo/core/source_text.py"
              halo_chapter_data
      COMMENT "nvcc's copy of ${kernel_dir}/${kernel}")
    list(APPEND kernels "${copy}")
  endforeach()
  add_executable(${target} $<TARGET_OBJECTS:${test_objects}> ${kernels})
  set_source_files_properties(${kernels} PROPERTIES COMPILE_OPTIONS "-UNDEBUG")
  target_include_directories(${target} PRIVATE "${kernel_dir}")  # the file's own #include "..."
  target_link_libraries(${target} PRIVATE halo_testing_cuda)
endfunction()

# CTest tests that check one answers file, one test per question.
function(halo_answer_tests id prefix answers_file labels)
  foreach(question IN LISTS HALO_${id}_QUESTIONS)
    set(name "${prefix}${id} ${HALO_${id}_SLUG} / answers / ${question}")
    add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal check-answer
             --section "${id}" --question "${question}" --file "${answers_file}")
    set_tests_properties("${name}" PROPERTIES LABELS "${id};answers;${labels}" TIMEOUT 60)
  endforeach()
  set(name "${prefix}${id} ${HALO_${id}_SLUG} / answers / the file is well-formed")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal check-answers-file --section "${id}" --file "${answers_file}")
  set_tests_properties("${name}" PROPERTIES LABELS "${id};answers;${labels}" TIMEOUT 60)
endfunction()

# The untouched answers file of a stub tree: every question must read "not answered".
function(halo_stub_answers_test id slug answers_file)
  set(name "stubs: ${id} ${slug} / every answer is unanswered")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal check-answers-file --section "${id}"
           --file "${answers_file}" --expect-status "not answered")
  set_tests_properties("${name}" PROPERTIES LABELS "${id};stubs" TIMEOUT 120)
endfunction()

function(halo_add_section id)
  set(slug "${HALO_${id}_SLUG}")
  set(folder "${HALO_${id}_FOLDER}")
  set(kernels "${HALO_${id}_KERNELS}")
  string(REPLACE "." "_" sid "${id}")  # 7.2 -> test_7_2
  file(GLOB tests CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/grader/sections/${folder}/*.cpp")

  if(kernels STREQUAL "")  # a section of questions only (7.1)
    if(HALO_MODE STREQUAL "grade")
      halo_answer_tests(${id} "" "${HALO_EXERCISES_DIR}/${folder}/answers.toml" "")
    else()
      halo_answer_tests(${id} "solutions: " "${PROJECT_SOURCE_DIR}/solutions/${folder}/answers.toml" "solutions")
      halo_stub_answers_test(${id} "${slug}" "${HALO_STUBS_DIR}/${folder}/answers.toml")
    endif()
    return()
  endif()
  if(tests STREQUAL "")  # listed in the manifest, tests not written yet: say so, loudly
    set(name "${id} ${slug} / build / the section has tests")
    add_test(NAME "${name}" COMMAND "${Python3_EXECUTABLE}" -c
             "import sys; print('no test sources in grader/sections/${folder}/'); sys.exit(1)")
    set_tests_properties("${name}" PROPERTIES LABELS "${id};build")
    return()
  endif()

  halo_judge(${sid} "${folder}" ${tests})
  set(cpu_tests "${HALO_${id}_cpu_TESTS}")
  set(cuda_tests "${HALO_${id}_cuda_TESTS}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${tests})  # a TEST_CASE renamed: list again
  set(bin "${CMAKE_CURRENT_BINARY_DIR}")

  if(HALO_MODE STREQUAL "grade")
    set(tree "${HALO_EXERCISES_DIR}/${folder}")
    halo_cpu_binary(test_${sid} ${sid} "${tree}" ${kernels})
    halo_register_tests("${bin}/test_${sid}" "" "" ${cpu_tests})
    halo_answer_tests(${id} "" "${tree}/answers.toml" "")
    if(HALO_HAVE_CUDA AND HALO_GPU_TESTS)
      halo_cuda_binary(test_${sid}_gpu "${folder}" "${tree}" ${kernels})
      halo_register_tests("${bin}/test_${sid}_gpu" "gpu:" "gpu" ${cuda_tests})
    endif()
    return()
  endif()

  # check: the reference solutions must pass everything...
  set(solutions "${PROJECT_SOURCE_DIR}/solutions/${folder}")
  halo_cpu_binary_per_file(test_${sid}_solutions test_${sid}_solution ${sid} "${solutions}" "${kernels}")
  halo_register_tests("${bin}/test_${sid}_solutions" "solutions:" "solutions" ${cpu_tests})
  halo_answer_tests(${id} "solutions: " "${solutions}/answers.toml" "solutions")
  # ...the list read from the sources is the list the judge holds...
  add_test(NAME "project: ${id} ${slug} / the test list read from the sources is the judge's"
           COMMAND ${HALO_WORKBOOK} internal compare-test-list --program "${bin}/test_${sid}_solutions" ${cpu_tests})
  set_tests_properties("project: ${id} ${slug} / the test list read from the sources is the judge's"
                       PROPERTIES LABELS "${id};project" TIMEOUT 120)
  if(HALO_HAVE_CUDA)
    halo_cuda_binary(test_${sid}_solutions_gpu "${folder}" "${solutions}" ${kernels})
    halo_register_tests("${bin}/test_${sid}_solutions_gpu" "gpu solutions:" "gpu;solutions" ${cuda_tests})
    foreach(tool memcheck racecheck)
      halo_gpu_sanitizer_test("${id}" "${id} ${slug} / ${tool} finds nothing in the reference solution"
                              test_${sid}_solutions_gpu ${tool})
    endforeach()
  endif()

  # ...every test of the untouched stubs must fail cleanly, pointing at the TODO...
  set(stubs "${HALO_STUBS_DIR}/${folder}")
  # The runtime names a file by its path below the source folder (source_lines.cpp).
  string(FIND "${stubs}" "${PROJECT_SOURCE_DIR}/" at)
  if(at EQUAL 0)
    file(RELATIVE_PATH shown "${PROJECT_SOURCE_DIR}" "${stubs}")
  else()
    set(shown "${stubs}")
  endif()
  halo_cpu_binary_per_file(test_${sid}_stubs test_${sid}_stub ${sid} "${stubs}" "${kernels}")
  add_test(NAME "stubs: ${id} ${slug} / every test fails cleanly"
           COMMAND ${HALO_WORKBOOK} internal expect-failure --every-test --binary "${bin}/test_${sid}_stubs"
                   --expect "still a stub: ${shown}/")
  set_tests_properties("stubs: ${id} ${slug} / every test fails cleanly" PROPERTIES LABELS "${id};stubs" TIMEOUT 600)
  halo_stub_answers_test(${id} "${slug}" "${stubs}/answers.toml")
  if(HALO_HAVE_CUDA)  # on a GPU a stub's TODO does nothing: its tests fail on what it never wrote
    halo_cuda_binary(test_${sid}_stubs_gpu "${folder}" "${stubs}" ${kernels})
    set(name "gpu stubs: ${id} ${slug} / every test fails cleanly")
    add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal expect-failure --every-test
             --binary $<TARGET_FILE:test_${sid}_stubs_gpu> --expect "ERROR:")
    set_tests_properties("${name}" PROPERTIES LABELS "${id};gpu;stubs" TIMEOUT 600 SKIP_RETURN_CODE 77
                         ENVIRONMENT "${HALO_GPU_TEST_ENVIRONMENT}")
  endif()

  # ...the tests of each kernel file, where its test source says which, depend on that file alone...
  halo_read_tests_of(${sid} "${folder}" "${kernels}")
  halo_add_tests_of_proofs(${id} ${sid} "${slug}" "${stubs}" "${kernels}")
  # ...and every known-wrong kernel must be caught with its diagnostic.
  halo_add_wrong_kernels(${id} ${sid} "${slug}" "${folder}" "${kernels}")
  # ...and every kernel of the learner corpus must get its verdict.
  halo_add_learner_kernels(${id} ${sid} "${slug}" "${folder}" "${kernels}")
endfunction()

# The learner corpus: grader/learners/<folder>.toml lists whole kernel files written as learners
# write them, each with its verdict (tools/halo/dev/learner_kernels.py).
function(halo_add_learner_kernels id sid slug folder kernels)
  set(spec "${PROJECT_SOURCE_DIR}/grader/learners/${folder}.toml")
  if(NOT EXISTS "${spec}")
    return()
  endif()
  set(out "${CMAKE_BINARY_DIR}/learners/${folder}")
  execute_process(COMMAND ${HALO_WORKBOOK} internal write-learner-kernels --section "${id}" --out "${out}"
                  OUTPUT_VARIABLE listing ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "Halo: cannot write the learner kernels of ${id}:\n${err}")
  endif()
  file(GLOB sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/grader/learners/${folder}/*")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${spec}" ${sources})
  string(REPLACE "\n" ";" lines "${listing}")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^learner\\|([^|]+)\\|([^|]+)\\|([^|]*)$")
      continue()
    endif()
    set(slug_dir "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    set(verdict "${CMAKE_MATCH_3}")
    string(MAKE_C_IDENTIFIER "${slug_dir}" nid)
    halo_tree_program(test_${sid}_learner_${nid} ${sid} "${folder}" "${out}/${slug_dir}" "${kernels}" leave_out)
    if(verdict STREQUAL "pass")
      set(test "learner kernels: ${id} ${slug} / ${name} passes")
    else()
      set(test "learner kernels: ${id} ${slug} / ${name} fails")
    endif()
    add_test(NAME "${test}" COMMAND ${HALO_WORKBOOK} internal learner-kernel
             --binary "${CMAKE_CURRENT_BINARY_DIR}/test_${sid}_learner_${nid}" --section "${id}" --name "${name}"
             ${leave_out})
    set_tests_properties("${test}" PROPERTIES LABELS "${id};learner-kernels" TIMEOUT 600)
  endforeach()
endfunction()

# The program of a kernel tree (a known-wrong or a learner kernel's) that keeps some of the
# reference's files: those link the reference's objects, not compiled again for each tree (no kernel
# file includes another; 7.9's two files took some 2.5 s each in the check's build), and the tests
# of those that a test source says it tests (halo_read_tests_of) are left out of its runs: they run
# the reference's object, so their verdict is the solution's (proven: halo_add_tests_of_proofs).
# 7.9's tensor-copy tests were 80 % of the CPU time of a speed-of-light kernel's whole run.
# `leave_out_var` gets the expect-failure options that leave them out.
function(halo_tree_program target sid folder dir kernels leave_out_var)
  set(changed "")
  set(shared "")
  set(leave_out "")
  foreach(kernel IN LISTS kernels)
    string(MAKE_C_IDENTIFIER "${kernel}" kid)
    file(SHA256 "${dir}/${kernel}" mine)
    file(SHA256 "${PROJECT_SOURCE_DIR}/solutions/${folder}/${kernel}" reference)
    if(TARGET test_${sid}_solution_${kid} AND mine STREQUAL reference)
      list(APPEND shared test_${sid}_solution_${kid})
      if(DEFINED HALO_TESTS_OF_${sid}_${kid})
        list(APPEND leave_out "--binary-arg=--source-file-exclude=*/${HALO_TESTS_OF_${sid}_${kid}}")
      endif()
    else()
      list(APPEND changed ${kernel})
    endif()
  endforeach()
  if(shared AND changed)
    halo_cpu_kernels(${target}_kernels "${dir}" ${changed})
    halo_cpu_program(${target} ${sid} "${dir}" ${target}_kernels ${shared})
  else()
    halo_cpu_binary(${target} ${sid} "${dir}" ${kernels})
    set(leave_out "")  # a tree that is the reference's whole runs every test
  endif()
  set(${leave_out_var} "${leave_out}" PARENT_SCOPE)
endfunction()

# A section of several kernel files whose test sources each test one of them say which, in a
# line `// Tests of: FILE`: HALO_TESTS_OF_<sid>_<file id> is that source's name, for the known-wrong
# kernels (below) to leave out the tests of the files they share with the reference.
function(halo_read_tests_of sid folder kernels)
  list(LENGTH kernels count)
  if(count LESS 2)
    return()
  endif()
  file(GLOB sources "${PROJECT_SOURCE_DIR}/grader/sections/${folder}/*.cpp")
  foreach(source IN LISTS sources)
    file(STRINGS "${source}" said REGEX "^// Tests of: ")
    if(said STREQUAL "")
      continue()
    endif()
    get_filename_component(name "${source}" NAME)
    if(NOT said MATCHES "^// Tests of: ([^ ;]+)$" OR NOT CMAKE_MATCH_1 IN_LIST kernels)
      message(FATAL_ERROR "Halo: ${name} says `${said}`: one line `// Tests of: FILE`, FILE one of ${kernels}")
    endif()
    string(MAKE_C_IDENTIFIER "${CMAKE_MATCH_1}" kid)
    if(DEFINED HALO_TESTS_OF_${sid}_${kid})
      message(FATAL_ERROR "Halo: ${name} and ${HALO_TESTS_OF_${sid}_${kid}} both say they test ${CMAKE_MATCH_1}")
    endif()
    set(HALO_TESTS_OF_${sid}_${kid} "${name}")
    set(HALO_TESTS_OF_${sid}_${kid} "${name}" PARENT_SCOPE)
  endforeach()
endfunction()

# What lets a known-wrong kernel leave out the tests of the files it shares with the reference:
# for each file that a test source says it tests, a program with that file the stub and every
# other file the reference's. Every test of that source must fail (they do run the file), and
# every other test must pass (none of them depends on the file).
function(halo_add_tests_of_proofs id sid slug stubs kernels)
  foreach(kernel IN LISTS kernels)
    string(MAKE_C_IDENTIFIER "${kernel}" kid)
    if(NOT DEFINED HALO_TESTS_OF_${sid}_${kid})
      continue()
    endif()
    set(source "${HALO_TESTS_OF_${sid}_${kid}}")
    set(others "")
    foreach(other IN LISTS kernels)
      string(MAKE_C_IDENTIFIER "${other}" oid)
      if(NOT other STREQUAL kernel)
        list(APPEND others test_${sid}_solution_${oid})
      endif()
    endforeach()
    set(target test_${sid}_stub_only_${kid})
    halo_cpu_program(${target} ${sid} "${stubs}" test_${sid}_stub_${kid} ${others})
    # One run each, judged by doctest's summary: a crash prints none, and a filter that left no
    # test is no proof (doctest passes a run of none).
    set(name "project: ${id} ${slug} / with ${kernel} the stub, every test of ${source} fails")
    add_test(NAME "${name}" COMMAND "${CMAKE_CURRENT_BINARY_DIR}/${target}" "--source-file=*/${source}")
    set_tests_properties("${name}" PROPERTIES LABELS "${id};project" TIMEOUT 600
                         PASS_REGULAR_EXPRESSION "test cases: +[1-9][0-9]* \\| +0 passed \\| +[1-9][0-9]* failed")
    set(name "project: ${id} ${slug} / with ${kernel} the stub, every test not of ${source} passes")
    add_test(NAME "${name}" COMMAND "${CMAKE_CURRENT_BINARY_DIR}/${target}" "--source-file-exclude=*/${source}")
    set_tests_properties("${name}" PROPERTIES LABELS "${id};project" TIMEOUT 600
                         FAIL_REGULAR_EXPRESSION "test cases: +0 \\|")
  endforeach()
endfunction()

# Known-wrong kernels: grader/wrong/<folder>.toml lists mutations of the reference solution;
# the tools write each mutant's tree at configure time.
function(halo_add_wrong_kernels id sid slug folder kernels)
  set(spec "${PROJECT_SOURCE_DIR}/grader/wrong/${folder}.toml")
  if(NOT EXISTS "${spec}")
    return()
  endif()
  set(out "${CMAKE_BINARY_DIR}/wrong/${folder}")
  execute_process(COMMAND ${HALO_WORKBOOK} internal write-wrong-kernels --section "${id}" --out "${out}"
                  OUTPUT_VARIABLE listing ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "Halo: cannot write the known-wrong kernels of ${id}:\n${err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${spec}")
  foreach(kernel IN LISTS kernels)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/solutions/${folder}/${kernel}")
  endforeach()
  string(REPLACE "\n" ";" lines "${listing}")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^wrong\\|([^|]+)\\|([^|]+)\\|([^|]*)$")
      continue()
    endif()
    set(slug_dir "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    set(gpu_tool "${CMAKE_MATCH_3}")
    string(MAKE_C_IDENTIFIER "${slug_dir}" nid)
    halo_tree_program(test_${sid}_wrong_${nid} ${sid} "${folder}" "${out}/${slug_dir}" "${kernels}" leave_out)
    set(test "wrong kernels: ${id} ${slug} / ${name} is caught")
    add_test(NAME "${test}" COMMAND ${HALO_WORKBOOK} internal expect-failure
             --binary "${CMAKE_CURRENT_BINARY_DIR}/test_${sid}_wrong_${nid}" --wrong-kernel "${id}" "${name}" ${leave_out})
    set_tests_properties("${test}" PROPERTIES LABELS "${id};wrong-kernels" TIMEOUT 600)
    # Marked in the .toml: NVIDIA's own tool must catch it on a GPU too.
    if(NOT gpu_tool STREQUAL "" AND HALO_HAVE_CUDA AND HALO_COMPUTE_SANITIZER)
      halo_cuda_binary(test_${sid}_wrong_${nid}_gpu "${folder}" "${out}/${slug_dir}" ${kernels})
      halo_gpu_sanitizer_test("${id}" "${id} ${slug} / ${name} is caught by ${gpu_tool}" test_${sid}_wrong_${nid}_gpu
                              ${gpu_tool} --must-catch)
    endif()
  endforeach()
endfunction()

# A GPU binary run under compute-sanitizer (memcheck or racecheck) by tools/halo/dev/gpu_sanitizer.py:
# the correct-kind tests only (the load tests need the load counter, which cannot run under
# the sanitizer). Skipped (77) without a device. Extra arguments (--must-catch) go to the script.
function(halo_gpu_sanitizer_test id description target tool)
  if(NOT HALO_COMPUTE_SANITIZER)
    return()
  endif()
  set(name "gpu sanitizer: ${description}")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal gpu-sanitizer --sanitizer "${HALO_COMPUTE_SANITIZER}"
           --tool ${tool} --binary $<TARGET_FILE:${target}> --tests "*/ correct /*" ${ARGN})
  set_tests_properties("${name}" PROPERTIES LABELS "${id};gpu;sanitizer" TIMEOUT 900 SKIP_RETURN_CODE 77)
endfunction()

# The red-team suite (grader/redteam/, tools/halo/dev/redteam.py): every hostile submission must score
# no more than the untouched stub and leave no trace, graded as a student's tree, by the instructor's
# grade-class, and through the Gradescope autograder as root and as an unprivileged user. The
# autograder's users are passes of one test: each pass grades every attack as its user, and every
# pass after the first starts from the fake root and the build of the judges and the runtime that
# the first made (given to its user), so the zip is exported and built once, not once a user. Where
# bubblewrap cannot start, the grader falls back to limits and the privilege drop: one attack of
# each technique also runs through the autograder that way, as a last pass as root
# (--without-bubblewrap), from the same fake root and build; and the attack on the machine's copy
# of the grader's libraries, which without bubblewrap the worker can reach (only the ownership
# keeps it out: core/grader_cache.py).
set(HALO_REDTEAM_FALLBACK_ATTACKS
  exit-destructor-underscore-exit list-invented-names results-junit-rewrite tamper-results-module
  buildtime-detached-rewriter loads-5x-record-overwrite secret-env-in-failure-message variant-alice-answers-7.2
  fork-bomb detached-gradescope-rewrite doctest-success-lines loads-5x-inline-asm tamper-machine-grader)

# COST: seconds, an order hint (see halo_add_project_checks below); the autograder entry's is its two
# former entries' 247 + 192 s.
function(halo_add_redteam_checks)
  set(name "project: red team: every hostile submission graded by ./workbook grade scores no more than the stub")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} redteam --mode grade --working-tree)
  set_tests_properties("${name}" PROPERTIES LABELS "project;trust;redteam" TIMEOUT 3600 COST 135)
  set(name "project: red team: every hostile submission graded by ./workbook grade-class scores no more than the stub")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} redteam --mode grade-class --working-tree)
  set_tests_properties("${name}" PROPERTIES LABELS "project;trust;redteam;course" TIMEOUT 3600 COST 194)
  set(fallback "")
  foreach(attack IN LISTS HALO_REDTEAM_FALLBACK_ATTACKS)
    list(APPEND fallback --without-bubblewrap ${attack})
  endforeach()
  set(name "project: red team: every hostile submission through the Gradescope autograder, as root and as nobody, and one attack of each technique without bubblewrap")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} redteam --mode autograder --working-tree --users root,nobody ${fallback})
  set_tests_properties("${name}" PROPERTIES LABELS "project;trust;redteam" TIMEOUT 3600 SKIP_RETURN_CODE 77 COST 439)
endfunction()

# Checks of the project itself that are not about one section. The long ones carry a COST: their
# seconds in the fresh-clone CI of 6516179 (docs/results/check-times.md). CTest starts tests in
# descending cost (a fresh clone has no CTestCostData.txt of its own), so `-j2` starts the longest
# first and fills the gaps with the section tests, rather than ending on one long test alone (in
# that CI the Dev Container, declared late, ran its last 79 s with the other core idle). A hint for
# the order only: no test's verdict depends on it.
function(halo_add_project_checks)
  halo_add_redteam_checks()
  add_test(NAME "project: exercises/ is what the generator writes from solutions/"
           COMMAND ${HALO_WORKBOOK} sync --check --committed)
  set_tests_properties("project: exercises/ is what the generator writes from solutions/"
                       PROPERTIES LABELS "project" TIMEOUT 1200)
  # The tools' unit suite in groups (tools/tests/suite_groups.py), so that -j2 runs its slow
  # modules beside the rest; tests/test_suite_groups.py holds this list to the groups there.
  set(HALO_UNIT_TEST_GROUPS ir-corpus handouts rest)
  set(HALO_UNIT_TEST_COST_ir-corpus 63)
  set(HALO_UNIT_TEST_COST_handouts 69)
  set(HALO_UNIT_TEST_COST_rest 177)
  foreach(group IN LISTS HALO_UNIT_TEST_GROUPS)
    set(name "project: Python tools unit tests (${group})")
    add_test(NAME "${name}" COMMAND "${Python3_EXECUTABLE}" -m tests.suite_groups ${group}
             WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/tools")
    set_tests_properties("${name}" PROPERTIES LABELS "project;unit" TIMEOUT 1200 COST ${HALO_UNIT_TEST_COST_${group}})
  endforeach()
  # The IR corpus asks this build's record for the kernel files its compile launcher validated
  # (core/validated_record.py), and compiles and reads only the others (the red team's attempts).
  set_property(TEST "project: Python tools unit tests (ir-corpus)" PROPERTY
               ENVIRONMENT "HALO_VALIDATED_KERNELS=${HALO_VALIDATED_KERNELS}")
  # Debug info in the kernel files and not in the grader's own code, which a student's first grade
  # compiles all of (tools/halo/dev/grader_flags.py, from this build's compile commands). Under a second.
  if(NOT HALO_DEBUG_GRADER)
    set(name "project: a grade build compiles the grader without debug info and the kernel files with it")
    add_test(NAME "${name}" COMMAND "${Python3_EXECUTABLE}" -m halo.dev.grader_flags
             "${CMAKE_BINARY_DIR}/compile_commands.json" WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/tools")
    set_tests_properties("${name}" PROPERTIES LABELS "project" TIMEOUT 60)
  endif()
  # Minutes, not seconds: the zip's run_autograder grades three whole submissions. Its build
  # folder is kept under this build, so a later run only recompiles what changed.
  set(name "project: the Gradescope autograder grades solutions, stubs and a broken submission")
  add_test(NAME "${name}" COMMAND "${Python3_EXECUTABLE}" -m halo.course.autograder_check
           --work "${CMAKE_BINARY_DIR}/autograder-check" WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/tools")
  set_tests_properties("${name}" PROPERTIES LABELS "project" TIMEOUT 1800 COST 85)
  # The term of docs/instructor.md, its commands read from the page and run in a clone of the last
  # commit: release, Classroom workflow, Gradescope zip, then grade-class on a generated class of 20
  # (reference, stubs, known-wrong kernels, a compile error, an endless loop, a crash, a hostile
  # one): every gradebook row as expected; then three Classroom clones graded by a due date, a
  # late policy and an extension, with an adjustment and the Canvas/Moodle imports (term_classroom.py).
  # 5 min 19 s in all on the 2-core machine at load 9 with a cold harness; the clones add 35 s.
  set(name "project: the term of docs/instructor.md runs, and grade-class scores a generated class of 20 right")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal check-term --work "${CMAKE_BINARY_DIR}/term-check")
  set_tests_properties("${name}" PROPERTIES LABELS "project;course" TIMEOUT 1800 COST 91)
  # grade-class as Slurm jobs on a real one-node Slurm (munged, slurmctld, slurmd started as root
  # from a temporary folder; installed when missing): the class of 20 as a harness job, an array
  # of 4 shards and a collect job, every row checked; a shard run twice at once and one killed
  # mid-way. 133 s with the harness warm on the 2-core machine at load 5 (343 s at load 15; a cold
  # harness adds about 2 minutes); fails, saying why, if Slurm cannot start.
  set(name "project: grade-class as a Slurm job array grades the class of 20 right, reruns and a kill included")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal check-slurm --work "${CMAKE_BINARY_DIR}/slurm-check")
  set_tests_properties("${name}" PROPERTIES LABELS "project;course;slurm" TIMEOUT 900 COST 132)
  # The paths a student takes, in a clone: grade, plain `ctest -L 7.2` (which rebuilds first) and
  # the workflow preset fail a wrong kernel with its message; the README and lessons quote real runs.
  # The clone is the first-run checks' (one at a time): each puts it back to the last commit first,
  # and the whole chapter's grade build, which the workflow preset and check-untouched-stubs both
  # make, is then made once rather than twice.
  set(name "project: grade, plain ctest and the workflow preset tell the truth; the docs quote real runs")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal check-student-path --work "${CMAKE_BINARY_DIR}/first-run-check")
  set_tests_properties("${name}" PROPERTIES LABELS "project;student" TIMEOUT 1800 RESOURCE_LOCK first-run-clone COST 106)
  # A new student's first grades, in a clone: the untouched stubs' whole-chapter grade is a line a
  # section and the table (at most 60 lines), "Next:" on 7.2; a 7.2 file that does not compile is
  # said so, from the repository root. On the 2-core machine at load 2 to 3: 109 s from a fresh clone,
  # 36 s again (its build is kept); on main before issue 36 item 3 it failed 13 ways.
  set(name "project: the first grade of untouched stubs is a line a section and the table")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal check-first-run --work "${CMAKE_BINARY_DIR}/first-run-check")
  set_tests_properties("${name}" PROPERTIES LABELS "project;student" TIMEOUT 900 RESOURCE_LOCK first-run-clone)
  # An untouched stub is judged without building or running it (core/untouched_stubs.py): in the
  # same clone (one at a time), 7.2 written and every other section untouched grade the same with the shortcut as with
  # HALO_RUN_STUBS=1, and a 7.3 stub with one byte more is built and run. 151 s from a fresh clone
  # on the 2-core machine at load 4 to 10 (it builds every section once, for the real run).
  set(name "project: an untouched stub judged without a run grades as a real run of it")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal check-untouched-stubs --work "${CMAKE_BINARY_DIR}/first-run-check")
  set_tests_properties("${name}" PROPERTIES LABELS "project;student" TIMEOUT 900 RESOURCE_LOCK first-run-clone)
  # The Dev Container of the last commit, built by rootful podman for linux/amd64 from a Debian 12
  # that mmdebstrap makes (cached under build/container/), graded in as its non-root user: the
  # reference 7.2 passes, a known-wrong kernel fails with its message, the limits-only note comes
  # once. 188 s from nothing on the 2-core machine (docs/results/container.md). linux/arm64 under
  # qemu is `./workbook check --container --arch arm64`, by hand: too slow for CI.
  set(name "project: the Dev Container's linux/amd64 image builds with podman and grades 7.2 right")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} check --container --build-dir "${CMAKE_BINARY_DIR}/container-check")
  set_tests_properties("${name}" PROPERTIES LABELS "project;container" TIMEOUT 1200 COST 166)
  # The grader cache's key leaves out the chapter and the kernels' given headers, so that trees of
  # other chapters (a release, the Gradescope zip) share one build of the libraries: no compile of
  # theirs may read them. The judges' key (core/judge_cache.py) hashes what they read of the tree:
  # none may read more, or name the tree.
  set(name "project: the grader's libraries and judges read nothing their cache keys leave out")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal check-libraries-left-out --build-dir "${CMAKE_BINARY_DIR}")
  set_tests_properties("${name}" PROPERTIES LABELS "project;trust")
  # A student release of 7.2 and 7.4 made from the last commit: grade builds in it, fails the
  # stubs, passes the reference kernels with full points, and refuses the instructor editions.
  set(name "project: a release of 7.2 and 7.4 grades stubs and reference kernels right")
  add_test(NAME "${name}" COMMAND ${HALO_WORKBOOK} internal check-release --work "${CMAKE_BINARY_DIR}/release-check")
  set_tests_properties("${name}" PROPERTIES LABELS "project;course" TIMEOUT 1800)
  # A printed seed must replay a failing run exactly, first diagnostic included: one wrong
  # kernel stopped by an out-of-bounds access, one caught by the race checks across blocks.
  set(replayed "")
  foreach(target test_7_2_wrong_ghost_cells_not_skipped test_7_5_wrong_no_barrier_after_filling_the_tile)
    if(TARGET ${target}_worker)
      list(APPEND replayed "${CMAKE_CURRENT_BINARY_DIR}/${target}")
    endif()
  endforeach()
  if(replayed)
    add_test(NAME "project: replaying a seed reproduces the same diagnostics"
             COMMAND ${HALO_WORKBOOK} internal replay-check ${replayed})
    set_tests_properties("project: replaying a seed reproduces the same diagnostics" PROPERTIES LABELS "project" TIMEOUT 600)
  endif()
endfunction()
