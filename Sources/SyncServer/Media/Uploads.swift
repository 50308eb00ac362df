import Foundation
import Logging
import MTProto
import TL

/// The server's side of uploads (core.telegram.org/api/files#uploading-files): a part is checked (`UploadRules`), its
/// bytes kept (`FileContents`) and its row committed before `true` is answered; an upload belongs to the user whose
/// session sent it and is used by a later call naming it (`InputFile`), which checks it whole and makes it a content.
/// An upload not used within `SyncServerConfiguration.uploadLifetime` is removed.
enum Uploads {
    static func save(_ part: UploadRules.Part, fileID: Int64, bytes: Data, owner: Int64, server: ServerContext) async throws(RPCError) {
        let maximum = server.configuration.maximumFileSize
        let (upload, replaced, held) = try await server.storageRead { tx in
            (try tx.upload(owner: owner, fileID: fileID), try tx.uploadPartSize(owner: owner, fileID: fileID, part: part.number),
             try tx.pendingUploadBytes(owner: owner) + tx.storedFileBytes(owner: owner))
        }
        _ = try UploadRules.admit(part, to: upload, maximumFileSize: maximum)
        let added = Int64(part.size) - Int64(replaced ?? 0)
        guard held + added <= server.configuration.userStorageQuota else { throw .badRequest("UPLOAD_QUOTA_EXCEEDED") }
        let array = [UInt8](bytes)
        do {
            try await server.files.keepPart(owner: owner, fileID: fileID, part: part.number, bytes: array)
        } catch {
            server.logger.error("cannot keep an upload's part", metadata: ["error": "\(error)"])
            throw .internalError
        }
        let (date, rowBytes) = (server.now, server.files.rowBytes(ofPart: array))
        try await server.storageWrite { tx in
            // Checked again inside the transaction: another part of the same upload may have been stored meanwhile.
            let current = try tx.upload(owner: owner, fileID: fileID)
            let (partSize, total) = try UploadRules.admit(part, to: current, maximumFileSize: maximum)
            if current == nil { try tx.startUpload(owner: owner, fileID: fileID, big: part.totalParts != nil, totalParts: total, at: date) }
            let previous = Int64(try tx.uploadPartSize(owner: owner, fileID: fileID, part: part.number) ?? 0)
            try tx.storeUploadPart(owner: owner, fileID: fileID, part: part.number, size: part.size, bytes: rowBytes,
                                   partSize: partSize, totalParts: total, addedBytes: Int64(part.size) - previous)
        }
        sweepIfDue(server: server)
    }

    /// An uploaded file named by a call: its id, part count, name and (a small file's) MD5 as the client sent them.
    struct Named: Sendable {
        let fileID: Int64
        let parts: Int32
        let name: String
        let big: Bool
        let md5: [UInt8]?

        init(_ file: API.InputFile) throws(RPCError) {
            switch file {
            case let .inputFile(value):
                (fileID, parts, name, big) = (value.id, value.parts, value.name, false)
                guard value.md5Checksum.isEmpty || value.md5Checksum.utf8.count == 32,
                      let md5 = value.md5Checksum.isEmpty ? [] : Self.hexBytes(value.md5Checksum) else {
                    throw .badRequest("MD5_CHECKSUM_INVALID")
                }
                self.md5 = md5.isEmpty ? nil : md5
            case let .inputFileBig(value):
                (fileID, parts, name, big, md5) = (value.id, value.parts, value.name, true, nil)
            case .inputFileStoryDocument:
                throw .badRequest("MEDIA_INVALID")
            }
        }

        private static func hexBytes(_ text: String) -> [UInt8]? {
            var bytes: [UInt8] = []
            var pending: UInt8?
            for unit in text.utf8 {
                guard let value = UInt8(String(UnicodeScalar(unit)), radix: 16) else { return nil }
                if let high = pending {
                    bytes.append(high << 4 | value)
                    pending = nil
                } else {
                    pending = value
                }
            }
            return pending == nil ? bytes : nil
        }
    }

