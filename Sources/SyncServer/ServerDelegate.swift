import Logging
import MTProto
import MTProtoNIO
import Synchronization

/// Connects MTProtoNIO's connections to the key files and the method router.
final class ServerDelegate: MTProtoServerDelegate {
    private let keys: ServerKeyFiles
    private let server: ServerContext
    /// Replaced once the port is bound (help.getConfig advertises the real port).
    private let router: Mutex<RPCRouter>
    private let logger: Logger

    init(keys: ServerKeyFiles, server: ServerContext, router: RPCRouter, logger: Logger) {
        self.keys = keys
        self.server = server
        self.router = Mutex(router)
        self.logger = logger
    }

    func setRouter(_ router: RPCRouter) {
        self.router.withLock { $0 = router }
    }

    func authKey(id: UInt64) -> StoredAuthKey? {
        keys.authKey(id: id)
    }

    func store(_ key: StoredAuthKey) throws {
        try keys.store(key)
        logger.info("new auth key", metadata: ["auth_key_id": "\(String(key.authKey.id, radix: 16))"])
    }

    func handle(_ rpc: IncomingRPC, authKeyID: UInt64, outlet: SessionOutlet) async -> Result<[UInt8], RPCError> {
        let router = self.router.withLock { $0 }
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
        // A call that logged the key in (auth.signIn/signUp) bound it through the context's cache: no storage read.
        if user == nil, case .success = result, let bound = try? await server.user(authKeyID: authKeyID) {
            server.sessions.attach(outlet, user: bound)
        }
        if case let .failure(error) = result {
            logger.debug("rpc_error", metadata: ["method": "\(rpc.function.constructorName)", "error": "\(error)"])
        }
        return result
    }

    func closed(_ outlet: SessionOutlet) {
        server.sessions.detach(outlet)
    }
}
