import Foundation
import TL

/// `help.configSimple`, the address list inside a signed config blob (mtproto-service schema):
///
///     ipPort#d433ad73 ipv4:int port:int = IpPort;
///     ipPortSecret#37982646 ipv4:int port:int secret:bytes = IpPort;
///     accessPointRule#4679b65f phone_prefix_rules:string dc_id:int ips:vector<IpPort> = AccessPointRule;
///     help.configSimple#5a592a6c date:int expires:int rules:vector<AccessPointRule> = help.ConfigSimple;
///
/// Coded by hand: `accessPointRule` and `help.configSimple` carry ids that are not the CRC32 of their definitions,
/// which `tl-gen` rightly refuses. `help.configSimple` is bare here (the blob holds no id for it); `rules` and
/// `ips` are bare vectors of boxed elements. `ipv4` is the address as a number, most significant byte first
/// (127.0.0.1 is 0x7f000001).
public struct SimpleConfig: Equatable, Sendable {
    public struct Address: Equatable, Sendable {
        public var ipv4: UInt32
        public var port: Int32
        /// An MTProxy secret to reach this address with (`ipPortSecret`).
        public var secret: [UInt8]?

        public init(ipv4: UInt32, port: Int32, secret: [UInt8]? = nil) {
            self.ipv4 = ipv4
            self.port = port
            self.secret = secret
        }

        /// Dotted form of `ipv4`.
        public var host: String { (0..<4).map { String((ipv4 >> (24 - 8 * UInt32($0))) & 0xff) }.joined(separator: ".") }

        /// nil unless `host` is a dotted IPv4 address.
        public init?(host: String, port: Int, secret: [UInt8]? = nil) {
            let parts = host.split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
            guard parts.count == 4, parts.allSatisfy({ $0 != nil }), let port = Int32(exactly: port) else { return nil }
            self.init(ipv4: parts.reduce(0) { $0 << 8 | UInt32($1 ?? 0) }, port: port, secret: secret)
        }
    }

    public struct Rule: Equatable, Sendable {
        /// Phone-number prefixes the rule applies to (empty: everyone).
        public var phonePrefixRules: String
        public var dc: Int32
        public var addresses: [Address]

        public init(phonePrefixRules: String = "", dc: Int32, addresses: [Address]) {
            self.phonePrefixRules = phonePrefixRules
            self.dc = dc
            self.addresses = addresses
        }
    }

    /// Unix time the config was made, and until when it is valid.
    public var date: Int32
    public var expires: Int32
    public var rules: [Rule]

    public init(date: Int32, expires: Int32, rules: [Rule]) {
        self.date = date
        self.expires = expires
        self.rules = rules
    }

    static let ipPortID: UInt32 = 0xd433ad73
    static let ipPortSecretID: UInt32 = 0x37982646
    static let accessPointRuleID: UInt32 = 0x4679b65f

    /// Every address as `help.getConfig` would list it, for the client's directory.
    public var dcOptions: [API.DcOption] {
        rules.flatMap { rule in
            rule.addresses.map { address in
                .dcOption(.init(id: rule.dc, ipAddress: address.host, port: address.port, secret: address.secret.map { Data($0) }))
            }
        }
    }

    public func serialized() -> [UInt8] {
        var writer = TLWriter()
        writer.writeInt32(date)
        writer.writeInt32(expires)
        writer.writeBareVector(rules) { writer, rule in
            writer.writeUInt32(Self.accessPointRuleID)
            writer.writeString(rule.phonePrefixRules)
            writer.writeInt32(rule.dc)
            writer.writeBareVector(rule.addresses) { writer, address in
                writer.writeUInt32(address.secret == nil ? Self.ipPortID : Self.ipPortSecretID)
                writer.writeInt32(Int32(bitPattern: address.ipv4))
                writer.writeInt32(address.port)
                if let secret = address.secret { writer.writeBytes(secret) }
            }
        }
        return writer.bytes
    }

    /// Decodes a bare `help.configSimple` from the front of `bytes` (padding may follow).
    public static func deserialize(_ bytes: [UInt8]) throws(TLDecodingError) -> SimpleConfig {
        var reader = TLReader(bytes)
        let date = try reader.readInt32()
        let expires = try reader.readInt32()
        let rules = try reader.readBareVector { (reader: inout TLReader) throws(TLDecodingError) -> Rule in
            let start = reader.offset
            let id = try reader.readUInt32()
            guard id == accessPointRuleID else { throw .unknownConstructor(id: id, offset: start, expectedType: "AccessPointRule") }
            let prefixes = try reader.readString()
            let dc = try reader.readInt32()
            let addresses = try reader.readBareVector { (reader: inout TLReader) throws(TLDecodingError) -> Address in
                let start = reader.offset
                let id = try reader.readUInt32()
                guard id == ipPortID || id == ipPortSecretID else {
                    throw .unknownConstructor(id: id, offset: start, expectedType: "IpPort")
                }
                let ipv4 = UInt32(bitPattern: try reader.readInt32())
                let port = try reader.readInt32()
                let secret = id == ipPortSecretID ? [UInt8](try reader.readBytes()) : nil
                return Address(ipv4: ipv4, port: port, secret: secret)
            }
            return Rule(phonePrefixRules: prefixes, dc: dc, addresses: addresses)
        }
        return SimpleConfig(date: date, expires: expires, rules: rules)
    }
}
