import Foundation
import Logging
import MTProto
import SyncHarness
import SyncServer
import Testing

/// The client commands through the built executable against `synccore server` in a process of its own (in this
/// process, a server shares its two cooperative threads with every test running at once, and the commands' deadlines
/// measured that instead): login, a live tail, send, history, chats and logout, every `--json` line parsed; bad input
/// is one line on stderr and a non-zero exit.
@Suite(.timeLimit(.minutes(3)))
struct ClientCommandTests {
    static func server() async throws -> (ServerProcess, root: String, key: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-cli-\(UUID().uuidString)").path
        let key = root + "/server.pem"
        let server = try await ServerProcess(executable: ServerProcess.executable(), arguments: [
            "--data", root + "/server", "--seed", "dev", "--login-code", "12345", "--send-rate", "0",
            "--export-public-key", key, "--log-level", "error",
        ])
        return (server, root, key)
    }

    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await SynccoreBinary.run(arguments)
    }

    static func jsonLines(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").map { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
            return object ?? [:]
        }
    }

    @Test func loginWatchSendHistoryChatsLogout() async throws {
        let (server, root, key) = try await Self.server()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let address = "127.0.0.1:\(server.port)"
        for (name, phone) in [("alice", "+15550001"), ("bob", "+15550002")] {
            let login = try await Self.run(["login", "--dir", root + "/" + name, "--server", address, "--key", key,
                                                     "--phone", phone, "--code", "12345", "--json"])
            #expect(login.status == 0, "\(login.stderr)")
            #expect(Self.jsonLines(login.stdout).first?["username"] as? String == name)
        }
        // Bob tails his updates while Alice sends.
        let watch = try await SynccoreBinary.start(["watch", "--dir", root + "/bob", "--count", "1", "--seconds", "60", "--json"])
        try await Task.sleep(for: .seconds(2))   // the watcher opened its account
        let send = try await Self.run(["send", "--dir", root + "/alice", "@bob", "hello from the CLI", "--wait", "--json"])
        #expect(send.status == 0, "\(send.stderr)")
        #expect(Self.jsonLines(send.stdout).first?["id"] as? Int == 1)
        #expect(await watch.exit().isClean)
        let tail = watch.output
        #expect(Self.jsonLines(tail).contains { $0["event"] as? String == "message" && $0["text"] as? String == "hello from the CLI" })

        let history = try await Self.run(["history", "--dir", root + "/bob", "@alice", "--limit", "5", "--json"])
        #expect(history.status == 0, "\(history.stderr)")
        #expect(Self.jsonLines(history.stdout).map { $0["text"] as? String } == ["hello from the CLI"])
        let chats = try await Self.run(["chats", "--dir", root + "/bob", "--json"])
        #expect(chats.status == 0, "\(chats.stderr)")
        #expect(Self.jsonLines(chats.stdout).contains { $0["name"] as? String == "Alice" && $0["unread"] as? Int == 1 })
        let profile = try await Self.run(["profile", "--dir", root + "/bob", "--first-name", "Robert", "--about", "builds things",
                                          "--username", "robert_b", "--json"])
        #expect(profile.status == 0, "\(profile.stderr)")
        let shown = Self.jsonLines(profile.stdout).first
        #expect(shown?["first_name"] as? String == "Robert" && shown?["username"] as? String == "robert_b"
                && shown?["about"] as? String == "builds things", "\(profile.stdout)")
        let forward = try await Self.run(["forward", "--dir", root + "/bob", "@alice", "@alice", "1", "--json"])
        #expect(forward.status == 0, "\(forward.stderr)")
        #expect(Self.jsonLines(forward.stdout).map { $0["text"] as? String } == ["hello from the CLI"], "\(forward.stdout)")
        let pinChat = try await Self.run(["pin-chat", "--dir", root + "/bob", "@alice", "--json"])
        #expect(pinChat.status == 0, "\(pinChat.stderr)")
        #expect((Self.jsonLines(pinChat.stdout).first?["pinned"] as? [Int])?.count == 1, "\(pinChat.stdout)")
        let contacts = try await Self.run(["contacts", "--dir", root + "/bob", "--add", "@alice", "--name", "Alice Liddell",
                                           "--block", "@carol", "--json"])
        #expect(contacts.status == 0, "\(contacts.stderr)")
        let listed = Self.jsonLines(contacts.stdout).first
        let entries = listed?["contacts"] as? [[String: Any]] ?? []
        #expect(entries.map { $0["first_name"] as? String } == ["Alice"] && entries.first?["last_name"] as? String == "Liddell"
                && entries.first?["mutual"] as? Bool == false, "\(contacts.stdout)")
        #expect((listed?["blocked"] as? [Int])?.count == 1, "\(contacts.stdout)")
        let logout = try await Self.run(["logout", "--dir", root + "/bob", "--json"])
        #expect(logout.status == 0 && Self.jsonLines(logout.stdout).first?["logged_out"] as? Bool == true)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: root + "/bob")) ?? []
        #expect(left.isEmpty, "\(left)")
        #expect(await server.stop())

        // The server gone: a username the store knows resolves there, and a send says at once that it is queued
        // (exit 0: sending again would send twice), shown as pending by history.
        let offlineHistory = try await Self.run(["history", "--dir", root + "/alice", "@bob", "--limit", "5", "--json"])
        #expect(offlineHistory.status == 0, "\(offlineHistory.stderr)")
        #expect(Self.jsonLines(offlineHistory.stdout).contains { $0["text"] as? String == "hello from the CLI" })
        let started = ContinuousClock.now
        let queued = try await Self.run(["send", "--dir", root + "/alice", "@bob", "while offline", "--json"])
        #expect(queued.status == 0, "\(queued.stderr)")
        #expect(Self.jsonLines(queued.stdout).first?["queued"] as? Bool == true, "\(queued.stdout)")
        #expect(ContinuousClock.now - started < .seconds(15), "the queued send took \(ContinuousClock.now - started)")
        let pending = try await Self.run(["history", "--dir", root + "/alice", "@bob", "--limit", "5", "--json"])
        #expect(Self.jsonLines(pending.stdout).contains { $0["text"] as? String == "while offline" && $0["pending"] as? Bool == true },
                "\(pending.stdout)")
        let waited = try await Self.run(["send", "--dir", root + "/alice", "@bob", "and wait", "--wait", "--json"])
        #expect(waited.status != 0 && waited.stderr.contains("queued"), "\(waited.stderr)")
    }

    @Test func badInputIsOneLineAndANonZeroExit() async throws {
        let (server, root, key) = try await Self.server()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let alice = root + "/alice"
        _ = try await Self.run(["login", "--dir", alice, "--server", "127.0.0.1:\(server.port)", "--key", key,
                                         "--phone", "+15550001", "--code", "12345"])
        let broken = root + "/broken"
        try FileManager.default.copyItem(atPath: alice, toPath: broken)
        // Garbage where the store was (its WAL removed too: SQLite would read the first page from it).
        try Data(repeating: 7, count: 4_096).write(to: URL(fileURLWithPath: broken + "/store.sqlite"))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: broken + "/store.sqlite" + suffix) }
        let cases: [(arguments: [String], says: String)] = [
            (["send", "--dir", alice, "@nobody", "hi"], "unknown peer @nobody"),
            (["login", "--dir", root + "/carol", "--server", "127.0.0.1:\(server.port)", "--key", key, "--phone", "+15550003",
              "--code", "00000"], "PHONE_CODE_INVALID"),
            (["login", "--dir", root + "/dead", "--server", "127.0.0.1:1", "--key", key, "--phone", "+15550003", "--code", "1"],
             "cannot reach"),
            (["chats", "--dir", broken], "not a usable Postbox database"),
            (["chats", "--dir", root + "/nobody"], "run `synccore login"),
            (["login", "--dir", root + "/x", "--server", "nonsense", "--key", key, "--phone", "1"], "HOST:PORT"),
        ]
        for (arguments, says) in cases {
            let result = try await Self.run(arguments)
            let lines = result.stderr.split(separator: "\n")
            #expect(result.status != 0 && lines.count == 1 && result.stderr.contains(says), "\(arguments): \(result.stderr)")
        }
        #expect(await server.stop())
    }
}
