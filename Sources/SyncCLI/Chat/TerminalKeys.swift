/// A key the chat screen acts on.
enum TerminalKey: Equatable, Sendable {
    case character(Character)
    case enter, backspace, tab, escape, interrupt
    case up, down, left, right, pageUp, pageDown, home, end
}

/// Bytes from a terminal in raw mode into keys (sans-I/O: the terminal reader feeds whatever `read` returned): UTF-8
/// text, control keys and the VT escape sequences of arrows and paging (`ESC [ A` …, `ESC [ 5 ~` …). A sequence cut
/// across two reads waits for the rest; an unknown one is dropped whole, never typed as text.
struct TerminalKeyDecoder {
    private var pending: [UInt8] = []
    /// Longer than any sequence a terminal sends for a key: what piles up past it is dropped.
    static let maximumPending = 16

    mutating func feed(_ bytes: some Sequence<UInt8>) -> [TerminalKey] {
        pending.append(contentsOf: bytes)
        var keys: [TerminalKey] = []
        while !pending.isEmpty {
            guard let (key, used) = Self.decode(pending[...]) else {
                if pending.count > Self.maximumPending { pending.removeAll() }
                break
            }
            pending.removeFirst(used)
            if let key { keys.append(key) }
        }
        return keys
    }

    /// A lone ESC with nothing after it (the reader saw no more bytes): the Escape key itself.
    mutating func flushEscape() -> TerminalKey? {
        guard pending == [0x1B] else { return nil }
        pending.removeAll()
        return .escape
    }

    /// The key at the start of `bytes` and how many bytes it took; nil when more bytes are needed.
    static func decode(_ bytes: ArraySlice<UInt8>) -> (TerminalKey?, Int)? {
        guard let first = bytes.first else { return nil }
        switch first {
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x09: return (.tab, 1)
        case 0x03, 0x04: return (.interrupt, 1)
        case 0x1B: return escapeSequence(bytes)
        case 0x00..<0x20: return (nil, 1)
        default: return utf8(bytes)
        }
    }

    private static func escapeSequence(_ bytes: ArraySlice<UInt8>) -> (TerminalKey?, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let second = bytes[start + 1]
        guard second == UInt8(ascii: "[") || second == UInt8(ascii: "O") else { return (.escape, 1) }
        // CSI: parameters (digits, ';') then one final byte in 0x40…0x7E.
        var index = start + 2
        while index < bytes.endIndex, (0x30...0x3F).contains(bytes[index]) { index += 1 }
        guard index < bytes.endIndex else { return nil }
        let final = bytes[index]
        let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
        let used = index - start + 1
        switch (final, parameters) {
        case (UInt8(ascii: "A"), _): return (.up, used)
        case (UInt8(ascii: "B"), _): return (.down, used)
        case (UInt8(ascii: "C"), _): return (.right, used)
        case (UInt8(ascii: "D"), _): return (.left, used)
        case (UInt8(ascii: "H"), _): return (.home, used)
        case (UInt8(ascii: "F"), _): return (.end, used)
        case (UInt8(ascii: "~"), "5"): return (.pageUp, used)
        case (UInt8(ascii: "~"), "6"): return (.pageDown, used)
        case (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): return (.home, used)
        case (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): return (.end, used)
        default: return (nil, used)
        }
    }

    private static func utf8(_ bytes: ArraySlice<UInt8>) -> (TerminalKey?, Int)? {
        let first = bytes[bytes.startIndex]
        let length = first < 0x80 ? 1 : first >> 5 == 0b110 ? 2 : first >> 4 == 0b1110 ? 3 : first >> 3 == 0b11110 ? 4 : 0
        guard length > 0 else { return (nil, 1) }   // a continuation byte or 0xF8…: not the start of a character
        guard bytes.count >= length else { return nil }
        let encoded = bytes.prefix(length)
        guard encoded.dropFirst().allSatisfy({ $0 >> 6 == 0b10 }),
              let scalar = String(validating: encoded, as: UTF8.self)?.first else { return (nil, 1) }
        return (.character(scalar), length)
    }
}
