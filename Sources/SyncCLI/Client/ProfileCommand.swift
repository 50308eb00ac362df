import ArgumentParser
import Foundation
import SyncEngine

/// `synccore profile`: changes the account's names, bio or username (the options given), then prints the profile as
/// the server has it.
struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "profile", abstract: "Show or change your name, bio and username.")

    @OptionGroup var options: ClientOptions
    @Option(help: "A new first name.") var firstName: String?
    @Option(help: "A new last name (empty: none).") var lastName: String?
    @Option(help: "A new bio (empty: none).") var about: String?
    @Option(help: "A new username (empty: none).") var username: String?

    func run() async throws {
        try await ClientAccount.with(options) { account in
            guard let me = await account.user else { throw CLIError("not logged in") }
            let confirmed = try await ClientAccount.changing(account, queued: { options.emit("queued: the server has not confirmed it yet; it is sent when the server can be reached", ["queued": true]) }) {
                if firstName != nil || lastName != nil || about != nil {
                    try await account.setProfile(firstName: firstName, lastName: lastName, about: about)
                }
                if let username { try await account.setUsername(username.isEmpty ? nil : username) }
            }
            guard case let .user(user)? = try await account.postbox.read({ try $0.peer(StoreMapping.user(me.id)) }) else {
                throw CLIError("the account's user is not stored")
            }
            let bio = confirmed ? try await account.about(user.id) ?? "" : about ?? ""
            let name = [user.firstName, user.lastName].filter { !$0.isEmpty }.joined(separator: " ")
            options.emit("\(name)\(user.username.map { " (@\($0))" } ?? "")\(bio.isEmpty ? "" : ": \(bio)")",
                         ["user_id": me.id, "first_name": user.firstName, "last_name": user.lastName,
                          "username": user.username ?? "", "about": bio])
        }
    }
}
