import MTProto
import Foundation
import SyncTesting
import Testing
import TL
@testable import MTProto

/// The signed config blob of endpoint discovery: only the private key's owner can make one that opens.
struct SignedConfigBlobTests {
    static let keys: [RSAPrivateKey] = (0..<2).compactMap { _ in try? RSAPrivateKey.generate(bits: 2048) }
    static let config = SimpleConfig(date: 1_790_000_000, expires: 1_790_086_400, rules: [
        .init(dc: 1, addresses: [.init(ipv4: 0x7f00_0001, port: 4430)]),
        .init(phonePrefixRules: "+1", dc: 2, addresses: [.init(ipv4: 0x0a00_0002, port: 443, secret: [0xdd] + Array(1...16))]),
    ])

    @Test func aSealedBlobOpensWithItsPublicKeyOnly() throws {
        try #require(Self.keys.count == 2)
        var rng = SplitMix64(seed: 7)
        let blob = try SignedConfigBlob.seal(Self.config, with: Self.keys[0], using: &rng)
        #expect(Data(base64Encoded: blob)?.count == 256)
        #expect(try SignedConfigBlob.open(blob, with: Self.keys[0].publicKey, now: Self.config.date + 10) == Self.config)
        #expect(throws: ConfigBlobError.badSignature) {
            try SignedConfigBlob.open(blob, with: Self.keys[1].publicKey, now: Self.config.date + 10)
        }
        var altered = [UInt8](Data(base64Encoded: blob)!)
        altered[200] ^= 0x01
        #expect(throws: ConfigBlobError.self) {
            try SignedConfigBlob.open(Data(altered).base64EncodedString(), with: Self.keys[0].publicKey, now: Self.config.date)
        }
    }

    @Test func outOfDateAndMalformedBlobsAreRefused() throws {
        let key = try #require(Self.keys.first)
        var rng = SplitMix64(seed: 8)
        let blob = try SignedConfigBlob.seal(Self.config, with: key, using: &rng)
        #expect(throws: ConfigBlobError.expired(date: Self.config.date, expires: Self.config.expires, now: Self.config.expires + 1)) {
            try SignedConfigBlob.open(blob, with: key.publicKey, now: Self.config.expires + 1)
        }
        #expect(throws: ConfigBlobError.self) { try SignedConfigBlob.open(blob, with: key.publicKey, now: Self.config.date - 3_600) }
        #expect(throws: ConfigBlobError.malformed("not base64")) { try SignedConfigBlob.open("%%%", with: key.publicKey, now: 0) }
        #expect(throws: ConfigBlobError.self) { try SignedConfigBlob.open("AAAA", with: key.publicKey, now: 0) }
        // 256 bytes of 0xff are above any modulus; random 256 bytes open to no hash.
        let high = Data(repeating: 0xff, count: 256).base64EncodedString()
        #expect(throws: ConfigBlobError.badSignature) { try SignedConfigBlob.open(high, with: key.publicKey, now: 0) }
        let noise = Data((0..<256).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) & 0x7f }).base64EncodedString()
        #expect(throws: ConfigBlobError.badSignature) { try SignedConfigBlob.open(noise, with: key.publicKey, now: 0) }
    }

    @Test func aConfigTooLargeForOneBlockIsRefusedWhenSealing() throws {
        let key = try #require(Self.keys.first)
        var rng = SplitMix64(seed: 9)
        let big = SimpleConfig(date: 0, expires: 1, rules: (1...5).map { dc in
            .init(dc: Int32(dc), addresses: (0..<5).map { .init(ipv4: UInt32($0), port: 443) })
        })
        #expect(throws: ConfigBlobError.self) { try SignedConfigBlob.seal(big, with: key, using: &rng) }
    }

    @Test func simpleConfigCodingAndItsAddresses() throws {
        let bytes = Self.config.serialized()
        #expect(try SimpleConfig.deserialize(bytes) == Self.config)
        #expect(throws: TLDecodingError.self) { try SimpleConfig.deserialize(Array(bytes.dropLast(6))) }
        var foreign = bytes
        foreign[12] ^= 0xff   // the first rule's constructor id
        #expect(throws: TLDecodingError.self) { try SimpleConfig.deserialize(foreign) }
        #expect(Self.config.dcOptions.map { option -> String in
            guard case let .dcOption(value) = option else { return "" }
            return "\(value.id) \(value.ipAddress):\(value.port) \(value.secret?.count ?? 0)"
        } == ["1 127.0.0.1:4430 0", "2 10.0.0.2:443 17"])
        #expect(SimpleConfig.Address(host: "127.0.0.1", port: 80)?.ipv4 == 0x7f00_0001)
        #expect(SimpleConfig.Address(host: "localhost", port: 80) == nil)
        #expect(SimpleConfig.Address(host: "1.2.3.256", port: 80) == nil)
    }

    /// RFC 4231 test case 2, and CBC decryption undoing OpenSSL's encryption.
    @Test func hmacAndCBCPrimitives() throws {
        let mac = MTProtoHash.hmacSHA256(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))
        #expect(hexString(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let key = Array(UInt8(0)..<32), iv = Array(UInt8(100)..<116), data = (0..<64).map { UInt8($0 * 3 & 0xff) }
        #expect(try AES256CBC.decrypt(AES256CBC.encrypt(data, key: key, iv: iv), key: key, iv: iv) == data)
        #expect(throws: MTProtoCryptoError.self) { try AES256CBC.decrypt([1, 2, 3], key: key, iv: iv) }
    }
}
