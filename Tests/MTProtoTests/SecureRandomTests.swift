import MTProto
import SyncTesting
import Testing

@Suite struct SecureRandomTests {
    @Test func randomBytesHaveTheAskedLengthAndUseEightBytesPerDraw() {
        var counting = CountingGenerator()
        for count in [0, 1, 7, 8, 9, 12, 1_024] {
            let before = counting.draws
            let bytes = RandomBytes.make(count, using: &counting)
            #expect(bytes.count == count)
            #expect(counting.draws - before == (count + 7) / 8)
        }
        var appended: [UInt8] = [1, 2, 3]
        RandomBytes.append(13, to: &appended, using: &counting)
        #expect(appended.count == 16)
        #expect(appended.prefix(3) == [1, 2, 3])
    }

    @Test func randomBytesAreTheGeneratorsWordsInLittleEndianOrder() {
        var generator = SplitMix64(seed: 7)
        var reference = SplitMix64(seed: 7)
        let bytes = RandomBytes.make(16, using: &generator)
        let words = [reference.next(), reference.next()]
        let expected = words.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
        #expect(bytes == expected)
    }

    @Test func secureRandomDoesNotRepeatAcrossBufferRefills() {
        var random = SecureRandom()
        let values = (0..<1_000).map { _ in random.next() }
        #expect(Set(values).count == values.count)
        // Two generators draw independent streams.
        var other = SecureRandom()
        #expect((0..<16).map { _ in other.next() } != Array(values.prefix(16)))
    }
}

/// SplitMix64 that counts how often it was asked for a word.
private struct CountingGenerator: RandomNumberGenerator {
    var inner = SplitMix64(seed: 1)
    var draws = 0
    mutating func next() -> UInt64 {
        draws += 1
        return inner.next()
    }
}
