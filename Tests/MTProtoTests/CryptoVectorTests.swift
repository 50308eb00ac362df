import Foundation
import Testing
import TL
@testable import MTProto

/// The MTProto 2.0 test vectors (cross-checked values copied from the project's reference set).
struct CryptoVectorTests {
    static let authKeyBytes = (0...255).map { UInt8($0) }

    @Test func aesIGESequentialVector() throws {
        let key = Array(0..<32).map(UInt8.init)
        let encrypted = try AES256IGE.encrypt(key, key: key, iv: key)
        #expect(hexString(encrypted) == "e28112a53e5c89c7b1ea8071c133699fd4e86b26c4bac9fc5af1ab8ce27a44a4")
        let decrypted = try AES256IGE.decrypt(key, key: key, iv: key)
        #expect(hexString(decrypted) == "e5777afacd7b2c16f7ac40cae61ef603fee6098fb8a8860ab9ee672cd7e5bacc")
    }

    @Test func aesIGE80ByteVectorBothWays() throws {
        let key = hex("2c70e12b7a0646f92279f427c7b38e7334d8e5389cff167a1dc30e73f826b683")
        let iv = hex("a4408055899b42fc576756f19151d7cd6a6fe75662e4304295eb6e0f59465567")
        let plain = hex("030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c")
        let cipher = hex("e82d6dcf7a720b3a2b7c4dac9bdb2480f464c9ad927dbbc9d7b5bf8bdafade1c58207baae5c4501dc7f410e389bb5c6a8535965b733d345ffd37b4f7e76152323916b901952c0608f25d844c9367481a")
        #expect(try AES256IGE.encrypt(plain, key: key, iv: iv) == cipher)
        #expect(try AES256IGE.decrypt(cipher, key: key, iv: iv) == plain)
    }

