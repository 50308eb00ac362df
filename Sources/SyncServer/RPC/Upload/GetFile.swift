import Foundation
import MTProto
import TL

extension UploadRPC {
    /// `upload.getFile`: a range of a photo's size, of a document or of a user's profile photo, on the data center the
    /// file lives on (`FILE_MIGRATE_X` elsewhere), with Telegram's range rules (core.telegram.org/api/files#downloading-files):
    /// the offset and limit multiples of 4 KiB, the limit dividing 1 MiB and the range inside one 1 MiB block; with
    /// `precise`, multiples of 1 KiB up to 1 MiB anywhere. Past the end the bytes are empty. Read in ranges, never whole.
    enum GetFile: RPCMethod {
        typealias Function = API.functions.upload.GetFile
        static let block: Int64 = 1 << 20

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> API.upload.File {
            let me = try context.user()
            try checkRange(offset: call.offset, limit: call.limit, precise: call.precise)
            let (file, content, size, type) = try await located(call.location, me: me, server: server)
            guard file.dc == context.dc else { throw RPCError(code: 303, message: "FILE_MIGRATE_\(file.dc)") }
            let bytes: [UInt8]
            do {
                bytes = try await server.files.read(content, size: size, offset: call.offset, limit: Int(call.limit))
            } catch {
                server.logger.error("cannot read a file", metadata: ["file": "\(file.id)", "error": "\(error)"])
                throw .internalError
            }
            return .file(.init(type: type, mtime: file.date, bytes: Data(bytes)))
        }

        static func checkRange(offset: Int64, limit: Int32, precise: Bool) throws(RPCError) {
            let unit: Int64 = precise ? 1024 : 4096
            guard offset >= 0, offset % unit == 0 else { throw .badRequest("OFFSET_INVALID") }
            guard limit > 0, Int64(limit) <= block, Int64(limit) % unit == 0 else { throw .badRequest("LIMIT_INVALID") }
            if !precise {
                guard block % Int64(limit) == 0 else { throw .badRequest("LIMIT_INVALID") }
                guard offset / block == (offset + Int64(limit) - 1) / block else { throw .badRequest("LIMIT_INVALID") }
            }
        }

        /// The file a location names, the content it asks for and its size and type.
        private static func located(_ location: API.InputFileLocation, me: Int64,
                                    server: ServerContext) async throws(RPCError) -> (StoredMediaFile, [UInt8], Int64, API.storage.FileType) {
            switch location {
            case let .inputDocumentFileLocation(value):
                guard value.thumbSize.isEmpty else { throw .badRequest("LOCATION_INVALID") }
                let (file, _) = try await found(id: value.id, accessHash: value.accessHash, reference: value.fileReference, kind: .document,
                                                server: server)
                return (file, file.content, file.size, fileType(mime: file.mimeType))
            case let .inputPhotoFileLocation(value):
                let (file, sizes) = try await found(id: value.id, accessHash: value.accessHash, reference: value.fileReference, kind: .photo,
                                                    server: server)
                guard let size = sizes.first(where: { $0.type == value.thumbSize }) else { throw .badRequest("LOCATION_INVALID") }
                return (file, size.content, Int64(size.size), .fileJpeg(.init()))
            case let .inputPeerPhotoFileLocation(value):
                // A user's profile photo, current or listed, or a group's or channel's photo: named by the peer and the
                // photo's id, no reference.
                let found = try await server.storageRead { tx -> (StoredMediaFile, StoredPhotoSize)? in
                    guard try peerShows(value.photoId, peer: value.peer, me: me, in: tx),
                          let file = try tx.mediaFile(id: value.photoId), file.kind == .photo,
                          let size = ProfilePhotos.size(of: try tx.photoSizes(fileID: file.id), big: value.big) else { return nil }
                    return (file, size)
                }
                guard let (file, size) = found else { throw .badRequest("LOCATION_INVALID") }
                return (file, size.content, Int64(size.size), .fileJpeg(.init()))
            default:
                throw .badRequest("LOCATION_INVALID")
            }
        }

        /// Whether `photo` is the peer's: a user's current or listed profile photo, a group's or channel's photo.
        private static func peerShows(_ photo: Int64, peer input: API.InputPeer, me: Int64, in tx: any StorageReader) throws -> Bool {
            switch try PeerResolution.peer(input, me: me, in: tx) {
            case let .user(id):
                guard let user = try tx.user(id: id) else { return false }
                return try ProfilePhotos.currentID(of: user) == photo || tx.hasProfilePhoto(user: id, photo: photo)
            case let .chat(id): return ChatPhotos.currentID(try tx.chat(id: id)?.photo) == photo
            case let .channel(id): return ChatPhotos.currentID(try tx.channel(id: id)?.photo) == photo
            }
        }

        /// `MediaFiles.existing`, whose refusals of a file that is not there read as a location that is not valid.
        private static func found(id: Int64, accessHash: Int64, reference: Data, kind: StoredMediaFile.Kind,
                                  server: ServerContext) async throws(RPCError) -> (StoredMediaFile, [StoredPhotoSize]) {
            do {
                return try await MediaFiles.existing(id: id, accessHash: accessHash, reference: reference, kind: kind, server: server)
            } catch where error.message == "PHOTO_INVALID" || error.message == "DOCUMENT_INVALID" {
                throw .badRequest("LOCATION_INVALID")
            }
        }

        static func fileType(mime: String) -> API.storage.FileType {
            switch mime {
            case "image/jpeg": .fileJpeg(.init())
            case "image/png": .filePng(.init())
            case "image/gif": .fileGif(.init())
            case "image/webp": .fileWebp(.init())
            case "application/pdf": .filePdf(.init())
            case "audio/mpeg": .fileMp3(.init())
            case "video/quicktime": .fileMov(.init())
            case "video/mp4": .fileMp4(.init())
            default: .fileUnknown(.init())
            }
        }
    }
}
