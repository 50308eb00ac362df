import MTProto
import TL

/// Download workers: up to `ConnectionManager.downloadWorkers` more connections per data center, on the data center's
/// one key (each its own session), for requests sent with `download: true`; which worker takes a call, and that its
/// calls carry `invokeWithoutUpdates` (the server pushes nothing to them), is `ConnectionRoutes`' to say.
extension ConnectionManager {
    /// A download request on the least busy worker (a worker that fails is retired; the request is not repeated here).
    func sendToWorker<Function: TLFunction>(_ function: Function, route: ConnectionRoutes.Route) async throws -> Function.Result {
        let dc = route.dc
        if route.makesKeyFirst { _ = try await connection(to: dc) }   // one key exchange, on the main connection
        let worker = leastBusyWorker(dc)
        worker.inFlight += 1
        defer { worker.inFlight -= 1 }
        do {
            let connection = try await worker.connecting.value
            guard connection.isActive else { throw MTProtoClientError.connectionClosed }
            return try await sendOn(connection, function, route: route)
        } catch let error as MTProtoClientError {
            if case .connectionClosed = error { workers[dc]?.removeAll { $0 === worker } }
            throw error
        } catch {
            workers[dc]?.removeAll { $0 === worker }
            throw error
        }
    }

    private func leastBusyWorker(_ dc: Int32) -> DownloadWorker {
        let open = workers[dc, default: []]
        if case let .use(index) = routes.worker(inFlight: open.map(\.inFlight)) { return open[index] }
        let worker = DownloadWorker(Task { try await self.connect(dc) })
        workers[dc, default: []].append(worker)
        return worker
    }

    /// Closes every worker (from `close`).
    func closeWorkers() async {
        for worker in workers.values.joined() {
            if let connection = try? await worker.connecting.value { await connection.close() }
        }
        workers.removeAll()
    }
}

/// One download connection, while it opens and after; touched only by its manager.
final class DownloadWorker {
    let connecting: Task<MTProtoClient, any Error>
    var inFlight = 0

    init(_ connecting: Task<MTProtoClient, any Error>) {
        self.connecting = connecting
    }
}
