/// One side of a transport connection, sans I/O: bytes from the socket in, frame payloads out, and payloads in,
/// bytes for the socket out. Hides the framing and the obfuscation (if any) from the session above it.
public protocol TransportConnection {
    /// Payloads of the frames completed by `bytes`.
    mutating func receive(_ bytes: [UInt8]) throws(TransportError) -> [[UInt8]]
    /// Socket bytes for one payload.
    mutating func send(_ payload: [UInt8]) -> [UInt8]
    /// Socket bytes the transport itself owes the peer after `receive` (a fake-TLS server hello); empty otherwise.
    mutating func takeReply() -> [UInt8]
    /// Whether bytes of a frame not yet complete are buffered (a server closes a peer that leaves one unfinished).
    var hasPartialFrame: Bool { get }
}

extension TransportConnection {
    public mutating func takeReply() -> [UInt8] { [] }
    public var hasPartialFrame: Bool { false }

    /// Socket bytes for a transport error code (server role): the code as a frame's whole payload.
    public mutating func send(error code: TransportErrorCode) -> [UInt8] {
        send(code.payload)
    }
}

/// The server side: detects the client's transport from its first bytes (plain abridged, intermediate, padded
/// intermediate, full, or obfuscated2), then decodes frames. With an MTProxy `secret`, only obfuscated connections
/// using that secret are accepted; with an `ee` secret only fake-TLS ones (`FakeTLS`), whose hello is answered
/// through `takeReply` and whose records are unwrapped before the obfuscated2 stream is read.
public struct ServerTransportConnection<RNG: RandomNumberGenerator>: TransportConnection {
    private enum State {
        case detecting([UInt8])
        case established(decoder: FrameDecoder, encoder: FrameEncoder, streams: Obfuscation.Streams?)
        case failed
    }

    private enum TLSState {
        case awaitingHello([UInt8])
        case records(FakeTLSRecords)
    }

    private var state = State.detecting([])
    private let secret: [UInt8]?
    private let tlsSecret: FakeTLS.Secret?
    private var tls: TLSState?
    private var reply: [UInt8] = []
    private let maximumFrameSize: Int
    private let now: () -> Int64
    private var rng: RNG

    /// `now` (unix seconds) checks the time in fake-TLS hellos.
    public init(secret: [UInt8]? = nil, maximumFrameSize: Int = 1 << 20, now: @escaping () -> Int64 = { 0 }, rng: RNG) {
        tlsSecret = secret.flatMap(FakeTLS.Secret.init)
        self.secret = tlsSecret?.obfuscationSecret ?? secret
        tls = tlsSecret == nil ? nil : .awaitingHello([])
        self.maximumFrameSize = maximumFrameSize
        self.now = now
        self.rng = rng
    }

    public mutating func takeReply() -> [UInt8] {
        defer { reply = [] }
        return reply
    }

    /// Socket bytes → obfuscated2 stream bytes: answers the fake-TLS hello, then unwraps records.
    private mutating func unwrapTLS(_ bytes: [UInt8]) throws(TransportError) -> [UInt8] {
        guard let tls, let tlsSecret else { return bytes }
        switch tls {
        case var .records(records):
            let stream = try records.unwrap(bytes)
            self.tls = .records(records)
            return stream
        case let .awaitingHello(buffer):
            let buffer = buffer + bytes
            guard let hello = try FakeTLS.acceptClientHello(buffer, secret: tlsSecret, now: now()) else {
                self.tls = .awaitingHello(buffer)
                return []
            }
            reply = FakeTLS.serverHello(to: hello, secret: tlsSecret, using: &rng)
            self.tls = .records(FakeTLSRecords())
            return try unwrapTLS(Array(buffer[hello.consumed...]))
        }
    }

    public var hasPartialFrame: Bool {
        if case let .awaitingHello(buffer)? = tls, !buffer.isEmpty { return true }
        switch state {
        case let .detecting(buffer): return !buffer.isEmpty
        case let .established(decoder, _, _): return decoder.bufferedCount > 0
        case .failed: return false
        }
    }

    /// The framing in use, once detected.
    public var framing: TransportFraming? {
        if case let .established(decoder, _, _) = state { return decoder.framing }
        return nil
    }

    public mutating func receive(_ bytes: [UInt8]) throws(TransportError) -> [[UInt8]] {
        if case .failed = state { throw .unknownProtocol }
        let stream: [UInt8]
        do {
            stream = try unwrapTLS(bytes)
        } catch {
            state = .failed
            throw error
        }
        return try receiveStream(stream)
    }

