import Foundation
import SyncTesting
import Testing
import TL

/// Mutated encodings through the decoders: every outcome is a value or a typed error.
struct FuzzTests {
    @Test func hundredThousandMutatedBuffersNeverCrashTheDecoder() {
        var generator = TLArbitraryGenerator(seed: 2026)
        var corpus: [[UInt8]] = TelethonGoldenObjects.all.values.map { $0.serialized() }
        corpus += API.arbitraryOfEveryCombinator(using: &generator).prefix(200).map { $0.serialized() }
        var decoded = 0
        var rejected = 0
        for iteration in 0..<100_000 {
            var bytes = corpus[iteration % corpus.count]
            mutate(&bytes, using: &generator)
            // Decode as the types a peer sends: any object, any function call, Updates and differences.
            for attempt in 0..<4 {
                do {
                    switch attempt {
                    case 0: _ = try TLAnyObject.deserialize(bytes)
                    case 1: _ = try TLAnyFunction.deserialize(bytes)
                    case 2: _ = try API.Updates.deserialize(bytes)
                    default: _ = try API.updates.Difference.deserialize(bytes)
                    }
                    decoded += 1
                } catch {
                    rejected += 1
                }
            }
        }
        #expect(decoded + rejected == 400_000)
        #expect(rejected > 0)
    }

    private func mutate(_ bytes: inout [UInt8], using g: inout TLArbitraryGenerator) {
        let mutations = 1 + g.choice(4)
        for _ in 0..<mutations {
            switch g.choice(6) {
            case 0 where !bytes.isEmpty: bytes[g.choice(bytes.count)] = UInt8.random(in: 0...255, using: &g)
            case 1 where !bytes.isEmpty: bytes.removeLast(1 + g.choice(min(bytes.count, 16)))
            case 2 where bytes.count >= 4:
                // A plausible but wrong 32-bit word: a huge count, a negative length, another constructor id.
                let offset = g.choice(bytes.count / 4) * 4
                let word: UInt32 = [0x7FFF_FFFF, 0xFFFF_FFFF, 0x1CB5_C415, 0x9972_75B5, 0x0000_00FE, 0x74AE_4240][g.choice(6)]
                withUnsafeBytes(of: word.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
            case 3: bytes.insert(contentsOf: (0..<(1 + g.choice(8))).map { _ in UInt8.random(in: 0...255, using: &g) },
                                 at: g.choice(bytes.count + 1))
            case 4 where bytes.count > 8:
                let start = g.choice(bytes.count - 4)
                bytes.replaceSubrange(start..<start + 4, with: bytes[0..<4])
            default: bytes.append(contentsOf: [0xFE, 0xFF, 0xFF, 0x00])
            }
        }
    }
}
