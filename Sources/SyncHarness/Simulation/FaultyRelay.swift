import MTProto
import NIOCore
import NIOPosix
import Synchronization

/// What a `FaultyRelay` does to the frames passing it: each field is a probability per frame. Frames delayed
/// independently overtake each other, which is how the relay reorders.
public struct FaultRates: Sendable, Equatable, CustomStringConvertible {
    public var drop: Double
    public var duplicate: Double
    public var delay: Double
    /// A delayed frame waits a uniform time up to this many milliseconds.
    public var maximumDelayMilliseconds: Int
    /// The connection is closed on both sides instead of forwarding the frame.
    public var cut: Double

    public init(drop: Double = 0, duplicate: Double = 0, delay: Double = 0, maximumDelayMilliseconds: Int = 0, cut: Double = 0) {
        self.drop = drop
        self.duplicate = duplicate
        self.delay = delay
        self.maximumDelayMilliseconds = maximumDelayMilliseconds
        self.cut = cut
    }

    public static let none = FaultRates()

    public var description: String {
        "drop \(drop) duplicate \(duplicate) delay \(delay) (≤ \(maximumDelayMilliseconds) ms) cut \(cut)"
    }
}

/// What a relay did, for reports.
public struct RelayCounters: Sendable, Equatable {
    public var connections = 0
    public var refused = 0
    public var frames = 0
    public var dropped = 0
    public var duplicated = 0
    public var delayed = 0
    public var cuts = 0

    public init() {}

    /// Frames dropped, duplicated or delayed, and connections cut.
    public var faults: Int { dropped + duplicated + delayed + cuts }

    public static func + (lhs: RelayCounters, rhs: RelayCounters) -> RelayCounters {
        var sum = lhs
        sum.connections += rhs.connections
        sum.refused += rhs.refused
        sum.frames += rhs.frames
        sum.dropped += rhs.dropped
        sum.duplicated += rhs.duplicated
        sum.delayed += rhs.delayed
        sum.cuts += rhs.cuts
        return sum
    }
}

/// A TCP relay on 127.0.0.1 between MTProto clients and a server, for fault simulation: it parses the intermediate
/// transport framing (core.telegram.org/mtproto/mtproto-transports#intermediate) in both directions and, frame by
/// frame, drops, duplicates, delays (and so reorders) them or cuts the connection, with a generator seeded per
/// connection and direction from the relay's seed. With `rawBytes` it knows no framing and the faults apply to each
/// chunk of bytes as read (a PostgreSQL connection; `drop: 1` is a network partition that keeps both sockets open).
/// While no target is set (the server is restarting) connections are accepted and closed at once, as a host whose
/// process is down would refuse them.
public final class FaultyRelay: Sendable {
    private let listener: any Channel
    private let shared: RelayShared

    /// The port clients connect to.
    public var port: Int { listener.localAddress?.port ?? 0 }

    private init(listener: any Channel, shared: RelayShared) {
        self.listener = listener
        self.shared = shared
    }

    /// `header`: bytes written to the target before anything relayed, as a load balancer's PROXY protocol header.
    public static func start(targetPort: Int, seed: UInt64, rawBytes: Bool = false, header: [UInt8] = [],
                             group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> FaultyRelay {
        let shared = RelayShared(target: targetPort, seed: seed, rawBytes: rawBytes, header: header)
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { inbound in shared.accept(inbound) }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return FaultyRelay(listener: listener, shared: shared)
    }

    public var faults: FaultRates {
        get { shared.state.withLock { $0.rates } }
    }

    public func setFaults(_ rates: FaultRates) {
        shared.state.withLock { $0.rates = rates }
    }

    /// Where new connections go; nil refuses them.
    public func setTarget(_ port: Int?) {
        shared.state.withLock { $0.target = port }
    }

    /// Closes every open connection (both sides).
    public func cutAll() {
        for channel in shared.state.withLock({ Array($0.open.values) }) { channel.close(promise: nil) }
    }

    /// Every open connection goes silent for good, both ways, without a FIN (a peer gone, a NAT that forgot the
    /// mapping): only a keepalive notices. New connections pass as before.
    public func blackholeAll() {
        shared.state.withLock { $0.blackholed.formUnion($0.open.keys) }
    }

    public var counters: RelayCounters { shared.state.withLock { $0.counters } }

    public func stop() async {
        cutAll()
        try? await listener.close()
    }
}

/// The relay's state shared by its connections.
final class RelayShared: Sendable {
    struct State {
        var target: Int?
        var rates = FaultRates.none
        var counters = RelayCounters()
        var open: [ObjectIdentifier: any Channel] = [:]
        /// Connections (by their client side) whose bytes are all dropped.
        var blackholed: Set<ObjectIdentifier> = []
    }

    let state: Mutex<State>
    let seed: UInt64
    let rawBytes: Bool
    let header: [UInt8]

