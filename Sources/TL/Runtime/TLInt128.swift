/// A TL `int128`: 16 bytes kept in wire order (MTProto uses them as nonces, never as numbers).
public struct TLInt128: Sendable, Hashable {
    public var low: UInt64
    public var high: UInt64

    public init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// `bytes` must hold exactly 16 bytes (wire order); returns nil otherwise.
    public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        guard bytes.count == 16 else { return nil }
        let array = Array(bytes)
        low = tlLoadUInt64(array, 0)
        high = tlLoadUInt64(array, 8)
    }

    public var bytes: [UInt8] { tlStoreUInt64(low) + tlStoreUInt64(high) }
}

/// A TL `int256`: 32 bytes kept in wire order.
public struct TLInt256: Sendable, Hashable {
    public var words: (UInt64, UInt64, UInt64, UInt64)

    public init(words: (UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    /// `bytes` must hold exactly 32 bytes (wire order); returns nil otherwise.
    public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        guard bytes.count == 32 else { return nil }
        let array = Array(bytes)
        words = (tlLoadUInt64(array, 0), tlLoadUInt64(array, 8), tlLoadUInt64(array, 16), tlLoadUInt64(array, 24))
    }

    public var bytes: [UInt8] {
        tlStoreUInt64(words.0) + tlStoreUInt64(words.1) + tlStoreUInt64(words.2) + tlStoreUInt64(words.3)
    }

    public static func == (lhs: TLInt256, rhs: TLInt256) -> Bool {
        lhs.words == rhs.words
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}

@inline(__always)
func tlLoadUInt64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    var value: UInt64 = 0
    for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
    return value
}

@inline(__always)
func tlStoreUInt64(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}
