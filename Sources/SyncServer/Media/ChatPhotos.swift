import Foundation
import MTProto
import TL

/// Basic groups' and channels' photos (`messages.editChatPhoto`, `channels.editPhoto`): the photo on the chat's row as
/// `chatPhoto` with its stripped thumbnail, a service message with the photo (`messageActionChatEditPhoto`) or its
/// removal (`messageActionChatDeletePhoto`), downloaded by peer (`inputPeerPhotoFileLocation`).
enum ChatPhotos {
    /// A chat's photo as the chat carries it.
    static func rendered(_ bytes: [UInt8]?) -> API.ChatPhoto {
        bytes.flatMap { try? API.ChatPhoto.deserialize($0) } ?? .chatPhotoEmpty(.init())
    }

    static func chatPhoto(_ photo: StoredMediaFile) -> [UInt8] {
        API.ChatPhoto.chatPhoto(.init(photoId: photo.id, strippedThumb: photo.stripped.isEmpty ? nil : Data(photo.stripped), dcId: photo.dc))
            .serialized()
    }

    static func currentID(_ bytes: [UInt8]?) -> Int64? {
        if case let .chatPhoto(photo) = rendered(bytes) { photo.photoId } else { nil }
    }

    /// The photo an `InputChatPhoto` names, made from an upload or found by id; nil for `inputChatPhotoEmpty`.
    static func photo(_ input: API.InputChatPhoto, me: Int64, dc: Int32,
                      server: ServerContext) async throws(RPCError) -> (StoredMediaFile, [StoredPhotoSize])? {
        switch input {
        case .inputChatPhotoEmpty:
            return nil
        case let .inputChatUploadedPhoto(value):
            guard let file = value.file else { throw .badRequest(value.video == nil ? "PHOTO_FILE_MISSING" : "VIDEO_FILE_INVALID") }
            return try await MediaFiles.uploadedPhoto(file, owner: me, dc: dc, server: server)
        case let .inputChatPhoto(value):
            guard case let .inputPhoto(photo) = value.id else { throw .badRequest("PHOTO_INVALID") }
            return try await MediaFiles.existing(id: photo.id, accessHash: photo.accessHash, reference: photo.fileReference, kind: .photo,
                                                 server: server)
        }
    }

    /// The new row value and the service message's action for a change to `photo` (`CHAT_NOT_MODIFIED` when it is the
    /// photo already, or there is none to remove).
    static func change(from current: [UInt8]?, to photo: (StoredMediaFile, [StoredPhotoSize])?) throws -> ([UInt8]?, API.MessageAction) {
        guard let (file, sizes) = photo else {
            guard current != nil else { throw RPCError.badRequest("CHAT_NOT_MODIFIED") }
            return (nil, .messageActionChatDeletePhoto(.init()))
        }
        guard currentID(current) != file.id else { throw RPCError.badRequest("CHAT_NOT_MODIFIED") }
        return (chatPhoto(file), .messageActionChatEditPhoto(.init(photo: MediaRendering.photo(file, sizes: sizes))))
    }
}
