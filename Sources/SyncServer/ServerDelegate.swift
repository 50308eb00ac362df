import Logging
import MTProto
import MTProtoNIO
import Synchronization

/// Connects MTProtoNIO's connections to the key files and the method router.
final class ServerDelegate: MTProtoServerDelegate {
    private let keys: ServerKeyFiles
    /// Replaced once the port is bound (help.getConfig advertises the real port).
    private let installed: Mutex<(router: RPCRouter, server: ServerContext)>
    private let logger: Logger

    init(keys: ServerKeyFiles, server: ServerContext, logger: Logger) {
        self.keys = keys
        installed = Mutex((SyncServer.router(server), server))
        self.logger = logger
    }

    func install(_ server: ServerContext) {
        installed.withLock { $0 = (SyncServer.router(server), server) }
    }

    func authKey(id: UInt64) -> StoredAuthKey? {
        keys.authKey(id: id)
    }

    func store(_ key: StoredAuthKey) throws {
        try keys.store(key)
        logger.info("new auth key", metadata: ["auth_key_id": "\(String(key.authKey.id, radix: 16))"])
    }

    func handle(_ rpc: IncomingRPC, authKeyID: UInt64, outlet: SessionOutlet) async -> Result<[UInt8], RPCError> {
        let (router, server) = installed.withLock { $0 }
        let user: Int64?
        do {
            user = try await server.user(authKeyID: authKeyID)
        } catch {
            logger.error("cannot read the key's authorization", metadata: ["error": "\(error)"])
            return .failure(.internalError)
        }
        // A logged-in session is online: it gets pushes from now on.
        if let user { server.sessions.attach(outlet, user: user) }
        logger.trace("rpc", metadata: ["method": "\(rpc.function.constructorName)", "user": "\(user.map(String.init) ?? "-")"])
        let result = await router.handle(RPCContext(rpc: rpc, authKeyID: authKeyID, userID: user, outlet: outlet))
        if user == nil, case .success = result, let bound = try? await server.user(authKeyID: authKeyID) {
            server.sessions.attach(outlet, user: bound)
        }
        if case let .failure(error) = result {
            logger.debug("rpc_error", metadata: ["method": "\(rpc.function.constructorName)", "error": "\(error)"])
        }
        return result
    }

    func closed(_ outlet: SessionOutlet) {
        installed.withLock { $0.server }.sessions.detach(outlet)
    }
}
