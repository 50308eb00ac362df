import Foundation
import Logging
import MTProto
import NIOCore
import NIOPosix
import Synchronization
import SyncTesting
import Testing
import TL
@testable import MTProtoNIO

/// A server delegate with keys in memory that answers every call the same way: `help.getNearestDc`'s answer, an
/// `rpc_error`, or nothing at all.
final class ScriptedDelegate: MTProtoServerDelegate {
    enum Behavior: Sendable {
        case answer
        case error(RPCError)
        case never
    }

    private let keys = Mutex<[UInt64: StoredAuthKey]>([:])
    let behavior: Behavior
    private let calls = Mutex(0)

    init(_ behavior: Behavior) {
        self.behavior = behavior
    }

    var callCount: Int { calls.withLock { $0 } }

    func authKey(id: UInt64) -> StoredAuthKey? { keys.withLock { $0[id] } }
    func store(_ key: StoredAuthKey) throws { keys.withLock { $0[key.authKey.id] = key } }

    func handle(_ rpc: IncomingRPC, authKeyID: UInt64, outlet: SessionOutlet) async -> Result<[UInt8], RPCError> {
        calls.withLock { $0 += 1 }
        switch behavior {
        case .answer: return .success(API.NearestDc.nearestDc(.init(country: "ZZ", thisDc: 2, nearestDc: 2)).serialized())
        case let .error(error): return .failure(error)
        case .never:
            try? await Task.sleep(for: .seconds(300))
            return .failure(RPCError(code: 500, message: "TOO_LATE"))
        }
    }
}

/// Every wait of the connection manager has a deadline, and every way a server can misbehave ends in a typed error:
/// a server that accepts and never speaks, one that never answers a call, a migration to a data center nobody knows,
/// a data center without an address, `AUTH_KEY_DUPLICATED`; cancellation and the network-availability hook.
/// Elapsed-time checks only tell "bounded / cancelled" from "waited for the long deadline" (300 s): their bound (60 s) is
/// far from both, so a loaded machine does not fail them.
@Suite(.timeLimit(.minutes(3)))
struct ConnectionManagerDeadlineTests {
    static let rsa: RSAPrivateKey? = TestServerKey.key

    /// A manager for DC 2 at `port`, with short deadlines and no real backoff sleeps (the network wait keeps real time).
    static func manager(port: Int, rsa: RSAPrivateKey, requestTimeout: Duration = .seconds(5),
                        connectTimeout: Duration = .seconds(5)) -> ConnectionManager {
        ConnectionManager(state: NetworkState(directory: .loopback([2: port])), initialDC: 2, publicKeys: [rsa.publicKey],
                          group: MultiThreadedEventLoopGroup.singleton, connectTimeout: connectTimeout,
                          requestTimeout: requestTimeout, environment: SyncEnvironment.live.waiting { duration in
                              if duration > .seconds(1) { try await Task.sleep(for: duration) }   // deadlines, not backoff
                          })
    }

    static func server(_ behavior: ScriptedDelegate.Behavior, rsa: RSAPrivateKey) async throws -> (MTProtoServer, ScriptedDelegate) {
        let delegate = ScriptedDelegate(behavior)
        let server = try await MTProtoServer.start(host: "127.0.0.1", port: 0, rsaKey: rsa, delegate: delegate,
                                                   logger: Logger(label: "test"), group: MultiThreadedEventLoopGroup.singleton)
        return (server, delegate)
    }

    @Test func aServerThatAcceptsAndNeverSpeaksIsUnreachableAfterTheConnectDeadline() async throws {
        let rsa = try #require(Self.rsa)
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        let manager = Self.manager(port: silent.localAddress?.port ?? 0, rsa: rsa, connectTimeout: .milliseconds(200))
        let started = ContinuousClock.now
        await #expect(throws: NetworkError.self) { _ = try await manager.send(API.functions.help.GetNearestDc()) }
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(await manager.accounting.tcpConnections == ConnectionManager.transientAttempts)
        await manager.close()
        try await silent.close()
    }

