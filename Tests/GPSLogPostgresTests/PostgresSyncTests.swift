// SPDX-License-Identifier: MIT
import Testing
