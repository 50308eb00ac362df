import MTProto

/// Telegram's rules for uploaded parts (core.telegram.org/api/files#uploading-files), as pure functions over what an
/// upload holds so far: every part but the last has one size, divisible by 1 KiB and dividing 512 KiB; the last may be
/// smaller; at most 4,000 parts; a file of more than 10 MiB is a big file (`upload.saveBigFilePart`, which names the
/// part count with every part). Parts may arrive in any order and in parallel, so what cannot be known before the
/// last part (the size of a small file's last part) is checked when the upload is used (`finished`).
enum UploadRules {
    static let maximumPartSize: Int32 = 512 * 1024
    static let maximumParts: Int32 = 4_000
    /// The largest file `upload.saveFilePart` may carry.
    static let smallFileLimit: Int64 = 10 * 1024 * 1024

    /// A size every part but the last may have.
    static func isUniformPartSize(_ size: Int32) -> Bool {
        size > 0 && size % 1024 == 0 && maximumPartSize % size == 0
    }

    /// A new part: what a `saveFilePart` (`totalParts` nil) or `saveBigFilePart` says.
    struct Part: Sendable {
        let number: Int32
        let size: Int32
        /// A big file's declared part count.
        let totalParts: Int32?
    }

    /// Checks `part` against the upload so far (nil: its first part) and returns the upload's part size and part count
    /// after it. Throws Telegram's error for a part that can never belong to a valid upload.
    static func admit(_ part: Part, to upload: UploadRecord?, maximumFileSize: Int64) throws(RPCError) -> (partSize: Int32, totalParts: Int32) {
        guard part.size > 0 else { throw .badRequest("FILE_PART_EMPTY") }
        guard part.size <= maximumPartSize else { throw .badRequest("FILE_PART_TOO_BIG") }
        var partSize = upload?.partSize ?? 0
        guard let total = part.totalParts else {
            // A small file: no part count until the send. A part above the size seen, once a full-size part was seen, is
            // a changed size; a smaller one may be the last.
            guard upload?.big != true else { throw .badRequest("FILE_PARTS_INVALID") }
            guard part.number >= 0, part.number < maximumParts, Int64(part.number) * Int64(part.size) < smallFileLimit else {
                throw .badRequest("FILE_PART_INVALID")
            }
            if isUniformPartSize(part.size) {
                if partSize != 0, part.size > partSize { throw .badRequest("FILE_PART_SIZE_CHANGED") }
                partSize = max(partSize, part.size)
            } else if partSize != 0, part.size > partSize {
                throw .badRequest("FILE_PART_SIZE_CHANGED")
            }
            return (partSize, 0)
        }
        guard total > 0, total <= maximumParts, upload.map({ $0.big && $0.totalParts == total }) ?? true else {
            throw .badRequest("FILE_PARTS_INVALID")
        }
        guard part.number >= 0, part.number < total else { throw .badRequest("FILE_PART_INVALID") }
        if part.number < total - 1 {
            guard isUniformPartSize(part.size) else { throw .badRequest("FILE_PART_SIZE_INVALID") }
            guard partSize == 0 || partSize == part.size else { throw .badRequest("FILE_PART_SIZE_CHANGED") }
            partSize = part.size
            // The file the count and the part size announce may not exceed the largest file.
            guard Int64(total - 1) * Int64(partSize) < maximumFileSize else { throw .badRequest("FILE_PARTS_INVALID") }
        } else if partSize != 0, part.size > partSize {
            throw .badRequest("FILE_PART_SIZE_CHANGED")
        }
        return (partSize, total)
    }

    /// The checks of an upload being used (a send, a profile photo): the parts received against the count the client
    /// names (`InputFile.parts`). Returns the file's size.
    static func finished(parts: [(part: Int32, size: Int32)], declared count: Int32, upload: UploadRecord,
                         big: Bool, maximumFileSize: Int64) throws(RPCError) -> Int64 {
        guard count > 0, count <= maximumParts, upload.big == big, !big || upload.totalParts == count else {
            throw .badRequest("FILE_PARTS_INVALID")
        }
        var expected: Int32 = 0
        for (number, _) in parts where number < count {
            guard number == expected else { break }
            expected += 1
        }
        guard expected == count else { throw .badRequest("FILE_PART_\(expected)_MISSING") }
        guard parts.count == count else { throw .badRequest("FILE_PARTS_INVALID") }
        let uniform = parts[0].size
        if count > 1 {
            guard isUniformPartSize(uniform) else { throw .badRequest("FILE_PART_SIZE_INVALID") }
            for (number, size) in parts.dropFirst() where number < count - 1 ? size != uniform : size > uniform {
                throw .badRequest("FILE_PART_SIZE_CHANGED")
            }
        }
        let size = parts.reduce(Int64(0)) { $0 + Int64($1.size) }
        guard size <= maximumFileSize, big || size <= smallFileLimit else { throw .badRequest("FILE_PARTS_INVALID") }
        return size
    }
}
