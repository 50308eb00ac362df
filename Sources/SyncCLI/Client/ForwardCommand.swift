import ArgumentParser
import Foundation
import SyncEngine

/// `synccore forward FROM TO ID…`: forwards messages of one chat to another, then prints the copies as the store holds
/// them once the answer is applied.
struct ForwardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "forward", abstract: "Forward messages to another chat.")

    @OptionGroup var options: ClientOptions
    @Argument(help: "The chat the messages are in: @username, or the id of a stored user or channel.") var from: String
    @Argument(help: "The chat to forward them to.") var to: String
    @Argument(help: "The messages' ids, as `history` prints them (at most 100).") var ids: [Int32]
    @Flag(help: "Send the copies as your own, without naming their author.") var dropAuthor = false

    func run() async throws {
        guard !ids.isEmpty, ids.count <= 100 else { throw CLIError("give 1 to 100 message ids") }
        try await ClientAccount.with(options) { account in
            let (source, destination) = (try await ClientAccount.peer(from, in: account), try await ClientAccount.peer(to, in: account))
            let confirmed = try await ClientAccount.changing(account, queued: {
                options.emit("queued: the server has not confirmed the forward yet; it is sent when the server can be reached", ["queued": true])
            }) {
                try await account.forward(ids, from: source, to: destination, dropAuthor: dropAuthor)
            }
            guard confirmed else { return }
            let copies = try await account.postbox.read { transaction in
                try transaction.messages(peer: destination, namespace: StoreMapping.cloudMessages, from: StoreMapping.newestIndex(in: destination),
                                         direction: .older, limit: ids.count, tag: nil)
            }
            for message in copies.reversed() {
                options.emit("\(message.id.id): \(message.text)", ["id": Int(message.id.id), "text": message.text, "to": to])
            }
        }
    }
}