    /// The upload `file` names, checked whole: its parts and their sizes (`UploadRules.finished`) and, counted with the
    /// user's stored files, the quota. Nothing is changed.
    static func checked(_ file: Named, owner: Int64, server: ServerContext) async throws(RPCError) -> [(part: Int32, size: Int32)] {
        let (upload, parts, stored, pending) = try await server.storageRead { tx in
            (try tx.upload(owner: owner, fileID: file.fileID), try tx.uploadParts(owner: owner, fileID: file.fileID),
             try tx.storedFileBytes(owner: owner), try tx.pendingUploadBytes(owner: owner))
        }
        guard let upload else { throw .badRequest("FILE_PART_0_MISSING") }
        _ = try UploadRules.finished(parts: parts, declared: file.parts, upload: upload, big: file.big,
                                     maximumFileSize: server.configuration.maximumFileSize)
        guard stored + pending <= server.configuration.userStorageQuota else { throw .badRequest("UPLOAD_QUOTA_EXCEEDED") }
        return parts
    }

    /// Makes the upload a content (hashed part by part, compared with the client's MD5) and removes it.
    static func finish(_ file: Named, parts: [(part: Int32, size: Int32)], owner: Int64,
                       server: ServerContext) async throws(RPCError) -> FinishedContent {
        do {
            return try await server.files.finish(owner: owner, fileID: file.fileID, parts: parts, expectedMD5: file.md5, date: server.now)
        } catch {
            throw refusal(error, server: server)
        }
    }

    /// Every part of the upload, in order (a photo: at most 10 MiB, read before anything of it is stored).
    static func bytes(of file: Named, parts: [(part: Int32, size: Int32)], owner: Int64,
                      server: ServerContext) async throws(RPCError) -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            for (part, size) in parts {
                let piece = try await server.files.partBytes(owner: owner, fileID: file.fileID, part: part)
                guard piece.count == size else { throw FileContentsError.missingPart(part) }
                bytes += piece
            }
        } catch {
            throw refusal(error, server: server)
        }
        if let md5 = file.md5 {
            let digest = StreamingDigest(.md5)
            digest?.update(bytes)
            guard digest?.finish() == md5 else { throw .badRequest("MD5_CHECKSUM_INVALID") }
        }
        return bytes
    }

    /// Removes an upload that was refused as a whole (not a photo), so that nothing of it stays.
    static func discard(_ file: Named, owner: Int64, server: ServerContext) async {
        _ = try? await server.storage.write { tx in try tx.deleteUpload(owner: owner, fileID: file.fileID) }
        await server.files.discardParts(owner: owner, fileID: file.fileID)
    }

    private static func refusal(_ error: any Error, server: ServerContext) -> RPCError {
        switch error {
        case let FileContentsError.missingPart(part): return .badRequest("FILE_PART_\(part)_MISSING")
        case FileContentsError.md5Mismatch: return .badRequest("MD5_CHECKSUM_INVALID")
        case let error as RPCError: return error
        default:
            server.logger.error("cannot finish an upload", metadata: ["error": "\(error)"])
            return .internalError
        }
    }

    /// Removes uploads older than their lifetime, at most every ten minutes per process, a hundred at a time.
    static func sweepIfDue(server: ServerContext) {
        let now = server.now
        let last = server.lastUploadSweep.load(ordering: .relaxed)
        guard now - last >= 600,
              server.lastUploadSweep.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else { return }
        Task {
            let cutoff = now - server.configuration.uploadLifetime
            guard let expired = try? await server.storage.read({ try $0.expiredUploads(startedBy: cutoff, limit: 100) }) else { return }
            for (owner, fileID) in expired {
                _ = try? await server.storage.write { tx in try tx.deleteUpload(owner: owner, fileID: fileID) }
                await server.files.discardParts(owner: owner, fileID: fileID)
            }
            if !expired.isEmpty { server.logger.info("removed expired uploads", metadata: ["count": "\(expired.count)"]) }
        }
    }
}
