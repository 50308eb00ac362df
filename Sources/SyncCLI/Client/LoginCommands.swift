import ArgumentParser
import Foundation
import MTProto
import MTProtoNIO
import SyncEngine
import TL

/// `synccore login`: logs an account in by phone code against any layer-229 server (the code is asked on stdin unless
/// given), and keeps the server's address and key beside the account for the other commands.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "login", abstract: "Log in by phone code (the first client command).")

    @OptionGroup var options: ClientOptions
    @Option(help: "The server, HOST:PORT.") var server: String
    @Option(help: "The server's RSA public key, PKCS#1 PEM (what `synccore server --export-public-key FILE` writes).") var key: String
    @Option(help: "The data center at that address (the reference server's default is 2).") var dc: Int32 = 2
    @Option(help: "The phone number, e.g. +15550001.") var phone: String
    @Option(help: "The code the server sent (asked on stdin when missing).") var code: String?

    func run() async throws {
        let parts = server.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]), (1...65_535).contains(port), !parts[0].isEmpty else {
            throw CLIError("--server must be HOST:PORT, not \(server)")
        }
        guard let pem = try? String(contentsOfFile: key, encoding: .utf8) else { throw CLIError("cannot read the key file \(key)") }
        do { _ = try RSAPublicKey(pkcs1PEM: pem) } catch { throw CLIError("\(key): \(error)") }
        let setup = ClientServer(host: String(parts[0]), port: port, dc: dc, key: pem)
        try setup.save(options.dir)
        let account: Account
        do {
            account = try await Account.open(try setup.configuration(options.dir))
        } catch {
            throw CLIError("cannot open the account in \(options.dir): \(error)")
        }
        do {
            if await !account.isLoggedIn {
                let hash = try await account.requestCode(phone: phone)
                let entered = try code ?? Self.askCode()
                try await account.signIn(phone: phone, code: entered, codeHash: hash)
            }
            guard let user = await account.user else { throw CLIError("not logged in") }
            let dc = await account.network.masterDC
            let name = [user.firstName, user.lastName].compactMap { $0 }.joined(separator: " ")
            options.emit("logged in as \(name) (user \(user.id)), home data center \(dc)",
                         ["user_id": user.id, "name": name, "dc": dc, "username": user.username ?? ""])
            await account.close()
        } catch {
            await account.close()
            throw ClientAccount.readable(error)
        }
    }

    static func askCode() throws -> String {
        print("code: ", terminator: "")
        guard let line = readLine(), !line.isEmpty else { throw CLIError("no code entered") }
        return line.trimmingCharacters(in: .whitespaces)
    }
}

/// `synccore logout`: `auth.logOut` on the server, then the account's directory is emptied.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "Log out and remove the account's local data.")

    @OptionGroup var options: ClientOptions

    func run() async throws {
        // Syncing stops, then `auth.logOut`; a `watch` on the same directory learns it from the server (exit 3).
        try await ClientAccount.with(options) { account in await account.logOut() }
        // A background task cancelled by the close may still finish a read, and a new SQLite connection recreates the
        // store's WAL files: the directory is emptied until it stays empty.
        for _ in 0..<5 {
            let left = (try? FileManager.default.contentsOfDirectory(atPath: options.dir)) ?? []
            if left.isEmpty { break }
            for name in left { try? FileManager.default.removeItem(atPath: options.dir + "/" + name) }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard ((try? FileManager.default.contentsOfDirectory(atPath: options.dir)) ?? []).isEmpty else {
            throw CLIError("logged out, but \(options.dir) could not be emptied")
        }
        options.emit("logged out; \(options.dir) emptied", ["logged_out": true])
    }
}
