import Foundation
import TL

/// The client's side of the auth-key exchange (core.telegram.org/mtproto/auth_key), sans I/O: `start()` gives the
/// first message body, `receive(_:now:)` takes each server answer and returns the next body or the finished key.
///
/// Encrypts `p_q_inner_data_dc` (or `_temp_dc`) with RSA_PAD, accepts only Telegram's DH group, checks every nonce,
/// hash and DH value range, and answers `dh_gen_retry` up to `maximumRetries` times.
public struct ClientAuthKeyExchange<RNG: RandomNumberGenerator> {
    private enum State {
        case idle
        case awaitingResPQ(nonce: TLInt128)
        case awaitingDHParams(nonce: TLInt128, serverNonce: TLInt128, newNonce: [UInt8])
        case awaitingDHGen(nonce: TLInt128, serverNonce: TLInt128, newNonce: [UInt8], gA: [UInt8], timeOffset: Int32, authKey: AuthKey)
        case finished
    }

    public enum Step: Sendable {
        case send([UInt8])
        case completed(AuthKeyExchangeResult)
    }

    public static var maximumRetries: Int { 5 }

    private let publicKeys: [RSAPublicKey]
    private let dc: Int32
    private let temporaryKeyLifetime: Int32?
    private var rng: RNG
    private var state = State.idle
    private var retries = 0

    /// `publicKeys`: the server keys this client trusts. `temporaryKeyLifetime`: seconds, for a temporary key.
    public init(publicKeys: [RSAPublicKey], dc: Int32, temporaryKeyLifetime: Int32? = nil, rng: RNG) {
        self.publicKeys = publicKeys
        self.dc = dc
        self.temporaryKeyLifetime = temporaryKeyLifetime
        self.rng = rng
    }

    /// The first message: `req_pq_multi`.
    public mutating func start() -> [UInt8] {
        let nonce = HandshakeCoding.int128(RandomBytes.make(16, using: &rng))
        state = .awaitingResPQ(nonce: nonce)
        return MT.functions.ReqPqMulti(nonce: nonce).serialized()
    }

    public mutating func receive(_ body: [UInt8], now: Int32) throws(HandshakeError) -> Step {
        do {
            return try handle(body, now: now)
        } catch {
            state = .finished
            throw error
        }
    }

    private mutating func handle(_ body: [UInt8], now: Int32) throws(HandshakeError) -> Step {
        switch state {
        case .idle, .finished:
            throw .finished
        case let .awaitingResPQ(nonce):
            let answer = try HandshakeCoding.decode(body, as: MT.ResPQ.self)
            guard case let .resPQ(resPQ) = answer else { throw .unexpectedMessage(answer.constructorName) }
            guard resPQ.nonce == nonce else { throw .nonceMismatch }
            return .send(try requestDHParams(resPQ))
        case let .awaitingDHParams(nonce, serverNonce, newNonce):
            let answer = try HandshakeCoding.decode(body, as: MT.ServerDHParams.self)
            switch answer {
            case let .serverDHParamsFail(fail):
                guard fail.nonce == nonce, fail.serverNonce == serverNonce else { throw .nonceMismatch }
                guard fail.newNonceHash.bytes == Array(MTProtoHash.sha1(newNonce)[4..<20]) else { throw .hashMismatch }
                throw .rejectedByPeer("server_DH_params_fail")
            case let .serverDHParamsOk(ok):
                guard ok.nonce == nonce, ok.serverNonce == serverNonce else { throw .nonceMismatch }
                return .send(try setClientDHParams(ok, newNonce: newNonce, now: now))
            }
        case let .awaitingDHGen(nonce, serverNonce, newNonce, gA, timeOffset, authKey):
            let answer = try HandshakeCoding.decode(body, as: MT.SetClientDHParamsAnswer.self)
            func expectHash(_ hash: TLInt128, _ number: UInt8) throws(HandshakeError) {
                guard hash.bytes == HandshakeCrypto.newNonceHash(newNonce: newNonce, number: number, authKey: authKey) else {
                    throw .hashMismatch
                }
            }
            switch answer {
            case let .dhGenOk(ok):
                guard ok.nonce == nonce, ok.serverNonce == serverNonce else { throw .nonceMismatch }
                try expectHash(ok.newNonceHash1, 1)
                state = .finished
                return .completed(AuthKeyExchangeResult(
                    authKey: authKey,
                    serverSalt: HandshakeCrypto.initialSalt(newNonce: newNonce, serverNonce: serverNonce.bytes),
                    serverTimeOffset: timeOffset, dc: dc, expiresIn: temporaryKeyLifetime))
            case let .dhGenRetry(retry):
                guard retry.nonce == nonce, retry.serverNonce == serverNonce else { throw .nonceMismatch }
                try expectHash(retry.newNonceHash2, 2)
                retries += 1
                guard retries <= Self.maximumRetries else { throw .rejectedByPeer("dh_gen_retry \(retries) times") }
                return .send(try clientDHParams(
                    nonce: nonce, serverNonce: serverNonce, newNonce: newNonce, gA: gA, timeOffset: timeOffset,
                    retryID: littleEndianInt64(authKey.auxHash)))
            case let .dhGenFail(fail):
                guard fail.nonce == nonce, fail.serverNonce == serverNonce else { throw .nonceMismatch }
                try expectHash(fail.newNonceHash3, 3)
                throw .rejectedByPeer("dh_gen_fail")
            }
        }
    }

