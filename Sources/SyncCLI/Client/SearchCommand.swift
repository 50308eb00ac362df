import ArgumentParser
import Foundation
import SyncEngine

/// `synccore search PEER QUERY`: the newest messages of a chat containing the query, as the server finds them.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "Search a chat's messages on the server.")

    @OptionGroup var options: ClientOptions
    @Argument(help: "@username, or the id of a stored user or channel.") var peer: String
    @Argument(help: "Text the messages contain (ASCII letters in any case).") var query: String
    @Option(help: "At most this many (up to 100).") var limit: Int32 = 20

    func run() async throws {
        try await ClientAccount.with(options) { account in
            let target = try await ClientAccount.peer(peer, in: account)
            let found = try await account.search(query, in: target, limit: limit)
            if found.isEmpty { options.emit("no messages", [:]) }
            for message in found {
                options.emit("\(message.id.id): \(message.text)", ["id": Int(message.id.id), "text": message.text, "date": Int(message.timestamp)])
            }
        }
    }
}
