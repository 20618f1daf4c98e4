// SPDX-License-Identifier: MIT
#ifndef CARGON2_SHIM_H
#define CARGON2_SHIM_H
/* The reference Argon2 (Debian's libargon2-dev): Argon2id for the passwords of `gpslog user`. */
#include <argon2.h>
#endif
