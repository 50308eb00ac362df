import MTProto
import TL

/// An MTProxy to reach every data center through (core.telegram.org/mtproto/mtproto-transports#transport-obfuscation):
/// the connection goes to the proxy, obfuscated2 with keys salted by the secret, and names the data center in its
/// header. Secrets: 16 bytes (any framing; intermediate is used), `dd` + 16 bytes (padded intermediate), or
/// `ee` + 16 bytes + a domain (fake-TLS, `FakeTLS`: a TLS-looking hello naming the domain, then records).
public struct MTProxy: Codable, Equatable, Sendable {
    public var host: String
    public var port: Int
    public private(set) var secret: [UInt8]

    public init(host: String, port: Int, secret: [UInt8]) throws(NetworkError) {
        guard ProxySecretKind(secret) != nil else { throw .unsupportedProxySecret("a secret is \(ProxySecretKind.expectedForm)") }
        self.host = host
        self.port = port
        self.secret = secret
    }

    /// The secret from its usual hex form (`dd…` for padded intermediate, `ee…` for fake-TLS).
    public init(host: String, port: Int, hexSecret: String) throws(NetworkError) {
        guard let bytes = bytesFromHex(hexSecret) else { throw .unsupportedProxySecret("the secret is not hex") }
        try self.init(host: host, port: port, secret: bytes)
    }

    /// Padded intermediate for `dd` and `ee` secrets (which demand it), intermediate otherwise.
    public var framing: TransportFraming { ProxySecretKind(secret)?.framing ?? .intermediate }
}
