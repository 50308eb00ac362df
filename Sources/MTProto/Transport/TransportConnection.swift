/// One side of a transport connection, sans I/O: bytes from the socket in, frame payloads out, and payloads in,
/// bytes for the socket out. Hides the framing and the obfuscation (if any) from the session above it.
public protocol TransportConnection {
    /// Payloads of the frames completed by `bytes`.
    mutating func receive(_ bytes: [UInt8]) throws(TransportError) -> [[UInt8]]
    /// Socket bytes for one payload.
    mutating func send(_ payload: [UInt8]) -> [UInt8]
}

extension TransportConnection {
    /// Socket bytes for a transport error code (server role): the code as a frame's whole payload.
    public mutating func send(error code: TransportErrorCode) -> [UInt8] {
        send(code.payload)
    }
}

/// The server side: detects the client's transport from its first bytes (plain abridged, intermediate, padded
/// intermediate, full, or obfuscated2), then decodes frames. With an MTProxy `secret`, only obfuscated connections
/// using that secret are accepted.
public struct ServerTransportConnection<RNG: RandomNumberGenerator>: TransportConnection {
    private enum State {
        case detecting([UInt8])
        case established(decoder: FrameDecoder, encoder: FrameEncoder, streams: Obfuscation.Streams?)
        case failed
    }

    private var state = State.detecting([])
    private let secret: [UInt8]?
    private let maximumFrameSize: Int
    private var rng: RNG

    public init(secret: [UInt8]? = nil, maximumFrameSize: Int = 1 << 20, rng: RNG) {
        self.secret = secret
        self.maximumFrameSize = maximumFrameSize
        self.rng = rng
    }

    /// The framing in use, once detected.
    public var framing: TransportFraming? {
        if case let .established(decoder, _, _) = state { return decoder.framing }
        return nil
    }

    public mutating func receive(_ bytes: [UInt8]) throws(TransportError) -> [[UInt8]] {
        switch state {
        case .failed:
            throw .unknownProtocol
        case var .detecting(buffer):
            buffer += bytes
            do {
                guard let remainder = try establish(buffer) else {
                    state = .detecting(buffer)
                    return []
                }
                return try receive(remainder)
            } catch {
                state = .failed
                throw error
            }
        case .established(var decoder, let encoder, let streams):
            var plain = bytes
            streams?.decryptor.apply(&plain)
            decoder.append(plain)
            var frames: [[UInt8]] = []
            do {
                while let frame = try decoder.nextFrame() { frames.append(frame) }
            } catch {
                state = .failed
                throw error
            }
            state = .established(decoder: decoder, encoder: encoder, streams: streams)
            return frames
        }
    }

    /// Moves to `.established` when the prefix identifies the transport; returns the bytes after the prefix.
    private mutating func establish(_ buffer: [UInt8]) throws(TransportError) -> [UInt8]? {
        let detection = TransportDetection.detect(buffer)
        if secret != nil, case .plain = detection { throw .unknownProtocol }
        switch detection {
        case .needMoreBytes:
            return nil
        case let .plain(framing, consumed):
            state = .established(decoder: FrameDecoder(framing: framing, maximumFrameSize: maximumFrameSize),
                                 encoder: FrameEncoder(framing: framing), streams: nil)
            return Array(buffer[consumed...])
        case .obfuscated:
            guard buffer.count >= 64 else { return nil }
            let accepted = try Obfuscation.acceptHeader(Array(buffer[0..<64]), secret: secret)
            state = .established(decoder: FrameDecoder(framing: accepted.framing, maximumFrameSize: maximumFrameSize),
                                 encoder: FrameEncoder(framing: accepted.framing), streams: accepted.streams)
            return Array(buffer[64...])
        }
    }

    public mutating func send(_ payload: [UInt8]) -> [UInt8] {
        guard case .established(let decoder, var encoder, let streams) = state else { return [] }
        var bytes = encoder.encode(payload, using: &rng)
        streams?.encryptor.apply(&bytes)
        state = .established(decoder: decoder, encoder: encoder, streams: streams)
        return bytes
    }
}

/// The client side: announces its framing (plainly or in an obfuscated2 header, optionally with an MTProxy
/// secret) with its first bytes, then frames payloads.
public struct ClientTransportConnection<RNG: RandomNumberGenerator>: TransportConnection {
    private var decoder: FrameDecoder
    private var encoder: FrameEncoder
    private var streams: Obfuscation.Streams?
    private var pendingPrefix: [UInt8]
    private var rng: RNG

    /// `obfuscated`: wrap in obfuscated2 (not possible with `.full`). `dc` goes into the obfuscated header.
    public init(framing: TransportFraming, obfuscated: Bool = false, secret: [UInt8]? = nil, dc: Int16 = 2,
                maximumFrameSize: Int = 1 << 20, rng: RNG) throws(TransportError) {
        self.rng = rng
        decoder = FrameDecoder(framing: framing, maximumFrameSize: maximumFrameSize)
        encoder = FrameEncoder(framing: framing)
        if obfuscated || secret != nil {
            let header = try Obfuscation.clientHeader(framing: framing, dc: dc, secret: secret, using: &self.rng)
            pendingPrefix = header.bytes
            streams = header.streams
        } else {
            pendingPrefix = framing.plainPrefix
        }
    }

    public mutating func receive(_ bytes: [UInt8]) throws(TransportError) -> [[UInt8]] {
        var plain = bytes
        streams?.decryptor.apply(&plain)
        decoder.append(plain)
        var frames: [[UInt8]] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }

    /// The first call also carries the transport's prefix (marker byte(s) or obfuscated header).
    public mutating func send(_ payload: [UInt8]) -> [UInt8] {
        var bytes = encoder.encode(payload, using: &rng)
        streams?.encryptor.apply(&bytes)
        defer { pendingPrefix = [] }
        return pendingPrefix + bytes
    }
}
