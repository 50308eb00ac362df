import Foundation

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum TL uses for constructor ids.
enum TLCRC32 {
    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
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
            if token.hasSuffix(":bytes") { return String(token.dropLast(5)) + "string" }
            if token.hasSuffix("?bytes") { return String(token.dropLast(5)) + "string" }
            return token
        }.joined(separator: " ")
        text = text.replacingOccurrences(of: "<", with: " ")
            .replacingOccurrences(of: ">", with: "")
            .replacingOccurrences(of: "{", with: "")
            .replacingOccurrences(of: "}", with: "")
        return text.split(separator: " ").joined(separator: " ")
    }
}