    @Test func aCallNeverAnsweredTimesOutAndTheNextOneReconnects() async throws {
        let rsa = try #require(Self.rsa)
        let (server, _) = try await Self.server(.never, rsa: rsa)
        let manager = Self.manager(port: server.port, rsa: rsa, requestTimeout: .milliseconds(300))
        await #expect(throws: NetworkError.timedOut(dc: 2)) { _ = try await manager.send(API.functions.help.GetNearestDc()) }
        await #expect(throws: NetworkError.timedOut(dc: 2)) { _ = try await manager.send(API.functions.help.GetNearestDc()) }
        #expect(await manager.accounting.tcpConnections == 2)   // the silent connection was dropped
        await manager.close()
        try await server.stop()
    }

    @Test func aCancelledRequestEndsAtOnce() async throws {
        let rsa = try #require(Self.rsa)
        let (server, delegate) = try await Self.server(.never, rsa: rsa)
        let manager = Self.manager(port: server.port, rsa: rsa, requestTimeout: .seconds(300))
        let request = Task { try await manager.send(API.functions.help.GetNearestDc()) }
        while delegate.callCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let cancelled = ContinuousClock.now
        request.cancel()
        await #expect(throws: CancellationError.self) { _ = try await request.value }
        #expect(ContinuousClock.now - cancelled < .seconds(60))
        await manager.close()
        try await server.stop()
    }

    @Test func aMigrationToAnUnknownDataCenterIsATypedErrorAndTheMasterStays() async throws {
        let rsa = try #require(Self.rsa)
        let (server, _) = try await Self.server(.error(RPCError(code: 303, message: "PHONE_MIGRATE_7")), rsa: rsa)
        let manager = Self.manager(port: server.port, rsa: rsa)
        await #expect(throws: NetworkError.unknownDataCenter(7)) { _ = try await manager.send(API.functions.help.GetNearestDc()) }
        #expect(await manager.masterDC == 2)
        // A data center the directory has no address for is the same typed error, without a connection attempt.
        await #expect(throws: NetworkError.unknownDataCenter(4)) { _ = try await manager.send(API.functions.help.GetNearestDc(), dc: 4) }
        await manager.close()
        try await server.stop()
    }

    @Test func aDuplicatedKeyLogsTheAccountOut() async throws {
        let rsa = try #require(Self.rsa)
        let (server, _) = try await Self.server(.error(RPCError(code: 406, message: "AUTH_KEY_DUPLICATED")), rsa: rsa)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-dup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = NetworkStateFile(path: directory + "/network.json")
        let manager = ConnectionManager(state: NetworkState(directory: .loopback([2: server.port])), file: file, initialDC: 2,
                                        publicKeys: [rsa.publicKey], group: MultiThreadedEventLoopGroup.singleton)
        await #expect(throws: NetworkError.authKeyDuplicated) { _ = try await manager.send(API.functions.help.GetNearestDc()) }
        #expect(await manager.networkState.keys.isEmpty)
        #expect(try file.load()?.keys.isEmpty == true)
        var events = manager.loggedOut.makeAsyncIterator()
        #expect(await events.next() == .authKeyDuplicated)
        await manager.close()
        try await server.stop()
    }

    @Test func requestsWaitForTheNetworkAndGoWhenItReturns() async throws {
        let rsa = try #require(Self.rsa)
        let (server, _) = try await Self.server(.answer, rsa: rsa)
        let manager = Self.manager(port: server.port, rsa: rsa, requestTimeout: .seconds(20))
        _ = try await manager.send(API.functions.help.GetNearestDc())
        await manager.setNetworkAvailable(false)
        let request = Task { try await manager.send(API.functions.help.GetNearestDc()) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(await manager.accounting.tcpConnections == 1)   // nothing tried while the network is away
        await manager.setNetworkAvailable(true)
        #expect(try await request.value == .nearestDc(.init(country: "ZZ", thisDc: 2, nearestDc: 2)))
        #expect(await manager.accounting.tcpConnections == 2)   // the old connection was closed when the network left
        await manager.close()

        let impatient = Self.manager(port: server.port, rsa: rsa, requestTimeout: .milliseconds(200))
        await impatient.setNetworkAvailable(false)
        await #expect(throws: NetworkError.networkUnavailable) { _ = try await impatient.send(API.functions.help.GetNearestDc()) }
        await impatient.close()
        try await server.stop()
    }
}
