# Third-party libraries, all from Debian packages (scripts/setup.sh installs them), found only for
# what is built: the runtime alone (-DCROWD_BAKE=OFF -DCROWD_GL=OFF) looks for nothing.
# Imported as SYSTEM so warnings-as-errors apply to our code only. The names crowd::cjson,
# crowd::meshoptimizer and crowd::gl are also what the installed package's crowdbakeConfig.cmake
# defines, as the exported static libraries name them.

# stb (header-only, Debian libstb-dev): the glTF reader includes "stb_image.h"; the demo and tools
# <stb/...>. The web build's sysroot does not see /usr/include, so it gets a directory holding just
# a link to the stb headers.
if(CROWD_BAKE OR CROWD_TOOLS OR CROWD_DEMO)
  add_library(crowd::stb INTERFACE IMPORTED)
  if(EMSCRIPTEN)
    file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/stb_include)
    file(CREATE_LINK /usr/include/stb ${PROJECT_BINARY_DIR}/stb_include/stb SYMBOLIC)
    target_include_directories(crowd::stb SYSTEM INTERFACE ${PROJECT_BINARY_DIR}/stb_include ${PROJECT_BINARY_DIR}/stb_include/stb)
  else()
    find_path(STB_INCLUDE stb_image.h PATH_SUFFIXES stb REQUIRED)
    target_include_directories(crowd::stb SYSTEM INTERFACE ${STB_INCLUDE})
  endif()
endif()

if(EMSCRIPTEN)
  # WebGL2 comes with Emscripten. The baker's libraries are built from the Debian source packages of
  # the versions installed natively (scripts/wasm-sources.sh fetches them into CROWD_WASM_SOURCES).
  add_library(crowd::gl INTERFACE IMPORTED)
  if(CROWD_BAKE)
    enable_language(CXX)
    file(GLOB meshopt_sources ${CROWD_WASM_SOURCES}/meshoptimizer/src/*.cpp)
    add_library(crowd_wasm_meshoptimizer STATIC ${meshopt_sources})
    target_include_directories(crowd_wasm_meshoptimizer SYSTEM PUBLIC ${CROWD_WASM_SOURCES}/meshoptimizer/src)
    add_library(crowd_wasm_cjson STATIC ${CROWD_WASM_SOURCES}/cjson/cJSON.c)
    # the include path the native build sees: <cjson/cJSON.h>
    file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/cjson_include)
    file(CREATE_LINK ${CROWD_WASM_SOURCES}/cjson ${PROJECT_BINARY_DIR}/cjson_include/cjson SYMBOLIC)
    target_include_directories(crowd_wasm_cjson SYSTEM PUBLIC ${PROJECT_BINARY_DIR}/cjson_include)
    add_library(crowd::meshoptimizer ALIAS crowd_wasm_meshoptimizer)
    add_library(crowd::cjson ALIAS crowd_wasm_cjson)
  endif()
  return()
endif()

if(CROWD_BAKE)
  find_package(meshoptimizer CONFIG QUIET)
  add_library(crowd::meshoptimizer INTERFACE IMPORTED)
  if(meshoptimizer_FOUND)
    target_link_libraries(crowd::meshoptimizer INTERFACE meshoptimizer::meshoptimizer)
  else()
    find_path(MESHOPT_INCLUDE meshoptimizer.h REQUIRED)
    find_library(MESHOPT_LIB meshoptimizer REQUIRED)
    target_include_directories(crowd::meshoptimizer SYSTEM INTERFACE ${MESHOPT_INCLUDE})
    target_link_libraries(crowd::meshoptimizer INTERFACE ${MESHOPT_LIB})
  endif()

  # cJSON (Debian libcjson-dev): the glTF reader's JSON parser.
  find_path(CJSON_INCLUDE cjson/cJSON.h REQUIRED)
  find_library(CJSON_LIB cjson REQUIRED)
  add_library(crowd::cjson INTERFACE IMPORTED)
  target_include_directories(crowd::cjson SYSTEM INTERFACE ${CJSON_INCLUDE})
  target_link_libraries(crowd::cjson INTERFACE ${CJSON_LIB})
endif()

if(CROWD_GL)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(EPOXY REQUIRED IMPORTED_TARGET epoxy)
  add_library(crowd::gl INTERFACE IMPORTED)
  target_link_libraries(crowd::gl INTERFACE PkgConfig::EPOXY)
endif()

if(CROWD_DEMO)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(GLFW IMPORTED_TARGET glfw3)
endif()
