import Logging
import MTProto
import MTProtoNIO
import Synchronization

/// Connects MTProtoNIO's connections to the key files and the method router.
final class ServerDelegate: MTProtoServerDelegate {
    private let keys: ServerKeyFiles
    private let server: ServerContext
    private let dc: Int32
    /// Replaced once every DC's port is bound (help.getConfig advertises the real ports).
    private let router: Mutex<RPCRouter>
    private let logger: Logger

    init(keys: ServerKeyFiles, server: ServerContext, dc: Int32, router: RPCRouter, logger: Logger) {
        self.keys = keys
        self.server = server
        self.dc = dc
        self.router = Mutex(router)
        self.logger = logger
    }

    /// The largest answer sent: what clients accept in one frame, less room for the envelope.
    static let maximumAnswerBytes = 8 << 20

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
        let method = rpc.function.constructorName
        // A user's data lives on their home DC: elsewhere only DC-independent methods are answered (core.telegram.org/api/datacenter).
        if let user, !RPCRouter.worksOnAnyDC(method) {
            switch await homeDC(of: user) {
            case let .failure(error): return .failure(error)
            case let .success(home) where home != dc: return .failure(RPCError(code: 303, message: "USER_MIGRATE_\(home)"))
            case .success: break
            }
        }
        // A logged-in session is online: it gets pushes from now on.
        if let user { server.sessions.attach(outlet, user: user) }
        logger.trace("rpc", metadata: ["method": "\(method)", "user": "\(user.map(String.init) ?? "-")", "dc": "\(dc)"])
        var result = await router.handle(RPCContext(rpc: rpc, authKeyID: authKeyID, userID: user, outlet: outlet, dc: dc))
        // The input limits and byte-sliced pages keep every answer far below this; an answer past it would be a frame
        // clients refuse, so it is never sent.
        if case let .success(bytes) = result, bytes.count > Self.maximumAnswerBytes {
            logger.error("answer over the byte cap", metadata: ["method": "\(method)", "bytes": "\(bytes.count)"])
            result = .failure(.internalError)
        }
        // A call that logged the key in (auth.signIn/signUp) bound it through the context's cache: no storage read.
        if user == nil, case .success = result, let bound = try? await server.user(authKeyID: authKeyID) {
            server.sessions.attach(outlet, user: bound)
        }
        ServerMetrics.rpc(method, failed: result.isFailure)
        server.callsAnswered.add(1, ordering: .relaxed)
        if case let .failure(error) = result {
            logger.debug("rpc_error", metadata: ["method": "\(method)", "error": "\(error)"])
        }
        return result
    }

    private func homeDC(of user: Int64) async -> Result<Int32, RPCError> {
        do {
            return .success(try await server.homeDC(of: user) ?? dc)
        } catch {
            logger.error("cannot read the user's home DC", metadata: ["error": "\(error)"])
            return .failure(.internalError)
        }
    }

    /// Pushes that piled up for one session leave as one `updatesCombined`.
    func merge(_ pushes: [[UInt8]], for outlet: SessionOutlet) -> [UInt8]? {
        guard let owner = server.sessions.user(of: outlet) else { return nil }
        return UpdateMerging.combined(pushes, owner: owner)
    }

    func closed(_ outlet: SessionOutlet) {
        server.sessions.detach(outlet)
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
