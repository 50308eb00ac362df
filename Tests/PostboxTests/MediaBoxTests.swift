import Foundation
import Testing
@testable import Postbox

/// The media cache: ranges held as they are written (in any order, merged), read as soon as they are held, a
/// resource complete once covered, ids that are file names only.
struct MediaBoxTests {
    @Test func rangesAreHeldReadAndCompleted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mediabox-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let box = try MediaBox(directory: directory)
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try await box.write("doc-1", offset: 6_000, bytes: Array(bytes[6_000...]))
        #expect(try await box.heldRanges("doc-1") == [6_000..<10_000])
        #expect(try await box.read("doc-1", range: 0..<100) == nil)
        #expect(try await box.read("doc-1", range: 7_000..<7_010) == Array(bytes[7_000..<7_010]))
        #expect(try await box.complete("doc-1", size: 10_000) == nil, "bytes missing")
        try await box.write("doc-1", offset: 0, bytes: Array(bytes[..<6_000]))
        #expect(try await box.heldRanges("doc-1") == [0..<10_000])
        // A second box on the same directory (a restart) sees what the first held.
        let reopened = try MediaBox(directory: directory)
        let path = try #require(try await reopened.complete("doc-1", size: 10_000))
        #expect(FileManager.default.contents(atPath: path).map([UInt8].init) == bytes)
        #expect(try await reopened.completePath("doc-1") == path)
        await #expect(throws: MediaBoxError.invalidID("../etc")) { try await box.write("../etc", offset: 0, bytes: [1]) }
    }

    @Test func rangeListsMergeAndSurviveDamage() {
        #expect(MediaBox.merged([5..<9, 0..<3, 3..<4, 8..<12]) == [0..<4, 5..<12])
        let encoded = MediaBox.encodeRanges([0..<4, 5..<12])
        #expect(MediaBox.decodeRanges(encoded) == [0..<4, 5..<12])
        #expect(MediaBox.decodeRanges(Array(encoded.dropLast(3))) == [0..<4], "a torn pair is left out")
        let inverted: [UInt8] = [9, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]
        #expect(MediaBox.decodeRanges(inverted) == [], "an inverted range is not a range")
    }
}
