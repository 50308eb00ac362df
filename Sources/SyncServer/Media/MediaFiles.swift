import Foundation
import MTProto
import NIOPosix
import TL

/// Photos and documents made from what a call names (`InputMedia`): an upload becomes a file of the caller on the
/// data center it arrived at; an existing file is named by id, access hash and file reference.
enum MediaFiles {
    /// Photos are small files: Telegram takes up to 10 MiB.
    static let maximumPhotoBytes = UploadRules.smallFileLimit

    /// The media of a message being sent: a new photo or document from an upload, or an existing one again.
    static func outgoing(_ input: API.InputMedia, owner: Int64, dc: Int32, server: ServerContext) async throws(RPCError) -> OutgoingMedia {
        switch input {
        case let .inputMediaUploadedPhoto(value):
            let (file, sizes) = try await uploadedPhoto(value.file, owner: owner, dc: dc, server: server)
            return MediaRendering.media(file, sizes: sizes)
        case let .inputMediaUploadedDocument(value):
            return MediaRendering.media(try await uploadedDocument(value, owner: owner, dc: dc, server: server), sizes: [])
        case let .inputMediaPhoto(value):
            guard case let .inputPhoto(photo) = value.id else { throw .badRequest("MEDIA_EMPTY") }
            let (file, sizes) = try await existing(id: photo.id, accessHash: photo.accessHash, reference: photo.fileReference,
                                                   kind: .photo, server: server)
            return MediaRendering.media(file, sizes: sizes)
        case let .inputMediaDocument(value):
            guard case let .inputDocument(document) = value.id else { throw .badRequest("MEDIA_EMPTY") }
            let (file, _) = try await existing(id: document.id, accessHash: document.accessHash, reference: document.fileReference,
                                               kind: .document, server: server)
            return MediaRendering.media(file, sizes: [])
        case .inputMediaEmpty:
            throw .badRequest("MEDIA_EMPTY")
        default:
            throw .badRequest("MEDIA_INVALID")   // geo points, contacts, polls, dice…: not served here
        }
    }

    /// A file named by a client: it exists, is of `kind`, and the access hash and reference are the ones it was given.
    static func existing(id: Int64, accessHash: Int64, reference: Data, kind: StoredMediaFile.Kind,
                         server: ServerContext) async throws(RPCError) -> (StoredMediaFile, [StoredPhotoSize]) {
        let found = try await server.storageRead { tx -> (StoredMediaFile, [StoredPhotoSize])? in
            guard let file = try tx.mediaFile(id: id) else { return nil }
            return (file, file.kind == .photo ? try tx.photoSizes(fileID: id) : [])
        }
        guard let (file, sizes) = found, file.kind == kind, file.accessHash == accessHash else {
            throw .badRequest(kind == .photo ? "PHOTO_INVALID" : "DOCUMENT_INVALID")
        }
        guard [UInt8](reference) == MediaRendering.reference(id: id, accessHash: accessHash) else {
            throw .badRequest("FILE_REFERENCE_EXPIRED")
        }
        return (file, sizes)
    }

    static func uploadedDocument(_ input: API.InputMedia.InputMediaUploadedDocument, owner: Int64, dc: Int32,
                                 server: ServerContext) async throws(RPCError) -> StoredMediaFile {
        let named = try Uploads.Named(input.file)
        let attributes = try DocumentAttributes.sanitized(input.attributes, uploadName: named.name)
        let parts = try await Uploads.checked(named, owner: owner, server: server)
        let finished = try await Uploads.finish(named, parts: parts, owner: owner, server: server)
        let (id, accessHash) = newIdentity(server: server)
        var width: Int32 = 0, height: Int32 = 0
        for case let .documentAttributeImageSize(size) in attributes { (width, height) = (size.w, size.h) }
        let file = StoredMediaFile(id: id, accessHash: accessHash, dc: dc, owner: owner, kind: .document, date: server.now,
                                   mimeType: DocumentAttributes.mimeType(input.mimeType), size: finished.size, content: finished.content,
                                   attributes: attributes.serialized(), stripped: [], width: width, height: height)
        try await server.storageWrite { tx in try tx.insert(file, sizes: []) }
        return file
    }

    /// A photo: the upload read whole (at most 10 MiB), made into its sizes off the caller's thread, then stored —
    /// nothing of it when it is not a photo (the upload is removed with Telegram's error).
    static func uploadedPhoto(_ input: API.InputFile, owner: Int64, dc: Int32,
                              server: ServerContext) async throws(RPCError) -> (StoredMediaFile, [StoredPhotoSize]) {
        let named = try Uploads.Named(input)
        guard !named.big else { throw .badRequest("PHOTO_SAVE_FILE_INVALID") }
        let parts = try await Uploads.checked(named, owner: owner, server: server)
        let processed: ProcessedPhoto
        do {
            processed = try await server.photoJobs.withPermit {
                let bytes = try await Uploads.bytes(of: named, parts: parts, owner: owner, server: server)
                return try await NIOThreadPool.singleton.runIfActive { try PhotoProcessing.process(bytes) }
            }
        } catch let failure as PhotoFailure {
            await Uploads.discard(named, owner: owner, server: server)
            throw failure.rpcError
        } catch let error as RPCError {
            throw error
        } catch {
            server.logger.error("cannot make a photo's sizes", metadata: ["error": "\(error)"])
            throw .internalError
        }
        let finished = try await Uploads.finish(named, parts: parts, owner: owner, server: server)
        let date = server.now
        var sizes: [StoredPhotoSize] = []
        do {
            for size in processed.sizes {
                let content = try await server.files.store(size.jpeg, date: date)
                sizes.append(StoredPhotoSize(type: size.type, width: size.width, height: size.height, size: Int32(size.jpeg.count),
                                             content: content))
            }
        } catch {
            server.logger.error("cannot store a photo's sizes", metadata: ["error": "\(error)"])
            throw .internalError
        }
        let (id, accessHash) = newIdentity(server: server)
        let file = StoredMediaFile(id: id, accessHash: accessHash, dc: dc, owner: owner, kind: .photo, date: date, mimeType: "image/jpeg",
                                   size: finished.size, content: finished.content, attributes: [], stripped: processed.stripped,
                                   width: processed.width, height: processed.height)
        let stored = sizes
        try await server.storageWrite { tx in try tx.insert(file, sizes: stored) }
        return (file, sizes)
    }

    /// A new file's id and access hash. Ids grow with time, as Telegram's do (a user's photos list newest first by id,
    /// `max_id` pages below one): the second in the high 32 bits, then a per-process counter (files made in one
    /// second keep their order), then 20 random bits (processes sharing a database do not collide).
    static func newIdentity(server: ServerContext) -> (id: Int64, accessHash: Int64) {
        let sequence = Int64(server.fileSequence.wrappingAdd(1, ordering: .relaxed).oldValue & 0xFFF)
        return server.random { random in
            let id = Int64(server.now) << 32 | sequence << 20 | random.int64(in: 0...(1 << 20) - 1)
            return (id, random.int64(in: Int64.min...Int64.max))
        }
    }
}
