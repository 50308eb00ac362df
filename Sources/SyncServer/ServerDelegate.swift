import Logging
import MTProto
import MTProtoNIO
import Synchronization

/// Connects MTProtoNIO's connections to the data center's auth keys and the method router.
final class ServerDelegate: MTProtoServerDelegate {
    private let keys: AuthKeyDirectory
    private let server: ServerContext
    private let dc: Int32
    /// Replaced once every DC's port is bound (help.getConfig advertises the real ports).
    private let router: Mutex<RPCRouter>
    private let logger: Logger

    init(keys: AuthKeyDirectory, server: ServerContext, dc: Int32, router: RPCRouter, logger: Logger) {
        self.keys = keys
        self.server = server
        self.dc = dc
        self.router = Mutex(router)
        self.logger = logger
    }

    func setRouter(_ router: RPCRouter) {
        self.router.withLock { $0 = router }
    }

    func authKey(id: UInt64) -> StoredAuthKey? {
        keys.cached(id: id)
    }

    /// Keys are in the storage; memory holds those used lately (`AuthKeyDirectory`).
    var looksUpKeys: Bool { true }

    func loadAuthKey(id: UInt64) async -> AuthKeyLookup {
        await keys.load(id: id, now: server.monotonicNow)
    }

    func store(_ key: StoredAuthKey) async throws {
        try await keys.store(key)
        logger.info("new auth key", metadata: ["auth_key_id": "\(String(key.authKey.id, radix: 16))"])
    }

    /// Several processes share the data only on PostgreSQL.
    var claimsSessions: Bool { server.storage.commitFeed != nil }

    func claimSession(authKeyID: UInt64, sessionID: Int64, receivedAt: Double) async -> SessionClaim {
        await server.sessionClaims.claim(authKeyID: authKeyID, sessionID: sessionID, receivedAt: receivedAt, server: server)
    }

    func handle(_ rpc: IncomingRPC, authKeyID: UInt64, outlet: SessionOutlet) async -> Result<[UInt8], RPCError> {
        await server.dispatch(rpc, authKeyID: authKeyID, outlet: outlet, dc: dc, router: router.withLock { $0 })
    }

    func merge(_ pushes: [[UInt8]], for outlet: SessionOutlet) -> [UInt8]? {
        server.merge(pushes, for: outlet)
    }

    func closed(_ outlet: SessionOutlet) {
        server.sessionClosed(outlet)
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
