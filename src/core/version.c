#include "crowdbake/version.h"

const char *crowd_version(void)
{
    return CROWD_VERSION_STRING;
}
