import Foundation
import MTProto
import TL

/// Users' profile photos (core.telegram.org/api/photos): each upload is
/// a photo with Telegram's sizes, listed newest first; the current one is on the user's row as `userProfilePhoto`
/// (with its stripped thumbnail, so every user shown carries it) and told like a name change (`Profiles`).
enum ProfilePhotos {
    /// What a user carries for `photo`.
    static func userPhoto(_ photo: StoredMediaFile) -> [UInt8] {
        API.UserProfilePhoto.userProfilePhoto(.init(photoId: photo.id, strippedThumb: photo.stripped.isEmpty ? nil : Data(photo.stripped),
                                                    dcId: photo.dc)).serialized()
    }

    /// The id of the photo a user's row names.
    static func currentID(of user: UserRecord) -> Int64? {
        guard let bytes = user.photo, case let .userProfilePhoto(photo)? = try? API.UserProfilePhoto.deserialize(bytes) else { return nil }
        return photo.photoId
    }

    /// A photo with its sizes, rendered (nil when the row is gone).
    static func rendered(_ id: Int64, in tx: any StorageReader) throws -> API.Photo? {
        guard let file = try tx.mediaFile(id: id), file.kind == .photo else { return nil }
        return MediaRendering.photo(file, sizes: try tx.photoSizes(fileID: id))
    }

    /// The size an `inputPeerPhotoFileLocation` asks for: the largest when `big`, else the 320-pixel one.
    static func size(of sizes: [StoredPhotoSize], big: Bool) -> StoredPhotoSize? {
        big ? sizes.max { $0.size < $1.size } : sizes.first { $0.type == "m" } ?? sizes.first
    }
}
