/// Uploads in progress and the file contents they become, written once for both backends
/// (core.telegram.org/api/files#uploading-files).
///
/// An upload is a row of `uploads` and a row of `upload_parts` per part; PostgreSQL keeps a part's bytes in its row
/// (any process of the data center may receive the next part or the send that finishes the upload), SQLite in a file
/// beside the store (`DirectoryFileContents`), leaving the column empty. A finished upload is a content, addressed
/// by its SHA-256 (the same bytes uploaded twice are stored once): on PostgreSQL its parts become `file_chunks` rows,
/// copied inside the database.
enum UploadSQL {
    enum Upload: SQLText {
        static let text = "SELECT big, part_size, total_parts, bytes, created_at FROM uploads WHERE owner = ? AND file_id = ?"
    }
    enum InsertUpload: SQLText {
        static let text = """
            INSERT INTO uploads (owner, file_id, big, part_size, total_parts, bytes, created_at) VALUES (?, ?, ?, ?, ?, 0, ?)
            ON CONFLICT (owner, file_id) DO NOTHING
            """
    }
    enum UpdateUpload: SQLText {
        static let text = "UPDATE uploads SET part_size = ?, total_parts = ?, bytes = bytes + ? WHERE owner = ? AND file_id = ?"
    }
    enum PartSize: SQLText { static let text = "SELECT size FROM upload_parts WHERE owner = ? AND file_id = ? AND part = ?" }
    enum UpsertPart: SQLText {
        static let text = """
            INSERT INTO upload_parts (owner, file_id, part, size, bytes) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (owner, file_id, part) DO UPDATE SET size = excluded.size, bytes = excluded.bytes
            """
    }
    enum Parts: SQLText { static let text = "SELECT part, size FROM upload_parts WHERE owner = ? AND file_id = ? ORDER BY part" }
    enum PartBytes: SQLText { static let text = "SELECT bytes FROM upload_parts WHERE owner = ? AND file_id = ? AND part = ?" }
    enum PendingBytes: SQLText { static let text = "SELECT CAST(SUM(bytes) AS BIGINT) FROM uploads WHERE owner = ?" }
    enum DeleteUpload: SQLText { static let text = "DELETE FROM uploads WHERE owner = ? AND file_id = ?" }
    enum DeleteParts: SQLText { static let text = "DELETE FROM upload_parts WHERE owner = ? AND file_id = ?" }
    enum Expired: SQLText {
        static let text = "SELECT owner, file_id FROM uploads WHERE created_at <= ? ORDER BY created_at LIMIT ?"
    }

    enum Content: SQLText { static let text = "SELECT size, chunk_size FROM file_contents WHERE content = ?" }
    enum InsertContent: SQLText {
        static let text = """
            INSERT INTO file_contents (content, size, chunk_size, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (content) DO NOTHING
            """
    }
    /// An upload's parts become the content's chunks without leaving the database.
    enum ChunksFromParts: SQLText {
        static let text = """
            INSERT INTO file_chunks (content, chunk, bytes) SELECT ?, part, bytes FROM upload_parts WHERE owner = ? AND file_id = ?
            ON CONFLICT (content, chunk) DO NOTHING
            """
    }
    enum InsertChunk: SQLText {
        static let text = "INSERT INTO file_chunks (content, chunk, bytes) VALUES (?, ?, ?) ON CONFLICT (content, chunk) DO NOTHING"
    }
    /// A range of one chunk (`substr` counts from 1 in both backends, in bytes for a BLOB and a bytea).
    enum ChunkRange: SQLText {
        static let text = "SELECT substr(bytes, ?, ?) FROM file_chunks WHERE content = ? AND chunk = ?"
    }
}

/// An upload's state, as `uploads` keeps it.
public struct UploadRecord: Sendable, Equatable {
    public var big: Bool
    /// The size of every part but the last, once a part told it (0 until then).
    public var partSize: Int32
    /// A big file's declared part count (0 for a small file, whose count comes with the send).
    public var totalParts: Int32
    /// The bytes of the parts received.
    public var bytes: Int64
    public var createdAt: Int32
}

/// A stored content: its size and the size of its chunks (the upload's part size; on PostgreSQL only).
public struct StoredContent: Sendable, Equatable {
    public var size: Int64
    public var chunkSize: Int32
}

public protocol UploadStorageReader {
    func upload(owner: Int64, fileID: Int64) throws -> UploadRecord?
    /// The received parts' numbers and sizes, in order.
    func uploadParts(owner: Int64, fileID: Int64) throws -> [(part: Int32, size: Int32)]
    /// A part's bytes as the row holds them (empty where they are kept in a file).
    func uploadPartBytes(owner: Int64, fileID: Int64, part: Int32) throws -> [UInt8]?
    func uploadPartSize(owner: Int64, fileID: Int64, part: Int32) throws -> Int32?
    /// The bytes of every unfinished upload of `owner`.
    func pendingUploadBytes(owner: Int64) throws -> Int64
    /// Uploads started at or before `date`, oldest first.
    func expiredUploads(startedBy date: Int32, limit: Int) throws -> [(owner: Int64, fileID: Int64)]
    func storedContent(_ content: [UInt8]) throws -> StoredContent?
    /// `length` bytes at `offset` of chunk `chunk` (fewer at the chunk's end).
    func contentChunk(_ content: [UInt8], chunk: Int32, offset: Int32, length: Int32) throws -> [UInt8]?
}

