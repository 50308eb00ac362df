import Logging
import MTProto
import MTProtoNIO
import TL

/// The reference server in this process, with no sockets: a call goes straight to its method (`dispatch`, as from a
/// connection), and what the server pushes to a session is handed to that session's function before the call
/// returns. Everything else — storage, counters, logs, differences, push routing, the environment's clock and
/// randomness — is the server's own, so a program that drives it one call at a time sees exactly what a client of
/// `SyncServer` would, in an order it decides (the deterministic simulation, `DeterministicSimulation`).
public final class LocalServer: Sendable {
    private let context: ServerContext
    private let router: RPCRouter
    public let dc: Int32

    private init(context: ServerContext, dc: Int32) {
        self.context = context
        self.dc = dc
        router = MethodTable.router(context, dc: dc, options: [DCAddress(dc: dc, host: context.configuration.advertisedHost, port: 0)])
    }

    /// Opens the configured storage (the data directory's SQLite file or PostgreSQL), seeded as configured; serves
    /// the first configured DC.
    public static func start(_ configuration: SyncServerConfiguration, logger: Logger) async throws -> LocalServer {
        _ = try DataDirectoryPermissions.secure(directory: configuration.dataDirectory)
        let storage = try await SyncServer.openStorage(configuration, logger: logger)
        let context = ServerContext(storage: storage, configuration: configuration, logger: logger)
        do {
            if configuration.seedDevAccounts {
                try await AccountSeed.seed(storage, dcs: configuration.servedDCs, date: context.now)
            }
        } catch {
            await storage.close()
            throw error
        }
        return LocalServer(context: context, dc: configuration.servedDCs.first ?? 2)
    }

    /// Logs `authKeyID` in as `user` (as `auth.signIn` would), or out (nil).
    public func login(authKeyID: UInt64, as user: Int64?) async throws {
        try await context.bind(authKeyID: authKeyID, to: user)
    }

    /// A session of `authKeyID`: pushes to it go to `pushes`, on the pushing call's task; `closed` is called where
    /// a connection would be closed (its key was logged out).
    public func session(authKeyID: UInt64, sessionID: Int64, pushes: @escaping @Sendable ([UInt8]) -> Void,
                        closed: @escaping @Sendable () -> Void = {}) -> SessionOutlet {
        let context = self.context
        return SessionOutlet(authKeyID: authKeyID, sessionID: sessionID, merge: { bodies, outlet in context.merge(bodies, for: outlet) },
                             sink: pushes, close: closed)
    }

    /// The session's connection is gone: no push reaches it again.
    public func close(_ session: SessionOutlet) {
        context.sessions.detach(session)
    }

    /// Calls `function` on `session`; the answer as the server serialized it.
    public func call(_ function: some TLFunction, messageID: Int64, session: SessionOutlet) async -> Result<[UInt8], RPCError> {
        let rpc = IncomingRPC(messageID: messageID, sessionID: session.sessionID, function: TLAnyFunction(function))
        return await context.dispatch(rpc, authKeyID: session.authKeyID, outlet: session, dc: dc, router: router)
    }

    /// Closes the storage once the writes it accepted are durable.
    public func stop() async {
        await context.storage.close()
    }
}
