import Foundation
import Testing
@testable import SyncServer

/// `String.isBlank`, the `MESSAGE_EMPTY` check, agrees with trimming `CharacterSet.whitespacesAndNewlines`, scalar by
/// scalar over all of Unicode and on whole texts, except for U+200B ZERO WIDTH SPACE: Unicode 4.0 moved it out of the
/// space separators (it has no White_Space property), swift-corelibs-foundation still trims it. A text of zero-width
/// spaces alone is what bots send to show only a link preview, so it stays a message.
@Suite struct MessageTextTests {
    @Test func everyScalarIsBlankExactlyWhenFoundationTrimsIt() {
        var blank: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), value != 0x200B else { continue }
            let text = String(scalar)
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            #expect(text.isBlank == trimmed, "U+\(String(value, radix: 16, uppercase: true))")
            if text.isBlank { blank.append(value) }
        }
        // Tab, line breaks, space, NEL, no-break space… and the ideographic space.
        #expect(blank.contains(0x09) && blank.contains(0x0A) && blank.contains(0x20) && blank.contains(0x3000))
        #expect(blank.count > 20 && blank.count < 40)
    }

    @Test func wholeTextsAreBlankOnlyWithoutAVisibleScalar() {
        for text in ["", "  ", " \n\t\r ", "\u{00A0}\u{2028}\u{3000}"] { #expect(text.isBlank, "\(text.debugDescription)") }
        for text in ["a", "  a  ", "\n.\n", "\u{200B}", "🙂", "e\u{301}"] { #expect(!text.isBlank, "\(text.debugDescription)") }
    }
}
