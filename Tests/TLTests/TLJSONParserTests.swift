import Foundation
import Testing
@testable import TL

/// `TLJSON.parse` reads JSON in one pass (`TLJSONParser`) with the values `JSONDecoder` gave through `TLJSON`'s
/// `Decodable`, and refuses what is not JSON with the byte where it went wrong.
struct TLJSONParserTests {
    @Test func valuesAreTheDecodersOnTheGoldenFixture() throws {
        let url = try #require(Bundle.module.url(forResource: "telethon-golden", withExtension: "json", subdirectory: "Fixtures"))
        let data = try Data(contentsOf: url)
        #expect(try TLJSON.parse(data) == JSONDecoder().decode(TLJSON.self, from: data))
    }

    @Test(arguments: [
        ("9223372036854775807", TLJSON.int(.max)), ("-9223372036854775808", .int(.min)), ("0", .int(0)), ("-0", .int(0)),
        ("1.0", .int(1)), ("1e2", .int(100)), ("1.5", .double(1.5)), ("-2.5E-3", .double(-0.0025)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)), ("true", .bool(true)), (" null ", .null),
        (#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#, .string("a\"b\\c/d\n\té😀")), ("\"żółw\"", .string("żółw")),
        ("[]", .array([])), ("[1, [2, {}]]", .array([.int(1), .array([.int(2), .object(TLJSONObject())])])),
    ])
    func eachKindReadsAsTheDecoderReadIt(text: String, expected: TLJSON) throws {
        #expect(try TLJSON.parse(text) == expected)
        #expect(try JSONDecoder().decode(TLJSON.self, from: Data(text.utf8)) == expected, "the decoder agrees")
    }

    @Test func objectKeysAreSortedAndARepeatedKeyKeepsItsLastValue() throws {
        guard case let .object(object) = try TLJSON.parse(#"{"b": 1, "_": "x", "a": 2, "b": 3}"#) else {
            Issue.record("not an object")
            return
        }
        #expect(object.fields.map(\.0) == ["_", "a", "b"])
        #expect(object["b"] == .int(3))
    }

    @Test(arguments: [
        ("", "a value is missing at byte 0"), ("1 2", "unexpected text after the value at byte 2"),
        ("01", "a number with a leading zero at byte 2"), ("[1,", "a value is missing at byte 3"),
        ("{\"a\" 1}", "':' expected after a key at byte 5"), ("{1: 2}", "a key must be a string at byte 1"),
        ("\"abc", "a string is not closed at byte 4"), ("\"a\u{01}\"", "a control character in a string at byte 2"),
        (#""\ud800""#, "a lone surrogate at byte 7"), (#""\x""#, "an unknown escape at byte 3"), ("nul", "an unknown word at byte 0"),
        ("-", "a value is expected at byte 1"), ("1.", "digits expected after '.' at byte 2"),
    ])
    func whatIsNotJSONIsRefusedWithItsPlace(text: String, reason: String) {
        #expect(throws: TLJSONError.invalidJSON(reason)) { try TLJSON.parse(text) }
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: TLJSONParser.maximumDepth + 1) + String(repeating: "]", count: TLJSONParser.maximumDepth + 1)
        #expect(throws: TLJSONError.invalidJSON("nested deeper than 512 at byte 512")) { try TLJSON.parse(deep) }
        let allowed = String(repeating: "[", count: TLJSONParser.maximumDepth) + String(repeating: "]", count: TLJSONParser.maximumDepth)
        #expect(throws: Never.self) { try TLJSON.parse(allowed) }
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        #expect(throws: TLJSONError.invalidJSON("not UTF-8 at byte 3")) { try TLJSON.parse(Data([0x22, 0x61, 0xFF, 0x22])) }
    }
}
