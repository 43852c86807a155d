#if canImport(Glibc)
    import SystemGlibc
#endif

/// How a peer process gives memory back. A migration peer allocates and frees a chunk-sized
/// buffer (1 MiB) per chunk on several threads; glibc raises its mmap threshold to the largest
/// block freed so far and then serves such blocks from per-thread arenas, which keep what was
/// freed: a streaming receiver's peak RSS was 66 MiB at window 16 with that, 55 MiB with the
/// threshold fixed (`bench --migration`). Other C libraries return large blocks as they are.
public enum MemoryPolicy {
    /// Blocks of 256 KiB and more come from mmap and go back to the kernel when freed.
    public static func returnLargeBlocks() {
        #if canImport(Glibc)
            _ = mallopt(M_MMAP_THRESHOLD, 256 << 10)
        #endif
    }
}
