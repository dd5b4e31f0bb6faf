// The emulator's CUB (../cub.cuh) under the header a candidate includes for BlockScan alone.
#pragma once

#include "../cub.cuh"
