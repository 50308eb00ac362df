import Foundation
import MTProto
import MTProtoNIO
import TL

/// Uploads a file from disk (core.telegram.org/api/files#uploading-files): 512 KiB parts, several in flight on the
/// home data center's worker connections, `upload.saveBigFilePart` above 10 MiB, and the MD5 of a small file. What is
/// done is written down as it goes (the file id and the parts saved, in a small file of the state directory keyed by
/// the file's path, size and modification date), so an upload stopped by a kill or a restart goes on with the parts
/// it lacks: the server keeps an upload's parts for a day.
public actor MediaUploader {
    public static let partSize = 512 * 1024
    public static let bigFileThreshold: Int64 = 10 * 1024 * 1024
    public static let maximumParts = 4_000

    private let network: ConnectionManager
    private let stateDirectory: String
    private let parallel: Int
    /// Bytes sent to the network since this uploader was made (what a resumed upload saves shows here).
    public private(set) var bytesSent: Int64 = 0

    public init(network: ConnectionManager, stateDirectory: String, parallel: Int = 4) throws {
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        self.network = network
        self.stateDirectory = stateDirectory
        self.parallel = max(1, parallel)
    }

    /// What an upload in progress keeps on disk.
    struct Saved: Codable, Equatable {
        var fileID: Int64
        var size: Int64
        var modified: Double
        var parts: Int
        var done: Set<Int>
    }

    /// Uploads `path` and returns the `InputFile` that names it; `progress` sees the bytes saved so far.
    public func upload(_ path: String, progress: (@Sendable (Int64, Int64) -> Void)? = nil) async throws -> API.InputFile {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let parts = max(1, Int((size + Int64(Self.partSize) - 1) / Int64(Self.partSize)))
        guard size > 0 else { throw MediaUploadError.empty(path) }
        guard parts <= Self.maximumParts else { throw MediaUploadError.tooLarge(size) }
        let statePath = stateFile(for: path)
        var saved = Self.load(statePath).flatMap { $0.size == size && $0.modified == modified && $0.parts == parts ? $0 : nil }
            ?? Saved(fileID: network.environment.random.int64(in: 1...Int64.max), size: size, modified: modified, parts: parts, done: [])
        try Self.store(saved, at: statePath)
        let big = size > Self.bigFileThreshold
        let missing = (0..<parts).filter { !saved.done.contains($0) }
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var next = missing[...]
        while !next.isEmpty {
            let batch = Array(next.prefix(parallel))
            next = next.dropFirst(batch.count)
            var pieces: [(Int, [UInt8])] = []
            for part in batch {
                try handle.seek(toOffset: UInt64(part * Self.partSize))
                pieces.append((part, [UInt8](try handle.read(upToCount: Self.partSize) ?? Data())))
            }
            let fileID = saved.fileID
            try await withThrowingTaskGroup(of: Int.self) { group in
                for (part, bytes) in pieces {
                    group.addTask {
                        let call: Bool = big
                            ? try await self.network.send(API.functions.upload.SaveBigFilePart(fileId: fileID, filePart: Int32(part),
                                                                                               fileTotalParts: Int32(parts), bytes: Data(bytes)),
                                                          download: true)
                            : try await self.network.send(API.functions.upload.SaveFilePart(fileId: fileID, filePart: Int32(part),
                                                                                            bytes: Data(bytes)), download: true)
                        guard call else { throw MediaUploadError.partRefused(part) }
                        return part
                    }
                }
                for try await part in group {
                    saved.done.insert(part)
                    bytesSent += Int64(pieces.first { $0.0 == part }?.1.count ?? 0)
                }
            }
            try Self.store(saved, at: statePath)
            progress?(Int64(saved.done.count) * Int64(Self.partSize) - (saved.done.contains(parts - 1) ? Int64(parts) * Int64(Self.partSize) - size : 0),
                      size)
        }
        let name = (path as NSString).lastPathComponent
        if big { return .inputFileBig(.init(id: saved.fileID, parts: Int32(parts), name: name)) }
        return .inputFile(.init(id: saved.fileID, parts: Int32(parts), name: name, md5Checksum: try Self.md5(path)))
    }

    /// Forgets an upload that was used (its send is queued): the next upload of the same file starts afresh.
    public func finished(_ path: String) {
        try? FileManager.default.removeItem(atPath: stateFile(for: path))
    }

    private func stateFile(for path: String) -> String {
        let key = MTProtoHash.sha256(Array(path.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return stateDirectory + "/upload-" + key + ".json"
    }

    private static func load(_ path: String) -> Saved? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(Saved.self, from: $0) }
    }

    private static func store(_ saved: Saved, at path: String) throws {
        try JSONEncoder().encode(saved).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// The lowercase hex MD5 of a small file, read a megabyte at a time.
    static func md5(_ path: String) throws -> String {
        guard let digest = StreamingDigest(.md5) else { throw MediaUploadError.cannotHash }
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { digest.update([UInt8](chunk)) }
        return digest.finish().map { String(format: "%02x", $0) }.joined()
    }
}

public enum MediaUploadError: Error, Equatable, CustomStringConvertible {
    case empty(String)
    case tooLarge(Int64)
    case partRefused(Int)
    case cannotHash

    public var description: String {
        switch self {
        case let .empty(path): "\(path) is empty"
        case let .tooLarge(size): "a file of \(size) bytes is over Telegram's 4,000 parts of 512 KiB"
        case let .partRefused(part): "the server refused part \(part)"
        case .cannotHash: "cannot compute the file's MD5"
        }
    }
}
