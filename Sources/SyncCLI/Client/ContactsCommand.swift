import ArgumentParser
import Foundation
import Postbox
import SyncEngine

/// `synccore contacts`: adds (`--add PEER --name NAME`), imports by phone (`--import PHONE --name NAME`), removes
/// (`--delete PEER`), blocks or unblocks (`--block PEER`, `--unblock PEER`) as asked, then prints the contact list and
/// the blocked users as the server has them (both read anew and stored).
struct ContactsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "contacts", abstract: "List, add, remove and block contacts.")

    @OptionGroup var options: ClientOptions
    @Option(help: "Add this @username or stored user id as a contact (with --name).") var add: String?
    @Option(name: .customLong("import"), help: "Import this phone number as a contact (with --name).") var phone: String?
    @Option(help: "The contact's name for --add or --import: first name, then the last name if any.") var name: String?
    @Option(help: "Remove this @username or stored user id from the contacts.") var delete: String?
    @Option(help: "Block this @username or stored user id.") var block: String?
    @Option(help: "Unblock this @username or stored user id.") var unblock: String?

    func run() async throws {
        try await ClientAccount.with(options) { account in
            let (first, last) = splitName()
            if let phone {
                guard name != nil else { throw CLIError("--import needs --name") }
                if try await account.importContacts([(phone: phone, firstName: first, lastName: last)]).isEmpty {
                    throw CLIError("no user has the phone \(phone)")
                }
            }
            let confirmed = try await ClientAccount.changing(account, queued: { options.emit("queued: the server has not confirmed it yet; it is sent when the server can be reached", ["queued": true]) }) {
                if let add {
                    guard name != nil else { throw CLIError("--add needs --name") }
                    try await account.addContact(try await ClientAccount.peer(add, in: account), firstName: first, lastName: last)
                }
                if let delete { try await account.deleteContacts([try await ClientAccount.peer(delete, in: account)]) }
                if let block { try await account.block(try await ClientAccount.peer(block, in: account)) }
                if let unblock { try await account.unblock(try await ClientAccount.peer(unblock, in: account)) }
            }
            // Read anew from the server once it has every change (while one waits, the store's lists are what it shows).
            let contacts = confirmed ? try await account.contacts() : try await account.postbox.read { try $0.contacts() }
            let blocked = confirmed ? try await account.blockedPeers() : try await account.postbox.read { try $0.blockedPeers() }
            let lines = contacts.map { "\($0.peer.id)  \([$0.firstName, $0.lastName].filter { !$0.isEmpty }.joined(separator: " "))"
                + ($0.isMutual ? "  (mutual)" : "") }
            options.emit((lines.isEmpty ? ["no contacts"] : lines).joined(separator: "\n")
                         + "\nblocked: " + (blocked.isEmpty ? "none" : blocked.map { "\($0.id)" }.sorted().joined(separator: ", ")),
                         ["contacts": contacts.map { ["user_id": $0.peer.id, "first_name": $0.firstName, "last_name": $0.lastName,
                                                      "mutual": $0.isMutual] as [String: Any] },
                          "blocked": blocked.map(\.id).sorted()])
        }
    }

    private func splitName() -> (String, String) {
        let parts = (name ?? "").split(separator: " ", maxSplits: 1).map(String.init)
        return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
    }
}
