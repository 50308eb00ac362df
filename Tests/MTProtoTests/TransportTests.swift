import MTProto
import SyncTesting
import Foundation
import Testing
import TL
@testable import MTProto

struct TransportTests {
    @Test func tcpFullFrameVector() throws {
        var encoder = FrameEncoder(framing: .full)
        let payload = hex("000102030405060708090a0b0c0d0e0f10111213")
        let frame = encoder.encode(payload)
        #expect(hexString(frame) == "2000000000000000000102030405060708090a0b0c0d0e0f1011121360b0c782")
        var decoder = FrameDecoder(framing: .full)
        decoder.append(frame)
        #expect(try decoder.nextFrame() == payload)
        #expect(try decoder.nextFrame() == nil)
    }

    static let payloads: [[UInt8]] = [[], Array(repeating: 7, count: 4), (0..<500).map { UInt8($0 % 256) },
                                      (0..<(0x7f * 4)).map { UInt8($0 % 251) }, (0..<70_000).map { UInt8($0 % 253) }]

    @Test(arguments: TransportFraming.allCases)
    func byteAtATimeYieldsTheSameFramesAsWholeFrames(framing: TransportFraming) throws {
        var encoder = FrameEncoder(framing: framing)
        let stream = Self.payloads.flatMap { encoder.encode($0, padding: framing == .paddedIntermediate ? [9, 9, 9] : []) }
        var whole = FrameDecoder(framing: framing)
        whole.append(stream)
        var wholeFrames: [[UInt8]] = []
        while let frame = try whole.nextFrame() { wholeFrames.append(frame) }
        var trickle = FrameDecoder(framing: framing)
        var trickleFrames: [[UInt8]] = []
        for byte in stream {
            trickle.append([byte])
            while let frame = try trickle.nextFrame() { trickleFrames.append(frame) }
        }
        #expect(wholeFrames == trickleFrames)
        let expected = framing == .paddedIntermediate ? Self.payloads.map { $0 + [9, 9, 9] } : Self.payloads
        #expect(wholeFrames == expected)
        #expect(whole.bufferedCount == 0)
    }

    @Test(arguments: TransportFraming.allCases)
    func oversizedFramesAreRejectedBeforeBuffering(framing: TransportFraming) {
        var encoder = FrameEncoder(framing: framing)
        let frame = encoder.encode([UInt8](repeating: 1, count: 2048))
        var decoder = FrameDecoder(framing: framing, maximumFrameSize: 1024)
        decoder.append(frame.prefix(8))  // only the header has arrived
        #expect(throws: TransportError.frameTooLarge(length: 2048, limit: 1024)) { try decoder.nextFrame() }
    }

    @Test func fullFramingRejectsBadChecksumsSequencesAndLengths() throws {
        var encoder = FrameEncoder(framing: .full)
        var frame = encoder.encode([1, 2, 3, 4])
        frame[9] ^= 0xff
        var corrupted = FrameDecoder(framing: .full)
        corrupted.append(frame)
        #expect(throws: TransportError.checksumMismatch) { try corrupted.nextFrame() }

        var skipped = FrameDecoder(framing: .full)
        _ = encoder.encode([5, 6, 7, 8])            // sequence 1 is never delivered
        skipped.append(encoder.encode([9, 9, 9, 9]))  // sequence 2
        #expect(throws: TransportError.sequenceMismatch(expected: 0, actual: 2)) { try skipped.nextFrame() }

        var short = FrameDecoder(framing: .full)
        short.append([8, 0, 0, 0, 0, 0, 0, 0])
        #expect(throws: TransportError.badLength(8)) { try short.nextFrame() }
    }

    @Test func transportErrorFramesCarryTheNegativeCode() throws {
        var encoder = FrameEncoder(framing: .abridged)
        var decoder = FrameDecoder(framing: .abridged)
        decoder.append(encoder.encode(error: .authKeyNotFound))
        let payload = try #require(try decoder.nextFrame())
        #expect(Int32(littleEndian: payload.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }) == -404)
    }

