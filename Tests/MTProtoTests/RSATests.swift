import Testing
@testable import MTProto

/// PKCS#1 PEM in: what `pkcs1PEM()` and `synccore server --export-public-key` write reads back to the same key, and
/// anything else is a typed error.
struct RSAPublicKeyPEMTests {
    @Test func exportedKeysReadBack() throws {
        let key = try RSAPrivateKey.generate(bits: 2048).publicKey
        let read = try RSAPublicKey(pkcs1PEM: try key.pkcs1PEM())
        #expect(read == key && read.fingerprint == key.fingerprint)
    }

    /// Telegram's published production key (core.telegram.org/mtproto/auth_key) and its fingerprint.
    @Test func telegramsPublishedKey() throws {
        let pem = """
            -----BEGIN RSA PUBLIC KEY-----
            MIIBCgKCAQEA6LszBcC1LGzyr992NzE0ieY+BSaOW622Aa9Bd4ZHLl+TuFQ4lo4g
            5nKaMBwK/BIb9xUfg0Q29/2mgIR6Zr9krM7HjuIcCzFvDtr+L0GQjae9H0pRB2OO
            62cECs5HKhT5DZ98K33vmWiLowc621dQuwKWSQKjWf50XYFw42h21P2KXUGyp2y/
            +aEyZ+uVgLLQbRA1dEjSDZ2iGRy12Mk5gpYc397aYp438fsJoHIgJ2lgMv5h7WY9
            t6N/byY9Nw9p21Og3AoXSL2q/2IJ1WRUhebgAdGVMlV1fkuOQoEzR7EdpqtQD9Cs
            5+bfo3Nhmcyvk5ftB0WkJ9z6bNZ7yxrP8wIDAQAB
            -----END RSA PUBLIC KEY-----
            """
        let key = try RSAPublicKey(pkcs1PEM: pem)
        #expect(key.exponent == [0x01, 0x00, 0x01] && key.modulus.count == 256)
        #expect(UInt64(bitPattern: key.fingerprint) == 0xd09d_1d85_de64_fd85)
    }

    @Test func otherInputIsATypedError() {
        #expect(throws: RSAPublicKeyPEMError.notPEM) { try RSAPublicKey(pkcs1PEM: "hello") }
        #expect(throws: RSAPublicKeyPEMError.notPEM) {
            try RSAPublicKey(pkcs1PEM: "-----BEGIN RSA PUBLIC KEY-----\n!!!\n-----END RSA PUBLIC KEY-----")
        }
        #expect(throws: RSAPublicKeyPEMError.self) {
            try RSAPublicKey(pkcs1PEM: "-----BEGIN RSA PUBLIC KEY-----\nMAMCAQE=\n-----END RSA PUBLIC KEY-----")   // one integer
        }
        #expect(throws: RSAPublicKeyPEMError.self) {
            try RSAPublicKey(pkcs1PEM: "-----BEGIN RSA PUBLIC KEY-----\nMIIBCgKCAQEA\n-----END RSA PUBLIC KEY-----")   // truncated
        }
    }
}