public protocol UploadStorageWriter {
    /// Adds the upload unless it exists.
    func startUpload(owner: Int64, fileID: Int64, big: Bool, totalParts: Int32, at date: Int32) throws
    /// Stores a part (replacing one of the same number) and the upload's new state; `addedBytes` is the part's size
    /// less that of the part it replaced.
    func storeUploadPart(owner: Int64, fileID: Int64, part: Int32, size: Int32, bytes: [UInt8], partSize: Int32,
                         totalParts: Int32, addedBytes: Int64) throws
    func deleteUpload(owner: Int64, fileID: Int64) throws
    /// Records a content (once: a second insert of the same content changes nothing).
    func insertContent(_ content: [UInt8], size: Int64, chunkSize: Int32, at date: Int32) throws
    /// Makes the upload's parts the content's chunks (PostgreSQL).
    func copyPartsToChunks(owner: Int64, fileID: Int64, content: [UInt8]) throws
    func insertChunk(_ content: [UInt8], chunk: Int32, bytes: [UInt8]) throws
}

extension SQLStatements {
    func upload(owner: Int64, fileID: Int64) throws -> UploadRecord? {
        try row(UploadSQL.Upload.self, owner, fileID) { cells in
            UploadRecord(big: try cells.bool(at: 0), partSize: Int32(truncatingIfNeeded: try cells.int64(at: 1)),
                         totalParts: Int32(truncatingIfNeeded: try cells.int64(at: 2)), bytes: try cells.int64(at: 3),
                         createdAt: Int32(truncatingIfNeeded: try cells.int64(at: 4)))
        }
    }

    func uploadParts(owner: Int64, fileID: Int64) throws -> [(part: Int32, size: Int32)] {
        try rows(UploadSQL.Parts.self, owner, fileID) { cells in
            (Int32(truncatingIfNeeded: try cells.int64(at: 0)), Int32(truncatingIfNeeded: try cells.int64(at: 1)))
        }
    }

    func uploadPartBytes(owner: Int64, fileID: Int64, part: Int32) throws -> [UInt8]? {
        try row(UploadSQL.PartBytes.self, owner, fileID, part) { try $0.bytes(at: 0) }
    }

    func uploadPartSize(owner: Int64, fileID: Int64, part: Int32) throws -> Int32? {
        try row(UploadSQL.PartSize.self, owner, fileID, part) { Int32(truncatingIfNeeded: try $0.int64(at: 0)) }
    }

    func pendingUploadBytes(owner: Int64) throws -> Int64 { try integer(UploadSQL.PendingBytes.self, owner) }

    func expiredUploads(startedBy date: Int32, limit: Int) throws -> [(owner: Int64, fileID: Int64)] {
        try rows(UploadSQL.Expired.self, date, limit) { cells in (try cells.int64(at: 0), try cells.int64(at: 1)) }
    }

    func storedContent(_ content: [UInt8]) throws -> StoredContent? {
        try row(UploadSQL.Content.self, Bytes(content)) { cells in
            StoredContent(size: try cells.int64(at: 0), chunkSize: Int32(truncatingIfNeeded: try cells.int64(at: 1)))
        }
    }

    func contentChunk(_ content: [UInt8], chunk: Int32, offset: Int32, length: Int32) throws -> [UInt8]? {
        try row(UploadSQL.ChunkRange.self, offset + 1, length, Bytes(content), chunk) { try $0.bytes(at: 0) }
    }

    func startUpload(owner: Int64, fileID: Int64, big: Bool, totalParts: Int32, at date: Int32) throws {
        try execute(UploadSQL.InsertUpload.self, owner, fileID, big, Int32(0), totalParts, date)
    }

    func storeUploadPart(owner: Int64, fileID: Int64, part: Int32, size: Int32, bytes: [UInt8], partSize: Int32,
                         totalParts: Int32, addedBytes: Int64) throws {
        try execute(UploadSQL.UpsertPart.self, owner, fileID, part, size, Bytes(bytes))
        try execute(UploadSQL.UpdateUpload.self, partSize, totalParts, addedBytes, owner, fileID)
    }

    func deleteUpload(owner: Int64, fileID: Int64) throws {
        try execute(UploadSQL.DeleteParts.self, owner, fileID)
        try execute(UploadSQL.DeleteUpload.self, owner, fileID)
    }

    func insertContent(_ content: [UInt8], size: Int64, chunkSize: Int32, at date: Int32) throws {
        try execute(UploadSQL.InsertContent.self, Bytes(content), size, chunkSize, date)
    }

    func copyPartsToChunks(owner: Int64, fileID: Int64, content: [UInt8]) throws {
        try execute(UploadSQL.ChunksFromParts.self, Bytes(content), owner, fileID)
    }

    func insertChunk(_ content: [UInt8], chunk: Int32, bytes: [UInt8]) throws {
        try execute(UploadSQL.InsertChunk.self, Bytes(content), chunk, Bytes(bytes))
    }
}
