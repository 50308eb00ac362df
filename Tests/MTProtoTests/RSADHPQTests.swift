import MTProto
import Foundation
import SyncTesting
import Testing
import TL
@testable import MTProto


struct RSATests {
    static let key: RSAPrivateKey? = TestServerKey.key

    @Test func generatedKeyIs2048BitsWithE65537() throws {
        let key = try #require(Self.key)
        #expect(key.publicKey.modulus.count == 256)
        #expect(key.publicKey.modulus[0] & 0x80 != 0)
        #expect(key.publicKey.exponent == [0x01, 0x00, 0x01])
    }

    @Test func oldSchemeRoundTrip() throws {
        let key = try #require(Self.key)
        var rng = SplitMix64(seed: 1)
        let data = Array("p_q_inner_data goes here".utf8)
        let encrypted = try key.publicKey.encryptOldScheme(data, using: &rng)
        #expect(encrypted.count == 256)
        guard case let .oldScheme(sha1, payload) = try key.decrypt(encrypted) else {
            Issue.record("not decoded as the old scheme"); return
        }
        #expect(Array(payload.prefix(data.count)) == data)
        #expect(sha1 == MTProtoHash.sha1(data))
    }

    @Test func rsaPadRoundTrip() throws {
        let key = try #require(Self.key)
        var rng = SplitMix64(seed: 2)
        let data = (0..<144).map { UInt8($0) }
        let encrypted = try key.publicKey.encryptRSAPad(data, using: &rng)
        guard case let .rsaPad(padded) = try key.decrypt(encrypted) else { Issue.record("not RSA_PAD"); return }
        #expect(padded.count == 192)
        #expect(Array(padded.prefix(144)) == data)
    }

    @Test func garbageBlocksAreRejected() throws {
        let key = try #require(Self.key)
        #expect(throws: MTProtoCryptoError.rsaDecryptionFailed) { try key.decrypt([1, 2, 3]) }
        #expect(throws: MTProtoCryptoError.rsaDecryptionFailed) { try key.decrypt([UInt8](repeating: 0xFF, count: 256)) }
        var rng = SplitMix64(seed: 3)
        var rejected = 0
        for _ in 0..<20 {
            let garbage = [0] + (0..<255).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if (try? key.decrypt(garbage)) == nil { rejected += 1 }
        }
        // A random block decrypts to a leading zero byte about 1 time in 256: almost all are rejected outright, and
        // the rest fail the SHA-1 check when the handshake decodes them.
        #expect(rejected >= 15)
    }

    @Test func publicKeyPEMIsPKCS1() throws {
        let key = try #require(Self.key)
        let pem = try key.publicKey.pkcs1PEM()
        #expect(pem.hasPrefix("-----BEGIN RSA PUBLIC KEY-----\n"))
        #expect(pem.hasSuffix("-----END RSA PUBLIC KEY-----\n"))
    }
}

struct DiffieHellmanTests {
    @Test func sharedSecretsAgree() throws {
        var rng = SplitMix64(seed: 4)
        let a = (0..<256).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let b = (0..<256).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let gA = try DiffieHellman.publicValue(exponent: a)
        let gB = try DiffieHellman.publicValue(exponent: b)
        try DiffieHellman.checkPublicValue(gA)
        try DiffieHellman.checkPublicValue(gB)
        let clientKey = try DiffieHellman.sharedSecret(peerValue: gA, exponent: b)
        #expect(clientKey == (try DiffieHellman.sharedSecret(peerValue: gB, exponent: a)))
        #expect(clientKey.count == 256)
    }

    @Test func valuesOutOfRangeAreRejected() {
        let p = DiffieHellman.prime
        let tooSmall = BigEndianInteger.subtract(BigEndianInteger.powerOfTwo(1984), [1])
        let tooLarge = BigEndianInteger.subtract(p, BigEndianInteger.subtract(BigEndianInteger.powerOfTwo(1984), [1]))
        for value in [[0], [1], [2], tooSmall, tooLarge, BigEndianInteger.subtract(p, [1]), p, [UInt8](repeating: 0xFF, count: 256)] {
            #expect(throws: MTProtoCryptoError.self) { try DiffieHellman.checkPublicValue(value) }
        }
        #expect((try? DiffieHellman.checkPublicValue(BigEndianInteger.powerOfTwo(1984))) != nil)
    }

    @Test func primeIsTelegrams() {
        #expect(DiffieHellman.prime.count == 256)
        #expect(hexString(DiffieHellman.prime.prefix(8)) == "c71caeb9c6b1c904")
        #expect(hexString(DiffieHellman.prime.suffix(4)) == "b92fcc5b")
    }
}

struct PQTests {
    @Test func factorsTheSpecExample() throws {
        // core.telegram.org/mtproto/samples-auth_key: pq = 0x17ED48941A08F981 = 0x494C553B × 0x53911073.
        let factors = try #require(PQ.factorize(0x17ED_4894_1A08_F981))
        #expect(factors.p == 0x494C_553B)
        #expect(factors.q == 0x5391_1073)
    }

    @Test func generatedPQFactorsBack() throws {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<50 {
            let generated = PQ.generate(using: &rng)
            #expect(generated.p < generated.q)
            #expect(generated.q < 1 << 31 && generated.p >= 1 << 30)
            #expect(generated.pq < 1 << 62)
            let factors = try #require(PQ.factorize(generated.pq))
            #expect(factors.p == generated.p && factors.q == generated.q)
        }
    }

    @Test func rejectsWhatIsNotAProductOfTwoPrimes() {
        #expect(PQ.factorize(0) == nil)
        #expect(PQ.factorize(97) == nil)                    // prime
        #expect(PQ.factorize(18_446_744_073_709_551_557) == nil)   // the largest 64-bit prime: refused at once
        #expect(PQ.factorize(3 * 5 * 7 * 11) == nil)        // more than two factors
        #expect(PQ.factorize(65_537 * 65_537) == nil)       // equal primes
        #expect(PQ.isPrime(4_294_967_291))
        #expect(!PQ.isPrime(4_294_967_297))
    }
}
