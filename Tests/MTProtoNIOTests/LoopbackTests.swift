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

/// A server delegate with keys in memory that answers `help.getNearestDc` and refuses everything else.
final class InMemoryDelegate: MTProtoServerDelegate {
    private let keys = Mutex<[UInt64: StoredAuthKey]>([:])

    func authKey(id: UInt64) -> StoredAuthKey? { keys.withLock { $0[id] } }
    func store(_ key: StoredAuthKey) throws { keys.withLock { $0[key.authKey.id] = key } }
    var count: Int { keys.withLock { $0.count } }

    func handle(_ rpc: IncomingRPC, authKeyID: UInt64, outlet: SessionOutlet) async -> Result<[UInt8], RPCError> {
        if rpc.function.function is API.functions.help.GetNearestDc {
            return .success(API.NearestDc.nearestDc(.init(country: "ZZ", thisDc: 2, nearestDc: 2)).serialized())
        }
        return .failure(RPCError(code: 400, message: "METHOD_UNSUPPORTED"))
    }
}

/// A delegate whose keys are elsewhere (a database other processes write to): nothing in memory, every key looked
/// up, and the store that can be made unreachable.
final class RemoteKeysDelegate: MTProtoServerDelegate {
    private let keys = Mutex<[UInt64: StoredAuthKey]>([:])
    let reachable = Mutex(true)
    let lookups = Mutex(0)

    func authKey(id: UInt64) -> StoredAuthKey? { nil }

    var looksUpKeys: Bool { true }

    func loadAuthKey(id: UInt64) async -> AuthKeyLookup {
        try? await Task.sleep(for: .milliseconds(20))   // a round trip: frames that arrive meanwhile wait
        lookups.withLock { $0 += 1 }
        guard reachable.withLock({ $0 }) else { return .unavailable }
        return keys.withLock { $0[id] }.map { .found($0) } ?? .unknown
    }

    func store(_ key: StoredAuthKey) async throws {
        try await Task.sleep(for: .milliseconds(20))   // a commit: dh_gen_ok waits for it
        keys.withLock { $0[key.authKey.id] = key }
    }

    func handle(_ rpc: IncomingRPC, authKeyID: UInt64, outlet: SessionOutlet) async -> Result<[UInt8], RPCError> {
        .success(API.NearestDc.nearestDc(.init(country: "ZZ", thisDc: 2, nearestDc: 2)).serialized())
    }
}

struct LoopbackTests {
    static let rsa: RSAPrivateKey? = TestServerKey.key

    struct Setup: Sendable, CustomStringConvertible {
        var framing: TransportFraming
        var obfuscated: Bool
        var description: String { "\(framing)\(obfuscated ? " obfuscated" : "")" }
    }

    @Test(arguments: [Setup(framing: .abridged, obfuscated: false), Setup(framing: .intermediate, obfuscated: false),
                      Setup(framing: .paddedIntermediate, obfuscated: true), Setup(framing: .full, obfuscated: false),
                      Setup(framing: .abridged, obfuscated: true)])
    func keyExchangeAndCallsOverRealSockets(setup: Setup) async throws {
        let rsa = try #require(Self.rsa)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let delegate = InMemoryDelegate()
        let server = try await MTProtoServer.start(host: "127.0.0.1", port: 0, rsaKey: rsa, delegate: delegate,
                                                   logger: Logger(label: "test"), group: group)
        let client = try await MTProtoClient.connect(host: "127.0.0.1", port: server.port, framing: setup.framing,
                                                     obfuscated: setup.obfuscated, publicKeys: [rsa.publicKey], group: group)
        #expect(delegate.count == 1)
        let wrapped = API.functions.InvokeWithLayer(layer: 229, query: API.functions.help.GetNearestDc())
        let nearest = try await client.call(wrapped)
        #expect(nearest == .nearestDc(.init(country: "ZZ", thisDc: 2, nearestDc: 2)))
        do {
            _ = try await client.call(API.functions.updates.GetState())
            Issue.record("an unsupported method succeeded")
        } catch let MTProtoClientError.rpc(error) {
            #expect(error == RPCError(code: 400, message: "METHOD_UNSUPPORTED"))
        }
        await client.close()

        // The same key works on a new connection without another exchange.
        let again = try await MTProtoClient.connect(host: "127.0.0.1", port: server.port, framing: setup.framing,
                                                    obfuscated: setup.obfuscated, publicKeys: [rsa.publicKey],
                                                    existingKey: client.key, group: group)
        #expect(try await again.call(API.functions.help.GetNearestDc()) == nearest)
        #expect(delegate.count == 1)
        await again.close()
        try await server.stop()
        try await group.shutdownGracefully()
    }

