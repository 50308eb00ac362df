import Foundation
import MTProto
import Postbox
import TL

/// Photos and documents: sent from a file on disk through the send log, downloaded into the account's media cache.
extension Account {
    /// Uploads `path` (resumable: a restart goes on with the parts it lacks, `MediaUploader`) and queues it as a
    /// message to `peer` with `caption`: a photo for a JPEG or PNG of at most 10 MiB unless `asDocument`, a document
    /// named after the file otherwise. The handle gives the local copy and follows the send to the server's message,
    /// which replaces the local copy as a text send's does (`OutgoingMessage`).
    @discardableResult
    public func sendFile(_ path: String, to peer: PeerID, caption: String = "", asDocument: Bool = false,
                         progress: (@Sendable (Int64, Int64) -> Void)? = nil) async throws -> OutgoingMessage {
        let input = try await inputPeer(peer)
        guard let user, !closed else { throw closed ? AccountError.closed : AccountError.notLoggedIn }
        let file = try await uploader.upload(path, progress: progress)
        let name = (path as NSString).lastPathComponent
        let media: API.InputMedia
        if !asDocument, Self.isPhoto(name: name), case .inputFile = file {
            media = .inputMediaUploadedPhoto(.init(file: file))
        } else {
            media = .inputMediaUploadedDocument(.init(file: file, mimeType: Self.mimeType(of: name),
                                                      attributes: [.documentAttributeFilename(.init(fileName: name))]))
        }
        let request = API.functions.messages.SendMedia(peer: input, media: media, message: caption,
                                                       randomId: network.environment.random.int64(in: 1...Int64.max))
        let outcomes = broadcast.subscribe()   // before the send is queued: its outcome cannot come first
        let local = try await AccountStateManager.queueMedia(request, selfID: user.id, in: postbox, environment: network.environment)
        await uploader.finished(path)
        if isMaster { try? await syncing().wakeLogWorker(OutboxEntry.sendTag) }
        return OutgoingMessage(local: local, events: outcomes, follows: !isMaster)
    }

    /// The file of message `id`'s photo (its largest size) or document, downloaded into the media cache as needed
    /// (resumable, on the download workers of the data center it lives on). An expired file reference is refreshed by
    /// fetching the message again.
    public func download(_ id: MessageID, progress: (@Sendable (MediaDownloader.Progress) -> Void)? = nil) async throws -> String {
        guard let message = try await postbox.read({ try $0.message(id) }), let resource = message.media?.resource else {
            throw AccountError.noMedia(id)
        }
        let input = try await inputPeer(id.peer)
        let network = self.network
        return try await downloader.download(resource, progress: progress, refresh: {
            try await Self.freshLocation(of: id, resource: resource, peer: input, network: network)
        })
    }

    /// The location of `resource` in message `id` as the server gives it now (a new file reference).
    static func freshLocation(of id: MessageID, resource: MediaResource, peer: API.InputPeer,
                              network: ConnectionManager) async throws -> API.InputFileLocation {
        let fetched: API.messages.Messages
        if case let .inputPeerChannel(channel) = peer {
            fetched = try await network.send(API.functions.channels.GetMessages(
                channel: .inputChannel(.init(channelId: channel.channelId, accessHash: channel.accessHash)),
                id: [.inputMessageID(.init(id: id.id))]))
        } else {
            fetched = try await network.send(API.functions.messages.GetMessages(id: [.inputMessageID(.init(id: id.id))]))
        }
        let messages: [API.Message]
        switch fetched {
        case let .messages(value): messages = value.messages
        case let .messagesSlice(value): messages = value.messages
        case let .channelMessages(value): messages = value.messages
        case .messagesNotModified: messages = []
        }
        guard let media = messages.lazy.compactMap(MessageMedia.init).first,
              let fresh = [media.resource, { if case let .photo(photo) = media { photo.resource(size: resource.id.split(separator: "-").last.map(String.init)) } else { nil } }()]
                .compactMap({ $0 }).first(where: { $0.id == resource.id }) else {
            throw AccountError.noMedia(id)
        }
        return fresh.location
    }

    static func isPhoto(name: String) -> Bool {
        ["jpg", "jpeg", "png"].contains((name as NSString).pathExtension.lowercased())
    }

    /// A file's MIME type by its extension, `application/octet-stream` for others.
    static func mimeType(of name: String) -> String {
        let types = ["jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
                     "pdf": "application/pdf", "txt": "text/plain", "mp4": "video/mp4", "mov": "video/quicktime", "mp3": "audio/mpeg",
                     "ogg": "audio/ogg", "zip": "application/zip", "json": "application/json"]
        return types[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
    }
}
