// The emulator's CUB (../cub.cuh) under the header a candidate includes for DeviceScan alone.
#pragma once

#include "../cub.cuh"
