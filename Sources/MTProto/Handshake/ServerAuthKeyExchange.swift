import Foundation
import TL

/// The server's side of the auth-key exchange (core.telegram.org/mtproto/auth_key), sans I/O: feed it the
/// plain-message bodies the client sends, with the current time, and send back what it returns.
///
/// Accepts `req_pq` and `req_pq_multi`, RSA_PAD and the old RSA scheme, and every `p_q_inner_data` form
/// including temporary keys. Any check that fails ends the exchange with a `HandshakeError`.
public struct ServerAuthKeyExchange<RNG: RandomNumberGenerator> {
    private enum State {
        case awaitingPQRequest
        case awaitingDHParams(nonce: TLInt128, serverNonce: TLInt128, pq: Data, p: Data, q: Data)
        case awaitingClientDH(nonce: TLInt128, serverNonce: TLInt128, newNonce: [UInt8], a: [UInt8], dc: Int32?, expiresIn: Int32?)
        case finished
    }

    /// The answer to one client message.
    public enum Step: Sendable {
        case reply([UInt8])
        /// The exchange is done: send `reply` (dh_gen_ok) and start using the key.
        case completed(AuthKeyExchangeResult, reply: [UInt8])
    }

    private let rsaKey: RSAPrivateKey
    private var rng: RNG
    private var state = State.awaitingPQRequest

    public init(rsaKey: RSAPrivateKey, rng: RNG) {
        self.rsaKey = rsaKey
        self.rng = rng
    }

    /// Handles one client message body. `now` is the server's unix time (for `server_time`).
    public mutating func receive(_ body: [UInt8], now: Int32) throws(HandshakeError) -> Step {
        do {
            return try handle(body, now: now)
        } catch {
            state = .finished
            throw error
        }
    }

    private mutating func handle(_ body: [UInt8], now: Int32) throws(HandshakeError) -> Step {
        let request = try HandshakeCoding.decode(body, as: TLAnyFunction.self).function
        switch (state, request) {
        case (.finished, _):
            throw .finished
        case (_, let request as MT.functions.ReqPqMulti):
            return .reply(answerPQ(nonce: request.nonce))
        case (_, let request as MT.functions.ReqPq):
            return .reply(answerPQ(nonce: request.nonce))
        case let (.awaitingDHParams(nonce, serverNonce, pq, p, q), request as MT.functions.ReqDHParams):
            guard request.nonce == nonce, request.serverNonce == serverNonce else { throw .nonceMismatch }
            guard request.publicKeyFingerprint == rsaKey.publicKey.fingerprint else {
                throw .unknownFingerprint(request.publicKeyFingerprint)
            }
            guard request.p == p, request.q == q else { throw .pqMismatch }
            let inner = try decryptInnerData([UInt8](request.encryptedData))
            guard inner.nonce == nonce, inner.serverNonce == serverNonce else { throw .nonceMismatch }
            guard inner.pq == pq, inner.p == p, inner.q == q else { throw .pqMismatch }
            return .reply(try answerDHParams(nonce: nonce, serverNonce: serverNonce, inner: inner, now: now))
        case let (.awaitingClientDH(nonce, serverNonce, newNonce, a, dc, expiresIn), request as MT.functions.SetClientDHParams):
            guard request.nonce == nonce, request.serverNonce == serverNonce else { throw .nonceMismatch }
            let tmp = HandshakeCrypto.temporaryAES(serverNonce: serverNonce.bytes, newNonce: newNonce)
            let answer = try HandshakeCoding.decryptWithHash(
                [UInt8](request.encryptedData), key: tmp.key, iv: tmp.iv, as: MT.ClientDHInnerData.self)
            guard case let .clientDHInnerData(clientInner) = answer else { throw .unexpectedMessage(answer.constructorName) }
            guard clientInner.nonce == nonce, clientInner.serverNonce == serverNonce else { throw .nonceMismatch }
            let gB = [UInt8](clientInner.gB)
            do { try DiffieHellman.checkPublicValue(gB) } catch { throw .dhValueOutOfRange }
            let keyBytes: [UInt8]
            let authKey: AuthKey
            do {
                keyBytes = try DiffieHellman.sharedSecret(peerValue: gB, exponent: a)
                authKey = try AuthKey(bytes: keyBytes)
            } catch { throw .crypto(error) }
            state = .finished
            let hash = HandshakeCrypto.newNonceHash(newNonce: newNonce, number: 1, authKey: authKey)
            let reply = MT.SetClientDHParamsAnswer.dhGenOk(.init(
                nonce: nonce, serverNonce: serverNonce, newNonceHash1: HandshakeCoding.int128(hash))).serialized()
            let result = AuthKeyExchangeResult(
                authKey: authKey,
                serverSalt: HandshakeCrypto.initialSalt(newNonce: newNonce, serverNonce: serverNonce.bytes),
                serverTimeOffset: 0, dc: dc, expiresIn: expiresIn)
            return .completed(result, reply: reply)
        case (_, let request):
            throw .unexpectedMessage(request.constructorName)
        }
    }

