# The probe-overhead kernel suite (bench/kernels/) and build/bin/quanta-bench-probes.
# Every kernel is built once plain and once per mode (plus a probe-counting build per
# mode) into build/lib/quanta-kernels/<kernel>-<variant>.
if(TARGET quanta_runtime AND TARGET nlohmann_json::nlohmann_json)
  include(${CMAKE_CURRENT_LIST_DIR}/Instrument.cmake)
  set(kdir ${CMAKE_CURRENT_LIST_DIR}/../bench/kernels)
  set(QUANTA_KERNEL_OUT ${CMAKE_BINARY_DIR}/lib/quanta-kernels)
  set(QUANTA_KERNELS matmul lu cholesky fft radix_sort kmeans pca histogram string_match
      word_count linear_regression hash_lookup pointer_chase nbody)

  add_library(quanta_kernel_harness OBJECT ${kdir}/harness.c)
  target_include_directories(quanta_kernel_harness PRIVATE ${QUANTA_ROOT}/include ${kdir})

  # Loops start on 64-byte boundaries in every build: otherwise where the linker puts
  # kernel_run decides how the hot loops sit in the op cache's windows, and that alone
  # moved word_count's clock overhead from -0.8% to +17.3% (the same machine code, 160
  # bytes further on). Plain and instrumented builds get the same rule.
  set(kernel_cflags -O3 -falign-loops=64)
  set(kernel_targets)
  foreach(k ${QUANTA_KERNELS})
    # The plain twin: the kernel compiled plain under other names (kernel_run_plain, ...),
    # linked into each timed instrumented build, so that one process times both, run by
    # run in turn (harness.c): the host's slow stretches and the process's own page
    # placement then hit them alike.
    set(twin qk-${k}-plain-twin)
    add_library(${twin} OBJECT ${kdir}/${k}.c)
    target_include_directories(${twin} PRIVATE ${kdir})
    target_compile_options(${twin} PRIVATE ${kernel_cflags})
    target_compile_definitions(${twin} PRIVATE kernel_run=kernel_run_plain kernel_init=kernel_init_plain
                                               kernel_name=kernel_name_plain)
    foreach(v plain clock flag counter clock-count flag-count counter-count)
      set(t qk-${k}-${v})
      set(srcs ${kdir}/${k}.c $<TARGET_OBJECTS:quanta_kernel_harness>)
      if(v MATCHES "^(clock|flag|counter)$")
        list(APPEND srcs $<TARGET_OBJECTS:${twin}>)
      endif()
      add_executable(${t} ${srcs})
      target_include_directories(${t} PRIVATE ${kdir})
      target_compile_options(${t} PRIVATE ${kernel_cflags})
      target_link_libraries(${t} PRIVATE quanta_runtime m)
      set_target_properties(${t} PROPERTIES OUTPUT_NAME ${k}-${v}
                            RUNTIME_OUTPUT_DIRECTORY ${QUANTA_KERNEL_OUT})
      if(v MATCHES "^(clock|flag|counter)-count$")
        string(REPLACE "-count" "" mode ${v})
        quanta_instrument(${t} ${mode} "SHELL:-mllvm -quanta-count-probes")
      elseif(NOT v STREQUAL "plain")
        quanta_instrument(${t} ${v})
      endif()
      list(APPEND kernel_targets ${t})
    endforeach()
  endforeach()

  add_executable(quanta-bench-probes ${kdir}/probes_main.cc)
  target_link_libraries(quanta-bench-probes PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(quanta-bench-probes PRIVATE QUANTA_KERNEL_DIR="${QUANTA_KERNEL_OUT}")
  add_dependencies(quanta-bench-probes ${kernel_targets})
endif()
