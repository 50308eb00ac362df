/// Photos and documents, written once for both backends: what `messageMediaPhoto` / `messageMediaDocument` name and
/// `upload.getFile` serves (core.telegram.org/api/files). Each names its content by SHA-256; a photo's sizes are rows
/// of `media_sizes`, each with a content of its own.
enum MediaFileSQL {
    static let columns = "id, access_hash, dc, owner, kind, date, mime, size, content, attributes, stripped, width, height"
    enum File: SQLText { static let text = "SELECT \(columns) FROM media_files WHERE id = ?" }
    enum Insert: SQLText {
        static let text = "INSERT INTO media_files (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    }
    /// The bytes of each user's files, kept with every file stored: the quota is read per part, in one row.
    enum StoredBytes: SQLText { static let text = "SELECT bytes FROM user_file_bytes WHERE owner = ?" }
    enum AddStoredBytes: SQLText {
        static let text = """
            INSERT INTO user_file_bytes (owner, bytes) VALUES (?, ?)
            ON CONFLICT (owner) DO UPDATE SET bytes = user_file_bytes.bytes + excluded.bytes
            """
    }
    enum Sizes: SQLText {
        static let text = "SELECT type, width, height, size, content FROM media_sizes WHERE file_id = ? ORDER BY size"
    }
    enum InsertSize: SQLText {
        static let text = "INSERT INTO media_sizes (file_id, type, width, height, size, content) VALUES (?, ?, ?, ?, ?, ?)"
    }
}

/// A photo or a document.
public struct StoredMediaFile: Sendable, Equatable {
    public enum Kind: Int, Sendable {
        case photo = 1
        case document = 2
    }

    public var id: Int64
    public var accessHash: Int64
    /// The data center it was uploaded to: `upload.getFile` elsewhere answers `FILE_MIGRATE_X`.
    public var dc: Int32
    public var owner: Int64
    public var kind: Kind
    public var date: Int32
    public var mimeType: String
    /// The bytes of the file as uploaded (a photo's original).
    public var size: Int64
    /// SHA-256 of the bytes.
    public var content: [UInt8]
    /// A document's `Vector<DocumentAttribute>` as TL bytes (empty for a photo).
    public var attributes: [UInt8]
    /// A photo's stripped thumbnail (empty for a document).
    public var stripped: [UInt8]
    public var width: Int32
    public var height: Int32
}

/// One size of a photo (`photoSize`), stored as a JPEG of its own.
public struct StoredPhotoSize: Sendable, Equatable {
    public var type: String
    public var width: Int32
    public var height: Int32
    public var size: Int32
    public var content: [UInt8]
}

public protocol MediaFileStorageReader {
    func mediaFile(id: Int64) throws -> StoredMediaFile?
    /// A photo's sizes, smallest first.
    func photoSizes(fileID: Int64) throws -> [StoredPhotoSize]
    /// The bytes of every file `owner` uploaded (a photo with its sizes).
    func storedFileBytes(owner: Int64) throws -> Int64
}

public protocol MediaFileStorageWriter {
    func insert(_ file: StoredMediaFile, sizes: [StoredPhotoSize]) throws
}

extension SQLStatements {
    func mediaFile(id: Int64) throws -> StoredMediaFile? {
        try row(MediaFileSQL.File.self, id) { cells in
            StoredMediaFile(
                id: try cells.int64(at: 0), accessHash: try cells.int64(at: 1), dc: Int32(truncatingIfNeeded: try cells.int64(at: 2)),
                owner: try cells.int64(at: 3), kind: StoredMediaFile.Kind(rawValue: Int(try cells.int64(at: 4))) ?? .document,
                date: Int32(truncatingIfNeeded: try cells.int64(at: 5)), mimeType: try cells.text(at: 6), size: try cells.int64(at: 7),
                content: try cells.bytes(at: 8), attributes: try cells.bytes(at: 9), stripped: try cells.bytes(at: 10),
                width: Int32(truncatingIfNeeded: try cells.int64(at: 11)), height: Int32(truncatingIfNeeded: try cells.int64(at: 12)))
        }
    }

    func photoSizes(fileID: Int64) throws -> [StoredPhotoSize] {
        try rows(MediaFileSQL.Sizes.self, fileID) { cells in
            StoredPhotoSize(type: try cells.text(at: 0), width: Int32(truncatingIfNeeded: try cells.int64(at: 1)),
                            height: Int32(truncatingIfNeeded: try cells.int64(at: 2)), size: Int32(truncatingIfNeeded: try cells.int64(at: 3)),
                            content: try cells.bytes(at: 4))
        }
    }

    func storedFileBytes(owner: Int64) throws -> Int64 { try integer(MediaFileSQL.StoredBytes.self, owner) }

    func insert(_ file: StoredMediaFile, sizes: [StoredPhotoSize]) throws {
        try execute(MediaFileSQL.Insert.self, file.id, file.accessHash, file.dc, file.owner, Code(file.kind.rawValue), file.date,
                    file.mimeType, file.size, Bytes(file.content), Bytes(file.attributes), Bytes(file.stripped), file.width, file.height)
        try execute(MediaFileSQL.AddStoredBytes.self, file.owner, file.size + sizes.reduce(0) { $0 + Int64($1.size) })
        for size in sizes {
            try execute(MediaFileSQL.InsertSize.self, file.id, size.type, size.width, size.height, size.size, Bytes(size.content))
        }
    }
}