    private mutating func answerPQ(nonce: TLInt128) -> [UInt8] {
        let generated = PQ.generate(using: &rng)
        let serverNonce = HandshakeCoding.int128(RandomBytes.make(16, using: &rng))
        let pq = Data(BigEndianInteger.fromUInt64(generated.pq))
        let p = Data(BigEndianInteger.fromUInt64(generated.p))
        let q = Data(BigEndianInteger.fromUInt64(generated.q))
        state = .awaitingDHParams(nonce: nonce, serverNonce: serverNonce, pq: pq, p: p, q: q)
        return MT.ResPQ.resPQ(.init(
            nonce: nonce, serverNonce: serverNonce, pq: pq, serverPublicKeyFingerprints: [rsaKey.publicKey.fingerprint]
        )).serialized()
    }

    /// The fields every `p_q_inner_data` form shares.
    private struct InnerData {
        var pq, p, q: Data
        var nonce, serverNonce: TLInt128
        var newNonce: TLInt256
        var dc: Int32?
        var expiresIn: Int32?
    }

    private func decryptInnerData(_ encrypted: [UInt8]) throws(HandshakeError) -> InnerData {
        let decrypted: RSADecrypted
        do { decrypted = try rsaKey.decrypt(encrypted) } catch { throw .crypto(error) }
        var reader: TLReader
        var expectedHash: [UInt8]?
        switch decrypted {
        case let .rsaPad(data):
            reader = TLReader(data)
        case let .oldScheme(sha1, data):
            reader = TLReader(data)
            expectedHash = sha1
        }
        let inner: MT.PQInnerData
        do { inner = try MT.PQInnerData.decode(from: &reader) } catch { throw .decoding(error) }
        if let expectedHash, MTProtoHash.sha1(Array(reader.bytes[0..<reader.offset])) != expectedHash {
            throw .hashMismatch
        }
        switch inner {
        case let .pQInnerData(v):
            return InnerData(pq: v.pq, p: v.p, q: v.q, nonce: v.nonce, serverNonce: v.serverNonce, newNonce: v.newNonce)
        case let .pQInnerDataDc(v):
            return InnerData(pq: v.pq, p: v.p, q: v.q, nonce: v.nonce, serverNonce: v.serverNonce, newNonce: v.newNonce, dc: v.dc)
        case let .pQInnerDataTemp(v):
            return InnerData(pq: v.pq, p: v.p, q: v.q, nonce: v.nonce, serverNonce: v.serverNonce, newNonce: v.newNonce,
                             expiresIn: v.expiresIn)
        case let .pQInnerDataTempDc(v):
            return InnerData(pq: v.pq, p: v.p, q: v.q, nonce: v.nonce, serverNonce: v.serverNonce, newNonce: v.newNonce,
                             dc: v.dc, expiresIn: v.expiresIn)
        }
    }

    private mutating func answerDHParams(
        nonce: TLInt128, serverNonce: TLInt128, inner: InnerData, now: Int32
    ) throws(HandshakeError) -> [UInt8] {
        let a = RandomBytes.make(256, using: &rng)
        let gA: [UInt8]
        do { gA = try DiffieHellman.publicValue(exponent: a) } catch { throw .crypto(error) }
        let newNonce = inner.newNonce.bytes
        let answer = MT.ServerDHInnerData.serverDHInnerData(.init(
            nonce: nonce, serverNonce: serverNonce, g: DiffieHellman.generator, dhPrime: Data(DiffieHellman.prime),
            gA: Data(gA), serverTime: now)).serialized()
        let tmp = HandshakeCrypto.temporaryAES(serverNonce: serverNonce.bytes, newNonce: newNonce)
        let encrypted = try HandshakeCoding.encryptWithHash(answer, key: tmp.key, iv: tmp.iv, using: &rng)
        state = .awaitingClientDH(nonce: nonce, serverNonce: serverNonce, newNonce: newNonce, a: a, dc: inner.dc,
                                  expiresIn: inner.expiresIn)
        return MT.ServerDHParams.serverDHParamsOk(.init(
            nonce: nonce, serverNonce: serverNonce, encryptedAnswer: Data(encrypted))).serialized()
    }
}
