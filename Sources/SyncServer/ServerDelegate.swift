import Logging
import MTProto
import MTProtoNIO
import Synchronization

/// Connects MTProtoNIO's connections to the key files and the method router.
final class ServerDelegate: MTProtoServerDelegate {
    private let keys: ServerKeyFiles
    private let router: Mutex<RPCRouter>
    private let logger: Logger

    init(keys: ServerKeyFiles, router: RPCRouter, logger: Logger) {
        self.keys = keys
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

    func handle(_ rpc: IncomingRPC, authKeyID: UInt64) async -> Result<[UInt8], RPCError> {
        let router = self.router.withLock { $0 }
        let result = await router.handle(RPCContext(rpc: rpc, authKeyID: authKeyID))
        if case let .failure(error) = result {
            logger.debug("rpc_error", metadata: ["method": "\(rpc.function.constructorName)", "error": "\(error)"])
        }
        return result
    }
}