    @Test func aesIGERejectsUnalignedInputAndBadKeys() {
        #expect(throws: MTProtoCryptoError.notBlockAligned(length: 15)) {
            try AES256IGE.encrypt([UInt8](repeating: 0, count: 15), key: [UInt8](repeating: 0, count: 32), iv: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: MTProtoCryptoError.notBlockAligned(length: 0)) {
            try AES256CBC.encrypt([], key: [UInt8](repeating: 0, count: 32), iv: [UInt8](repeating: 0, count: 16))
        }
        #expect(throws: MTProtoCryptoError.badKeyLength(expected: 32, actual: 16)) {
            try AES256IGE.decrypt([UInt8](repeating: 0, count: 16), key: [UInt8](repeating: 0, count: 16), iv: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test func authKeyIdAndAuxHash() throws {
        let key = try AuthKey(bytes: Self.authKeyBytes)
        #expect(hexString(key.idBytes) == "32d1586ea457dfc8")
        #expect(hexString(key.auxHash) == "4916d6bdb7f78e68")
    }

    @Test func keyDerivationBothDirections() throws {
        let key = try AuthKey(bytes: Self.authKeyBytes)
        let msgKey = Array(0..<16).map(UInt8.init)
        let client = key.aesKeyAndIV(messageKey: msgKey, direction: .clientToServer)
        #expect(hexString(client.key) == "704ed09c8b41668ae8f99d244738f71dbddc44469b6bbd4aa8573dd042bd059e")
        #expect(hexString(client.iv) == "4d266000a550edabbf4c7ce40fd0043cc92230184cd317a5cc9c2482fd3b9318")
        let server = key.aesKeyAndIV(messageKey: msgKey, direction: .serverToClient)
        #expect(hexString(server.key) == "217725799b245806458174a1fcfbc883906807b15033fdd0ea2b4d69cf9c364e")
        #expect(hexString(server.iv) == "669a6538917a4fa56ca32360a431c9160be4ad887140980dab91ce7bdc47ffbc")
    }

    @Test func fullPacketClientToServer() throws {
        let key = try AuthKey(bytes: Self.authKeyBytes)
        let plain = hex("48656c6c6f2c20776f726c6421205468697320646174612073686f756c642072656d61696e207365637572652100000000000000000000000000000000000000")
        let msgKey = key.messageKey(for: plain, direction: .clientToServer)
        #expect(hexString(msgKey) == "a81729d46db54019a2bfd7f744f9b96c")
        let (aesKey, iv) = key.aesKeyAndIV(messageKey: msgKey, direction: .clientToServer)
        let packet = key.idBytes + msgKey + (try AES256IGE.encrypt(plain, key: aesKey, iv: iv))
        #expect(hexString(packet) == "32d1586ea457dfc8a81729d46db54019a2bfd7f744f9b96c4f716cfdc4477db2a2c15f6ddb85235fb9552f1d8407c6aaea00cc844c5a1bf6ac44b79b5edc2a23868b3d6073a590992c0f2975243d563ea180d218ee757c9a")
    }

    @Test func fullPacketServerToClientPong() throws {
        let key = try AuthKey(bytes: Self.authKeyBytes)
        // pong(msg_id = 0x5f00000000000004, ping_id = 42) in a message with msg_id 0x5f0000000000000d, seqno 1.
        let body = MT.Pong.pong(.init(msgId: 0x5f00_0000_0000_0004, pingId: 42)).serialized()
        #expect(hexString(body) == "c5737734040000000000005f2a00000000000000")
        let plain = hex("efcdab896745230108090a0b0c0d0e0f0d0000000000005f0100000014000000c5737734040000000000005f2a00000000000000000000000000000000000000")
        let msgKey = key.messageKey(for: plain, direction: .serverToClient)
        #expect(hexString(msgKey) == "675b9192f536a70a26c11dcf035053dd")
        let (aesKey, iv) = key.aesKeyAndIV(messageKey: msgKey, direction: .serverToClient)
        let encrypted = try AES256IGE.encrypt(plain, key: aesKey, iv: iv)
        #expect(hexString(key.idBytes + msgKey + encrypted) == "32d1586ea457dfc8675b9192f536a70a26c11dcf035053dd630d449718d50f81ee3be51c5eee52cedcb96291f76e6d6fed6577f66f5d04120dfac8b4ad382466aca05c6dd674cc5d2b725c469255c51f4e52b453d9da0d60")
        #expect(try AES256IGE.decrypt(encrypted, key: aesKey, iv: iv) == plain)
    }

    @Test func handshakeHelpers() throws {
        let serverNonce = Array(0..<16).map(UInt8.init)
        let newNonce = Array(0..<32).map(UInt8.init)
        let tmp = HandshakeCrypto.temporaryAES(serverNonce: serverNonce, newNonce: newNonce)
        #expect(hexString(tmp.key) == "0758f1533b615d24f6e8a94a6fcbee0a55eaab2217d7295ca9213d1a2d7d16a6")
        #expect(hexString(tmp.iv) == "5a84108e9805656ce864070e166e6218f6783e8511471a5ab7802cf200010203")
        let key = try AuthKey(bytes: Self.authKeyBytes)
        #expect(hexString(HandshakeCrypto.newNonceHash(newNonce: newNonce, number: 1, authKey: key)) == "c2ced2b33e593a55d27f4a5dabee7c67")
        #expect(hexString(HandshakeCrypto.newNonceHash(newNonce: newNonce, number: 2, authKey: key)) == "f4318e85bd2ff3be84d9fefce3dce39f")
        #expect(hexString(HandshakeCrypto.newNonceHash(newNonce: newNonce, number: 3, authKey: key)) == "4bf9d7b37db413ee431d28517631cb3d")
        #expect(HandshakeCrypto.initialSalt(newNonce: newNonce, serverNonce: serverNonce) == 0)
        #expect(HandshakeCrypto.initialSalt(newNonce: [1, 2, 3, 4, 5, 6, 7, 8] + newNonce[8...], serverNonce: serverNonce) == 0x0F01_0301_0701_0301)
    }

    static let telegramTestModulus = hex("b3f762b739be98f343eb1921cf0148cfa27ff7af02b6471213fed9daa0098976e667750324f1abcea4c31e43b7d11f1579133f2b3d9fe27474e462058884e5e1b123be9cbbc6a443b2925c08520e7325e6f1a6d50e117eb61ea49d2534c8bb4d2ae4153fabe832b9edf4c5755fdd8b19940b81d1d96cf433d19e6a22968a85dc80f0312f596bd2530c1cfb28b5fe019ac9bc25cd9c2a5d8a0f3a1c0c79bcca524d315b5e21b5c26b46babe3d75d06d1cd33329ec782a0f22891ed1db42a1d6c0dea431428bc4d7aabdcf3e0eb6fda4e23eb7733e7727e9a1915580796c55188d2596d2665ad1182ba7abf15aaa5a8b779ea996317a20ae044b820bff35b6e8a1")

    @Test func rsaFingerprint() {
        let key = RSAPublicKey(modulus: Self.telegramTestModulus, exponent: [0x01, 0x00, 0x01])
        #expect(key.fingerprint == -5_859_577_972_006_586_033)
    }

    @Test func rsaPadLayoutVector() throws {
        let data = hex("000d1a2734414e5b6875828f9ca9b6c3d0ddeaf704111e2b3845525f6c798693a0adbac7d4e1eefb0815222f3c495663707d8a97a4b1becbd8e5f2ff0c192633404d5a6774818e9ba8b5c2cfdce9f603101d2a3744515e6b7885929facb9c6d3fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4e3e2e1e0dfdedddcdbdad9d8d7d6d5d4d3d2d1d0cfcecdcccbcac9c8c7c6c5c4c3c2c1c0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0afaeadacabaaa9a8a7a6a5a4a3a2a1a0")
        let tempKey = hex("6824b9492a256553c7af7c10d866a430291da6745f7335b7eb5abcaee23bdecb")
        let block = try RSAPad.layout(dataWithPadding: data, tempKey: tempKey)
        #expect(hexString(block) == "55defbe33831208a99fc42514ca9fd5607384b11b5595952ce86a4370918683ee283b745db853c38b281ea13e9ec633778016ad6132b78a47106d84723097d21b1afdb46dbb49b6aefe26eaae5fe1349719760f694bbd6cb3443530471cf2e2481c04203c487173f15f838f55f5fc3d38da28b29cc0a32292c6876fffcdc862efff5ab659e45359e8e89b00c293ff4d4d401bce15b9061e6f2579a0454840e39733873780b5e2237524b4cc7013134b7151588dd12bb5297b703145125966128a8ca03ea8a29b6c569e112b199a81088ae28b6388e78299ef0bd7db42935dab1d996ec0a66f834b15017f0fe239609ad5c441c9b373d5634d6a887231906e9ed")
        #expect(RSAPad.open(block) == data)
        var tampered = block
        tampered[100] ^= 1
        #expect(RSAPad.open(tampered) == nil)
    }

    @Test func aesCTRStreamsAcrossCalls() throws {
        let key = Array(0..<32).map(UInt8.init)
        let iv = Array(0..<16).map(UInt8.init)
        let data = (0..<100).map { UInt8($0) }
        let whole = try AES256CTR(key: key, iv: iv).apply(data)
        let streaming = try AES256CTR(key: key, iv: iv)
        let pieces = streaming.apply(Array(data[0..<7])) + streaming.apply(Array(data[7..<64])) + streaming.apply(Array(data[64...]))
        #expect(whole == pieces)
        #expect(try AES256CTR(key: key, iv: iv).apply(whole) == data)
    }

    @Test func hardwareAndPortableIGEAgree() throws {
        var rng = SystemRandomNumberGenerator()
        for length in [16, 32, 1024, 4096] {
            let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let iv = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let encrypted = try AES256IGE.encrypt(data, key: key, iv: iv)
            #expect(AES256IGE.portable(data, key: key, iv: iv, encrypt: true) == encrypted)
            #expect(AES256IGE.portable(encrypted, key: key, iv: iv, encrypt: false) == data)
            #expect(try AES256IGE.decrypt(encrypted, key: key, iv: iv) == data)
        }
    }
}

func hex(_ text: String) -> [UInt8] {
    bytesFromHex(text) ?? []
}

/// The worked example of core.telegram.org/mtproto/samples-auth_key, as far as it does not depend on Telegram's
/// private key or the example's random values: the exact req_pq message, the server's answer header and pq.
struct AuthKeySamplesTests {
    @Test func reqPqMessageMatchesTheExampleByteForByte() throws {
        let nonce = try #require(TLInt128(bytes: hex("3E0549828CCA27E966B301A48FECE2FC")))
        let message = PlainMessage.encode(messageID: 0x51e5_7ac4_2770_964a, body: MT.functions.ReqPq(nonce: nonce).serialized())
        #expect(hexString(message) == "0000000000000000" + "4a967027c47ae551" + "14000000" + "78974660" + "3e0549828cca27e966b301a48fece2fc")
    }

    @Test func serverAnswerHeaderDecodes() throws {
        // The first 56 bytes the example shows for the server's answer: header, resPQ id, nonce, server_nonce.
        let prefix = hex("0000000000000000" + "01c8831ec97ae551" + "40000000" + "63241605"
            + "3e0549828cca27e966b301a48fece2fc" + "a5cf4d33f4a11ea877ba4aa573907330")
        var reader = TLReader(prefix)
        #expect(try reader.readInt64() == 0)
        #expect(try reader.readInt64() == 0x51e5_7ac9_1e83_c801)
        #expect(try reader.readInt32() == 64)
        #expect(try reader.readUInt32() == MT.ResPQ.ResPQ.constructorID)
        #expect(try TLInt128.decode(from: &reader).bytes == hex("3E0549828CCA27E966B301A48FECE2FC"))
        #expect(try TLInt128.decode(from: &reader).bytes == hex("A5CF4D33F4A11EA877BA4AA573907330"))
        // Decoding stops cleanly where the excerpt ends: the rest of resPQ is missing.
        var truncated = TLReader(Array(prefix[20...]))
        #expect(throws: TLDecodingError.self) { try MT.ResPQ.decode(from: &truncated) }
    }
}
