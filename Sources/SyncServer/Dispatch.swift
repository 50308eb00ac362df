import Logging
import MTProto
import MTProtoNIO

/// One call from a session to its method, the same for a connection (`ServerDelegate`) and an in-process session
/// (`LocalServer`): the key's login, the home DC rule, the session made online, the answer's byte cap.
extension ServerContext {
    /// The largest answer sent: what clients accept in one frame, less room for the envelope. The input limits and
    /// byte-sliced pages keep every answer far below it; an answer past it would be a frame clients refuse.
    static let maximumAnswerBytes = 8 << 20

    func dispatch(_ rpc: IncomingRPC, authKeyID: UInt64, outlet: SessionOutlet, dc: Int32, router: RPCRouter) async -> Result<[UInt8], RPCError> {
        let user: Int64?
        do {
            user = try await self.user(authKeyID: authKeyID)
        } catch {
            logger.error("cannot read the key's authorization", metadata: ["error": "\(error)"])
            return .failure(.internalError)
        }
        let method = rpc.function.constructorName
        // A user's data lives on their home DC: elsewhere only DC-independent methods are answered (core.telegram.org/api/datacenter).
        if let user, !RPCRouter.worksOnAnyDC(method) {
            switch await homeDC(of: user, servedAt: dc) {
            case let .failure(error): return .failure(error)
            case let .success(home) where home != dc: return .failure(RPCError(code: 303, message: "USER_MIGRATE_\(home)"))
            case .success: break
            }
        }
        // A logged-in session is online: it gets pushes from now on.
        if let user { sessions.attach(outlet, user: user) }
        logger.trace("rpc", metadata: ["method": "\(method)", "user": "\(user.map(String.init) ?? "-")", "dc": "\(dc)"])
        var result = await CurrentCall.$method.withValue(method) {
            await router.handle(RPCContext(rpc: rpc, authKeyID: authKeyID, userID: user, outlet: outlet, dc: dc))
        }
        if case let .success(bytes) = result, bytes.count > Self.maximumAnswerBytes {
            logger.error("answer over the byte cap", metadata: ["method": "\(method)", "bytes": "\(bytes.count)"])
            result = .failure(.internalError)
        }
        // A call that logged the key in (auth.signIn/signUp) bound it through the context's cache: no storage read.
        if user == nil, case .success = result, let bound = try? await self.user(authKeyID: authKeyID) {
            sessions.attach(outlet, user: bound)
        }
        ServerMetrics.rpc(method, failed: result.isFailure)
        callsAnswered.add(1, ordering: .relaxed)
        if case let .failure(error) = result {
            logger.debug("rpc_error", metadata: ["method": "\(method)", "error": "\(error)"])
        }
        return result
    }

    private func homeDC(of user: Int64, servedAt dc: Int32) async -> Result<Int32, RPCError> {
        do {
            return .success(try await homeDC(of: user) ?? dc)
        } catch {
            logger.error("cannot read the user's home DC", metadata: ["error": "\(error)"])
            return .failure(.internalError)
        }
    }

    /// Pushes that piled up for one session leave as one `updatesCombined`.
    func merge(_ pushes: [[UInt8]], for outlet: SessionOutlet) -> [UInt8]? {
        guard let owner = sessions.user(of: outlet) else { return nil }
        return UpdateMerging.combined(pushes, owner: owner)
    }
}
