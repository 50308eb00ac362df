import CZlib
import Foundation

/// TL constructor ids: the CRC-32 (zlib's) of the normalized definition.
enum TLCRC32 {
    static func checksum<Bytes: Collection>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        let array = Array(bytes)
        return UInt32(array.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
    }

    /// The id a combinator must have: CRC32 of its definition with the id, `flags.N?true` parameters,
    /// braces and angle brackets removed and `bytes` written as `string`
    /// (core.telegram.org/mtproto/TL-tl, "constructor number").
    static func combinatorID(definition: String) -> UInt32 {
        checksum(normalize(definition).utf8)
    }

    static func normalize(_ definition: String) -> String {
        var tokens = definition
            .replacingOccurrences(of: ";", with: " ")
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            .map(String.init)
        guard !tokens.isEmpty else { return "" }
        if let hash = tokens[0].firstIndex(of: "#") { tokens[0] = String(tokens[0][..<hash]) }
        tokens.removeAll { token in
            guard let colon = token.firstIndex(of: ":") else { return false }
            let type = token[token.index(after: colon)...]
            return type.hasPrefix("flags") && type.hasSuffix("?true")
        }
        var text = tokens.map { token -> String in
            if token.hasSuffix(":bytes") || token.hasSuffix("?bytes") { return String(token.dropLast(5)) + "string" }
            return token
        }.joined(separator: " ")
        text = text.replacingOccurrences(of: "<", with: " ")
            .replacingOccurrences(of: ">", with: "")
            .replacingOccurrences(of: "{", with: "")
            .replacingOccurrences(of: "}", with: "")
        return text.split(separator: " ").joined(separator: " ")
    }
}
