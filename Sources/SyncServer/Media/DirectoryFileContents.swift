#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MTProto
import NIOPosix
import Synchronization

/// SQLite's file bytes: files beside the store, in `<data>/files/` by SHA-256 (`ab/abcdef…`: the same bytes uploaded
/// twice are one file) and, while an upload is in progress, `<data>/uploads/<owner>/<file id>/<part>`. A part is
/// written to a temporary name and renamed, so a part file is whole or absent; a content is written, flushed to disk
/// and renamed before the row naming it is committed. File work runs on NIO's thread pool, not on the caller's.
struct DirectoryFileContents: FileContents {
    let directory: String
    let storage: any ServerStorage

    init(dataDirectory: String, storage: any ServerStorage) {
        directory = dataDirectory
        self.storage = storage
    }

    var contentsDirectory: String { directory + "/files" }

    func path(of content: [UInt8]) -> String {
        let hex = content.map { String(format: "%02x", $0) }.joined()
        return "\(contentsDirectory)/\(hex.prefix(2))/\(hex)"
    }

    func uploadDirectory(owner: Int64, fileID: Int64) -> String {
        "\(directory)/uploads/\(owner)/\(String(UInt64(bitPattern: fileID), radix: 16))"
    }

    func rowBytes(ofPart bytes: [UInt8]) -> [UInt8] { [] }

    func keepPart(owner: Int64, fileID: Int64, part: Int32, bytes: [UInt8]) async throws {
        let folder = uploadDirectory(owner: owner, fileID: fileID)
        try await NIOThreadPool.singleton.runIfActive {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Self.writeFile(bytes, to: "\(folder)/\(part)", durably: false)
        }
    }

    func partBytes(owner: Int64, fileID: Int64, part: Int32) async throws -> [UInt8] {
        let path = "\(uploadDirectory(owner: owner, fileID: fileID))/\(part)"
        return try await NIOThreadPool.singleton.runIfActive {
            guard let bytes = FileManager.default.contents(atPath: path) else { throw FileContentsError.missingPart(part) }
            return [UInt8](bytes)
        }
    }

    func finish(owner: Int64, fileID: Int64, parts: [(part: Int32, size: Int32)], expectedMD5: [UInt8]?,
                date: Int32) async throws -> FinishedContent {
        let folder = uploadDirectory(owner: owner, fileID: fileID)
        let (finished, temporary) = try await NIOThreadPool.singleton.runIfActive { () throws -> (FinishedContent, String) in
            var hasher = try ContentHasher(md5: expectedMD5 != nil)
            try FileManager.default.createDirectory(atPath: contentsDirectory, withIntermediateDirectories: true)
            let temporary = "\(contentsDirectory)/.upload-\(owner)-\(Self.temporaryName())"
            let output = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard output >= 0 else { throw POSIXFailure("open \(temporary)") }
            var kept = false
            defer {
                close(output)
                if !kept { unlink(temporary) }
            }
            for (part, size) in parts {
                guard let bytes = FileManager.default.contents(atPath: "\(folder)/\(part)"), bytes.count == size else {
                    throw FileContentsError.missingPart(part)
                }
                let array = [UInt8](bytes)
                hasher.update(array)
                try Self.writeAll(array, to: output, path: temporary)
            }
            let finished = hasher.finish()
            if let expectedMD5, finished.md5 != expectedMD5 { throw FileContentsError.md5Mismatch }
            guard fsync(output) == 0 else { throw POSIXFailure("fsync \(temporary)") }
            kept = true
            return (finished, temporary)
        }
        try await place(temporary, as: finished.content)
        try await storage.write { tx in
            if try tx.storedContent(finished.content) == nil {
                try tx.insertContent(finished.content, size: finished.size, chunkSize: 0, at: date)
            }
            try tx.deleteUpload(owner: owner, fileID: fileID)
        }
        await discardParts(owner: owner, fileID: fileID)
        return finished
    }

    func store(_ bytes: [UInt8], date: Int32) async throws -> [UInt8] {
        let content = MTProtoHash.sha256(bytes)
        let temporary = "\(contentsDirectory)/.made-\(Self.temporaryName())"
        try await NIOThreadPool.singleton.runIfActive {
            try FileManager.default.createDirectory(atPath: contentsDirectory, withIntermediateDirectories: true)
            try Self.writeFile(bytes, to: temporary, durably: true)
        }
        try await place(temporary, as: content)
        try await storage.write { tx in
            if try tx.storedContent(content) == nil { try tx.insertContent(content, size: Int64(bytes.count), chunkSize: 0, at: date) }
        }
        return content
    }

    func read(_ content: [UInt8], size: Int64, offset: Int64, limit: Int) async throws -> [UInt8] {
        let count = Int(max(0, min(size - offset, Int64(limit))))
        guard count > 0 else { return [] }
        let path = path(of: content)
        return try await NIOThreadPool.singleton.runIfActive {
            let input = open(path, O_RDONLY | O_CLOEXEC)
            guard input >= 0 else { throw FileContentsError.missingContent }
            defer { close(input) }
            var bytes = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let read = bytes.withUnsafeMutableBytes { buffer -> Int in
                    guard let base = buffer.baseAddress else { return -1 }
                    return pread(input, base + done, count - done, off_t(offset) + off_t(done))
                }
                if read < 0, errno == EINTR { continue }
                guard read > 0 else { throw FileContentsError.missingContent }
                done += read
            }
            return bytes
        }
    }

    func discardParts(owner: Int64, fileID: Int64) async {
        let folder = uploadDirectory(owner: owner, fileID: fileID)
        _ = try? await NIOThreadPool.singleton.runIfActive { try FileManager.default.removeItem(atPath: folder) }
    }

    /// Names of temporary files no two writers of this process share (one process writes a SQLite data directory).
    private static let temporaries = Atomic<UInt64>(0)

    static func temporaryName() -> UInt64 {
        temporaries.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Renames a finished temporary file to its content's path; the same content already there keeps its file.
    private func place(_ temporary: String, as content: [UInt8]) async throws {
        let target = path(of: content)
        try await NIOThreadPool.singleton.runIfActive {
            let folder = (target as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            if FileManager.default.fileExists(atPath: target) {
                unlink(temporary)
            } else if rename(temporary, target) != 0 {
                unlink(temporary)
                throw POSIXFailure("rename to \(target)")
            }
        }
    }

    /// Writes `bytes` to `path` through a temporary name and a rename; `durably`: flushed to disk first. The temporary
    /// name is the writer's own: a part sent twice at once (a client retrying, the receive-path fuzzer) had two writers
    /// on one `.partial` file, and the second rename found it gone.
    private static func writeFile(_ bytes: [UInt8], to path: String, durably: Bool) throws {
        let temporary = path + ".partial-\(temporaryName())"
        let output = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw POSIXFailure("open \(temporary)") }
        do {
            try writeAll(bytes, to: output, path: temporary)
            if durably, fsync(output) != 0 { throw POSIXFailure("fsync \(temporary)") }
            close(output)
        } catch {
            close(output)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else { throw POSIXFailure("rename to \(path)") }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return write(descriptor, base + done, bytes.count - done)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw POSIXFailure("write \(path)") }
            done += written
        }
    }
}

/// A failed system call on a file of the data directory, with errno's description.
struct POSIXFailure: Error, CustomStringConvertible {
    let description: String

    init(_ operation: String) {
        description = "\(operation): \(String(cString: strerror(errno)))"
    }
}
