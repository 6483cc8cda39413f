# The GPU side of the grader's instruments, built with the CUDA backend:
#  - the load counter (grader/cuda/loadcount): a Compute Sanitizer API tool preloaded into the
#    GPU test binaries, so that their load tests count global loads on the hardware. Built when
#    the Sanitizer API headers are found: the full CUDA toolkit has them in
#    <cuda>/compute-sanitizer, PyPI's nvidia-cuda-sanitizer-api in nvidia/cu13 (the bootstrap
#    installs that package into build/.deps when nvcc is present). Without them the GPU load
#    tests report "skipped", never "passed".
#  - compute-sanitizer itself (same places), for the memcheck and racecheck tests.
#
# Sets HALO_GPU_TEST_ENVIRONMENT (for CTest's ENVIRONMENT property of every GPU test) and
# HALO_COMPUTE_SANITIZER (empty when not found).

set(HALO_SANITIZER_ROOT "" CACHE PATH "Where the Compute Sanitizer API lives (include/sanitizer.h, lib*/libsanitizer-public.so)")
get_filename_component(_halo_cuda_bin "${CMAKE_CUDA_COMPILER}" DIRECTORY)
get_filename_component(_halo_cuda_root "${_halo_cuda_bin}" DIRECTORY)
set(_halo_sanitizer_roots ${HALO_SANITIZER_ROOT} "${_halo_cuda_root}/compute-sanitizer" /usr/local/cuda/compute-sanitizer)

find_path(HALO_SANITIZER_INCLUDE_DIR sanitizer.h PATHS ${_halo_sanitizer_roots} PATH_SUFFIXES include NO_DEFAULT_PATH)
find_library(HALO_SANITIZER_LIBRARY sanitizer-public PATHS ${_halo_sanitizer_roots} PATH_SUFFIXES lib lib64 "" NO_DEFAULT_PATH)
find_program(HALO_COMPUTE_SANITIZER compute-sanitizer PATHS ${_halo_sanitizer_roots} "${_halo_cuda_bin}"
             PATH_SUFFIXES bin "" NO_DEFAULT_PATH)
if(NOT HALO_COMPUTE_SANITIZER)
  set(HALO_COMPUTE_SANITIZER "")
endif()

set(HALO_GPU_TEST_ENVIRONMENT "")
if(HALO_SANITIZER_INCLUDE_DIR AND HALO_SANITIZER_LIBRARY)
  set(_halo_lc "${PROJECT_SOURCE_DIR}/grader/cuda/loadcount")
  set(_halo_patch "${CMAKE_CURRENT_BINARY_DIR}/halo_loadcount_patch.fatbin")
  # The patch is device code the sanitizer inserts before every global access: a fatbin for
  # each architecture the tests are built for.
  set(_halo_patch_archs "")
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    string(REGEX REPLACE "[^0-9]" "" arch_num "${arch}")
    list(APPEND _halo_patch_archs "-gencode=arch=compute_${arch_num},code=sm_${arch_num}")
  endforeach()
  add_custom_command(
    OUTPUT "${_halo_patch}"
    COMMAND "${CMAKE_CUDA_COMPILER}" --fatbin --compile-as-tools-patch ${_halo_patch_archs}
            -I "${HALO_SANITIZER_INCLUDE_DIR}" -o "${_halo_patch}" "${_halo_lc}/patch.cu"
    DEPENDS "${_halo_lc}/patch.cu" "${_halo_lc}/counters.hpp"
    COMMENT "Building the load counter's instruction patch")
  add_custom_target(halo_loadcount_patch ALL DEPENDS "${_halo_patch}")

  add_library(halo_loadcount SHARED "${_halo_lc}/tool.cpp")
  target_include_directories(halo_loadcount PRIVATE "${HALO_SANITIZER_INCLUDE_DIR}" ${CUDAToolkit_INCLUDE_DIRS}
                             "${_halo_cuda_root}/include")
  target_compile_options(halo_loadcount PRIVATE -O2 -Wall)
  target_link_libraries(halo_loadcount PRIVATE "${HALO_SANITIZER_LIBRARY}" Threads::Threads)
  add_dependencies(halo_loadcount halo_loadcount_patch)
  set(HALO_GPU_TEST_ENVIRONMENT
      "LD_PRELOAD=$<TARGET_FILE:halo_loadcount>" "HALO_LOADCOUNT_PATCH=${_halo_patch}")
  message(STATUS "Halo: GPU load counter built with the Sanitizer API in ${HALO_SANITIZER_INCLUDE_DIR}")
else()
  message(STATUS "Halo: no Compute Sanitizer API headers (full CUDA toolkit, or pip's nvidia-cuda-sanitizer-api; "
                 "set HALO_SANITIZER_ROOT): the GPU load counter is not built and GPU load tests will be skipped")
endif()
if(NOT HALO_COMPUTE_SANITIZER)
  message(STATUS "Halo: compute-sanitizer not found: no GPU memcheck/racecheck tests")
endif()
