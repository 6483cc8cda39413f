# The grader's libraries built from its sources (grader/CMakeLists.txt includes this unless
# HALO_GRADER_LIBS names a build of them to import: HaloImportedGraderLibraries.cmake). Paths are
# relative to grader/, as in the file that includes this. No library here may hold a path of its
# tree (halo_project_root, built in every tree, does): one build serves every tree of the same
# sources.
add_library(halo_platform STATIC ${HALO_PLATFORM_SOURCES})
target_compile_options(halo_platform PRIVATE ${HALO_COLD_OPTIONS})
target_link_libraries(halo_platform PUBLIC Threads::Threads ${CMAKE_DL_LIBS})

# ---- CPU backend runtime (not instrumented: only kernels are)
# The part of it the judge holds too (device memory, the launch record, source lines), and the
# judge's and the worker's framing: compiled once and linked into both, where each library used to
# compile its own copy with the same flags.
add_library(halo_runtime_common OBJECT
  cpu/code_context.cpp cpu/cuda_runtime.cpp cpu/memory_registry.cpp cpu/launch_record.cpp cpu/source_lines.cpp)
target_include_directories(halo_runtime_common PUBLIC include)
target_compile_options(halo_runtime_common PRIVATE ${HALO_HOT_OPTIONS})
target_link_libraries(halo_runtime_common PUBLIC Boost::context Threads::Threads)
add_library(halo_remote_wire OBJECT remote/frame.cpp remote/record_wire.cpp)
target_include_directories(halo_remote_wire PUBLIC include)
target_compile_options(halo_remote_wire PRIVATE ${HALO_HOT_OPTIONS})
target_link_libraries(halo_remote_wire PUBLIC Boost::context Threads::Threads)

# Its cold half: a fault's or a sanitizer's report, a stub's TODO reached, a kernel's printf.
add_library(halo_cpu_runtime_cold OBJECT cpu/faults.cpp cpu/kernel_output.cpp cpu/stub_todo.cpp cpu/ubsan_handlers.cpp)
target_compile_options(halo_cpu_runtime_cold PRIVATE ${HALO_COLD_OPTIONS})
target_link_libraries(halo_cpu_runtime_cold PUBLIC halo_platform Boost::context Threads::Threads)
target_include_directories(halo_cpu_runtime_cold PUBLIC include)
add_library(halo_cpu_runtime STATIC
  cpu/access_check.cpp cpu/alignment_check.cpp cpu/atomics.cpp cpu/block_race.cpp cpu/constant_bounds.cpp
  cpu/scheduler.cpp cpu/shared_shadow.cpp cpu/tensor_copy.cpp
  $<TARGET_OBJECTS:halo_cpu_runtime_cold> $<TARGET_OBJECTS:halo_runtime_common>)
target_include_directories(halo_cpu_runtime PUBLIC include)
target_compile_options(halo_cpu_runtime PRIVATE ${HALO_HOT_OPTIONS})
target_link_libraries(halo_cpu_runtime PUBLIC halo_platform halo_project_root Boost::context Threads::Threads ${CMAKE_DL_LIBS})

# ---- judge and worker (docs/grader.md, "Trust"): the judge is a section's tests with no student
# code; the worker is the student's kernels on the CPU backend, answering the judge over a socket
# from inside a sandbox. The judge keeps device memory and the record, never runs a kernel.
add_library(halo_judge_runtime STATIC remote/judge_client.cpp ${HALO_PLATFORM_WORKER_SOURCES}
            $<TARGET_OBJECTS:halo_runtime_common> $<TARGET_OBJECTS:halo_remote_wire>)
target_include_directories(halo_judge_runtime PUBLIC include)
target_compile_options(halo_judge_runtime PRIVATE ${HALO_COLD_OPTIONS})
target_link_libraries(halo_judge_runtime PUBLIC halo_platform halo_project_root Boost::context Threads::Threads ${CMAKE_DL_LIBS})

add_library(halo_worker_main STATIC remote/worker_main.cpp $<TARGET_OBJECTS:halo_remote_wire>)
target_compile_options(halo_worker_main PRIVATE ${HALO_COLD_OPTIONS})
target_link_libraries(halo_worker_main PUBLIC halo_cpu_runtime)

# ---- test support shared by every section: the judge's build, the CUDA backend's build, and a
# local build (kernels linked in) for the runtime's own tests and the CPU benchmarks
# One test-support library over `runtime`, with `definitions`: its hot sources in it, its cold
# ones in `name`_cold (an object library of its own, since options are a target's).
function(halo_testing_library name runtime definitions)
  add_library(${name}_cold OBJECT ${HALO_TESTING_COLD_SOURCES})
  target_compile_options(${name}_cold PRIVATE -O0 ${HALO_GRADER_DEBUG})
  add_library(${name} STATIC ${HALO_TESTING_HOT_SOURCES} $<TARGET_OBJECTS:${name}_cold>)
  target_compile_options(${name} PRIVATE -O2 ${HALO_GRADER_DEBUG})
  # The chapter's generated headers are for what links it (the judges), never its own sources: the
  # grader cache's key leaves the chapter out (core/grader_cache.py), so that trees of other
  # chapters (a release, the Gradescope zip) import one build; a source that included one would
  # not compile here.
  foreach(target IN ITEMS ${name} ${name}_cold)
    target_include_directories(${target} PUBLIC testing INTERFACE "${HALO_GENERATED_INCLUDE}")
    target_compile_definitions(${target} PUBLIC ${definitions})
    target_link_libraries(${target} PUBLIC ${runtime} doctest::doctest)
  endforeach()
  set_target_properties(${name} ${name}_cold PROPERTIES UNITY_BUILD ON)
endfunction()
halo_testing_library(halo_testing_judge halo_judge_runtime "HALO_BACKEND_CPU=1;HALO_JUDGE=1")
halo_testing_library(halo_testing_cpu halo_cpu_runtime "HALO_BACKEND_CPU=1")

# doctest's runner defines DOCTEST_CONFIG_IMPLEMENT before its first include of doctest: alone.
set_source_files_properties(testing/test_main.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
# Each library compiles as a few large files rather than one per source: the headers every source
# includes are parsed once per batch, not once per file. kernel_output.cpp replaces C library
# functions (putchar, ...) and is compiled alone.
set_target_properties(halo_platform halo_runtime_common halo_remote_wire halo_cpu_runtime halo_cpu_runtime_cold
                      halo_judge_runtime halo_worker_main PROPERTIES UNITY_BUILD ON)
set_source_files_properties(cpu/kernel_output.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
