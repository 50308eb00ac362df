import MTProto
import TL

/// An MTProxy to reach every data center through (core.telegram.org/mtproto/mtproto-transports#transport-obfuscation):
/// the connection goes to the proxy, obfuscated2 with keys salted by the secret, and names the data center in its
/// header. Secrets: 16 bytes (any framing; intermediate is used), or `dd` + 16 bytes (padded intermediate).
/// `ee` secrets (fake-TLS) are refused with `NetworkError.unsupportedProxySecret`: not implemented yet.
public struct MTProxy: Codable, Equatable, Sendable {
    public var host: String
    public var port: Int
    public private(set) var secret: [UInt8]

    public init(host: String, port: Int, secret: [UInt8]) throws(NetworkError) {
        switch secret.count {
        case 16: break
        case 17 where secret[0] == 0xdd: break
        case 18... where secret[0] == 0xee: throw .unsupportedProxySecret("ee (fake-TLS) secrets are not supported yet")
        default: throw .unsupportedProxySecret("a secret is 16 bytes, or dd followed by 16 bytes")
        }
        self.host = host
        self.port = port
        self.secret = secret
    }

    /// The secret from its usual hex form (`dd…` for padded intermediate).
    public init(host: String, port: Int, hexSecret: String) throws(NetworkError) {
        guard let bytes = bytesFromHex(hexSecret) else { throw .unsupportedProxySecret("the secret is not hex") }
        try self.init(host: host, port: port, secret: bytes)
    }

    /// Padded intermediate for `dd` secrets (which demand it), intermediate otherwise.
    public var framing: TransportFraming { secret.count == 17 ? .paddedIntermediate : .intermediate }
}