    /// Frames from the (obfuscated) stream, after any fake-TLS records were unwrapped.
    private mutating func receiveStream(_ bytes: [UInt8]) throws(TransportError) -> [[UInt8]] {
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
                return try receiveStream(remainder)
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
        return tls == nil ? bytes : FakeTLSRecords.wrap(bytes)
    }
}

/// The client side: announces its framing (plainly or in an obfuscated2 header, optionally with an MTProxy
/// secret) with its first bytes, then frames payloads. With an `ee` secret the stream goes inside fake-TLS records
/// (`FakeTLS`): the hello leaves with the first bytes, and the server's hello is checked before anything it sends
/// after it is read.
public struct ClientTransportConnection<RNG: RandomNumberGenerator>: TransportConnection {
    private enum TLSState {
        case awaitingServerHello(buffer: [UInt8], clientRandom: [UInt8], secret: FakeTLS.Secret)
        case records(FakeTLSRecords)
    }

    private var decoder: FrameDecoder
    private var encoder: FrameEncoder
    private var streams: Obfuscation.Streams?
    private var pendingPrefix: [UInt8]
    /// The fake-TLS hello and ChangeCipherSpec, sent before the first record.
    private var pendingHello: [UInt8] = []
    private var tls: TLSState?
    private var rng: RNG

    /// `obfuscated`: wrap in obfuscated2 (not possible with `.full`). `dc` goes into the obfuscated header. An `ee`
    /// secret demands padded intermediate framing; `time` (unix seconds) goes into its hello. A client takes frames up
    /// to 16 MiB (TL's own limit): a server's answer may pass 1 MiB (a 1 MiB file part and its envelope), and a
    /// hostile server still costs at most that per connection.
    public init(framing: TransportFraming, obfuscated: Bool = false, secret: [UInt8]? = nil, dc: Int16 = 2,
                maximumFrameSize: Int = 16 << 20, time: Int32 = 0, rng: RNG) throws(TransportError) {
        self.rng = rng
        decoder = FrameDecoder(framing: framing, maximumFrameSize: maximumFrameSize)
        encoder = FrameEncoder(framing: framing)
        let tlsSecret = secret.flatMap(FakeTLS.Secret.init)
        if obfuscated || secret != nil {
            let header = try Obfuscation.clientHeader(framing: framing, dc: dc, secret: tlsSecret?.obfuscationSecret ?? secret,
                                                      using: &self.rng)
            pendingPrefix = header.bytes
            streams = header.streams
        } else {
            pendingPrefix = framing.plainPrefix
        }
        if let tlsSecret {
            let hello = FakeTLS.clientHello(secret: tlsSecret, time: time, using: &self.rng)
            let random = Array(hello[FakeTLS.randomOffset..<(FakeTLS.randomOffset + 32)])
            tls = .awaitingServerHello(buffer: [], clientRandom: random, secret: tlsSecret)
            pendingHello = hello + FakeTLS.changeCipherSpec
        }
    }

    /// Socket bytes → obfuscated2 stream bytes: checks the server hello, then unwraps records.
    private mutating func unwrapTLS(_ bytes: [UInt8]) throws(TransportError) -> [UInt8] {
        switch tls {
        case nil:
            return bytes
        case var .records(records)?:
            let stream = try records.unwrap(bytes)
            tls = .records(records)
            return stream
        case let .awaitingServerHello(buffer, clientRandom, secret)?:
            let buffer = buffer + bytes
            guard let consumed = try FakeTLS.acceptServerHello(buffer, clientRandom: clientRandom, secret: secret) else {
                tls = .awaitingServerHello(buffer: buffer, clientRandom: clientRandom, secret: secret)
                return []
            }
            tls = .records(FakeTLSRecords())
            return try unwrapTLS(Array(buffer[consumed...]))
        }
    }

    public mutating func receive(_ bytes: [UInt8]) throws(TransportError) -> [[UInt8]] {
        var plain = try unwrapTLS(bytes)
        streams?.decryptor.apply(&plain)
        decoder.append(plain)
        var frames: [[UInt8]] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }

    /// The first call also carries the transport's prefix (marker byte(s), obfuscated header, fake-TLS hello).
    public mutating func send(_ payload: [UInt8]) -> [UInt8] {
        var bytes = encoder.encode(payload, using: &rng)
        streams?.encryptor.apply(&bytes)
        defer { pendingPrefix = []; pendingHello = [] }
        guard tls != nil else { return pendingPrefix + bytes }
        return pendingHello + FakeTLSRecords.wrap(pendingPrefix + bytes)
    }
}
