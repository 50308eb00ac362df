import ArgumentParser
import Foundation
import MTProto
import MTProtoNIO
import Postbox
import SyncEngine
import Synchronization
import TL

/// Options every client command shares.
struct ClientOptions: ParsableArguments {
    @Option(help: "The account's data directory (its store, keys and server address).") var dir = "./.synccore/client"
    @Flag(help: "Print one JSON object per line instead of text.") var json = false

    /// Prints `text`, or `object` as one JSON line.
    func emit(_ text: String, _ object: [String: Any]) {
        if json {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(text)
        }
    }
}

/// Where the account's server is, written by `synccore login` beside the account's store (`server.json`).
struct ClientServer: Codable {
    var host: String
    var port: Int
    var dc: Int32
    /// The server's RSA public key, PKCS#1 PEM.
    var key: String

    static func path(_ directory: String) -> String { directory + "/server.json" }

    static func load(_ directory: String) throws -> ClientServer {
        guard let data = FileManager.default.contents(atPath: path(directory)) else {
            throw CLIError("no account in \(directory): run `synccore login --server HOST:PORT --key FILE --phone NUMBER` first")
        }
        do {
            return try JSONDecoder().decode(ClientServer.self, from: data)
        } catch {
            throw CLIError("\(path(directory)) is damaged: \(error.localizedDescription)")
        }
    }

    func save(_ directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try JSONEncoder().encode(self).write(to: URL(fileURLWithPath: Self.path(directory)))
    }

    func configuration(_ directory: String) throws -> Account.Configuration {
        let publicKey: RSAPublicKey
        do {
            publicKey = try RSAPublicKey(pkcs1PEM: key)
        } catch {
            throw CLIError("the server key in \(Self.path(directory)) is unusable: \(error)")
        }
        // Commands are interactive: a dead server is reported within seconds, not after Telegram's 10 s + 30 s.
        return Account.Configuration(directory: directory,
                                     addresses: DataCenterDirectory(seed: [dc: [DataCenterAddress(host: host, port: port)]]),
                                     initialDC: dc, publicKeys: [publicKey],
                                     timing: SyncTiming(connectTimeout: .seconds(5), requestTimeout: .seconds(15)))
    }
}

/// A failure a client command reports as one line on stderr (ArgumentParser prints "Error: …" and exits 1).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum ClientAccount {
    /// The logged-in account of `options.dir`.
    static func open(_ options: ClientOptions) async throws -> Account {
        let server = try ClientServer.load(options.dir)
        let account: Account
        do {
            account = try await Account.open(try server.configuration(options.dir))
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("cannot open the account in \(options.dir): \(error)")
        }
        guard await account.isLoggedIn else {
            await account.close()
            throw CLIError("the account in \(options.dir) is not logged in: run `synccore login` first")
        }
        return account
    }

    /// Runs `body` with the account open, closing it after; network and server errors become one readable line.
    static func with<T>(_ options: ClientOptions, _ body: (Account) async throws -> T) async throws -> T {
        let account = try await open(options)
        do {
            let result = try await body(account)
            await account.close()
            return result
        } catch {
            await account.close()
            throw readable(error)
        }
    }

    static func readable(_ error: any Error) -> any Error {
        switch error {
        case let error as CLIError: error
        case let MTProtoClientError.rpc(rpc): CLIError("the server answered \(rpc.code) \(rpc.message)")
        case let NetworkError.unreachable(dc, reason): CLIError("cannot reach data center \(dc): \(reason)")
        case let NetworkError.timedOut(dc): CLIError("data center \(dc) did not answer in time")
        default: CLIError("\(error)")
        }
    }

    /// "@name" or "name" is resolved on the server; a number is a user or channel already in the store.
    static func peer(_ text: String, in account: Account) async throws -> PeerID {
        if let id = Int64(text) {
            for peer in [StoreMapping.user(id), StoreMapping.channel(id)] where try await account.postbox.read({ try $0.peer(peer) }) != nil {
                return peer
            }
            throw CLIError("unknown peer \(text): no user or channel with this id is stored (name it by @username)")
        }
        let username = text.hasPrefix("@") ? String(text.dropFirst()) : text
        do {
            return try await account.resolve(username: username)
        } catch let MTProtoClientError.rpc(rpc) where rpc.message.contains("USERNAME") {
            throw CLIError("unknown peer @\(username)")
        }
    }

    /// Runs `body`, failing with `message` when it takes more than `seconds`.
    static func bounded(seconds: Double, _ message: String, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await body(); return true }
            group.addTask { try await Task.sleep(for: .seconds(seconds)); return false }
            let done = try await group.next() ?? false
            group.cancelAll()
            if !done { throw CLIError(message) }
        }
    }

    /// A stored peer's name: a user's first and last name, a group's or channel's title; its id when unknown.
    static func name(_ peer: PeerID?, in postbox: Postbox) async -> String {
        guard let peer else { return "?" }
        guard let stored = (try? await postbox.read { try $0.peer(peer) }) ?? nil, !stored.displayTitle.isEmpty else { return "\(peer.id)" }
        return stored.displayTitle
    }
}

extension ClientAccount {
    /// How long a command waits for its account changes to reach the server before saying they are queued.
    static let changeConfirmation: Double = 5

    /// Runs `body`, whose account changes go through the operation log, then waits until the server confirmed them:
    /// a refusal is an error naming the server's answer (the store was put back); when the server cannot be reached in
    /// time, the changes stay queued (they leave with the next command that reaches it) and `queued` is told so. Returns
    /// whether the server confirmed them.
    @discardableResult
    static func changing(_ account: Account, queued: () -> Void, _ body: () async throws -> Void) async throws -> Bool {
        let refusals = Mutex<[String]>([])
        let events = account.events
        let collector = Task {
            for await case let .changeRefused(change, error) in events { refusals.withLock { $0.append("\(error) (\(change))") } }
        }
        defer { collector.cancel() }
        try await body()
        let deadline = ContinuousClock.now + .seconds(changeConfirmation)
        while try await account.pendingOperationCount > 0 {
            guard ContinuousClock.now < deadline else {
                queued()
                return false
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await bounded(seconds: 20, "the change was made but is not stored yet") { try await account.synced() }
        try await Task.sleep(for: .milliseconds(50))   // the refusal event, emitted with the commit that ended the entry
        if let refusal = refusals.withLock({ $0.first }) { throw CLIError("the server refused the change: \(refusal)") }
        return true
    }
}
