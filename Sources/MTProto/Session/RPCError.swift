import TL

/// An `rpc_error` as a typed Swift error (core.telegram.org/api/errors), with the numbers of the errors that
/// carry one parsed out.
public struct RPCError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    public let code: Int32
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public init(_ error: MT.RpcError.RpcError) {
        self.init(code: error.errorCode, message: error.errorMessage)
    }

    /// The data center of a 303 `*_MIGRATE_X` error.
    public enum Migration: Equatable, Sendable {
        case phone(dc: Int32)
        case user(dc: Int32)
        case network(dc: Int32)
        case file(dc: Int32)
        case stats(dc: Int32)
    }

    /// Seconds to wait for `FLOOD_WAIT_X` (and `FLOOD_PREMIUM_WAIT_X`).
    public var floodWaitSeconds: Int32? {
        for prefix in ["FLOOD_WAIT_", "FLOOD_PREMIUM_WAIT_"] where message.hasPrefix(prefix) {
            return Int32(message.dropFirst(prefix.count))
        }
        return nil
    }

    public var migration: Migration? {
        let kinds: [(String, (Int32) -> Migration)] = [
            ("PHONE_MIGRATE_", Migration.phone), ("USER_MIGRATE_", Migration.user),
            ("NETWORK_MIGRATE_", Migration.network), ("FILE_MIGRATE_", Migration.file),
            ("STATS_MIGRATE_", Migration.stats),
        ]
        for (prefix, make) in kinds where message.hasPrefix(prefix) {
            if let dc = Int32(message.dropFirst(prefix.count)) { return make(dc) }
        }
        return nil
    }

    /// The TL `rpc_error` to send.
    public var object: MT.RpcError { .rpcError(.init(errorCode: code, errorMessage: message)) }

    public var description: String { "rpc_error \(code) \(message)" }
}
