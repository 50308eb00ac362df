import MTProto
import NIOPosix

/// A finished upload's bytes, once hashed: a content of `file_contents`.
struct FinishedContent: Sendable, Equatable {
    /// SHA-256 of the bytes: the content's address.
    let content: [UInt8]
    let size: Int64
    /// MD5 of the bytes, when asked for (a small upload's `md5_checksum`).
    let md5: [UInt8]?
}

/// Where the bytes of uploads and files live, by backend: files beside the SQLite store (`DirectoryFileContents`), or
/// rows of the database every process of a data center shares (`DatabaseFileContents`). Either way the rows that
/// describe them (`uploads`, `upload_parts`, `file_contents`) are the storage's, written once.
///
/// A file is read in ranges, never whole; an upload is hashed part by part.
protocol FileContents: Sendable {
    /// The bytes `upload_parts` holds for a part: the part itself on PostgreSQL, nothing where a file holds it.
    func rowBytes(ofPart bytes: [UInt8]) -> [UInt8]
    /// Keeps a part's bytes before its row is committed (a file; nothing where the row holds them).
    func keepPart(owner: Int64, fileID: Int64, part: Int32, bytes: [UInt8]) async throws
    /// A part's bytes (a photo is read whole, at most 10 MiB, before anything of it is stored).
    func partBytes(owner: Int64, fileID: Int64, part: Int32) async throws -> [UInt8]
    /// Hashes the parts (checked by `UploadRules.finished`) in order and makes them a content, in a transaction that
    /// also removes the upload (its parts' files are removed after it). `expectedMD5`: the client's `md5_checksum`,
    /// compared before anything is written.
    func finish(owner: Int64, fileID: Int64, parts: [(part: Int32, size: Int32)], expectedMD5: [UInt8]?,
                date: Int32) async throws -> FinishedContent
    /// Stores bytes made here (a photo's sizes) as a content.
    func store(_ bytes: [UInt8], date: Int32) async throws -> [UInt8]
    /// At most `limit` bytes from `offset` of a content of `size` bytes (fewer at its end, none past it).
    func read(_ content: [UInt8], size: Int64, offset: Int64, limit: Int) async throws -> [UInt8]
    /// Removes what `keepPart` kept of an upload whose rows were deleted (expired or abandoned).
    func discardParts(owner: Int64, fileID: Int64) async
}

/// A content or part missing where its rows say it is: the upload is incomplete, or the store lost a file.
enum FileContentsError: Error, Equatable {
    case missingPart(Int32)
    /// The bytes' MD5 is not the `md5_checksum` the client sent.
    case md5Mismatch
    case missingContent
    case cannotHash
}

/// Hashes of a stream of parts.
struct ContentHasher {
    private let sha256: StreamingDigest
    private let md5: StreamingDigest?
    private(set) var size: Int64 = 0

    init(md5 wanted: Bool) throws {
        guard let sha256 = StreamingDigest(.sha256) else { throw FileContentsError.cannotHash }
        self.sha256 = sha256
        md5 = wanted ? StreamingDigest(.md5) : nil
        if wanted, md5 == nil { throw FileContentsError.cannotHash }
    }

    mutating func update(_ bytes: [UInt8]) {
        sha256.update(bytes)
        md5?.update(bytes)
        size += Int64(bytes.count)
    }

    func finish() -> FinishedContent {
        FinishedContent(content: sha256.finish(), size: size, md5: md5?.finish())
    }
}

/// PostgreSQL: a part's bytes in its `upload_parts` row (any process may receive the next part, or the send that uses
/// the upload), a content's bytes in `file_chunks` rows of the upload's part size (the parts themselves, copied inside
/// the database when the upload finishes), so every process serves every file and no row is larger than 512 KiB.
struct DatabaseFileContents: FileContents {
    let storage: any ServerStorage
    /// The chunk size of contents made here (a photo's sizes).
    static let chunkSize = Int(UploadRules.maximumPartSize)

    func rowBytes(ofPart bytes: [UInt8]) -> [UInt8] { bytes }

    func keepPart(owner: Int64, fileID: Int64, part: Int32, bytes: [UInt8]) async throws {}

    func partBytes(owner: Int64, fileID: Int64, part: Int32) async throws -> [UInt8] {
        guard let bytes = try await storage.readLatest({ try $0.uploadPartBytes(owner: owner, fileID: fileID, part: part) }) else {
            throw FileContentsError.missingPart(part)
        }
        return bytes
    }

    func finish(owner: Int64, fileID: Int64, parts: [(part: Int32, size: Int32)], expectedMD5: [UInt8]?,
                date: Int32) async throws -> FinishedContent {
        var hasher = try ContentHasher(md5: expectedMD5 != nil)
        for (part, size) in parts {
            let bytes = try await partBytes(owner: owner, fileID: fileID, part: part)
            guard bytes.count == size else { throw FileContentsError.missingPart(part) }
            hasher.update(bytes)
        }
        let finished = hasher.finish()
        if let expectedMD5, finished.md5 != expectedMD5 { throw FileContentsError.md5Mismatch }
        let chunkSize = parts.count > 1 ? parts[0].size : Int32(clamping: finished.size)
        try await storage.write { tx in
            if try tx.storedContent(finished.content) == nil {
                try tx.insertContent(finished.content, size: finished.size, chunkSize: max(1, chunkSize), at: date)
                try tx.copyPartsToChunks(owner: owner, fileID: fileID, content: finished.content)
            }
            try tx.deleteUpload(owner: owner, fileID: fileID)
        }
        return finished
    }

    func store(_ bytes: [UInt8], date: Int32) async throws -> [UInt8] {
        let content = MTProtoHash.sha256(bytes)
        try await storage.write { tx in
            guard try tx.storedContent(content) == nil else { return }
            try tx.insertContent(content, size: Int64(bytes.count), chunkSize: Int32(Self.chunkSize), at: date)
            for (index, start) in stride(from: 0, to: bytes.count, by: Self.chunkSize).enumerated() {
                try tx.insertChunk(content, chunk: Int32(index), bytes: Array(bytes[start..<min(bytes.count, start + Self.chunkSize)]))
            }
        }
        return content
    }

    func read(_ content: [UInt8], size: Int64, offset: Int64, limit: Int) async throws -> [UInt8] {
        let end = min(size, offset + Int64(limit))
        guard offset < end else { return [] }
        return try await storage.readLatest { tx in
            guard let stored = try tx.storedContent(content), stored.chunkSize > 0 else { throw FileContentsError.missingContent }
            let chunkSize = Int64(stored.chunkSize)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Int(end - offset))
            var position = offset
            while position < end {
                let chunk = position / chunkSize, within = position % chunkSize
                let length = min(end - position, chunkSize - within)
                guard let piece = try tx.contentChunk(content, chunk: Int32(chunk), offset: Int32(within), length: Int32(length)),
                      !piece.isEmpty else { throw FileContentsError.missingContent }
                bytes += piece
                position += Int64(piece.count)
            }
            return bytes
        }
    }

    func discardParts(owner: Int64, fileID: Int64) async {}
}
