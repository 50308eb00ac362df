import MTProto
import Foundation
import TL

/// A TL value that can be generated at random, for round-trip property tests.
public protocol TLArbitrary {
    static func arbitrary(using g: inout TLArbitraryGenerator) -> Self
}

/// Seeded random source for arbitrary TL values (a seed reproduces a failure exactly).
/// Nesting is limited by `maximumDepth`: beyond it optional fields are absent, vectors empty and every
/// type uses its shallowest constructor.
public struct TLArbitraryGenerator: RandomNumberGenerator {
    private var random: SplitMix64
    private var depth = 0
    public var maximumDepth: Int

    public init(seed: UInt64, maximumDepth: Int = 4) {
        random = SplitMix64(seed: seed)
        self.maximumDepth = maximumDepth
    }

    public mutating func next() -> UInt64 {
        random.next()
    }

    public var isExhausted: Bool { depth >= maximumDepth }
    public mutating func enter() { depth += 1 }
    public mutating func leave() { depth -= 1 }

    public mutating func choice(_ count: Int) -> Int { Int.random(in: 0..<max(count, 1), using: &self) }
    /// Whether an optional field (or flag bit) is set; never past the depth limit.
    public mutating func presence() -> Bool { !isExhausted && Bool.random(using: &self) }
    public mutating func bool() -> Bool { Bool.random(using: &self) }

    public mutating func int32() -> Int32 {
        switch choice(4) {
        case 0: return Int32.random(in: -2...2, using: &self)
        case 1: return [Int32.min, Int32.max, -1, 253, 254][choice(5)]
        default: return Int32.random(in: .min ... .max, using: &self)
        }
    }

    public mutating func int64() -> Int64 {
        switch choice(4) {
        case 0: return Int64.random(in: -2...2, using: &self)
        case 1: return [Int64.min, Int64.max, 1 << 53, -(1 << 53), (1 << 53) - 1][choice(5)]
        default: return Int64.random(in: .min ... .max, using: &self)
        }
    }

    public mutating func double() -> Double {
        [0, -1.5, 3.141592653589793, 1e-300, 1.7976931348623157e308, Double(Int32.random(in: .min ... .max, using: &self)) / 7][choice(6)]
    }

    /// Strings of the lengths where TL's encoding changes (253/254 bytes) and non-ASCII text.
    public mutating func string() -> String {
        switch choice(6) {
        case 0: return ""
        case 1: return String(repeating: "a", count: [253, 254, 255][choice(3)])
        case 2: return "héllo 👋 мир \"quoted\"\n\t\\"
        default:
            let alphabet = Array("abcxyz ABC019_-é中😀\u{1}")
            return String((0..<choice(40)).map { _ in alphabet[choice(alphabet.count)] })
        }
    }

    public mutating func bytes() -> Data {
        let count = [0, 1, 3, 4, 253, 254, 300][choice(7)]
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &self) })
    }

    public mutating func int128() -> TLInt128 { TLInt128(low: next(), high: next()) }
    public mutating func int256() -> TLInt256 { TLInt256(words: (next(), next(), next(), next())) }

    /// 0–3 elements, none past the depth limit.
    public mutating func array<Element>(_ element: (inout TLArbitraryGenerator) -> Element) -> [Element] {
        let count = isExhausted ? 0 : choice(4)
        var values: [Element] = []
        for _ in 0..<count { values.append(element(&self)) }
        return values
    }
}

extension TLAnyFunction: TLArbitrary {
    /// A small real function call (the query inside `invokeWithLayer` and friends).
    public static func arbitrary(using g: inout TLArbitraryGenerator) -> TLAnyFunction {
        g.bool()
            ? TLAnyFunction(API.functions.help.GetConfig())
            : TLAnyFunction(API.functions.updates.GetState())
    }
}

extension TLAnyObject: TLArbitrary {
    public static func arbitrary(using g: inout TLArbitraryGenerator) -> TLAnyObject {
        TLAnyObject(MT.MsgsAck.MsgsAck(msgIds: g.array { $0.int64() }))
    }
}
