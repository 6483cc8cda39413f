# The grader's libraries imported from HALO_GRADER_LIBS, a folder of them built from the same
# sources with the same toolchain (tools/halo/core/grader_cache.py decides that, by the hash of
# every input). Each imported target has the name and the usage requirements that
# HaloGraderLibraries.cmake gives the built one, so that nothing else in the build differs: a
# grade build needs the judge's and the worker's (halo_testing_cpu is check mode's only).
foreach(name IN ITEMS halo_platform halo_cpu_runtime halo_judge_runtime halo_worker_main halo_testing_judge)
  set(archive "${HALO_GRADER_LIBS}/lib${name}.a")
  if(NOT EXISTS "${archive}")
    message(FATAL_ERROR "Halo: HALO_GRADER_LIBS=${HALO_GRADER_LIBS} has no lib${name}.a")
  endif()
  add_library(${name} STATIC IMPORTED)
  set_target_properties(${name} PROPERTIES IMPORTED_LOCATION "${archive}")
endforeach()

set(include "${CMAKE_CURRENT_SOURCE_DIR}/include")
target_link_libraries(halo_platform INTERFACE Threads::Threads ${CMAKE_DL_LIBS})
foreach(runtime IN ITEMS halo_cpu_runtime halo_judge_runtime)
  target_include_directories(${runtime} INTERFACE "${include}")
  target_link_libraries(${runtime} INTERFACE halo_platform halo_project_root Boost::context Threads::Threads
                        ${CMAKE_DL_LIBS})
endforeach()
target_link_libraries(halo_worker_main INTERFACE halo_cpu_runtime)
file(MAKE_DIRECTORY "${HALO_GENERATED_INCLUDE}")  # an imported target's include folders must exist
target_include_directories(halo_testing_judge INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/testing" "${HALO_GENERATED_INCLUDE}")
target_compile_definitions(halo_testing_judge INTERFACE HALO_BACKEND_CPU=1 HALO_JUDGE=1)
target_link_libraries(halo_testing_judge INTERFACE halo_judge_runtime doctest::doctest)
