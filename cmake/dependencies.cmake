# Third-party libraries, all from Debian packages (scripts/setup.sh installs them).
# Imported as SYSTEM so -Werror applies to our code only.

find_package(meshoptimizer CONFIG QUIET)
if(meshoptimizer_FOUND)
  add_library(crowd::meshoptimizer INTERFACE IMPORTED)
  target_link_libraries(crowd::meshoptimizer INTERFACE meshoptimizer::meshoptimizer)
else()
  find_path(MESHOPT_INCLUDE meshoptimizer.h REQUIRED)
  find_library(MESHOPT_LIB meshoptimizer REQUIRED)
  add_library(crowd::meshoptimizer INTERFACE IMPORTED)
  target_include_directories(crowd::meshoptimizer SYSTEM INTERFACE ${MESHOPT_INCLUDE})
  target_link_libraries(crowd::meshoptimizer INTERFACE ${MESHOPT_LIB})
endif()

# cJSON (Debian libcjson-dev): the glTF reader's JSON parser.
find_path(CJSON_INCLUDE cjson/cJSON.h REQUIRED)
find_library(CJSON_LIB cjson REQUIRED)
add_library(crowd::cjson INTERFACE IMPORTED)
target_include_directories(crowd::cjson SYSTEM INTERFACE ${CJSON_INCLUDE})
target_link_libraries(crowd::cjson INTERFACE ${CJSON_LIB})

# stb (Debian libstb-dev): header-only image decoder and PNG writer, compiled once in src/gltf.
find_path(STB_INCLUDE stb_image.h PATH_SUFFIXES stb REQUIRED)
add_library(crowd::stb INTERFACE IMPORTED)
target_include_directories(crowd::stb SYSTEM INTERFACE ${STB_INCLUDE})