    init(target: Int, seed: UInt64, rawBytes: Bool, header: [UInt8] = []) {
        state = Mutex(State(target: target))
        self.seed = seed
        self.rawBytes = rawBytes
        self.header = header
    }

    /// Connects an accepted client to the target, one `RelayHalf` on each side, all on the client's event loop.
    func accept(_ inbound: any Channel) -> EventLoopFuture<Void> {
        let (target, index) = state.withLock { state -> (Int?, Int) in
            if state.target == nil { state.counters.refused += 1 } else { state.counters.connections += 1 }
            return (state.target, state.counters.connections)
        }
        guard let target else { return inbound.close() }
        let id = ObjectIdentifier(inbound)
        state.withLock { $0.open[id] = inbound }
        inbound.closeFuture.whenComplete { [self] _ in
            state.withLock {
                $0.open.removeValue(forKey: id)
                $0.blackholed.remove(id)
            }
        }
        let seed = self.seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        let loop = inbound.eventLoop
        return ClientBootstrap(group: loop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { [self] outbound in
                outbound.eventLoop.makeCompletedFuture {
                    try outbound.pipeline.syncOperations.addHandler(
                        RelayHalf(shared: self, connection: id, peer: inbound, prefixLength: 0, rng: SplitMix64(seed: seed ^ 0x5E4E)))
                }
            }
            .connect(host: "127.0.0.1", port: target)
            .flatMapThrowing { [self] outbound in
                if !header.isEmpty { outbound.writeAndFlush(outbound.allocator.buffer(bytes: header), promise: nil) }
                try inbound.pipeline.syncOperations.addHandler(
                    RelayHalf(shared: self, connection: id, peer: outbound, prefixLength: rawBytes ? 0 : 4,
                              rng: SplitMix64(seed: seed ^ 0xC11E)))
            }
            .flatMapError { _ in inbound.close() }
    }
}

/// One direction of a relayed connection: frames (or chunks, without framing) read here go to `peer`, unless the
/// dice say otherwise.
final class RelayHalf: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let shared: RelayShared
    /// The relayed connection (its client side), for `blackholeAll`.
    private let connection: ObjectIdentifier
    private let peer: any Channel
    /// Bytes of the transport's opening tag (0xeeeeeeee, client to server only) still to pass through untouched.
    private var prefixLength: Int
    /// Nil for a relay of raw bytes.
    private var decoder: FrameDecoder?
    private var encoder = FrameEncoder(framing: .intermediate)
    private var rng: SplitMix64

    init(shared: RelayShared, connection: ObjectIdentifier, peer: any Channel, prefixLength: Int, rng: SplitMix64) {
        self.shared = shared
        self.connection = connection
        self.peer = peer
        self.prefixLength = prefixLength
        self.rng = rng
        decoder = shared.rawBytes ? nil : FrameDecoder(framing: .intermediate, maximumFrameSize: 1 << 26)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if prefixLength > 0 {
            let prefix = buffer.readSlice(length: min(prefixLength, buffer.readableBytes))
            prefixLength -= prefix?.readableBytes ?? 0
            if let prefix { peer.writeAndFlush(prefix, promise: nil) }
        }
        guard decoder != nil else { return forward(Array(buffer.readableBytesView), context: context) }
        decoder?.append(buffer.readableBytesView)
        do {
            while let frame = try decoder?.nextFrame() { forward(encoder.encode(frame), context: context) }
        } catch {
            context.close(promise: nil)
        }
    }

    /// Forwards `bytes` (a frame with its framing, or a raw chunk) unless the dice say otherwise.
    private func forward(_ bytes: [UInt8], context: ChannelHandlerContext) {
        let (rates, silent) = shared.state.withLock { state -> (FaultRates, Bool) in
            state.counters.frames += 1
            return (state.rates, state.blackholed.contains(connection))
        }
        if silent {
            shared.state.withLock { $0.counters.dropped += 1 }
            return
        }
        if chance(rates.cut) {
            shared.state.withLock { $0.counters.cuts += 1 }
            context.close(promise: nil)
            return
        }
        if chance(rates.drop) {
            shared.state.withLock { $0.counters.dropped += 1 }
            return
        }
        let copies = chance(rates.duplicate) ? 2 : 1
        if copies == 2 { shared.state.withLock { $0.counters.duplicated += 1 } }
        for _ in 0..<copies {
            let buffer = peer.allocator.buffer(bytes: bytes)
            if chance(rates.delay), rates.maximumDelayMilliseconds > 0 {
                shared.state.withLock { $0.counters.delayed += 1 }
                let delay = Int64.random(in: 0...Int64(rates.maximumDelayMilliseconds) * 1_000, using: &rng)
                let peer = self.peer
                context.eventLoop.scheduleTask(in: .microseconds(delay)) { peer.writeAndFlush(buffer, promise: nil) }
            } else {
                peer.writeAndFlush(buffer, promise: nil)
            }
        }
    }

    private func chance(_ probability: Double) -> Bool {
        probability > 0 && Double.random(in: 0..<1, using: &rng) < probability
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
