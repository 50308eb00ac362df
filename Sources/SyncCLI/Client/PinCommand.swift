import ArgumentParser
import Foundation
import Postbox
import SyncEngine

/// `synccore pin PEER ID`: pins (or `--unpin`s) a message of a chat, then prints the chat's pinned messages as the store
/// holds them once the answer is applied.
struct PinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pin", abstract: "Pin or unpin a message of a chat.")

    @OptionGroup var options: ClientOptions
    @Argument(help: "@username, or the id of a stored user or channel.") var peer: String
    @Argument(help: "The message's id, as `history` prints it.") var id: Int32
    @Flag(help: "Unpin it instead.") var unpin = false
    @Flag(help: "In a private chat: for this account only.") var oneSide = false

    func run() async throws {
        try await ClientAccount.with(options) { account in
            let target = try await ClientAccount.peer(peer, in: account)
            try await ClientAccount.changing(account, queued: { options.emit("queued: the server has not confirmed it yet; it is sent when the server can be reached", ["queued": true]) }) {
                try await account.pin(id, in: target, unpin: unpin, oneSide: oneSide)
            }
            let pinned = try await account.postbox.read { transaction in
                try transaction.messages(peer: target, namespace: StoreMapping.cloudMessages, from: StoreMapping.newestIndex(in: target), direction: .older,
                                                limit: 20, tag: StoreMapping.pinnedTag)
            }
            options.emit("\(unpin ? "unpinned" : "pinned") message \(id) in \(peer); pinned now: "
                         + (pinned.isEmpty ? "none" : pinned.map { "\($0.id.id)" }.joined(separator: ", ")),
                         ["peer": peer, "id": Int(id), "pinned": pinned.map { Int($0.id.id) }])
        }
    }
}
