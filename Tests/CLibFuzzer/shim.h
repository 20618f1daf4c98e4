/* SPDX-License-Identifier: MIT */
/* libFuzzer's driver, for a program with a main of its own (SwiftPM links every executable with a main of its own;
   see Package.swift). Defined in the toolchain's libclang_rt.fuzzer, linked in by -sanitize=fuzzer.
   https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
