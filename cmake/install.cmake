# Install rules: headers, the libraries built, the tools, a CMake package (crowdbake::core / bake /
# gl) and pkg-config files. Both the package and the .pc files are relocatable, so
# `cmake --install build --prefix /anywhere` works with a build configured for another prefix.
include(CMakePackageConfigHelpers)

set(crowd_libraries crowd_core)
set(crowd_components core)
foreach(component bake gl)
  if(TARGET crowd_${component})
    list(APPEND crowd_libraries crowd_${component})
    list(APPEND crowd_components ${component})
  endif()
endforeach()
get_target_property(crowd_core_type crowd_core TYPE)
if(crowd_core_type STREQUAL "STATIC_LIBRARY")
  set(CROWD_STATIC ON)
else()
  set(CROWD_STATIC OFF)
endif()

# headers: every public header of the layers built, and the generated version.h
set(crowd_headers base.h asset.h crowd.h hits.h sim.h)
if(TARGET crowd_bake)
  list(APPEND crowd_headers rig.h rig_record.h bake.h gltf.h critters.h)
endif()
if(TARGET crowd_gl)
  list(APPEND crowd_headers gl.h grass.h gl_headless.h) # grass.h: the grass field; gl_headless.h: a windowless context
endif()
list(TRANSFORM crowd_headers PREPEND ${PROJECT_SOURCE_DIR}/include/crowdbake/)
install(FILES ${crowd_headers} ${PROJECT_BINARY_DIR}/include/crowdbake/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/crowdbake COMPONENT development)

install(TARGETS ${crowd_libraries} EXPORT crowdbakeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

foreach(tool crowd-bake crowd-verify crowd-inspect crowd-export crowd-bench crowd-shot)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  endif()
endforeach()

# CMake package
set(crowd_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/crowdbake)
install(EXPORT crowdbakeTargets NAMESPACE crowdbake:: DESTINATION ${crowd_cmake_dir} COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/crowdbakeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/crowdbakeConfig.cmake INSTALL_DESTINATION ${crowd_cmake_dir})
# 0.x: a minor release may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/crowdbakeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/crowdbakeConfig.cmake ${PROJECT_BINARY_DIR}/crowdbakeConfigVersion.cmake
  DESTINATION ${crowd_cmake_dir} COMPONENT development)

# pkg-config: crowdbake-core (the runtime alone), crowdbake-bake, crowdbake-gl, and crowdbake (all
# the libraries installed). Static builds state what a static link needs in Libs.private /
# Requires.private: link with `pkg-config --static --libs crowdbake`.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(CROWD_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
  set(CROWD_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  # prefix relative to the .pc file's own directory (lib/pkgconfig -> ../..)
  file(RELATIVE_PATH crowd_pc_up "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
  string(REGEX REPLACE "/$" "" crowd_pc_up "${crowd_pc_up}")
  set(CROWD_PC_PREFIX "\${pcfiledir}/${crowd_pc_up}")
  set(CROWD_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(CROWD_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(CROWD_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
set(CROWD_PC_CFLAGS "-I\${includedir}")
if(NOT CROWD_STATIC)
  string(APPEND CROWD_PC_CFLAGS " -DCROWD_SHARED")
endif()

set(pc_core_libs_private "-lm")
if(CROWD_THREADS)
  set(pc_core_libs_private "-lm -pthread")
endif()
set(pc_bake_requires_private "")
set(pc_bake_libs_private "")
set(pc_gl_requires_private "")
if(CROWD_STATIC)
  set(pc_bake_requires_private "libcjson")
  set(pc_bake_libs_private "-lmeshoptimizer") # Debian's meshoptimizer has no .pc file
  set(pc_gl_requires_private "epoxy")
endif()

function(crowd_pc name description requires requires_private libs libs_private)
  set(PC_NAME ${name})
  set(PC_DESCRIPTION ${description})
  set(PC_REQUIRES ${requires})
  set(PC_REQUIRES_PRIVATE ${requires_private})
  set(PC_LIBS ${libs})
  set(PC_LIBS_PRIVATE ${libs_private})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/crowdbake.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
    COMPONENT development)
endfunction()

crowd_pc(crowdbake-core "crowdbake runtime: .crowd assets, crowds, culling, LOD, simulation" ""
  "" "-L\${libdir} -lcrowd_core" "${pc_core_libs_private}")
set(pc_all crowdbake-core)
if(TARGET crowd_bake)
  crowd_pc(crowdbake-bake "crowdbake baker: glTF and procedural rigs to .crowd" "crowdbake-core"
    "${pc_bake_requires_private}" "-L\${libdir} -lcrowd_bake" "${pc_bake_libs_private}")
  list(PREPEND pc_all crowdbake-bake)
endif()
if(TARGET crowd_gl)
  crowd_pc(crowdbake-gl "crowdbake GL renderer" "crowdbake-core"
    "${pc_gl_requires_private}" "-L\${libdir} -lcrowd_gl" "")
  list(PREPEND pc_all crowdbake-gl)
endif()
list(JOIN pc_all ", " pc_all)
crowd_pc(crowdbake "crowdbake: baked vertex-animation crowds (every library installed)" "${pc_all}" "" "" "")
