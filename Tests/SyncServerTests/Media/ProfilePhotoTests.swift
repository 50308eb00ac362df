import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Profile photos over real sockets on both backends: uploaded, told to those who see the user, carried by the user,
/// listed, downloaded by peer, switched, deleted.
@Suite(.timeLimit(.minutes(3)))
struct ProfilePhotoTests {
    static func uploadPhoto(width: Int32, from client: TestClient) async throws -> API.photos.Photo.Photo {
        let jpeg = try #require(PhotoProcessing.jpeg(rgb: PhotoProcessingTests.gradient(width: width, height: width), width: width, height: width))
        let file = try await MediaSupport.upload(jpeg, from: client)
        guard case let .photo(uploaded) = try await client.call(API.functions.photos.UploadProfilePhoto(file: file)) else {
            throw TestClientError.unexpected("no photo")
        }
        return uploaded
    }

    @Test(arguments: StorageBackend.all) func aProfilePhotoIsToldListedDownloadedAndDeleted(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        _ = try await send("hello", to: try await inputUser(1002, in: alice), from: alice)
        _ = try await bob.nextPush()

        let first = try await Self.uploadPhoto(width: 700, from: alice)
        guard case let .photo(photo) = first.photo, case let .user(me)? = first.users.first,
              case let .userProfilePhoto(current)? = me.photo else { Issue.record("no current photo"); return }
        #expect(current.photoId == photo.id && current.dcId == 2 && (current.strippedThumb?.count ?? 0) > 3)
        // Bob, who has a dialog with Alice, is told: updateUser with Alice carrying the photo.
        guard case let .updates(told) = try await bob.nextPush(), case .updateUser? = told.updates.first,
              case let .user(seen)? = told.users.first(where: { if case let .user(u) = $0 { u.id == 1001 } else { false } }),
              case let .userProfilePhoto(seenPhoto)? = seen.photo else { Issue.record("Bob was not told"); return }
        #expect(seenPhoto.photoId == photo.id)

        // Bob downloads it by peer: the small size and the big one.
        let alicePeer = try await inputUser(1001, in: bob)
        let small = API.functions.upload.GetFile(location: .inputPeerPhotoFileLocation(.init(peer: alicePeer, photoId: photo.id)),
                                                 offset: 0, limit: 512 * 1024)
        let big = API.functions.upload.GetFile(location: .inputPeerPhotoFileLocation(.init(big: true, peer: alicePeer, photoId: photo.id)),
                                               offset: 0, limit: 512 * 1024)
        guard case let .file(smallFile) = try await bob.call(small), case let .file(bigFile) = try await bob.call(big) else { return }
        #expect(PhotoProcessing.pixels(of: [UInt8](smallFile.bytes))?.width == 320)
        #expect(PhotoProcessing.pixels(of: [UInt8](bigFile.bytes))?.width == 700)
        let wrong = API.functions.upload.GetFile(location: .inputPeerPhotoFileLocation(.init(peer: alicePeer, photoId: photo.id ^ 1)),
                                                 offset: 0, limit: 4096)
        #expect(await MediaSupport.refusal(wrong, on: bob) == "LOCATION_INVALID")

        // A second photo becomes current; both are listed, newest first; deleting the current one brings back the first.
        let second = try await Self.uploadPhoto(width: 200, from: alice)
        guard case let .photo(secondPhoto) = second.photo else { return }
        guard case let .photos(listed) = try await bob.call(API.functions.photos.GetUserPhotos(
            userId: try await inputUserValue(1001, in: bob), offset: 0, maxId: 0, limit: 10)) else { Issue.record("not whole"); return }
        #expect(listed.photos.map { if case let .photo(p) = $0 { p.id } else { 0 } } == [secondPhoto.id, photo.id])
        let deleted = try await alice.call(API.functions.photos.DeletePhotos(id: [.inputPhoto(.init(
            id: secondPhoto.id, accessHash: secondPhoto.accessHash, fileReference: secondPhoto.fileReference))]))
        #expect(deleted == [secondPhoto.id])
        guard case let .user(after)? = try await alice.call(API.functions.users.GetUsers(id: [.inputUserSelf(.init())])).first,
              case let .userProfilePhoto(back)? = after.photo else { Issue.record("no photo after the delete"); return }
        #expect(back.photoId == photo.id)
        // None: the user carries no photo.
        _ = try await alice.call(API.functions.photos.UpdateProfilePhoto(id: .inputPhotoEmpty(.init())))
        guard case let .user(bare)? = try await alice.call(API.functions.users.GetUsers(id: [.inputUserSelf(.init())])).first else { return }
        #expect(bare.photo == nil)
        await alice.close()
        await bob.close()
        try await harness.stop()
    }
}