    /// A key the delegate does not hold in memory is looked up before the frame is handled (a key another process
    /// made); when the lookup cannot be made the connection closes without −404, which would make the client drop a
    /// key that exists.
    @Test func aKeyIsLookedUpOffTheLoopAndAnUnreachableStoreIsNotA404() async throws {
        let rsa = try #require(Self.rsa)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let delegate = RemoteKeysDelegate()
        let server = try await MTProtoServer.start(host: "127.0.0.1", port: 0, rsaKey: rsa, delegate: delegate,
                                                   logger: Logger(label: "test"), group: group)
        let first = try await MTProtoClient.connect(host: "127.0.0.1", port: server.port, framing: .intermediate,
                                                    publicKeys: [rsa.publicKey], group: group)
        async let one = first.call(API.functions.help.GetNearestDc())
        async let two = first.call(API.functions.help.GetNearestDc())   // behind the lookup, in order
        _ = try await (one, two)
        #expect(delegate.lookups.withLock { $0 } == 1)
        let key = first.key
        await first.close()

        delegate.reachable.withLock { $0 = false }
        let refused = try await MTProtoClient.connect(host: "127.0.0.1", port: server.port, framing: .intermediate,
                                                      publicKeys: [rsa.publicKey], existingKey: key, group: group)
        do {
            _ = try await refused.call(API.functions.help.GetNearestDc())
            Issue.record("a call succeeded while its key could not be looked up")
        } catch let MTProtoClientError.transport(code) {
            Issue.record("transport error \(code): the client would drop its key")
        } catch {}
        await refused.close()

        delegate.reachable.withLock { $0 = true }
        let again = try await MTProtoClient.connect(host: "127.0.0.1", port: server.port, framing: .intermediate,
                                                    publicKeys: [rsa.publicKey], existingKey: key, group: group)
        #expect(try await again.call(API.functions.help.GetNearestDc()) == .nearestDc(.init(country: "ZZ", thisDc: 2, nearestDc: 2)))
        await again.close()
        try await server.stop()
        try await group.shutdownGracefully()
    }

    /// Accepted connections have TCP_NODELAY set at the TCP level and no socket debugging. The option was set with
    /// `.socketOption(.tcp_nodelay)`, which is level SOL_SOCKET, where option 1 is SO_DEBUG: as root that turned on
    /// SO_DEBUG (NIO's bootstraps turn Nagle off already); as any other user it failed with EACCES and every
    /// connection was reset at once (found running the server as its own user, as docs/DEPLOYING.md says).
    @Test func acceptedConnectionsHaveNagleOffAndNoSocketDebugging() async throws {
        let rsa = try #require(Self.rsa)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await MTProtoServer.start(host: "127.0.0.1", port: 0, rsaKey: rsa, delegate: InMemoryDelegate(),
                                                   logger: Logger(label: "test"), group: group)
        let client = try await MTProtoClient.connect(host: "127.0.0.1", port: server.port, framing: .intermediate,
                                                     publicKeys: [rsa.publicKey], group: group)
        let accepted = try #require(server.connections.all.first)
        #expect(try await accepted.getOption(.tcpOption(.tcp_nodelay)).get() != 0)
        #expect(try await accepted.getOption(.socket(SocketOptionLevel(SOL_SOCKET), SO_DEBUG)).get() == 0)
        await client.close()
        try await server.stop()
        try await group.shutdownGracefully()
    }

    @Test func unknownKeyGetsTransportError404() async throws {
        let rsa = try #require(Self.rsa)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await MTProtoServer.start(host: "127.0.0.1", port: 0, rsaKey: rsa, delegate: InMemoryDelegate(),
                                                   logger: Logger(label: "test"), group: group)
        let forgotten = AuthKeyExchangeResult(authKey: try AuthKey(bytes: [UInt8](repeating: 3, count: 256)), serverSalt: 0,
                                              serverTimeOffset: 0, dc: 2, expiresIn: nil)
        let client = try await MTProtoClient.connect(host: "127.0.0.1", port: server.port, framing: .intermediate,
                                                     publicKeys: [rsa.publicKey], existingKey: forgotten, group: group)
        do {
            _ = try await client.call(API.functions.help.GetNearestDc())
            Issue.record("a call with an unknown key succeeded")
        } catch let MTProtoClientError.transport(code) {
            #expect(code == -404)
        }
        await client.close()
        try await server.stop()
        try await group.shutdownGracefully()
    }
}
