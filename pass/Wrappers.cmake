# build/bin/quanta-clang and quanta-clang++ (tools/quanta-clang/quanta-clang.in). Only the
# compiler's path is written in: the scripts find the plugin and the runtime in ../lib
# from where they are, so the same files work in the build tree and once installed
# (Install.cmake).
set(QUANTA_WRAPPER_SRC ${CMAKE_CURRENT_LIST_DIR}/../tools/quanta-clang/quanta-clang.in)
set(QUANTA_RUNTIME_LINK_LIBS "-lboost_context -lstdc++ -lpthread -lm")
foreach(lang c c++)
  if(lang STREQUAL "c")
    set(QUANTA_WRAPPED_COMPILER ${LLVM_TOOLS_BINARY_DIR}/clang)
    set(name quanta-clang)
  else()
    set(QUANTA_WRAPPED_COMPILER ${LLVM_TOOLS_BINARY_DIR}/clang++)
    set(name quanta-clang++)
  endif()
  configure_file(${QUANTA_WRAPPER_SRC} ${CMAKE_BINARY_DIR}/bin/${name} @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                                  GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
# Installed as they are: nothing in them names the build tree.
install(PROGRAMS ${CMAKE_BINARY_DIR}/bin/quanta-clang ${CMAKE_BINARY_DIR}/bin/quanta-clang++
        DESTINATION bin)
