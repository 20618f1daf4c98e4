// SPDX-License-Identifier: MIT

#if os(Linux)
    /// glibc's `malloc_trim` (from <malloc.h>, which the Glibc module does not import): its C signature is
    /// `int malloc_trim(size_t pad)`, which Swift calls directly by name.
    @_silgen_name("malloc_trim")
    private func glibcMallocTrim(_ pad: Int) -> Int32
#endif

/// Hands freed heap memory back to the system. glibc keeps what a burst freed for later; a server that decoded a
/// large body calls this when it is done, so its resident size returns to idle.
public func returnFreedMemoryToSystem() {
    #if os(Linux)
        _ = glibcMallocTrim(0)
    #endif
}

#if os(Linux)
    /// glibc's `mallopt` (from <malloc.h>): `int mallopt(int param, int value)`.
    @_silgen_name("mallopt")
    private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif

/// Makes every allocation of `bytes` or more its own mapping, unmapped when freed. glibc otherwise raises that
/// threshold after each large free (up to 32 MiB), and the large buffers of a decoded 16 MiB body then stay in the
/// heap; a long-running server with bursts of large bodies sets this once at start.
public func mapLargeAllocationsSeparately(from bytes: Int32 = 1 << 20) {
    #if os(Linux)
        _ = glibcMallopt(-3, bytes)  // M_MMAP_THRESHOLD; setting it also turns glibc's dynamic threshold off
    #endif
}
