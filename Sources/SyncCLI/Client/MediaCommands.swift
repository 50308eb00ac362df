import ArgumentParser
import Foundation
import Postbox
import Synchronization
import SyncEngine

/// `synccore send-file PEER PATH`: a photo (JPEG or PNG) or document, uploaded with a progress bar, then sent.
struct SendFileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "send-file",
                                                    abstract: "Send a file to @username: a photo for a JPEG or PNG, a document otherwise.")

    @OptionGroup var options: ClientOptions
    @Argument(help: "@username, or the id of a stored user or channel.") var peer: String
    @Argument(help: "The file.") var path: String
    @Option(help: "A caption.") var caption = ""
    @Flag(help: "Send a picture as a file, not as a photo.") var document = false

    func run() async throws {
        guard FileManager.default.isReadableFile(atPath: path) else { throw CLIError("cannot read \(path)") }
        try await ClientAccount.with(options) { account in
            let target = try await ClientAccount.peer(peer, in: account)
            let line = Mutex(ProgressLine("uploading", terminalOnly: options.json))
            let local = try await account.sendFile(path, to: target, caption: caption, asDocument: document) { done, total in
                line.withLock { $0.show(Int(done >> 10), of: Int(total >> 10), MediaFormat.bytes(done) + " of " + MediaFormat.bytes(total)) }
            }.local
            line.withLock { $0.clear() }
            let deadline = ContinuousClock.now + .seconds(60)
            while try await account.pendingOperationCount > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            if let failed = try await account.postbox.read({ try $0.message(local) }), failed.flags.contains(.failed) {
                throw CLIError("the server refused the file")
            }
            let queued = try await account.pendingOperationCount > 0
            options.emit(queued ? "uploaded; the send is queued until the server can be reached" : "sent \((path as NSString).lastPathComponent) to \(peer)",
                         ["peer": peer, "queued": queued])
        }
    }
}

/// `synccore download PEER MESSAGE_ID`: a message's photo or document into a directory, with a progress bar; a
/// download stopped half-way goes on from its parts the next time.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "download", abstract: "Download a message's photo or file.")

    @OptionGroup var options: ClientOptions
    @Argument(help: "@username, or the id of a stored user or channel.") var peer: String
    @Argument(help: "The message's id (as `history` prints it).") var messageID: Int32
    @Option(help: "The directory to write the file to.") var out = "."

    func run() async throws {
        try await ClientAccount.with(options) { account in
            let target = try await ClientAccount.peer(peer, in: account)
            let id = MessageID(peer: target, namespace: StoreMapping.cloudMessages, id: messageID)
            guard let message = try await account.postbox.read({ try $0.message(id) }) else {
                throw CLIError("message \(messageID) of \(peer) is not stored here; `history \(peer)` fetches it")
            }
            guard let media = message.media else { throw CLIError("message \(messageID) has no photo or file") }
            let line = Mutex(ProgressLine("downloading", terminalOnly: options.json))
            let cached = try await account.download(id) { progress in
                line.withLock { $0.show(Int(progress.held >> 10), of: Int(progress.size >> 10), MediaFormat.bytes(progress.held)) }
            }
            line.withLock { $0.clear() }
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let saved = out + "/" + MediaFormat.fileName(of: media, message: messageID)
            try? FileManager.default.removeItem(atPath: saved)
            try FileManager.default.copyItem(atPath: cached, toPath: saved)
            options.emit("downloaded \(saved)", ["path": saved])
        }
    }
}

/// How the CLI shows media.
enum MediaFormat {
    static func bytes(_ count: Int64) -> String {
        count >= 1 << 20 ? String(format: "%.1f MB", Double(count) / 1_048_576) : "\(count >> 10) KB"
    }

    /// "[photo 1280x960]", "[file report.pdf, 2.4 MB]", "[video 0:42]"…
    static func describe(_ media: MessageMedia) -> String {
        switch media {
        case let .photo(photo):
            guard let largest = photo.sizes.last else { return "[photo]" }
            return "[photo \(largest.width)x\(largest.height)]"
        case let .document(document):
            let kind: String
            switch document.kind {
            case .file: kind = "file"
            case .video: kind = "video"
            case .roundVideo: kind = "round video"
            case .gif: kind = "GIF"
            case .music: kind = "music"
            case .voice: kind = "voice message"
            }
            return "[\(kind)\(document.fileName.map { " " + $0 } ?? ""), \(bytes(document.size))]"
        }
    }

    /// The name a download is saved under: the document's own, else one made of the message id.
    static func fileName(of media: MessageMedia, message: Int32) -> String {
        switch media {
        case .photo: return "photo-\(message).jpg"
        case let .document(document):
            let own = document.fileName.map { ($0 as NSString).lastPathComponent }.flatMap { $0.isEmpty || $0 == ".." ? nil : $0 }
            return own ?? "file-\(message)"
        }
    }

    /// A message's text with its media before it.
    static func text(of message: Message) -> String {
        guard let media = message.media else { return message.text }
        return message.text.isEmpty ? describe(media) : describe(media) + " " + message.text
    }
}
