# `cmake --install <build> --prefix P`: headers, libquanta.a/.so, the pass plugin, the
# compiler wrappers (pass/Wrappers.cmake), the quanta command, a CMake package and a
# pkg-config file. The layout is fixed (bin/, lib/, include/ rather than GNUInstallDirs'
# lib/<multiarch> under /usr): the wrappers find the plugin and the runtime in ../lib
# from their own bin/, in the build tree and in P alike.
include(CMakePackageConfigHelpers)
set(QUANTA_PACKAGE_DIR lib/cmake/quanta)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/quanta DESTINATION include
        FILES_MATCHING PATTERN "*.h")
install(TARGETS quanta_static quanta_shared EXPORT quantaTargets
        ARCHIVE DESTINATION lib
        LIBRARY DESTINATION lib)
install(TARGETS quanta-pass LIBRARY DESTINATION lib)
install(TARGETS quanta RUNTIME DESTINATION bin)

# The CMake package: find_package(quanta) gives quanta::quanta, quanta::shared and
# quanta_instrument(), the tree's own function (pass/Instrument.cmake) pointed at the
# installed plugin by quantaConfig.cmake.
install(EXPORT quantaTargets NAMESPACE quanta:: DESTINATION ${QUANTA_PACKAGE_DIR})
set(QUANTA_PASS_INSTALL_PATH lib/libquanta-pass.so)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/quantaConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/quantaConfig.cmake
  INSTALL_DESTINATION ${QUANTA_PACKAGE_DIR}
  PATH_VARS QUANTA_PASS_INSTALL_PATH)
# 0.x.y releases keep the soname libquanta.so.0; the package promises the same.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/quantaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/quantaConfig.cmake
              ${CMAKE_BINARY_DIR}/package/quantaConfigVersion.cmake
        DESTINATION ${QUANTA_PACKAGE_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/pass/Instrument.cmake
        DESTINATION ${QUANTA_PACKAGE_DIR} RENAME quantaInstrument.cmake)

# pkg-config: written at install time, when the prefix (--prefix) is known, so that the
# file names absolute paths as pkg-config users expect.
install(CODE "
  set(QUANTA_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/quanta.pc.in\"
                 \"${CMAKE_BINARY_DIR}/package/quanta.pc\" @ONLY)")
install(FILES ${CMAKE_BINARY_DIR}/package/quanta.pc DESTINATION lib/pkgconfig)