    private mutating func requestDHParams(_ resPQ: MT.ResPQ.ResPQ) throws(HandshakeError) -> [UInt8] {
        guard let key = publicKeys.first(where: { resPQ.serverPublicKeyFingerprints.contains($0.fingerprint) }) else {
            throw .unknownFingerprint(resPQ.serverPublicKeyFingerprints.first ?? 0)
        }
        guard let pqValue = BigEndianInteger.toUInt64([UInt8](resPQ.pq)), let factors = PQ.factorize(pqValue) else {
            throw .badPQ
        }
        let p = Data(BigEndianInteger.fromUInt64(factors.p))
        let q = Data(BigEndianInteger.fromUInt64(factors.q))
        let newNonceBytes = RandomBytes.make(32, using: &rng)
        let newNonce = HandshakeCoding.int256(newNonceBytes)
        let inner: MT.PQInnerData = temporaryKeyLifetime.map {
            .pQInnerDataTempDc(.init(pq: resPQ.pq, p: p, q: q, nonce: resPQ.nonce, serverNonce: resPQ.serverNonce,
                                     newNonce: newNonce, dc: dc, expiresIn: $0))
        } ?? .pQInnerDataDc(.init(pq: resPQ.pq, p: p, q: q, nonce: resPQ.nonce, serverNonce: resPQ.serverNonce,
                                  newNonce: newNonce, dc: dc))
        let encrypted: [UInt8]
        do { encrypted = try key.encryptRSAPad(inner.serialized(), using: &rng) } catch { throw .crypto(error) }
        state = .awaitingDHParams(nonce: resPQ.nonce, serverNonce: resPQ.serverNonce, newNonce: newNonceBytes)
        return MT.functions.ReqDHParams(
            nonce: resPQ.nonce, serverNonce: resPQ.serverNonce, p: p, q: q, publicKeyFingerprint: key.fingerprint,
            encryptedData: Data(encrypted)).serialized()
    }

    private mutating func setClientDHParams(
        _ ok: MT.ServerDHParams.ServerDHParamsOk, newNonce: [UInt8], now: Int32
    ) throws(HandshakeError) -> [UInt8] {
        let tmp = HandshakeCrypto.temporaryAES(serverNonce: ok.serverNonce.bytes, newNonce: newNonce)
        let answer = try HandshakeCoding.decryptWithHash(
            [UInt8](ok.encryptedAnswer), key: tmp.key, iv: tmp.iv, as: MT.ServerDHInnerData.self)
        guard case let .serverDHInnerData(inner) = answer else { throw .unexpectedMessage(answer.constructorName) }
        guard inner.nonce == ok.nonce, inner.serverNonce == ok.serverNonce else { throw .nonceMismatch }
        guard inner.g == DiffieHellman.generator, [UInt8](inner.dhPrime) == DiffieHellman.prime else {
            throw .unsupportedDHGroup
        }
        let gA = [UInt8](inner.gA)
        do { try DiffieHellman.checkPublicValue(gA) } catch { throw .dhValueOutOfRange }
        return try clientDHParams(nonce: ok.nonce, serverNonce: ok.serverNonce, newNonce: newNonce, gA: gA,
                                  timeOffset: inner.serverTime &- now, retryID: 0)
    }

    /// A fresh b, g_b and auth key, sent as `set_client_DH_params` (also after `dh_gen_retry`).
    private mutating func clientDHParams(
        nonce: TLInt128, serverNonce: TLInt128, newNonce: [UInt8], gA: [UInt8], timeOffset: Int32, retryID: Int64
    ) throws(HandshakeError) -> [UInt8] {
        let b = RandomBytes.make(256, using: &rng)
        let gB: [UInt8]
        let authKey: AuthKey
        do {
            gB = try DiffieHellman.publicValue(exponent: b)
            try DiffieHellman.checkPublicValue(gB)
            authKey = try AuthKey(bytes: try DiffieHellman.sharedSecret(peerValue: gA, exponent: b))
        } catch { throw .crypto(error) }
        let inner = MT.ClientDHInnerData.clientDHInnerData(.init(
            nonce: nonce, serverNonce: serverNonce, retryId: retryID, gB: Data(gB))).serialized()
        let tmp = HandshakeCrypto.temporaryAES(serverNonce: serverNonce.bytes, newNonce: newNonce)
        let encrypted = try HandshakeCoding.encryptWithHash(inner, key: tmp.key, iv: tmp.iv, using: &rng)
        state = .awaitingDHGen(nonce: nonce, serverNonce: serverNonce, newNonce: newNonce, gA: gA, timeOffset: timeOffset,
                               authKey: authKey)
        return MT.functions.SetClientDHParams(nonce: nonce, serverNonce: serverNonce, encryptedData: Data(encrypted)).serialized()
    }
}
