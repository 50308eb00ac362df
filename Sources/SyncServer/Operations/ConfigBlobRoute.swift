import Foundation
import MTProto

/// The signed config blob `--config-url` serves: every served data center's address (with the server's proxy
/// secret, if any), valid for a day from the moment of the request, sealed with the server's RSA key
/// (`SignedConfigBlob`), as base64 text. Clients that know the public key can trust it from any mirror.
enum ConfigBlobRoute {
    static let validity: Int32 = 86_400

    /// Throws at start when an address is not IPv4 (the blob's `ipPort` holds only IPv4).
    static func make(options: [DCAddress], secret: [UInt8]?, key: RSAPrivateKey, environment: SyncEnvironment) throws -> HTTPEndpoint.Route {
        let rules = try Dictionary(grouping: options, by: \.dc).sorted { $0.key < $1.key }.map { dc, addresses in
            SimpleConfig.Rule(dc: dc, addresses: try addresses.map { address in
                guard let ip = SimpleConfig.Address(host: address.host, port: address.port, secret: secret) else {
                    throw ConfigBlobError.badPayload("\(address.host) is not an IPv4 address; a config blob lists only IPv4")
                }
                return ip
            })
        }
        return {
            let now = environment.unixTime
            var rng = environment.random
            let blob = (try? SignedConfigBlob.seal(SimpleConfig(date: now, expires: now + validity, rules: rules),
                                                   with: key, using: &rng)) ?? ""
            return ("text/plain", Array((blob + "\n").utf8))
        }
    }
}
