import MTProto
import TL

/// Mutations of serialized TL for fuzzing: what a hostile peer would change in a valid message. Byte flips, cuts and
/// appended garbage, and the values that break parsers most often written over 4-byte words: extreme integers,
/// lengths, and the ids of vectors, containers, gzip and rpc_result; sometimes the whole message is wrapped in
/// `gzip_packed` or a container, or its TL length prefixes are inflated.
public enum ByteMutator {
    static let words: [UInt32] = [
        0x7fff_ffff, 0xffff_ffff, 0x8000_0000, 0, 1, 0xfe, 0x00ff_ffff, 0x0100_0000,
        TLBuiltinID.vector, TLBuiltinID.msgContainer, TLBuiltinID.gzipPacked, TLBuiltinID.rpcResult, TLBuiltinID.boolTrue,
    ]

    public static func mutate(_ input: [UInt8], using rng: inout some RandomNumberGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + Int(rng.next() % 4)) {
            switch rng.next() % 9 {
            case 0 where !bytes.isEmpty:
                bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            case 1 where bytes.count > 4:
                bytes.removeLast(Int(rng.next() % UInt64(min(bytes.count, 16))))
            case 2, 3:
                guard bytes.count >= 8 else { continue }
                let offset = Int(rng.next() % UInt64(bytes.count / 4)) * 4
                let word = words[Int(rng.next() % UInt64(words.count))]
                withUnsafeBytes(of: word.littleEndian) { bytes.replaceSubrange(offset..<min(offset + 4, bytes.count), with: $0) }
            case 4:
                // A TL length prefix made to claim more than there is: 0xfe and a 3-byte length.
                guard bytes.count >= 8 else { continue }
                let offset = Int(rng.next() % UInt64(bytes.count - 4))
                bytes.replaceSubrange(offset..<offset + 4, with: [0xfe, 0xff, 0xff, UInt8(truncatingIfNeeded: rng.next() % 0x40)])
            case 5 where bytes.count > 8:
                // A slice repeated: vectors and flags fields that claim more elements.
                let start = Int(rng.next() % UInt64(bytes.count))
                let end = min(bytes.count, start + 4 + Int(rng.next() % 64))
                bytes.insert(contentsOf: bytes[start..<end], at: start)
            case 6 where rng.next() % 8 == 0:
                bytes = GzipPacked.pack(bytes)
            case 7 where rng.next() % 8 == 0:
                bytes = MessageContainer.encode([ContainedMessage(messageID: Int64(bitPattern: rng.next()), seqno: Int32(truncatingIfNeeded: rng.next()),
                                                                  body: bytes)])
            default:
                bytes += (0..<4).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            }
        }
        return bytes
    }
}
