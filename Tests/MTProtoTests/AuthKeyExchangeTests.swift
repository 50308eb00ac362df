import MTProto
import SyncTesting
import Foundation
import Testing
import TL
@testable import MTProto

/// A client and a server after the first round trip: req_pq_multi sent and answered, req_DH_params built.
struct StartedExchange {
    var client: ClientAuthKeyExchange<SplitMix64>
    var server: ServerAuthKeyExchange<SplitMix64>
    let reqPQ: [UInt8]
    let resPQ: [UInt8]
    let reqDH: [UInt8]

    init(rsa: RSAPrivateKey, clientSeed: UInt64, serverSeed: UInt64) throws {
        client = ClientAuthKeyExchange(publicKeys: [rsa.publicKey], dc: 2, rng: SplitMix64(seed: clientSeed))
        server = ServerAuthKeyExchange(rsaKey: rsa, rng: SplitMix64(seed: serverSeed))
        reqPQ = client.start()
        guard case let .reply(answer) = try server.receive(reqPQ, now: 0),
              case let .send(request) = try client.receive(answer, now: 0)
        else { throw HandshakeError.unexpectedMessage("the exchange did not start") }
        resPQ = answer
        reqDH = request
    }
}

struct AuthKeyExchangeTests {
    static let rsaKey: RSAPrivateKey? = TestServerKey.key

    /// Runs a client and a server against each other in memory.
    static func exchange(
        temporaryKeyLifetime: Int32? = nil, seed: UInt64 = 1
    ) throws -> (client: AuthKeyExchangeResult, server: AuthKeyExchangeResult) {
        let rsa = try #require(rsaKey)
        var client = ClientAuthKeyExchange(publicKeys: [rsa.publicKey], dc: 2, temporaryKeyLifetime: temporaryKeyLifetime,
                                           rng: SplitMix64(seed: seed))
        var server = ServerAuthKeyExchange(rsaKey: rsa, rng: SplitMix64(seed: seed &+ 1000))
        var message = client.start()
        for _ in 0..<5 {
            switch try server.receive(message, now: 1_700_000_100) {
            case let .reply(reply):
                guard case let .send(next) = try client.receive(reply, now: 1_700_000_000) else {
                    throw HandshakeError.unexpectedMessage("client finished early")
                }
                message = next
            case let .completed(serverResult, reply):
                guard case let .completed(clientResult) = try client.receive(reply, now: 1_700_000_000) else {
                    throw HandshakeError.unexpectedMessage("client did not finish")
                }
                return (clientResult, serverResult)
            }
        }
        throw HandshakeError.unexpectedMessage("too many steps")
    }

    @Test func clientAndServerAgreeOnTheKey() throws {
        let (client, server) = try Self.exchange()
        #expect(client.authKey == server.authKey)
        #expect(client.authKey.bytes.count == 256)
        #expect(client.serverSalt == server.serverSalt)
        #expect(client.serverTimeOffset == 100)
        #expect(server.dc == 2)
        #expect(server.expiresIn == nil)
    }

    @Test func temporaryKeysAreAccepted() throws {
        let (client, server) = try Self.exchange(temporaryKeyLifetime: 86_400, seed: 7)
        #expect(client.authKey == server.authKey)
        #expect(server.expiresIn == 86_400)
    }

    @Test func serverAcceptsTheOldRSASchemeAndReqPq() throws {
        let rsa = try #require(Self.rsaKey)
        var server = ServerAuthKeyExchange(rsaKey: rsa, rng: SplitMix64(seed: 9))
        var rng = SplitMix64(seed: 10)
        let nonce = TLInt128(low: 1, high: 2)
        guard case let .reply(resPQBytes) = try server.receive(MT.functions.ReqPq(nonce: nonce).serialized(), now: 0),
              case let .resPQ(resPQ) = try MT.ResPQ.deserialize(resPQBytes)
        else { Issue.record("no resPQ"); return }
        let pqValue = try #require(BigEndianInteger.toUInt64([UInt8](resPQ.pq)))
        let factors = try #require(PQ.factorize(pqValue))
        let p = Data(BigEndianInteger.fromUInt64(factors.p)), q = Data(BigEndianInteger.fromUInt64(factors.q))
        let inner = MT.PQInnerData.pQInnerData(.init(pq: resPQ.pq, p: p, q: q, nonce: nonce, serverNonce: resPQ.serverNonce,
                                                     newNonce: TLInt256(words: (3, 4, 5, 6))))
        let encrypted = try rsa.publicKey.encryptOldScheme(inner.serialized(), using: &rng)
        let request = MT.functions.ReqDHParams(nonce: nonce, serverNonce: resPQ.serverNonce, p: p, q: q,
                                               publicKeyFingerprint: rsa.publicKey.fingerprint, encryptedData: Data(encrypted))
        guard case let .reply(answer) = try server.receive(request.serialized(), now: 0) else { Issue.record("no answer"); return }
        guard case .serverDHParamsOk = try MT.ServerDHParams.deserialize(answer) else { Issue.record("not ok"); return }
    }

