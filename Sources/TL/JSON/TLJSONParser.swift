import Foundation

/// JSON text (RFC 8259) into `TLJSON` in one pass over its UTF-8 bytes.
///
/// Why not `JSONDecoder` into `TLJSON`'s `Decodable`: `Decoder` cannot say what kind a value is, so that conformance
/// tries each kind in turn and an object costs five thrown errors. Under Swift Testing every thrown error captures a
/// backtrace, and those took a third of the test process's CPU (`perf`). The values are the same as the decoder's: an
/// integer (or a number with an integral value) that fits in Int64 is `.int`, any other number `.double`; a key given
/// twice keeps its last value and an object's keys are sorted.
struct TLJSONParser {
    /// Nesting deeper than this is refused rather than recursed into (the text may come from anywhere).
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The one value the text holds, with nothing but whitespace around it.
    static func parse(_ bytes: [UInt8]) throws(TLJSONError) -> TLJSON {
        var parser = TLJSONParser(bytes)
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the value") }
        return value
    }

    private func failure(_ reason: String) -> TLJSONError {
        .invalidJSON("\(reason) at byte \(index)")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func value(depth: Int) throws(TLJSONError) -> TLJSON {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth)") }
        skipWhitespace()
        guard index < bytes.count else { throw failure("a value is missing") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws(TLJSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              word.withUTF8Buffer({ bytes[index..<index + count].elementsEqual($0) }) else { throw failure("an unknown word") }
        index += count
    }

    private mutating func object(depth: Int) throws(TLJSONError) -> TLJSON {
        index += 1
        var fields: [String: TLJSON] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(TLJSONObject())
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("a key must be a string") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("':' expected after a key") }
            index += 1
            fields[key] = try value(depth: depth + 1)
            skipWhitespace()
            guard index < bytes.count else { throw failure("an object is not closed") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else { throw failure("',' or '}' expected in an object") }
            index += 1
            return .object(TLJSONObject(fields: fields.sorted { $0.key < $1.key }))
        }
    }

    private mutating func array(depth: Int) throws(TLJSONError) -> TLJSON {
        index += 1
        var values: [TLJSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            values.append(try value(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw failure("an array is not closed") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "]") else { throw failure("',' or ']' expected in an array") }
            index += 1
            return .array(values)
        }
    }

    /// A string from its opening quote; escapes decoded, `\u` surrogate pairs joined, control characters refused.
    private mutating func string() throws(TLJSONError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ end: Int) throws(TLJSONError) {
            guard runStart < end else { return }
            guard let run = String(bytes: bytes[runStart..<end], encoding: .utf8) else { throw failure("not UTF-8") }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flush(index)
                index += 1
                return String(scalars)
            }
            guard byte >= 0x20 else { throw failure("a control character in a string") }
            guard byte == UInt8(ascii: "\\") else { index += 1; continue }
            try flush(index)
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"): scalars.append(try escapedScalar())
            default: throw failure("an unknown escape")
            }
            runStart = index
        }
        throw failure("a string is not closed")
    }

    /// The scalar of a `\u` escape whose `u` was read: one unit, or a high and a low surrogate.
    private mutating func escapedScalar() throws(TLJSONError) -> Unicode.Scalar {
        let first = try hexUnit()
        if (0xD800..<0xDC00).contains(first) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("a lone surrogate")
            }
            index += 2
            let second = try hexUnit()
            guard (0xDC00..<0xE000).contains(second),
                  let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) else {
                throw failure("a lone surrogate")
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw failure("a lone surrogate") }
        return scalar
    }

    private mutating func hexUnit() throws(TLJSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("a short \\u escape") }
        var unit: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { throw failure("a bad \\u escape") }
            unit = unit << 4 | UInt32(digit)
        }
        index += 4
        return unit
    }

    /// A number as JSON's grammar has it: `-`, digits without a leading zero, a fraction, an exponent.
    private mutating func number() throws(TLJSONError) -> TLJSON {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("a value is expected") }
        guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw failure("a number with a leading zero") }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            integral = false
            guard digits() > 0 else { throw failure("digits expected after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            integral = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("digits expected in an exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let value = Int64(text) { return .int(value) }
        guard let value = Double(text) else { throw failure("a number out of range") }
        if let exact = Int64(exactly: value) { return .int(exact) }
        return .double(value)
    }
}
