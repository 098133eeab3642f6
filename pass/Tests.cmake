# lit + FileCheck tests of the placement rules (tests/pass/*.ll, *.c, *.cpp).
set(QUANTA_PASS_TEST_DIR ${CMAKE_CURRENT_LIST_DIR}/../tests/pass)
configure_file(${QUANTA_PASS_TEST_DIR}/lit.site.cfg.py.in
               ${CMAKE_CURRENT_BINARY_DIR}/lit-tests/lit.site.cfg.py @ONLY)
add_test(NAME pass-lit
         COMMAND python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv
                 ${CMAKE_CURRENT_BINARY_DIR}/lit-tests)
# The tests need the plugin (and, for the wrapper tests, the wrappers) to be built.
set_tests_properties(pass-lit PROPERTIES LABELS "pass")

# Runtime tests: handlers compiled with the pass, driven through the preemptible-function
# API of the runtime (needs the quanta_runtime target, i.e. the top-level build).
if(TARGET quanta_runtime)
  find_package(GTest REQUIRED)
  include(${CMAKE_CURRENT_LIST_DIR}/Instrument.cmake)
  set(rt ${QUANTA_PASS_TEST_DIR}/runtime)
  add_library(quanta_pass_handlers OBJECT ${rt}/handlers.c)
  quanta_instrument(quanta_pass_handlers clock)
  add_library(quanta_pass_handlers_plain OBJECT ${rt}/handlers_plain.c)
  add_library(quanta_pass_scanner_fixed OBJECT ${rt}/scanner_fixed.c)
  quanta_instrument(quanta_pass_scanner_fixed clock "SHELL:-mllvm -quanta-adaptive=0"
                    "SHELL:-mllvm -quanta-count-probes")
  # A recursive walk: the bound across calls (clock mode).
  add_library(quanta_pass_tree_walk OBJECT ${rt}/tree_walk.c)
  quanta_instrument(quanta_pass_tree_walk clock)
  add_library(quanta_pass_tree_walk_plain OBJECT ${rt}/tree_walk_plain.c)
  add_library(quanta_pass_tick_walk OBJECT ${rt}/tick_walk.c)
  quanta_instrument(quanta_pass_tick_walk clock "SHELL:-mllvm -quanta-count-probes")
  add_library(quanta_pass_fixed_tick_walk OBJECT ${rt}/tick_walk.c)
  target_compile_definitions(quanta_pass_fixed_tick_walk PRIVATE TICK_WALK=fixed_tick_walk
                             TICK_WALK_CALLS=fixed_tick_walk_calls)
  quanta_instrument(quanta_pass_fixed_tick_walk clock "SHELL:-mllvm -quanta-count-probes"
                    "SHELL:-mllvm -quanta-adaptive=0")
  add_executable(quanta_pass_runtime_test ${rt}/instrumented_test.cc ${rt}/recursion_test.cc
                 $<TARGET_OBJECTS:quanta_pass_handlers>
                 $<TARGET_OBJECTS:quanta_pass_handlers_plain>
                 $<TARGET_OBJECTS:quanta_pass_scanner_fixed>
                 $<TARGET_OBJECTS:quanta_pass_tree_walk>
                 $<TARGET_OBJECTS:quanta_pass_tree_walk_plain>
                 $<TARGET_OBJECTS:quanta_pass_tick_walk>
                 $<TARGET_OBJECTS:quanta_pass_fixed_tick_walk>)
  target_include_directories(quanta_pass_runtime_test PRIVATE ${rt} ${QUANTA_ROOT}/include)
  target_link_libraries(quanta_pass_runtime_test PRIVATE GTest::gtest_main quanta_runtime)
  add_test(NAME pass-runtime COMMAND quanta_pass_runtime_test)
  set_tests_properties(pass-runtime PROPERTIES LABELS "pass")
endif()
