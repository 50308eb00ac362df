import Foundation
import MTProto
import TL

/// `photos.*`: a user's profile photos (`ProfilePhotos`).
enum PhotosRPC {
    /// The most photos one `photos.getUserPhotos` or `photos.deletePhotos` names.
    static let pageLimit = 100

    /// `photos.uploadProfilePhoto`: a new photo from an upload, made the caller's current one (unless `fallback`, which
    /// only lists it), told to the people who see the caller. Videos and other bots' photos are not served here.
    enum UploadProfilePhoto: RPCMethod {
        typealias Function = API.functions.photos.UploadProfilePhoto

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> API.photos.Photo {
            let me = try context.user()
            guard call.bot == nil else { throw .badRequest("BOT_INVALID") }
            guard let file = call.file else { throw .badRequest(call.video == nil ? "PHOTO_FILE_MISSING" : "VIDEO_FILE_INVALID") }
            try server.profileRate.admit(user: me, now: server.monotonicNow)
            let (photo, sizes) = try await MediaFiles.uploadedPhoto(file, owner: me, dc: context.dc, server: server)
            let (date, fallback) = (server.now, call.fallback)
            let change = try await server.storageWrite { tx in
                try tx.addProfilePhoto(user: me, photo: photo.id, date: photo.date)
                return try Profiles.change(me, date: date, in: tx) { user in
                    if !fallback { user.photo = ProfilePhotos.userPhoto(photo) }
                }
            }
            change.told?.push(date: date, server: server)
            return .photo(.init(photo: MediaRendering.photo(photo, sizes: sizes), users: [TLRendering.user(change.user, viewer: me)]))
        }
    }

    /// `photos.updateProfilePhoto`: one of the caller's listed photos made current, or none (`inputPhotoEmpty`).
    enum UpdateProfilePhoto: RPCMethod {
        typealias Function = API.functions.photos.UpdateProfilePhoto

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> API.photos.Photo {
            let me = try context.user()
            guard call.bot == nil else { throw .badRequest("BOT_INVALID") }
            try server.profileRate.admit(user: me, now: server.monotonicNow)
            var chosen: (StoredMediaFile, [StoredPhotoSize])?
            if case let .inputPhoto(input) = call.id {
                chosen = try await MediaFiles.existing(id: input.id, accessHash: input.accessHash, reference: input.fileReference,
                                                       kind: .photo, server: server)
            }
            let (date, picked) = (server.now, chosen)
            let change = try await server.storageWrite { tx in
                if let (photo, _) = picked, !(try tx.hasProfilePhoto(user: me, photo: photo.id)) {
                    throw RPCError.badRequest("PHOTO_ID_INVALID")
                }
                return try Profiles.change(me, date: date, in: tx) { user in user.photo = picked.map { ProfilePhotos.userPhoto($0.0) } }
            }
            change.told?.push(date: date, server: server)
            let photo: API.Photo = picked.map { MediaRendering.photo($0.0, sizes: $0.1) } ?? .photoEmpty(.init(id: 0))
            return .photo(.init(photo: photo, users: [TLRendering.user(change.user, viewer: me)]))
        }
    }

    /// `photos.getUserPhotos`: a user's profile photos, newest first, at most 100 a page (`offset`, `max_id`).
    enum GetUserPhotos: RPCMethod {
        typealias Function = API.functions.photos.GetUserPhotos

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> API.photos.Photos {
            let me = try context.user()
            guard call.offset >= 0 else { throw .badRequest("OFFSET_INVALID") }
            let (input, maxID, offset, limit) = (call.userId, call.maxId, Int(call.offset), max(0, min(Int(call.limit), pageLimit)))
            return try await server.storageRead { tx in
                let user = try PeerResolution.user(input, me: me, in: tx)
                let ids = limit == 0 ? [] : try tx.profilePhotos(user: user.id, maxID: maxID, offset: offset, limit: limit)
                let photos = try ids.compactMap { try ProfilePhotos.rendered($0, in: tx) }
                let count = try tx.profilePhotoCount(user: user.id)
                let users = [TLRendering.user(user, viewer: me)]
                return count == photos.count && offset == 0 && maxID == 0 ? .photos(.init(photos: photos, users: users))
                    : .photosSlice(.init(count: Int32(clamping: count), photos: photos, users: users))
            }
        }
    }

    /// `photos.deletePhotos`: the caller's listed photos named are removed from the list (their files stay: messages
    /// may show them); when the current one goes, the newest left becomes current. Answers the ids removed.
    enum DeletePhotos: RPCMethod {
        typealias Function = API.functions.photos.DeletePhotos

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> [Int64] {
            let me = try context.user()
            guard call.id.count <= pageLimit else { throw .badRequest("LIMIT_INVALID") }
            let named = call.id.compactMap { input -> (Int64, Int64)? in
                if case let .inputPhoto(photo) = input { (photo.id, photo.accessHash) } else { nil }
            }
            let date = server.now
            let (removed, change) = try await server.storageWrite { tx -> ([Int64], Profiles.Change) in
                var removed: [Int64] = []
                for (id, accessHash) in named where try tx.hasProfilePhoto(user: me, photo: id) {
                    guard try tx.mediaFile(id: id)?.accessHash == accessHash else { continue }
                    try tx.removeProfilePhoto(user: me, photo: id)
                    removed.append(id)
                }
                let change = try Profiles.change(me, date: date, in: tx) { user in
                    guard let current = ProfilePhotos.currentID(of: user), removed.contains(current) else { return }
                    let next = try tx.profilePhotos(user: me, maxID: 0, offset: 0, limit: 1).first.flatMap { try tx.mediaFile(id: $0) }
                    user.photo = next.map(ProfilePhotos.userPhoto)
                }
                return (removed, change)
            }
            change.told?.push(date: date, server: server)
            return removed
        }
    }
}