    @Test func serverRejectsWrongNoncesFingerprintsAndOrder() throws {
        let rsa = try #require(Self.rsaKey)
        // set_client_DH_params before anything else.
        var fresh = ServerAuthKeyExchange(rsaKey: rsa, rng: SplitMix64(seed: 11))
        let early = MT.functions.SetClientDHParams(nonce: TLInt128(low: 0, high: 0), serverNonce: TLInt128(low: 0, high: 0),
                                                   encryptedData: Data(count: 32))
        #expect(throws: HandshakeError.unexpectedMessage("set_client_DH_params")) { try fresh.receive(early.serialized(), now: 0) }
        #expect(throws: HandshakeError.finished) { try fresh.receive(MT.functions.ReqPqMulti(nonce: TLInt128(low: 1, high: 1)).serialized(), now: 0) }

        for mutation in 0..<2 {
            var started = try StartedExchange(rsa: rsa, clientSeed: 13, serverSeed: 12)
            var request = try MT.functions.ReqDHParams.deserialize(started.reqDH)
            let expected: HandshakeError
            if mutation == 0 {
                request.nonce.low ^= 1
                expected = .nonceMismatch
            } else {
                request.publicKeyFingerprint ^= 1
                expected = .unknownFingerprint(request.publicKeyFingerprint)
            }
            #expect(throws: expected) { try started.server.receive(request.serialized(), now: 0) }
        }

        // A corrupted RSA block. The test key is new every run, so the block decrypts to a leading zero byte about
        // once in 256 runs; the server then tries the old scheme and rejects the block at TL decoding instead.
        var started = try StartedExchange(rsa: rsa, clientSeed: 13, serverSeed: 12)
        var request = try MT.functions.ReqDHParams.deserialize(started.reqDH)
        request.encryptedData[100] ^= 1
        do {
            _ = try started.server.receive(request.serialized(), now: 0)
            Issue.record("a corrupted RSA block was accepted")
        } catch {
            switch error {
            case .crypto(.rsaDecryptionFailed), .decoding, .hashMismatch: break
            default: Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func truncatedAndGarbageHandshakeMessagesEndTheExchangeCleanly() throws {
        let rsa = try #require(Self.rsaKey)
        let started = try StartedExchange(rsa: rsa, clientSeed: 14, serverSeed: 15)
        let (first, second) = (started.reqPQ, started.reqDH)
        for message in [first, second] {
            for length in stride(from: 0, to: message.count, by: 7) {
                var probe = ServerAuthKeyExchange(rsaKey: rsa, rng: SplitMix64(seed: 16))
                if message == second { _ = try probe.receive(first, now: 0) }
                #expect(throws: HandshakeError.self) { try probe.receive(Array(message[..<length]), now: 0) }
            }
        }
        var garbageClient = ClientAuthKeyExchange(publicKeys: [rsa.publicKey], dc: 2, rng: SplitMix64(seed: 17))
        _ = garbageClient.start()
        #expect(throws: HandshakeError.self) { try garbageClient.receive([1, 2, 3, 4, 5, 6, 7, 8], now: 0) }
    }

    @Test func clientRejectsForeignDHGroupsAndOutOfRangeValues() throws {
        let rsa = try #require(Self.rsaKey)
        for variant in 0..<3 {
            var started = try StartedExchange(rsa: rsa, clientSeed: 18, serverSeed: 19)
            // Play a hostile server: open the client's RSA_PAD block with the private key to learn new_nonce.
            let request = try MT.functions.ReqDHParams.deserialize(started.reqDH)
            guard case let .rsaPad(innerBytes) = try rsa.decrypt([UInt8](request.encryptedData)) else { Issue.record("not RSA_PAD"); return }
            var reader = TLReader(innerBytes)
            guard case let .pQInnerDataDc(inner) = try MT.PQInnerData.decode(from: &reader) else { Issue.record("no inner"); return }
            var prime = DiffieHellman.prime
            var g = DiffieHellman.generator
            var gA = try DiffieHellman.publicValue(exponent: [5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
            let expected: HandshakeError
            switch variant {
            case 0: prime[255] ^= 2; expected = .unsupportedDHGroup
            case 1: g = 2; expected = .unsupportedDHGroup
            default: gA = [2]; expected = .dhValueOutOfRange
            }
            let answer = MT.ServerDHInnerData.serverDHInnerData(.init(
                nonce: inner.nonce, serverNonce: inner.serverNonce, g: g, dhPrime: Data(prime), gA: Data(gA), serverTime: 0))
            let tmp = HandshakeCrypto.temporaryAES(serverNonce: inner.serverNonce.bytes, newNonce: inner.newNonce.bytes)
            var rng = SplitMix64(seed: 20)
            let encrypted = try HandshakeCoding.encryptWithHash(answer.serialized(), key: tmp.key, iv: tmp.iv, using: &rng)
            let reply = MT.ServerDHParams.serverDHParamsOk(.init(nonce: inner.nonce, serverNonce: inner.serverNonce,
                                                                 encryptedAnswer: Data(encrypted)))
            #expect(throws: expected) { try started.client.receive(reply.serialized(), now: 0) }
        }
    }

    @Test func mutatedHandshakeMessagesNeverCrashTheServer() throws {
        let rsa = try #require(Self.rsaKey)
        let started = try StartedExchange(rsa: rsa, clientSeed: 21, serverSeed: 22)
        let (first, second) = (started.reqPQ, started.reqDH)
        var rng = SplitMix64(seed: 23)
        var accepted = 0
        var rejected = 0
        for iteration in 0..<3_000 {
            var server = ServerAuthKeyExchange(rsaKey: rsa, rng: SplitMix64(seed: 22))
            var message = iteration % 2 == 0 ? first : second
            if iteration % 2 == 1 { _ = try? server.receive(first, now: 0) }
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let index = Int(rng.next() % UInt64(message.count))
                message[index] = UInt8(truncatingIfNeeded: rng.next())
            }
            do {
                _ = try server.receive(message, now: 0)
                accepted += 1   // a mutated nonce in req_pq_multi is still a valid request
            } catch {
                rejected += 1
            }
        }
        #expect(accepted + rejected == 3_000)
        #expect(rejected > 1_000)
    }
}
