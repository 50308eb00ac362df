import Foundation
import MTProto
import SyncHarness
import SyncServer
import Testing
import TL

/// Account changes through the operation log across a crash, with real processes and sockets: with the server
/// stopped, Alice's account (`synccore debug client-changes`) pins a message, pins the chat, saves a draft, mutes the
/// chat, adds a contact, blocks her and renames itself; the store shows each at once. The client is then killed with
/// SIGKILL, the server started again on its port, and the account reopened: each change reaches the server once, in the
/// order it was made, as Alice's other session reads them in its difference.
@Suite(.timeLimit(.minutes(3)))
struct OutboxCrashTests {
    @Test func changesMadeOfflineReachTheServerOnceAndInOrderAfterAKill() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-outbox-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let serverArguments = ["--data", root + "/server", "--seed", "dev", "--login-code", "12345", "--send-rate", "0", "--log-level", "error"]
        var server = try await ServerProcess(executable: ServerProcess.executable(), arguments: serverArguments)
        let port = server.port
        let client = ["debug", "client-changes", "--port", "\(port)", "--data", root + "/server", "--dir", root + "/alice"]
        let login = try await SynccoreBinary.run(client + ["--phase", "login"])
        try #require(login.status == 0, "\(login.stderr)")

        // Alice's other session: the state before the changes, to read them back from its difference.
        let key = try #require(try ServerKeys.rsaKey(dataDirectory: root + "/server")).publicKey
        var observer = try await TestClient(port: port, publicKey: key)
        try await observer.login(phone: "+15550001")
        guard case let .state(before) = try await observer.call(API.functions.updates.GetState()) else { Issue.record("state"); return }
        let saved = observer.connection.key
        await observer.close()
        #expect(await server.stop())

        let queue = try await SynccoreBinary.start(client + ["--phase", "queue"])
        let shown = await queue.waitForOutput(timeout: .seconds(60)) { $0.split(separator: "\n").first.flatMap(Self.object) }
        queue.send(SIGKILL)
        _ = await queue.exit()
        let offline = try #require(shown, "the queue phase printed nothing: \(queue.output)")
        #expect(offline["pinned_messages"] as? [Int] == [1] && offline["pinned_chats"] as? [Int] == [1002]
                && offline["draft"] as? String == "draft while offline" && offline["mute_until"] as? Int == Int(Int32.max)
                && offline["contacts"] as? [String] == ["Caroline"] && offline["blocked"] as? Bool == true
                && offline["first_name"] as? String == "Alicia" && offline["pending"] as? Int == 7,
                "each change is in the store at once, and logged: \(offline)")

        server = try await ServerProcess(executable: ServerProcess.executable(), arguments: serverArguments + ["--port", "\(port)"])
        let drain = try await SynccoreBinary.run(client + ["--phase", "drain"])
        try #require(drain.status == 0, "\(drain.stderr)")
        let online = try #require(drain.stdout.split(separator: "\n").first.flatMap(Self.object))
        #expect(online["pending"] as? Int == 0 && online["first_name"] as? String == "Alicia" && online["blocked"] as? Bool == true,
                "\(online)")

        observer = try await TestClient(port: port, publicKey: key, existingKey: saved)
        guard case let .difference(difference) = try await observer.call(API.functions.updates.GetDifference(
            pts: before.pts, date: before.date, qts: before.qts)) else { Issue.record("one difference"); return }
        let kinds = difference.otherUpdates.compactMap(Self.kind)
        #expect(kinds == ["pin", "dialog pin", "draft", "notify", "contact", "block", "name"],
                "each change once, in the order made: \(kinds) of \(difference.otherUpdates.map(\.constructorName))")
        let service = difference.newMessages.filter { if case .messageService = $0 { true } else { false } }
        #expect(service.count == 1, "one pin, one \"pinned\" service message")
        await observer.close()
        #expect(await server.stop())
    }

    static func object(_ line: Substring) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    /// The account change an update of Alice's difference reports.
    static func kind(_ update: API.Update) -> String? {
        switch update {
        case .updatePinnedMessages: "pin"
        case .updateDialogPinned: "dialog pin"
        case .updateDraftMessage: "draft"
        case .updateNotifySettings: "notify"
        case .updatePeerSettings: "contact"
        case .updatePeerBlocked: "block"
        case .updateUserName: "name"
        default: nil
        }
    }
}
