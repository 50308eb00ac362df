#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator for a process that moves files in 512 KiB–1 MiB buffers (parts, ranges, their encrypted packets):
/// by default each buffer of 128 KiB or more is its own `mmap`, and freed memory above 128 KiB at the heap's top goes
/// back to the kernel, so every part's buffers were mapped, faulted in page by page and unmapped again — a quarter of
/// the server's time during an upload (perf: `exc_page_fault`, `clear_page`). Up to 8 MiB now comes from the heap and
/// up to 64 MiB of free heap is kept: `synccore bench media`'s upload went from 157 to 235 MB/s, the peak RSS growth
/// staying near 30 MiB. Only the `synccore` executable does this; an app embedding the libraries keeps its own settings.
enum AllocatorTuning {
    /// `<malloc.h>`'s parameters (not in Swift's Glibc module).
    static let trimThreshold: Int32 = -1
    static let mmapThreshold: Int32 = -3

    static func apply() {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }   // RTLD_DEFAULT
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(mmapThreshold, 8 << 20)
        _ = mallopt(trimThreshold, 64 << 20)
        #endif
    }
}
