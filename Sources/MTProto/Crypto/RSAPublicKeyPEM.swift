import Foundation

/// Why a PEM file is not a PKCS#1 RSA public key.
public enum RSAPublicKeyPEMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No "-----BEGIN RSA PUBLIC KEY-----" block, or its body is not base64.
    case notPEM
    /// The DER inside is not SEQUENCE { INTEGER n, INTEGER e } (RFC 8017 A.1.1).
    case malformedDER(String)

    public var description: String {
        switch self {
        case .notPEM: "not a PEM file with a \"BEGIN RSA PUBLIC KEY\" block"
        case let .malformedDER(reason): "not a PKCS#1 RSA public key: \(reason)"
        }
    }
}

extension RSAPublicKey {
    /// Reads the PKCS#1 PEM that `pkcs1PEM()` writes and `synccore server --export-public-key` exports (the form
    /// Telegram clients ship their keys in): RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }.
    public init(pkcs1PEM pem: String) throws(RSAPublicKeyPEMError) {
        let lines = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = lines.firstIndex(of: "-----BEGIN RSA PUBLIC KEY-----"),
              let end = lines[begin...].firstIndex(of: "-----END RSA PUBLIC KEY-----"),
              let der = Data(base64Encoded: lines[(begin + 1)..<end].joined())
        else { throw .notPEM }
        var reader = DERReader(bytes: [UInt8](der))
        var sequence = DERReader(bytes: try reader.element(tag: 0x30))
        let modulus = try sequence.element(tag: 0x02)
        let exponent = try sequence.element(tag: 0x02)
        guard reader.isAtEnd, sequence.isAtEnd else { throw .malformedDER("trailing bytes") }
        guard modulus.first.map({ $0 & 0x80 == 0 }) ?? false, !exponent.isEmpty else { throw .malformedDER("negative or empty integer") }
        self.init(modulus: modulus, exponent: exponent)
    }
}

/// Definite-length DER elements, enough for PKCS#1 (every length is checked against what is left).
private struct DERReader {
    let bytes: [UInt8]
    var index = 0

    var isAtEnd: Bool { index == bytes.count }

    mutating func element(tag: UInt8) throws(RSAPublicKeyPEMError) -> [UInt8] {
        guard index < bytes.count, bytes[index] == tag else { throw .malformedDER("expected tag \(tag)") }
        index += 1
        guard index < bytes.count else { throw .malformedDER("truncated length") }
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7f
            guard (1...4).contains(count), index + count <= bytes.count else { throw .malformedDER("bad length") }
            length = bytes[index..<(index + count)].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard length <= bytes.count - index else { throw .malformedDER("length past the end") }
        defer { index += length }
        return Array(bytes[index..<(index + length)])
    }
}
