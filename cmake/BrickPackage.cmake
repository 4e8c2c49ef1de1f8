# `cmake --install build --prefix P`: Brick's public headers, libbrick.so, the runtime archive, the tools and a
# CMake package (P/lib/cmake/Brick) whose targets carry their include directories and dependencies.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The headers a kernel author or a runtime-only program includes. The compiler's own headers (dialects, passes,
# the pipeline) include MLIR and stay in the source tree.
install(FILES ${PROJECT_SOURCE_DIR}/include/brick/brick.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/brick
        COMPONENT brick)
foreach(dir DSL JIT Runtime Support Tool)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/brick/${dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/brick
          COMPONENT brick FILES_MATCHING PATTERN "*.h")
endforeach()
# brick/JIT/Profile.h's element kinds and counts (no MLIR in it).
install(FILES ${PROJECT_SOURCE_DIR}/include/brick/Analysis/LaunchCost.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/brick/Analysis COMPONENT brick)

set(brick_exported BrickRuntime)
if(TARGET brick)
  list(APPEND brick_exported brick)
endif()
install(TARGETS ${brick_exported} EXPORT BrickTargets COMPONENT brick
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT BrickTargets NAMESPACE Brick:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Brick COMPONENT brick)

# The tools run from the prefix: they find libMLIR/libLLVM where this build found them.
set_target_properties(brickc brick-opt PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
install(TARGETS brickc brick-opt brick-bundle RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT brick)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/BrickConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/BrickConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Brick
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/BrickConfigVersion.cmake
  VERSION ${BRICK_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/BrickConfig.cmake ${PROJECT_BINARY_DIR}/cmake/BrickConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Brick COMPONENT brick)

# The reference of the dialects (ops, types, attributes) and the passes, generated from the ODS with every build
# (`mlir-doc`: build/docs/), installed under share/doc/brick/reference.
add_custom_target(brick-reference ALL)
add_dependencies(brick-reference mlir-doc)
install(DIRECTORY ${PROJECT_BINARY_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/brick/reference OPTIONAL
        COMPONENT brick)
