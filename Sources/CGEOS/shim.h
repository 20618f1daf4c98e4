// SPDX-License-Identifier: MIT
#ifndef CGEOS_SHIM_H
#define CGEOS_SHIM_H
/* Only the reentrant _r API: its message handler is not variadic (Swift cannot implement variadic callbacks),
   and each context is confined to one thread. */
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
#endif
