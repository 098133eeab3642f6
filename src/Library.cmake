# The installable runtime: libquanta.a (target quanta_static) and libquanta.so (target
# quanta_shared), each one file holding the runtime and what it needs (core, preempt,
# runtime, policy, stats). Both are made of the objects the tree's own static libraries
# are made of (src/CMakeLists.txt), so nothing compiles twice.
set(QUANTA_LIBRARY_OBJECTS
  $<TARGET_OBJECTS:quanta_runtime_objects>
  $<TARGET_OBJECTS:quanta_policy_objects>
  $<TARGET_OBJECTS:quanta_stats_objects>)

add_library(quanta_static STATIC ${QUANTA_LIBRARY_OBJECTS})
# Made of objects only: CMake cannot tell the link language from sources.
set_target_properties(quanta_static PROPERTIES OUTPUT_NAME quanta EXPORT_NAME quanta
                                               LINKER_LANGUAGE CXX)
# Users of the installed archive link Boost.Context and the C++ runtime themselves; a C
# program's link step does not add libstdc++ or libm on its own.
target_link_libraries(quanta_static PUBLIC
  $<BUILD_INTERFACE:Boost::context> $<INSTALL_INTERFACE:boost_context>
  Threads::Threads stdc++ m)
target_include_directories(quanta_static INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)

add_library(quanta_shared SHARED ${QUANTA_LIBRARY_OBJECTS})
set_target_properties(quanta_shared PROPERTIES
  OUTPUT_NAME quanta EXPORT_NAME shared LINKER_LANGUAGE CXX
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/libquanta.map)
# Boost.Context goes inside: Boost_USE_STATIC_LIBS picks Debian's libboost_context.a,
# whose objects are position independent (-z text below would refuse them otherwise), so
# the context switch stays a direct call and users need no Boost at run time.
target_link_libraries(quanta_shared PRIVATE Boost::context Threads::Threads)
target_include_directories(quanta_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
target_link_options(quanta_shared PRIVATE
  # Calls between the library's own functions bind at link time: no PLT on the yield path.
  -Wl,-Bsymbolic-functions
  # Exports only the C API (quanta_*, __quanta_*); the C++ internals and the Boost.Context
  # inside stay private, so they cannot clash with a program's own copies.
  -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/libquanta.map
  # No text relocations from a non-PIC object.
  -Wl,-z,text
  # The library installs signal handlers (stack overflow, preemption) and thread-exit
  # hooks that point into its code: unloading it would leave them dangling.
  -Wl,-z,nodelete)

# Self-contained: every symbol resolves inside or in the libraries it names. Not under
# the sanitizers, whose runtime a shared library leaves to the program that loads it.
if(NOT QUANTA_SANITIZE AND NOT QUANTA_TSAN)
  target_link_options(quanta_shared PRIVATE -Wl,--no-undefined)
endif()

# The installed package's names, for projects that add this tree as a subdirectory.
add_library(quanta::quanta ALIAS quanta_static)
add_library(quanta::shared ALIAS quanta_shared)
