// SPDX-License-Identifier: MIT
#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
#include <png.h>

/// Macros built of other macros do not import into Swift: the simplified API's version and its RGBA format.
static const unsigned int CPNG_IMAGE_VERSION = PNG_IMAGE_VERSION;
static const unsigned int CPNG_FORMAT_RGBA = PNG_FORMAT_RGBA;
#endif
