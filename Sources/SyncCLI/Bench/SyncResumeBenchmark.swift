import Foundation
import Logging
import Postbox
import SyncEngine
import SyncServer
import TL

/// `sync.resume_p50` / `sync.resume_p99` of `synccore bench sync`: Bob's `Account` is open and idle (the app calls
/// nothing); the server restarts on the same port and directory; from the moment it accepts connections again, Alice
/// sends one message, and the time runs until it is in Bob's store. What it measures is the reconnect backoff's first
/// steps plus the new session's difference. Each round waits until Bob's connection has been up over a second first
/// (a connection that drops sooner counts as unstable and backs off longer, as a crash-looping server should see).
struct SyncResumeBenchmark {
    var restarts = 20

    func run(directory: String, logger: Logger) async throws -> [Double] {
        let configuration = SyncServerConfiguration(port: 0, dc: 2, dataDirectory: directory + "/server", loginCode: "12345",
                                                    seedDevAccounts: true, sendsPerSecond: 0)
        var server = try await SyncServer.start(configuration, logger: logger)
        var restarted = configuration
        restarted.port = server.port
        func open(_ name: String) async throws -> SyncEngine.Account {
            try await SyncEngine.Account.open(.init(directory: directory + "/" + name, addresses: .loopback(server.ports),
                                                    publicKeys: [server.keys.rsaKey.publicKey]))
        }
        let alice = try await open("alice"), bob = try await open("bob")
        do {
            for (account, phone) in [(alice, "+15550001"), (bob, "+15550002")] {
                let hash = try await account.requestCode(phone: phone)
                try await account.signIn(phone: phone, code: "12345", codeHash: hash)
            }
            let toBob = try await alice.resolve(username: "bob")
            guard let aliceID = await alice.user?.id else { throw BenchError.mismatch("Alice is not logged in") }
            try await bob.synced()
            var snapshots = bob.postbox.view(MessageHistoryView(peer: StoreMapping.user(aliceID),
                                                                namespace: StoreMapping.cloudMessages, count: 2)).makeAsyncIterator()
            _ = try await snapshots.next()
            let clock = ContinuousClock()
            var resumes: [Double] = []
            for round in 0..<restarts {
                try await Task.sleep(for: .milliseconds(1_200))
                try await server.stop()
                server = try await SyncServer.start(restarted, logger: logger)
                let accepting = clock.now
                let text = "after restart \(round)"
                try await alice.send(text, to: toBob)
                while true {
                    guard let update = try await snapshots.next() else { throw BenchError.mismatch("Bob's view ended") }
                    if update.snapshot.messages.last?.text == text { break }
                }
                resumes.append((clock.now - accepting).seconds)
            }
            await alice.close()
            await bob.close()
            try await server.stop()
            return resumes
        } catch {
            await alice.close()
            await bob.close()
            try? await server.stop()
            throw error
        }
    }
}
