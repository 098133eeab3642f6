# quanta_instrument(<target> <mode> [extra compile options...])
# Compiles every source of <target> with the quanta pass in <mode> (clock, flag, counter).
# Usable from any directory of the project (include this file); the plugin target
# quanta-pass may be defined later in the configure, dependencies resolve at generate time.
if(NOT QUANTA_PASS_SO)
  set(QUANTA_PASS_SO ${CMAKE_BINARY_DIR}/lib/libquanta-pass.so)
endif()
function(quanta_instrument target mode)
  target_compile_options(${target} PRIVATE
    -fpass-plugin=${QUANTA_PASS_SO}
    "SHELL:-Xclang -load -Xclang ${QUANTA_PASS_SO}"
    "SHELL:-mllvm -quanta-mode=${mode}"
    ${ARGN})
  add_dependencies(${target} quanta-pass)
  get_target_property(srcs ${target} SOURCES)
  # Rebuild instrumented objects when the plugin changes.
  set_source_files_properties(${srcs} TARGET_DIRECTORY ${target}
                              PROPERTIES OBJECT_DEPENDS ${QUANTA_PASS_SO})
endfunction()
