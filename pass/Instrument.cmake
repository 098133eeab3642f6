# quanta_instrument(<target> [clock|flag|counter] [extra compile options...])
# Compiles every source of <target> with the quanta pass in that mode (default clock).
#
# Two users, one file: the tree itself (include this file from any directory; the plugin
# target quanta-pass may be defined later in the configure, dependencies resolve at
# generate time) and the installed CMake package, whose quantaConfig.cmake sets the
# variables below before including its copy of this file:
#   QUANTA_PASS_SO         the plugin (default: this build's lib/libquanta-pass.so)
#   QUANTA_PASS_TARGET     the target that builds it, if this project does (default
#                          quanta-pass; empty for an installed plugin)
#   QUANTA_INSTRUMENT_LINK ON: also link the runtime, quanta::shared into a shared library
#                          or module (as quanta-clang -shared does), quanta::quanta into
#                          anything else. OFF in the tree: its targets link what they test.
# The function reads them when it is called, so they must be visible there.
if(NOT QUANTA_PASS_SO)
  set(QUANTA_PASS_SO ${CMAKE_BINARY_DIR}/lib/libquanta-pass.so)
endif()
if(NOT DEFINED QUANTA_PASS_TARGET)
  set(QUANTA_PASS_TARGET quanta-pass)
endif()

function(quanta_instrument target)
  set(mode clock)
  set(extra ${ARGN})
  if(ARGC GREATER 1 AND ARGV1 MATCHES "^(clock|flag|counter)$")
    set(mode ${ARGV1})
    list(REMOVE_AT extra 0)
  elseif(ARGC GREATER 1 AND NOT ARGV1 MATCHES "^-|^SHELL:|^\\$<")
    message(FATAL_ERROR "quanta_instrument(${target} ${ARGV1}): unknown mode '${ARGV1}'; "
                        "expected clock, flag or counter")
  endif()
  target_compile_options(${target} PRIVATE
    -fpass-plugin=${QUANTA_PASS_SO}
    "SHELL:-Xclang -load -Xclang ${QUANTA_PASS_SO}"
    "SHELL:-mllvm -quanta-mode=${mode}"
    # As quanta-clang does: a frame larger than the one guard page probes it (faults there)
    # instead of stepping over it into the next task's stack.
    -fstack-clash-protection
    ${extra})
  if(QUANTA_PASS_TARGET)
    add_dependencies(${target} ${QUANTA_PASS_TARGET})
  endif()
  if(QUANTA_INSTRUMENT_LINK)
    get_target_property(type ${target} TYPE)
    if(type MATCHES "^(SHARED|MODULE)_LIBRARY$")
      target_link_libraries(${target} PRIVATE quanta::shared)
    else()
      target_link_libraries(${target} PRIVATE quanta::quanta)
    endif()
  endif()
  get_target_property(srcs ${target} SOURCES)
  # Rebuild instrumented objects when the plugin changes.
  set_source_files_properties(${srcs} TARGET_DIRECTORY ${target}
                              PROPERTIES OBJECT_DEPENDS ${QUANTA_PASS_SO})
endfunction()
