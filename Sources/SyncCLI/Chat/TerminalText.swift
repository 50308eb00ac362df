/// Display widths on a terminal (the cells a character takes): CJK ideographs, Hangul, full-width forms and emoji take
/// two, combining marks and other zero-width scalars none, everything else one (the East Asian Width property's wide and
/// full-width classes, UAX #11, as terminals apply it). Control characters are shown as one cell (`·`): nothing a
/// message says can move the cursor.
enum TerminalText {
    /// The cells `character` takes.
    static func width(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.count > 1, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        return width(of: first)
    }

    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    static func width(of text: String) -> Int { text.reduce(0) { $0 + width(of: $1) } }

    /// `text` on one line of exactly `width` cells: control characters (a newline included) shown as `·`, cut with
    /// `…` when longer, padded with spaces when shorter. A wide character that would straddle the edge is replaced by
    /// a space.
    static func fitted(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        var result = "", used = 0
        let total = self.width(of: text)
        let room = total > width ? width - 1 : width
        for character in text {
            let shown: Character = character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) ? "·" : character
            let cells = self.width(of: shown)
            if used + cells > room {
                if used < room { result += String(repeating: " ", count: room - used); used = room }
                break
            }
            result.append(shown)
            used += cells
        }
        if total > width {
            result += "…"
            used += 1
        }
        return result + String(repeating: " ", count: max(0, width - used))
    }
}
