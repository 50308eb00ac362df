import ArgumentParser
import Foundation
import Postbox
import SyncEngine

/// `synccore pin-chat PEER`: pins (or `--unpin`s) a chat first in the chat list, then prints the pinned chats as the
/// store holds them.
struct PinChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pin-chat", abstract: "Pin or unpin a chat in the chat list.")

    @OptionGroup var options: ClientOptions
    @Argument(help: "@username, or the id of a stored user or channel.") var peer: String
    @Flag(help: "Unpin it instead.") var unpin = false

    func run() async throws {
        try await ClientAccount.with(options) { account in
            let target = try await ClientAccount.peer(peer, in: account)
            try await ClientAccount.changing(account, queued: { options.emit("queued: the server has not confirmed it yet; it is sent when the server can be reached", ["queued": true]) }) {
                try await account.pinChat(target, pinned: !unpin)
            }
            let pinned = try await account.postbox.read { try $0.pinnedChats() }
            options.emit("\(unpin ? "unpinned" : "pinned") \(peer); pinned chats now: "
                         + (pinned.isEmpty ? "none" : pinned.map { "\($0.id)" }.joined(separator: ", ")),
                         ["peer": peer, "pinned": pinned.map(\.id)])
        }
    }
}