    @Test func detectsEachTransportFromItsFirstBytes() {
        #expect(TransportDetection.detect([]) == .needMoreBytes)
        #expect(TransportDetection.detect([0xef, 1, 2]) == .plain(.abridged, consumed: 1))
        #expect(TransportDetection.detect([0xee, 0xee, 0xee, 0xee]) == .plain(.intermediate, consumed: 4))
        #expect(TransportDetection.detect([0xdd, 0xdd, 0xdd, 0xdd, 1]) == .plain(.paddedIntermediate, consumed: 4))
        #expect(TransportDetection.detect([0x28, 0, 0, 0, 0, 0, 0, 0]) == .plain(.full, consumed: 0))
        #expect(TransportDetection.detect([0x28, 0, 0, 0, 0, 0]) == .needMoreBytes)
        #expect(TransportDetection.detect([0x07, 0x26, 0x45, 0x64, 0x83, 0xa2, 0xc1, 0xe0]) == .obfuscated)
    }
}

struct ObfuscationTests {
    static let randomInit = hex("0726456483a2c1e0ff1e3d5c7b9ab9d8f71635547392b1d0ef0e2d4c6b8aa9c8e70625446382a1c0dffe1d3c5b7a99b8d7f61534537291b0efefefef4b6a89a8")

    @Test func obfuscated2Vector() throws {
        let (bytes, _) = try Obfuscation.clientStreams(initBytes: Self.randomInit, secret: nil)
        #expect(hexString(bytes) == "0726456483a2c1e0ff1e3d5c7b9ab9d8f71635547392b1d0ef0e2d4c6b8aa9c8e70625446382a1c0dffe1d3c5b7a99b8d7f61534537291b06fb73c215cca4a70")
        let forward = Obfuscation.keyAndIV(Array(Self.randomInit[8..<56]), secret: nil)
        let backward = Obfuscation.keyAndIV(Array(Self.randomInit[8..<56].reversed()), secret: nil)
        #expect(hexString(forward.key) == "ff1e3d5c7b9ab9d8f71635547392b1d0ef0e2d4c6b8aa9c8e70625446382a1c0")
        #expect(hexString(forward.iv) == "dffe1d3c5b7a99b8d7f61534537291b0")
        #expect(hexString(backward.key) == "b09172533415f6d7b8997a5b3c1dfedfc0a18263442506e7c8a98a6b4c2d0eef")
        #expect(hexString(backward.iv) == "d0b19273543516f7d8b99a7b5c3d1eff")
        let accepted = try Obfuscation.acceptHeader(bytes)
        #expect(accepted.framing == .abridged)
    }

    static let sixteenBytes: [UInt8] = Array(0..<16)
    static let secrets: [[UInt8]?] = [nil, sixteenBytes, [0xdd] + sixteenBytes]

    @Test(arguments: secrets)
    func clientAndServerStreamsMatchInBothDirections(secret: [UInt8]?) throws {
        var rng = SplitMix64(seed: 30)
        let framing: TransportFraming = secret?.count == 17 ? .paddedIntermediate : .intermediate
        let (header, client) = try Obfuscation.clientHeader(framing: framing, dc: -2, secret: secret, using: &rng)
        #expect(Obfuscation.isAcceptableClientHeader(header))
        let (detected, dc, server) = try Obfuscation.acceptHeader(header, secret: secret)
        #expect(detected == framing)
        #expect(dc == -2)
        let up = Array("client to server".utf8)
        #expect(server.decryptor.apply(client.encryptor.apply(up)) == up)
        let down = Array("server to client".utf8)
        #expect(client.decryptor.apply(server.encryptor.apply(down)) == down)
    }

    @Test func wrongSecretOrGarbageHeaderIsRejected() throws {
        var rng = SplitMix64(seed: 31)
        let secret = Array(0..<16).map(UInt8.init)
        let (header, _) = try Obfuscation.clientHeader(framing: .abridged, dc: 2, secret: secret, using: &rng)
        #expect(throws: TransportError.unknownProtocol) { try Obfuscation.acceptHeader(header, secret: Array(repeating: 1, count: 16)) }
        #expect(throws: TransportError.badLength(10)) { try Obfuscation.acceptHeader([UInt8](repeating: 0, count: 10)) }
        #expect(throws: TransportError.badSecret) { try Obfuscation.acceptHeader(header, secret: [1, 2, 3]) }
        // A dd secret demands padded intermediate.
        #expect(throws: TransportError.badSecret) {
            try Obfuscation.clientHeader(framing: .abridged, dc: 2, secret: [0xdd] + secret, using: &rng)
        }
    }
}
