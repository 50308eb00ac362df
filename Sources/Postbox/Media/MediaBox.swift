import Foundation

/// The files of the media an account shows, by resource id, in a cache directory — in the spirit of Telegram-iOS's
/// MediaBox. A resource being fetched is a partial file beside the list of byte ranges it holds, so a fetch stopped
/// by a kill or a restart goes on from what is there, and a range can be read as soon as it is held (the first
/// bytes of a large file before the rest). Once the ranges cover the whole resource it becomes a complete file.
///
/// A range is listed only after its bytes are flushed to disk, so the list never claims bytes a crash lost. What
/// fetches resources (the network) is not here: see SyncEngine's `MediaDownloader`.
public actor MediaBox {
    public let directory: String

    /// Opens (creating) the cache directory.
    public init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
    }

    /// A resource id as a file name: letters, digits, `-` and `_` only (anything else is refused).
    public static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }

    private func path(_ id: String) throws -> String {
        guard Self.isValid(id) else { throw MediaBoxError.invalidID(id) }
        return directory + "/" + id
    }

    /// The complete file of `id`, if it is complete.
    public func completePath(_ id: String) throws -> String? {
        let file = try path(id)
        return FileManager.default.fileExists(atPath: file) ? file : nil
    }

    /// The byte ranges of `id` held so far (all of it when complete: `0..<size`), sorted and merged.
    public func heldRanges(_ id: String) throws -> [Range<Int64>] {
        let file = try path(id)
        if let attributes = try? FileManager.default.attributesOfItem(atPath: file), let size = (attributes[.size] as? NSNumber)?.int64Value {
            return size > 0 ? [0..<size] : []
        }
        guard let data = FileManager.default.contents(atPath: file + ".ranges") else { return [] }
        return Self.decodeRanges([UInt8](data))
    }

    /// Writes `bytes` at `offset` of `id`'s partial file, flushes them, then lists the range.
    public func write(_ id: String, offset: Int64, bytes: [UInt8]) throws {
        guard offset >= 0, !bytes.isEmpty else { return }
        let file = try path(id)
        guard !FileManager.default.fileExists(atPath: file) else { return }   // complete already
        let partial = file + ".partial"
        if !FileManager.default.fileExists(atPath: partial) { FileManager.default.createFile(atPath: partial, contents: nil) }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: partial))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: bytes)
        try handle.synchronize()
        let ranges = Self.merged(try heldRanges(id) + [offset..<(offset + Int64(bytes.count))])
        try Data(Self.encodeRanges(ranges)).write(to: URL(fileURLWithPath: file + ".ranges"), options: .atomic)
    }

    /// Makes `id` complete when its ranges cover `0..<size`; returns the complete file's path, or nil when bytes are
    /// missing.
    public func complete(_ id: String, size: Int64) throws -> String? {
        let file = try path(id)
        if FileManager.default.fileExists(atPath: file) { return file }
        let ranges = try heldRanges(id)
        guard size == 0 || ranges.first.map({ $0.lowerBound <= 0 && $0.upperBound >= size }) == true else { return nil }
        let partial = file + ".partial"
        if size == 0 { FileManager.default.createFile(atPath: partial, contents: nil) }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: partial))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        guard rename(partial, file) == 0 else { throw MediaBoxError.cannotComplete(id) }
        try? FileManager.default.removeItem(atPath: file + ".ranges")
        return file
    }

    /// The bytes of `range` of `id` when they are held (complete or partial), else nil.
    public func read(_ id: String, range: Range<Int64>) throws -> [UInt8]? {
        guard !range.isEmpty else { return [] }
        guard try heldRanges(id).contains(where: { $0.lowerBound <= range.lowerBound && $0.upperBound >= range.upperBound }) else { return nil }
        let file = try path(id)
        let source = FileManager.default.fileExists(atPath: file) ? file : file + ".partial"
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: source))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(range.lowerBound))
        return [UInt8](try handle.read(upToCount: range.count) ?? Data())
    }

    /// Removes `id`, complete or partial.
    public func remove(_ id: String) throws {
        let file = try path(id)
        for suffix in ["", ".partial", ".ranges"] { try? FileManager.default.removeItem(atPath: file + suffix) }
    }

    /// Sorted, with overlapping and touching ranges joined.
    static func merged(_ ranges: [Range<Int64>]) -> [Range<Int64>] {
        var result: [Range<Int64>] = []
        for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// Pairs of little-endian 64-bit bounds.
    static func encodeRanges(_ ranges: [Range<Int64>]) -> [UInt8] {
        var bytes: [UInt8] = []
        for range in ranges {
            withUnsafeBytes(of: range.lowerBound.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: range.upperBound.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// A damaged list (a torn write cannot happen: it is replaced whole) reads as the valid ranges it holds.
    static func decodeRanges(_ bytes: [UInt8]) -> [Range<Int64>] {
        var ranges: [Range<Int64>] = []
        var index = 0
        while index + 16 <= bytes.count {
            let lower = bytes[index..<index + 8].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
            let upper = bytes[index + 8..<index + 16].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
            if lower >= 0, upper > lower { ranges.append(lower..<upper) }
            index += 16
        }
        return merged(ranges)
    }
}

public enum MediaBoxError: Error, Equatable, CustomStringConvertible {
    case invalidID(String)
    case cannotComplete(String)

    public var description: String {
        switch self {
        case let .invalidID(id): "not a media resource id: \(id)"
        case let .cannotComplete(id): "cannot complete media resource \(id)"
        }
    }
}
