import Foundation
import SyncHarness
import Testing

/// Two processes on one account directory, as an app and its extension: `synccore watch` in each. The first holds
/// the master lease and syncs; the second follows. SIGKILL the first: the second takes over and receives.
@Suite(.timeLimit(.minutes(2)))
struct TwoProcessTests {
    static func watch(_ directory: String, count: Int) async throws -> ChildProcess {
        try await SynccoreBinary.start(["watch", "--dir", directory, "--count", "\(count)", "--seconds", "60", "--json"])
    }

    @Test func whenTheSyncingProcessIsKilledTheOtherTakesOverAndKeepsReceiving() async throws {
        let (server, root, key) = try await ClientCommandTests.server()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let address = "127.0.0.1:\(server.port)"
        for (name, phone) in [("alice", "+15550001"), ("bob", "+15550002")] {
            let login = try await ClientCommandTests.run(["login", "--dir", root + "/" + name, "--server", address, "--key", key,
                                                          "--phone", phone, "--code", "12345", "--json"])
            #expect(login.status == 0, "\(login.stderr)")
        }
        let master = try await Self.watch(root + "/bob", count: 2)
        try await Task.sleep(for: .seconds(2))   // the first one holds the lease and syncs
        let follower = try await Self.watch(root + "/bob", count: 1)
        try await Task.sleep(for: .seconds(2))
        let first = try await ClientCommandTests.run(["send", "--dir", root + "/alice", "@bob", "to the master", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        try await Task.sleep(for: .seconds(2))   // printed by the master

        // The master dies without a word; the follower takes over and gets the next message.
        master.send(SIGKILL)
        _ = await master.exit()
        let masterTail = master.output
        #expect(ClientCommandTests.jsonLines(masterTail).contains { $0["text"] as? String == "to the master" }, "\(masterTail)")
        let killedAt = ContinuousClock.now
        let next = try await ClientCommandTests.run(["send", "--dir", root + "/alice", "@bob", "after the kill", "--json"])
        #expect(next.status == 0, "\(next.stderr)")
        let followerExit = await follower.exit()
        let followerTail = follower.output
        let lines = ClientCommandTests.jsonLines(followerTail)
        #expect(followerExit.isClean)
        #expect(lines.contains { $0["text"] as? String == "after the kill" }, "\(followerTail)")
        #expect(!lines.contains { $0["text"] as? String == "to the master" }, "the follower did not sync while the master lived")
        #expect(ContinuousClock.now - killedAt < .seconds(15))
        #expect(await server.stop())
    }
}
