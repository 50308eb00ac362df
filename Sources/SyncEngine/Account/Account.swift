import Foundation
import MTProto
import MTProtoNIO
import NIOCore
import NIOPosix
import Postbox
import TL

/// One Telegram account on this device, what an app embeds: its store (`store.sqlite`), its network state (keys,
/// login, data-center addresses: `network.json`) in one directory, so it survives restarts; log in by phone code,
/// send, mark read, live views of history and the chat list, events. Underneath: `ConnectionManager`,
/// `AccountStateManager` (updates, outbox) and `HistoryHoleFiller`, started once the account is logged in.
///
/// While logged in, the home data center's connection is kept open (`ConnectionManager.keepConnected`): after a drop
/// it is reopened by itself and the new session fetches what was missed, with no call by the app. A logout — the
/// app's `logOut()`, or the server's (`AUTH_KEY_UNREGISTERED`, `AUTH_KEY_DUPLICATED`, a session terminated elsewhere)
/// — stops syncing, clears the login and is announced as `AccountEvent.loggedOut`.
public actor Account {
    /// Where an account lives and how it reaches its server.
    public struct Configuration: Sendable {
        /// Holds `store.sqlite` and `network.json`.
        public var directory: String
        /// The data centers' addresses to start from (`help.getConfig` and discovery refine them later).
        public var addresses: DataCenterDirectory
        /// The data center to start from (a migration moves the account home).
        public var initialDC: Int32
        /// The server's RSA keys (what the key exchange and signed config blobs are checked against).
        public var publicKeys: [RSAPublicKey]
        /// Bots get a larger channel-difference limit.
        public var isBot: Bool
        /// Deadlines, gap waits and backoff (Telegram's values unless a test shortens them).
        public var timing: SyncTiming
        /// The main connection's pings, pong deadline and reconnect backoff.
        public var keepalive: ConnectionKeeperTiming
        /// On logout, empty the store (messages, peers, the operation log) instead of keeping it for the next login.
        public var wipeStoreOnLogout: Bool
        /// The clock and randomness everything of this account reads (the system's; a simulation passes a seeded one).
        public var environment: SyncEnvironment

        /// A configuration with Telegram's timing, the system's clock and randomness, and the store kept on logout.
        public init(directory: String, addresses: DataCenterDirectory, initialDC: Int32 = 2,
                    publicKeys: [RSAPublicKey], isBot: Bool = false, timing: SyncTiming = .standard,
                    keepalive: ConnectionKeeperTiming = ConnectionKeeperTiming(), wipeStoreOnLogout: Bool = false,
                    environment: SyncEnvironment = .live) {
            self.directory = directory
            self.addresses = addresses
            self.initialDC = initialDC
            self.publicKeys = publicKeys
            self.isBot = isBot
            self.timing = timing
            self.keepalive = keepalive
            self.wipeStoreOnLogout = wipeStoreOnLogout
            self.environment = environment
        }
    }

    /// The preference holding the logged-in user (TL `User`).
    static let selfKey = "account.self"
    /// `selfKey`, for tools that inspect a store.
    public static var selfPreferenceKey: String { selfKey }

    /// The store: views, transactions and events of everything synced.
    public nonisolated let postbox: Postbox
    /// The network: requests to any data center, pushes, session changes and logouts.
    public nonisolated let network: ConnectionManager
    private let configuration: Configuration
    private var updates: AccountStateManager?
    var holes: HistoryHoleFiller?
    private var chats: ChatListFiller?
    /// Refills the chat list after each `differenceTooLong`.
    private var refiller: Task<Void, Never>?
    /// Fetches a channel again after each `updateChannel` (`ChannelRefresher`).
    private var channelRefresher: Task<Void, Never>?
    /// The attempt to start syncing in progress (shared by whoever needs the managers meanwhile).
    private var starting: Task<(AccountStateManager, HistoryHoleFiller, ChatListFiller), any Error>?
    /// Retries a start that failed on a transient error (no network, no answer to `updates.getState`).
    private var restarter: Task<Void, Never>?
    var closed = false
    /// The logged-in user, nil before login and after a logout.
    public internal(set) var user: API.User.User?
    let broadcast = EventBroadcast<AccountEvent>()
    /// Held while this instance syncs the directory (`Account+Master.swift`).
    let lease: MasterLease
    /// This instance holds the lease and syncs; otherwise it follows the syncing process's commits.
    public internal(set) var isMaster = false
    /// Identifies this instance in the store's master client id while it syncs.
    let clientID: Int64
    /// While following: retries the lease every 100 ms.
    var follower: Task<Void, Never>?

    /// Photos and files: fetched into `media/` of the account's directory, uploaded with their progress in `uploads/`.
    public nonisolated let downloader: MediaDownloader
    nonisolated let uploader: MediaUploader

    private init(configuration: Configuration, postbox: Postbox, network: ConnectionManager) throws {
        self.configuration = configuration
        self.postbox = postbox
        self.network = network
        downloader = MediaDownloader(box: try MediaBox(directory: configuration.directory + "/media"), network: network)
        uploader = try MediaUploader(network: network, stateDirectory: configuration.directory + "/uploads")
        lease = MasterLease(directory: configuration.directory)
        clientID = configuration.environment.random.int64(in: 1...Int64.max)
    }

    /// Opens (or creates) the account in `configuration.directory`; a logged-in account starts syncing at once (or, when
    /// its store has no state yet and the server cannot be reached, as soon as it can). When another process already
    /// syncs the directory, this one follows its commits instead and takes over when it ends (`Account+Master.swift`).
    public static func open(_ configuration: Configuration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton)
        async throws -> Account {
        try FileManager.default.createDirectory(atPath: configuration.directory, withIntermediateDirectories: true)
        let file = NetworkStateFile(path: configuration.directory + "/network.json")
        let state = try file.load() ?? NetworkState(directory: configuration.addresses)
        let network = ConnectionManager(state: state, file: file, initialDC: configuration.initialDC,
                                        publicKeys: configuration.publicKeys, group: group,
                                        keepalive: configuration.keepalive, connectTimeout: configuration.timing.connectTimeout,
                                        requestTimeout: configuration.timing.requestTimeout, environment: configuration.environment)
        let postbox = try Postbox.open(at: configuration.directory + "/store.sqlite")
        try await StoreMapping.convertLegacyPeers(in: postbox)
        let account = try Account(configuration: configuration, postbox: postbox, network: network)
        Task { [weak account] in
            for await reason in network.loggedOut { await account?.networkLoggedOut(reason) }
        }
        await account.claim()
        return account
    }

    /// Whether a user is logged in.
    public var isLoggedIn: Bool { user != nil }

    /// `auth.sendCode` (following a migration to the account's home data center); returns the code's hash.
    public func requestCode(phone: String) async throws -> String {
        guard isMaster else { throw AccountError.notMaster }
        guard case let .sentCode(sent) = try await network.send(API.functions.auth.SendCode(
            phoneNumber: phone, apiId: 1, apiHash: "synccore", settings: .codeSettings(.init()))) else {
            throw AccountError.unsupportedPeer("auth.sendCode gave no code")
        }
        return sent.phoneCodeHash
    }

    /// `auth.signIn` with the code the user received; the account is logged in when this returns, and syncing unless
    /// the first state request failed (then it keeps trying, see `startSync`).
    ///
    /// A sign-in whose answer was lost to a reconnect is sent again with a new msg_id (`ClientSession`), and the server
    /// refuses the code it already used (`PHONE_CODE_EXPIRED`) although the key is now signed in: then the key's own
    /// user (`users.getUsers` of `inputUserSelf`) is the answer. A code that truly expired leaves the key unauthorized,
    /// and the refusal stands.
    @discardableResult
    public func signIn(phone: String, code: String, codeHash: String) async throws -> API.User.User {
        guard isMaster else { throw AccountError.notMaster }
        let signedIn: API.User
        do {
            guard case let .authorization(authorization) = try await network.send(API.functions.auth.SignIn(
                phoneNumber: phone, phoneCodeHash: codeHash, phoneCode: code)) else {
                throw AccountError.unsupportedPeer("auth.signIn gave no user")
            }
            signedIn = authorization.user
        } catch let MTProtoClientError.rpc(refusal) where refusal.message == "PHONE_CODE_EXPIRED" {
            guard let me = try? await network.send(API.functions.users.GetUsers(id: [.inputUserSelf(.init())])).first else {
                throw MTProtoClientError.rpc(refusal)
            }
            signedIn = me
        }
        guard case let .user(user) = signedIn else { throw AccountError.unsupportedPeer("auth.signIn gave no user") }
        try await network.authorized(userID: user.id)
        try await storeSelf(signedIn)
        await startSync(as: user)
        return user
    }

    /// The account is logged in from here on. Syncing starts now; if it cannot (a fresh store asks `updates.getState`,
    /// which needs the network), it is retried in the background with the timing's backoff while the error is
    /// transient, and once more by the next call that needs it. Before, the failed start left an account that said it
    /// was logged in and never synced: under CI's full load a simulated account's `getState` timed out after login.
    func startSync(as user: API.User.User) async {
        self.user = user
        await network.keepConnected(true)
        do {
            _ = try await syncing()
        } catch {
            keepStarting(after: error)
        }
    }

    /// The running update manager, started first if it is not (one attempt, shared by concurrent callers).
    func syncing() async throws -> AccountStateManager {
        if let updates { return updates }
        guard !closed else { throw AccountError.closed }
        guard isMaster else { throw AccountError.notMaster }
        guard let user else { throw AccountError.notLoggedIn }
        let attempt = starting ?? Task { [postbox, network, configuration, broadcast] in
            let updates = try await AccountStateManager.start(postbox: postbox, network: network, selfID: user.id,
                                                              isBot: configuration.isBot, timing: configuration.timing,
                                                              broadcast: broadcast)
            let holes = HistoryHoleFiller(postbox: postbox, network: network)
            await holes.start()
            let chats = ChatListFiller(postbox: postbox, network: network, timing: configuration.timing)
            await chats.fill()
            return (updates, holes, chats)
        }
        starting = attempt
        defer { if starting == attempt { starting = nil } }
        let (started, holes, chats) = try await attempt.value
        if let updates { return updates }   // another caller of the same attempt got here first
        guard !closed, self.user != nil else {   // the property: a logout during the start
            await chats.stop()
            await holes.stop()
            await started.stop()
            throw closed ? AccountError.closed : AccountError.notLoggedIn
        }
        (self.updates, self.holes, self.chats) = (started, holes, chats)
        let tooLong = broadcast.subscribe()
        refiller = Task {
            for await event in tooLong where event == .differenceTooLong { await chats.fill() }
        }
        let channelEvents = broadcast.subscribe()
        channelRefresher = Task { [postbox, network] in
            await ChannelRefresher(postbox: postbox, fetch: { try await network.send($0) }).run(channelEvents)
        }
        return started
    }

    /// Tries again after the timing's backoff while the failure is transient, until syncing runs or the account closes.
    private func keepStarting(after error: any Error) {
        restarter = Task { [weak self, timing = configuration.timing, environment] in
            var (error, failures) = (error, 0)
            while let delay = timing.retryDelay(AccountStateManager.rpcError(error), failures: failures) {
                try? await environment.sleep(seconds: delay)
                guard !Task.isCancelled, let self else { return }
                do {
                    _ = try await self.syncing()
                    return
                } catch AccountError.closed {
                    return
                } catch let next {
                    (error, failures) = (next, failures + 1)
                }
            }
        }
    }

    /// Updates as they are stored, and resets, from now on (each access subscribes anew; only while logged in).
    public nonisolated var events: AsyncStream<AccountEvent> { broadcast.subscribe() }

    /// A username's peer: the stored user or channel that has it, else `contacts.resolveUsername`, whose peer is stored
    /// (with its access hash).
    public func resolve(username: String) async throws -> PeerID {
        // A name the store knows needs no server (and works offline), as Telegram apps resolve what they have seen.
        if let known = try await postbox.read({ try $0.peer(username: username) }) { return known.id }
        guard case let .resolvedPeer(found) = try await network.send(API.functions.contacts.ResolveUsername(username: username)) else {
            throw AccountError.unsupportedPeer("@\(username)")
        }
        let peers = StoreMapping.peers(users: found.users, chats: found.chats)
        _ = try await postbox.transaction { transaction in
            try StoreMapping.store(peers, in: transaction)
        }
        return StoreMapping.peerID(found.peer)
    }

    /// `channels.joinChannel`: the answer's updates (the channel, its state) go through the sequencer like any other.
    public func join(channel peer: PeerID) async throws {
        guard case let .inputPeerChannel(channel) = try await inputPeer(peer) else {
            throw AccountError.unsupportedPeer("\(peer) is not a channel")
        }
        let result = try await network.send(API.functions.channels.JoinChannel(
            channel: .inputChannel(.init(channelId: channel.channelId, accessHash: channel.accessHash))))
        // Layer 229 wraps the updates; a web-view answer carries none (the channel's updates then come by difference).
        if case let .chatInviteJoinResultOk(joined) = result { try await syncing().sent(joined.updates) }
    }

    /// Queues a message (shown at once as unsent; see `AccountStateManager.send`), as a reply to message `replyTo` of
    /// the chat if given (the stored message's `reply` header). The handle gives the local copy and follows the send
    /// to the server's message or its refusal (`OutgoingMessage`).
    @discardableResult
    public func send(_ text: String, to peer: PeerID, replyTo: Int32? = nil) async throws -> OutgoingMessage {
        let selfID = try loggedInID()   // (a send after a logout is `notLoggedIn`, whatever its peer)
        let outcomes = broadcast.subscribe()   // before the send is queued: its outcome cannot come first
        let input = try await inputPeer(peer)
        guard let manager = try await syncingIfItCanStart() else {
            let local = try await AccountStateManager.queueSend(text, to: input, replyTo: replyTo, selfID: selfID,
                                                               in: postbox, environment: network.environment)
            return OutgoingMessage(local: local, events: outcomes, follows: !isMaster)
        }
        return OutgoingMessage(local: try await manager.send(text, to: input, replyTo: replyTo), events: outcomes, follows: false)
    }

    /// Marks `peer`'s history read up to `maxID`, here at once and on the server through the operation log.
    public func markRead(_ peer: PeerID, upTo maxID: Int32) async throws {
        let selfID = try loggedInID()
        let input = try await inputPeer(peer)
        guard let manager = try await syncingIfItCanStart() else {
            return try await AccountStateManager.queueRead(input, upTo: maxID, selfID: selfID, in: postbox)
        }
        try await manager.markRead(input, upTo: maxID)
    }

    /// A live window of `peer`'s history (its holes are fetched while it is open).
    public nonisolated func history(_ peer: PeerID, count: Int = 50) -> AsyncThrowingStream<ViewUpdate<MessageHistoryView.Snapshot>, any Error> {
        postbox.view(MessageHistoryView(peer: peer, namespace: StoreMapping.cloudMessages, count: count))
    }

    /// A live chat list.
    public nonisolated func chatList(count: Int = 50) -> AsyncThrowingStream<ViewUpdate<ChatListView.Snapshot>, any Error> {
        postbox.view(ChatListView(count: count))
    }

    /// Returns once everything received so far is stored and no difference, gap or postponed update is pending.
    public func synced() async throws {
        try await syncing().synced()
    }

    /// Runs `body` in its own transaction after every update operation queued before it is committed.
    public func perform(_ body: @escaping @Sendable (Transaction) throws -> Void) async throws {
        try await syncing().perform(body)
    }

    /// Sends, read marks and account changes written locally and not yet confirmed by the server (the operation log's
    /// entries).
    public var pendingOperationCount: Int {
        get async throws {
            try await postbox.read { transaction in
                try transaction.operations(tag: OutboxEntry.sendTag).count + transaction.operations(tag: ReadEntry.tag).count
                    + transaction.operations(tag: AccountChangeEntry.tag).count
            }
        }
    }

    /// `updates.getDifference` requests the running sync has sent (0 before it starts), for tests and benchmarks.
    public var differenceRequests: Int {
        get async { await updates?.differenceRequests ?? 0 }
    }

    /// The committed update state (nil before login, and until syncing has started).
    public var syncState: SyncState? {
        get async { await updates?.state }
    }

    /// `auth.logOut`, then the same as a logout by the server: syncing stops, the login is cleared, the store is kept or
    /// wiped (`wipeStoreOnLogout`), and `AccountEvent.loggedOut(.requested)` is emitted. The account may log in again.
    public func logOut() async {
        guard user != nil else { return }
        // Syncing stops first: its calls racing the server's logout would come back AUTH_KEY_UNREGISTERED.
        await endLogin(.requested)
        await network.logOut()
    }

    private func networkLoggedOut(_ error: NetworkError) async {
        switch error {
        case .authKeyDuplicated: await endLogin(.authKeyDuplicated)
        case let .loggedOutByServer(message): await endLogin(.revoked(message))
        default: break
        }
    }

    /// Stops the managers, forgets the login (the stored self, and the whole store if so configured) and says why.
    private func endLogin(_ reason: LogoutReason) async {
        guard user != nil, !closed else { return }
        user = nil
        restarter?.cancel()
        restarter = nil
        starting?.cancel()
        starting = nil
        await network.keepConnected(false)
        await stopManagers()
        let wipe = configuration.wipeStoreOnLogout
        _ = try? await postbox.transaction { transaction in
            if wipe { try transaction.removeAllData() } else { try transaction.removePreference(Self.selfKey) }
        }
        broadcast.yield(.loggedOut(reason))
    }

    /// Stops syncing and closes the connections; the directory keeps everything for the next `open`.
    public func close() async {
        closed = true
        follower?.cancel()
        restarter?.cancel()
        restarter = nil
        await stopManagers()
        lease.release()
        broadcast.finish()
        await network.close()
    }


    private func stopManagers() async {
        refiller?.cancel()
        channelRefresher?.cancel()
        await chats?.stop()
        await holes?.stop()
        await updates?.stop()
        (refiller, channelRefresher, chats, holes, updates) = (nil, nil, nil, nil, nil)
    }

    /// Returns once the chat list's fill in progress (from the login, or after a `differenceTooLong`) has ended.
    public func chatListFilled() async throws {
        guard isMaster else {   // the syncing process fills it; its commits show here
            while try await postbox.read({ try $0.chatListHole }) != nil, !closed { try await environment.sleep(.milliseconds(50)) }
            return
        }
        _ = try await syncing()
        await chats?.finished()
    }

    /// The clock and randomness this account reads.
    var environment: SyncEnvironment { configuration.environment }

    func inputPeer(_ peer: PeerID) async throws -> API.InputPeer {
        if let user, peer == StoreMapping.user(user.id) { return .inputPeerSelf(.init()) }
        let stored = try await postbox.read { try $0.peer(peer) }
        guard let input = StoreMapping.inputPeer(peer, stored: stored) else { throw AccountError.unsupportedPeer("\(peer) is not known") }
        return input
    }
}
