import NIOCore
import NIOPosix
import Synchronization

/// A loopback TCP relay in front of a server that can cut a connection at a chosen moment: once `cutNextAnswer()` is
/// called, the next bytes the server sends on any relayed connection are dropped and both sides closed — a request
/// that reached the server whose answer never comes back.
final class CuttingRelay: Sendable {
    private let listener: any Channel
    private let cut = CutSwitch()
    var port: Int { listener.localAddress?.port ?? 0 }

    init(to target: Int) async throws {
        let cut = self.cut
        listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.pipeline.addHandler(Pipe(to: inbound, cut: cut, cuttable: true))
                    }
                    .connect(host: "127.0.0.1", port: target)
                    .flatMap { outbound in inbound.pipeline.addHandler(Pipe(to: outbound, cut: cut, cuttable: false)) }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    func cutNextAnswer() { cut.armed.store(true, ordering: .relaxed) }

    func close() async throws { try await listener.close() }

    /// Copies what one side reads to the other; closing either side closes both.
    private final class Pipe: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let peer: any Channel
        private let cut: CutSwitch
        /// This pipe carries server-to-client bytes (what `cutNextAnswer` drops).
        private let cuttable: Bool

        init(to peer: any Channel, cut: CutSwitch, cuttable: Bool) {
            self.peer = peer
            self.cut = cut
            self.cuttable = cuttable
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if cuttable, cut.armed.exchange(false, ordering: .relaxed) {
                context.close(promise: nil)
                peer.close(promise: nil)
                return
            }
            peer.writeAndFlush(Self.unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            peer.close(promise: nil)
            context.fireChannelInactive()
        }
    }
}

/// Shared by the relay's pipes: armed by `cutNextAnswer`, disarmed by the cut it causes.
private final class CutSwitch: Sendable {
    let armed = Atomic<Bool>(false)
}