/// Groups' and channels' photos: set from an upload, told as a service message with the photo, carried by the chat,
/// downloaded by peer, removed.
@Suite(.timeLimit(.minutes(3)))
struct ChatPhotoTests {
    static func action(in updates: API.Updates) -> API.MessageAction? {
        guard case let .updates(value) = updates else { return nil }
        for update in value.updates {
            switch update {
            case let .updateNewMessage(new): if case let .messageService(service) = new.message { return service.action }
            case let .updateNewChannelMessage(new): if case let .messageService(service) = new.message { return service.action }
            default: continue
            }
        }
        return nil
    }

    static func uploaded(from client: TestClient) async throws -> API.InputChatPhoto {
        let jpeg = try #require(PhotoProcessing.jpeg(rgb: PhotoProcessingTests.gradient(width: 400, height: 400), width: 400, height: 400))
        return .inputChatUploadedPhoto(.init(file: try await MediaSupport.upload(jpeg, from: client)))
    }

    @Test(arguments: StorageBackend.all) func aGroupAndAChannelGetAPhoto(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let (chatID, _) = try await createGroup("Photos", by: alice, members: [1002])
        _ = try await bob.nextPush()
        let edited = try await alice.call(API.functions.messages.EditChatPhoto(chatId: chatID, photo: try await Self.uploaded(from: alice)))
        guard case let .messageActionChatEditPhoto(set)? = Self.action(in: edited), case let .photo(photo) = set.photo else {
            Issue.record("no photo service message"); return
        }
        guard case let .updates(pushed) = try await bob.nextPush(), case let .chat(chat)? = pushed.chats.first,
              case let .chatPhoto(carried) = chat.photo else { Issue.record("Bob's chat carries no photo"); return }
        #expect(carried.photoId == photo.id)
        let location = API.InputFileLocation.inputPeerPhotoFileLocation(.init(big: true, peer: .inputPeerChat(.init(chatId: chatID)),
                                                                              photoId: photo.id))
        guard case let .file(file) = try await bob.call(API.functions.upload.GetFile(location: location, offset: 0, limit: 512 * 1024))
        else { return }
        #expect(PhotoProcessing.pixels(of: [UInt8](file.bytes))?.width == 400)
        let removed = try await alice.call(API.functions.messages.EditChatPhoto(chatId: chatID, photo: .inputChatPhotoEmpty(.init())))
        guard case .messageActionChatDeletePhoto? = Self.action(in: removed) else { Issue.record("no removal"); return }
        #expect(await MediaSupport.refusal(API.functions.messages.EditChatPhoto(chatId: chatID, photo: .inputChatPhotoEmpty(.init())),
                                           on: alice) == "CHAT_NOT_MODIFIED")

        guard case let .updates(created) = try await alice.call(API.functions.channels.CreateChannel(broadcast: true, title: "Gallery", about: "")),
              case let .channel(channel)? = created.chats.first, let accessHash = channel.accessHash else { Issue.record("no channel"); return }
        let input = API.InputChannel.inputChannel(.init(channelId: channel.id, accessHash: accessHash))
        let posted = try await alice.call(API.functions.channels.EditPhoto(channel: input, photo: try await Self.uploaded(from: alice)))
        guard case let .messageActionChatEditPhoto(channelSet)? = Self.action(in: posted), case let .photo(channelPhoto) = channelSet.photo,
              case let .updates(value) = posted, case let .channel(shown)? = value.chats.first, case let .chatPhoto(onChannel) = shown.photo
        else { Issue.record("no channel photo"); return }
        #expect(onChannel.photoId == channelPhoto.id)
        await alice.close()
        await bob.close()
        try await harness.stop()
    }
}
