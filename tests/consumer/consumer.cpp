// The runtime half as C++ (a .crowd file from the C consumer or crowd-bake): the public headers
// must compile cleanly under g++ / clang++ -Wall -Wextra -Wpedantic -Werror.
#include <cstdio>

#include <crowdbake/asset.h>

#include "consumer.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: consumer_cpp file.crowd\n");
        return 2;
    }
    crowd_asset asset = {};
    crowd_error error = {};
    if (crowd_asset_load_file(&asset, argv[1], &error) != CROWD_OK) {
        std::fprintf(stderr, "consumer (C++): %s: %s\n", argv[1], error.message);
        return 1;
    }
    int status = consumer_run(&asset, "consumer (C++)");
    crowd_asset_free(&asset);
    return status;
}
