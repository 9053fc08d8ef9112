# Installation: the shared and static libraries, the public headers (include/gj2k.h,
# include/gj2k/*.h and the generated version.h), the CMake package (gj2kConfig.cmake,
# gj2kConfigVersion.cmake, targets gj2k::gj2k and gj2k::gj2k_static) and gj2k.pc.
include(CMakePackageConfigHelpers)
set(GJ2K_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gj2k CACHE STRING
    "Where gj2kConfig.cmake is installed")

install(TARGETS gj2k EXPORT gj2kTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(TARGETS gj2k_static EXPORT gj2kStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/include/gj2k.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gj2k DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/gj2k/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gj2k COMPONENT dev)

install(EXPORT gj2kTargets NAMESPACE gj2k:: DESTINATION ${GJ2K_INSTALL_CMAKEDIR}
        COMPONENT dev)
install(EXPORT gj2kStaticTargets NAMESPACE gj2k:: DESTINATION ${GJ2K_INSTALL_CMAKEDIR}
        COMPONENT dev)
set(GJ2K_CONFIG_CUDA ${GJ2K_HAVE_CUDA})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gj2kConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gj2kConfig.cmake INSTALL_DESTINATION ${GJ2K_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gj2kConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gj2kConfig.cmake ${PROJECT_BINARY_DIR}/gj2kConfigVersion.cmake
        DESTINATION ${GJ2K_INSTALL_CMAKEDIR} COMPONENT dev)

# pkg-config: `pkg-config --cflags --libs gj2k` links the shared library; `--static` adds what
# the static one needs (threads and, with CUDA, cudart_static).
set(GJ2K_PC_PRIVATE_LIBS "-lpthread")
if(GJ2K_HAVE_CUDA)
  string(APPEND GJ2K_PC_PRIVATE_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt")
endif()
if(GJ2K_HAVE_LCMS2)
  string(APPEND GJ2K_PC_PRIVATE_LIBS " -llcms2")
endif()
# The prefix is found from the .pc file's own place, so that the package can be installed
# with `cmake --install --prefix` anywhere (or moved) and still be found.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(GJ2K_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _gj2k_pc_up "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
  set(GJ2K_PC_PREFIX "\${pcfiledir}/${_gj2k_pc_up}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(GJ2K_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(GJ2K_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(GJ2K_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(GJ2K_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/gj2k.pc.in ${PROJECT_BINARY_DIR}/gj2k.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gj2k.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)
