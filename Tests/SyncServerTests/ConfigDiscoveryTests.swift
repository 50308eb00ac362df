import MTProto
import MTProtoNIO
import NIOCore
import NIOPosix
import Testing
import TL
@testable import SyncServer

/// Endpoint discovery against real servers: `--config-url` serves a blob sealed with the server's RSA key, a client
/// holding that key opens it, a mirror sealed with another key is refused (and loses the race to a good one), and a
/// data center whose address went dead is found again through the blob with one HTTP request.
@Suite(.timeLimit(.minutes(2)))
struct ConfigDiscoveryTests {
    static func options(_ answer: [API.DcOption]) -> [String] {
        answer.map { option in
            guard case let .dcOption(value) = option else { return "" }
            return "\(value.id) \(value.ipAddress):\(value.port)"
        }.sorted()
    }

    @Test func theServedBlobListsEveryDataCenterAndOpensOnlyWithTheServersKey() async throws {
        let harness = try await ServerHarness(dcCount: 2, configURL: "http://127.0.0.1:0/config")
        let otherKey = try RSAPrivateKey.generate(bits: 2048)
        let other = try await ServerHarness(configURL: "http://127.0.0.1:0/config", rsaKey: otherKey)   // another data directory, another key
        let url = try #require(harness.server.configURL)
        let mirror = try #require(other.server.configURL)
        let key = harness.server.keys.rsaKey.publicKey
        let group = MultiThreadedEventLoopGroup.singleton

        let answer = try await SignedConfigURLSource(url: url, publicKey: key, group: group).fetch()
        #expect(Self.options(answer) == harness.server.ports.sorted { $0.key < $1.key }.map { "\($0.key) 127.0.0.1:\($0.value)" })
        await #expect(throws: ConfigBlobError.badSignature) {
            _ = try await SignedConfigURLSource(url: mirror, publicKey: key, group: group).fetch()
        }
        await #expect(throws: HTTPFetchError.status(404)) {
            _ = try await SignedConfigURLSource(url: url + "-missing", publicKey: key, group: group).fetch()
        }

        // The lying mirror answers as fast as the real one; only the real one can win.
        let race = EndpointDiscovery(sources: [SignedConfigURLSource(url: mirror, publicKey: key, group: group),
                                               SignedConfigURLSource(url: url, publicKey: key, group: group)])
        #expect(try await race.run().source == url)
        try await other.stop()
        try await harness.stop()
    }

    @Test func aDeadAddressIsReplacedThroughTheSignedBlob() async throws {
        let harness = try await ServerHarness(configURL: "http://127.0.0.1:0/config")
        let key = harness.server.keys.rsaKey.publicKey
        let group = MultiThreadedEventLoopGroup.singleton
        // The directory's only address for DC 2 is a port nobody listens on any more.
        let closed = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let deadPort = closed.localAddress?.port ?? 1
        try await closed.close()
        let discovery = EndpointDiscovery(sources: [
            SignedConfigURLSource(url: try #require(harness.server.configURL), publicKey: key, group: group),
        ])
        let manager = ConnectionManager(state: NetworkState(directory: .loopback([2: deadPort])), initialDC: 2,
                                        publicKeys: [key], group: group, discovery: discovery)
        guard case let .config(config) = try await manager.send(API.functions.help.GetConfig()) else {
            Issue.record("config"); return
        }
        #expect(config.thisDc == 2)
        #expect(await manager.networkState.directory.addresses(of: 2).map(\.port) == [harness.server.port])
        let accounting = await manager.accounting
        #expect(accounting.httpRequests == 1 && accounting.tcpConnections == 2)   // the dead address, then the new one
        await manager.close()
        try await harness.stop()
    }
}
