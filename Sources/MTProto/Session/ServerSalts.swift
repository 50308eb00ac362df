/// The server salts of one auth key, changing every `period` (core.telegram.org/mtproto/description#server-salt:
/// "periodically changed … messages with the old salt are still accepted for a further 1800 seconds").
///
/// Each period's salt is derived, not stored: an HMAC-SHA256 keyed by the auth key over the key's stored salt and the
/// period's number. Every process that serves the key computes the same salts, nobody without the key can predict
/// them, and a packet captured now is refused once its salt is more than a period and the grace old. The period in
/// which the key was made keeps the exchange's own salt (`server_salt` of core.telegram.org/mtproto/auth_key), so a
/// new key's first calls are not turned back.
public struct ServerSalts: Sendable, Equatable {
    public static let period: Int64 = 3_600
    public static let grace: Int64 = 1_800

    private let secret: [UInt8]
    private let base: Int64
    private let creationPeriod: Int64?
    /// The last period asked for and its salt (every packet of a session asks for the same one).
    private var cached: (period: Int64, salt: Int64)?

    public init(authKey: AuthKey, base: Int64, createdAt: Int32? = nil) {
        secret = authKey.bytes
        self.base = base
        creationPeriod = createdAt.map { Int64($0) / Self.period }
    }

    public static func == (lhs: ServerSalts, rhs: ServerSalts) -> Bool {
        lhs.secret == rhs.secret && lhs.base == rhs.base && lhs.creationPeriod == rhs.creationPeriod
    }

    static func periodNumber(at now: Double) -> Int64 {
        Int64(now.rounded(.down)) / period
    }

    /// The salt of period number `number`.
    public func salt(period number: Int64) -> Int64 {
        if number == creationPeriod { return base }
        var message: [UInt8] = []
        withUnsafeBytes(of: base.littleEndian) { message.append(contentsOf: $0) }
        withUnsafeBytes(of: number.littleEndian) { message.append(contentsOf: $0) }
        let digest = MTProtoHash.hmacSHA256(key: secret, message)
        return digest.prefix(8).enumerated().reduce(Int64(0)) { $0 | Int64($1.element) << (8 * Int64($1.offset)) }
    }

    /// The salt valid at `now`.
    public mutating func current(at now: Double) -> Int64 {
        let number = Self.periodNumber(at: now)
        if let cached, cached.period == number { return cached.salt }
        let salt = salt(period: number)
        cached = (number, salt)
        return salt
    }

    /// Whether a client may use `salt` at `now`: the current period's, or the previous one's within the grace.
    public mutating func accepts(_ salt: Int64, at now: Double) -> Bool {
        if salt == current(at: now) { return true }
        let number = Self.periodNumber(at: now)
        return Int64(now.rounded(.down)) - number * Self.period < Self.grace && salt == self.salt(period: number - 1)
    }

    /// `count` salts from the current one on, with the unix times each is valid from and until (`get_future_salts`).
    public func future(count: Int, at now: Double) -> [(validSince: Int32, validUntil: Int32, salt: Int64)] {
        let first = Self.periodNumber(at: now)
        return (0..<Int64(count)).map { index in
            let number = first + index
            return (Int32(clamping: number * Self.period), Int32(clamping: (number + 1) * Self.period), salt(period: number))
        }
    }
}
