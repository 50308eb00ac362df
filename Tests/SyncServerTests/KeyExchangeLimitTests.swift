import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOPosix
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Finding 9 over real sockets: key exchanges from one address are limited (here 5 at once, then one every 20 s); the
/// peer past it is closed during its exchange, while a client with a key keeps being served. The bucket refills at its
/// rate (a clock of the test's). A temporary key past its `expires_in` is unknown (-404).
@Suite(.timeLimit(.minutes(2)))
struct KeyExchangeLimitTests {
    @Test func exchangesPastTheBurstAreRefusedUntilTheBucketRefills() async throws {
        var configuration = SyncServerConfiguration(port: 0, dc: 2, dataDirectory: ServerKeysTests.temporaryDirectory(),
                                                    loginCode: "12345", seedDevAccounts: true, initialRSAKey: TestServerKey.key)
        configuration.connectionLimits.keyExchangeBurst = 5
        configuration.connectionLimits.keyExchangesPerSecond = 0.05
        let server = try await SyncServer.start(configuration, logger: Logger(label: "test"))
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let alice = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        try await alice.login(phone: alicePhone)
        var refused = 0
        for _ in 0..<10 {
            if let client = try? await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences) {
                await client.close()
            } else {
                refused += 1
            }
        }
        #expect(refused >= 4)
        #expect(try await server.keys.authKeyCount(dc: 2) <= 6)
        _ = try await state(of: alice)   // a key already made is not limited
        await alice.close()
        try await server.stop()
    }

    @Test func theBucketRefillsAtItsRate() {
        let limiter = KeyExchangeLimiter(burst: 2, exchangesPerSecond: 1)
        let admitted = (0..<8).map { _ in limiter.admitPlainFrame(from: "a", now: 100) }
        #expect(admitted == [true, true, true, true, true, true, false, false])   // two exchanges of three frames
        #expect(limiter.admitPlainFrame(from: "b", now: 100))                       // another address
        #expect(!limiter.admitPlainFrame(from: "a", now: 100.3))
        #expect(limiter.admitPlainFrame(from: "a", now: 100.4))                     // a third of a second per frame
    }

    @Test func aTemporaryKeyPastItsLifetimeIsUnknown() throws {
        let rsa = try #require(TestServerKey.key)
        let key = try AuthKey(bytes: (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let stored = StoredAuthKey(authKey: key, salt: 1, expiresIn: 3_600, createdAt: 1_700_000_000)
        var client = ClientSession(authKey: key, salt: 1, rng: SystemRandomNumberGenerator())
        for (now, expected) in [(1_700_003_599.0, false), (1_700_003_600.0, true)] {
            var connection = ServerConnection(rsaKey: rsa, rng: SystemRandomNumberGenerator()) { $0 == key.id ? stored : nil }
            let packet = client.call(API.functions.help.GetConfig().serialized(), now: now).packet
            let actions = connection.receive(packet, now: now)
            let notFound = actions.contains { if case .sendTransportError(.authKeyNotFound) = $0 { true } else { false } }
            #expect(notFound == expected)
        }
    }
}
