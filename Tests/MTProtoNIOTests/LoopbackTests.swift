import Foundation
import Logging
import MTProto
import NIOCore
import NIOPosix
import Synchronization
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

struct LoopbackTests {
    static let rsa: RSAPrivateKey? = try? RSAPrivateKey.generate(bits: 2048)

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
