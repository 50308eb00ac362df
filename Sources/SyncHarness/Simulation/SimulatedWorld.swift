import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOPosix
import Postbox
import SyncEngine
import SyncServer
import TL

/// The server, the faulty relay, the three accounts and Alice's other device of one simulated run, in a scratch
/// directory. The accounts reach the server only through the relay; the other device connects straight to it.
actor SimulatedWorld {
    /// Telegram's delays scaled down about tenfold: the rules are the same, a run waits less. The silence timer
    /// (5 s) outlasts an idle period's deadline, so what an idle account receives, its own reconnect brought.
    static let timing = SyncTiming(possibleGapWait: 0.1, noUpdatesTimeout: 5, retryBase: 0.05, retryCap: 0.4,
                                   connectTimeout: .seconds(2), requestTimeout: .seconds(1))
    /// Pings every 2 s, a silent path given up after 1 s without a pong.
    static let keepalive = ConnectionKeeperTiming(keepaliveInterval: 2, pongTimeout: 1)
    static let userIDs: [Int64] = [1001, 1002, 1003]
    static let loungeID: Int64 = 2002
    /// The seeded access hashes (`AccountSeed`): users 0x5EED_0000 + index, @lounge 0x5EED_1001.
    static let loungeInput = API.InputPeer.inputPeerChannel(.init(channelId: loungeID, accessHash: 0x5EED_1001))
    static func userInput(_ index: Int) -> API.InputPeer {
        .inputPeerUser(.init(userId: userIDs[index], accessHash: 0x5EED_0000 + Int64(index)))
    }

    static func inputUser(_ index: Int) -> API.InputUser {
        .inputUser(.init(userId: userIDs[index], accessHash: 0x5EED_0000 + Int64(index)))
    }

    let root: String
    let plan: SimulationPlan
    private var configuration: SyncServerConfiguration
    private var server: SyncServer?
    let relay: FaultyRelay
    private(set) var accounts: [Account]
    let otherDevice: ConnectionManager
    let ledgers: [DeliveryLedger]
    /// Each user's truth before the run (`SimulationVerdict`'s baseline).
    private(set) var baselines: [ChatsView] = []
    /// Each user's watcher of their current account's events.
    private var watchers: [Int: Task<Void, Never>] = [:]
    /// Users whose account was restarted (their events may miss what committed just before a close).
    private(set) var restarted: Set<Int> = []
    /// `logOutAndIn` steps per user (each must have been announced once as `AccountEvent.loggedOut(.requested)`).
    private(set) var logouts: [Int: Int] = [:]
    private static let quiet = Logger(label: "simulation", factory: { _ in SwiftLogNoOpLogHandler() })
    /// One server RSA key for every run of the process (generating one per run would dominate a run's time).
    private static let serverKey = Result { try RSAPrivateKey.generate(bits: 2048) }

    private init(root: String, plan: SimulationPlan, configuration: SyncServerConfiguration, server: SyncServer,
                 relay: FaultyRelay, accounts: [Account], otherDevice: ConnectionManager) {
        self.root = root
        self.plan = plan
        self.configuration = configuration
        self.server = server
        self.relay = relay
        self.accounts = accounts
        self.otherDevice = otherDevice
        ledgers = accounts.indices.map { _ in DeliveryLedger() }
    }

    /// Starts the server and the relay, logs the three accounts in through the relay and Alice's other device
    /// straight in, and has every account learn @lounge's pts from a first post (without faults).
    static func make(plan: SimulationPlan) async throws -> SimulatedWorld {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-sim-\(plan.seed)-\(UUID().uuidString)").path
        var configuration = SyncServerConfiguration(
            port: 0, dc: 2, dataDirectory: root + "/server", loginCode: "12345", seedDevAccounts: true,
            differencePageSize: plan.differencePageSize, channelTooLongThreshold: plan.channelTooLongThreshold, sendsPerSecond: 0,
            initialRSAKey: try serverKey.get())
        let server = try await SyncServer.start(configuration, logger: quiet)
        configuration.port = server.port   // restarts bind the same port
        let relay: FaultyRelay
        do {
            relay = try await FaultyRelay.start(targetPort: server.port, seed: plan.seed)
        } catch {
            try? await server.stop()
            try? FileManager.default.removeItem(atPath: root)
            throw error
        }
        // A setup that fails closes what it opened: a run that could not start leaves no server or account running.
        var accounts: [Account] = []
        var otherDevice: ConnectionManager?
        do {
            return try await populate(root: root, plan: plan, configuration: configuration, server: server, relay: relay,
                                      accounts: &accounts, otherDevice: &otherDevice)
        } catch {
            for account in accounts { await account.close() }
            await otherDevice?.close()
            await relay.stop()
            try? await server.stop()
            try? FileManager.default.removeItem(atPath: root)
            throw error
        }
    }

    /// Logs the accounts and Alice's other device in, and has every account learn @lounge's pts.
    private static func populate(root: String, plan: SimulationPlan, configuration: SyncServerConfiguration, server: SyncServer,
                                 relay: FaultyRelay, accounts: inout [Account], otherDevice device: inout ConnectionManager?)
        async throws -> SimulatedWorld {
        let key = server.keys.rsaKey.publicKey
        for (index, phone) in SimulationPlan.phones.enumerated() {
            let account = try await Account.open(Self.accountConfiguration(root: root, user: index, relayPort: relay.port, key: key))
            accounts.append(account)
            try await Self.retrying {
                if await !account.isLoggedIn {
                    let hash = try await account.requestCode(phone: phone)
                    try await account.signIn(phone: phone, code: "12345", codeHash: hash)
                }
                for name in ["alice", "bob", "carol", "lounge"] where name != SimulationPlan.names[index].lowercased() {
                    _ = try await account.resolve(username: name)
                }
            }
        }
        let otherDevice = ConnectionManager(state: NetworkState(directory: .loopback([2: server.port])), initialDC: 2,
                                            publicKeys: [key], group: MultiThreadedEventLoopGroup.singleton,
                                            connectTimeout: .seconds(2), requestTimeout: .seconds(2))
        device = otherDevice
        try await Self.retrying { try await otherDevice.logIn(phone: SimulationPlan.phones[0]) }
        let world = SimulatedWorld(root: root, plan: plan, configuration: configuration, server: server, relay: relay,
                                   accounts: accounts, otherDevice: otherDevice)
        for index in accounts.indices { await world.watch(index) }
        do {
            for (index, account) in accounts.enumerated() {
                await world.setBaseline(try await ChatsView.server(user: index, network: account.network))
            }
            // Every account learns @lounge's pts from a post.
            let hello = API.functions.messages.SendMessage(peer: loungeInput, message: "hello", randomId: .random(in: 1...Int64.max))
            try await Self.retrying { _ = try await otherDevice.send(hello) }   // one random_id: a retry is the same post
            var learnt = true
            for account in accounts where learnt {
                learnt = try await Self.eventually(seconds: 30, { await account.syncState?.channels[loungeID] != nil })
            }
            guard learnt else { throw SimulationSetupError("an account never learnt @lounge's pts") }
        } catch {
            await world.stop()   // the world closes what it holds; the caller's clean-up then finds nothing open
            (accounts, device) = ([], nil)
            throw error
        }
        return world
    }

    static func accountConfiguration(root: String, user: Int, relayPort: Int, key: RSAPublicKey) -> Account.Configuration {
        Account.Configuration(directory: root + "/" + SimulationPlan.names[user].lowercased(), addresses: .loopback([2: relayPort]),
                              publicKeys: [key], timing: timing, keepalive: keepalive)
    }

    /// Records what `user`'s account delivers and the committed state after each event.
    private func watch(_ user: Int) {
        let account = accounts[user], ledger = ledgers[user]
        // Subscribed here, not inside the task: an event the account announces before the task first runs (a logout
        // right after a restart) would otherwise reach no subscriber (seed 7 lost one so in CI).
        let events = account.events
        watchers[user] = Task {
            for await event in events {
                ledger.record(event)
                if let state = await account.syncState { ledger.observe(state) }
            }
        }
    }

    func account(_ user: Int) -> Account { accounts[user] }

    private func setBaseline(_ view: ChatsView) { baselines.append(view) }

    /// Closes `user`'s account and opens it again from its directory.
    func restartClient(_ user: Int) async throws {
        if let state = await accounts[user].syncState { ledgers[user].observe(state) }
        await accounts[user].close()
        // The closed account's events still buffered are drained now: drained later, the states they observe (the
        // closed account's) would come after the new account's and look like counters going back.
        await watchers[user]?.value
        restarted.insert(user)
        let key = try Self.serverKey.get().publicKey   // every server of the run has it (stored at its first start)
        let account = try await Account.open(Self.accountConfiguration(root: root, user: user, relayPort: relay.port, key: key))
        guard await account.isLoggedIn else {
            // Which half of the login was gone says who forgot it: the network state (a 401 or a replaced key) or the store.
            let key = await account.network.networkState.keys[await account.network.masterDC]
            let stored = try? await account.postbox.read { try $0.preference(Account.selfPreferenceKey) }
            throw SimulationSetupError("\(SimulationPlan.names[user]) is not logged in after a restart (home key: "
                + "\(key == nil ? "none" : "user \(key?.userID.map(String.init) ?? "none")"), stored self: \(stored == nil ? "none" : "kept"), "
                + "logouts heard: \(ledgers[user].logouts))")
        }
        if let state = await account.syncState { ledgers[user].observe(state) }
        accounts[user] = account
        watch(user)
    }

    /// Logs `user` out (the store kept) and in again; the events in between say so.
    func logOutAndIn(_ user: Int) async throws {
        let account = accounts[user]
        await account.logOut()
        guard await !account.isLoggedIn else { throw SimulationSetupError("\(SimulationPlan.names[user]) is still logged in") }
        try await Self.retrying {
            let hash = try await account.requestCode(phone: SimulationPlan.phones[user])
            try await account.signIn(phone: SimulationPlan.phones[user], code: "12345", codeHash: hash)
        }
        logouts[user, default: 0] += 1
    }

    /// Stops the server (connections refused meanwhile) and starts it again on the same data and port.
    func restartServer() async throws {
        relay.setTarget(nil)
        try await server?.stop()
        server = nil
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                server = try await SyncServer.start(configuration, logger: Self.quiet)
                break
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        guard server != nil else { throw SimulationSetupError("the server did not restart: \(lastError.map { "\($0)" } ?? "")") }
        relay.setTarget(configuration.port)
    }

    /// Closes everything and removes the directory.
    func stop() async {
        for watcher in watchers.values { watcher.cancel() }
        for account in accounts { await account.close() }
        await otherDevice.close()
        await relay.stop()
        try? await server?.stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Setup and the checker run without faults, but their short deadlines can pass on a loaded machine: each step is
    /// tried up to 5 times.
    @discardableResult
    static func retrying<T>(_ body: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch {
                guard attempt < 5, !(error is CancellationError) else { throw error }
                attempt += 1
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Waits (up to `seconds`) until `condition` holds.
    static func eventually(seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }
}

/// The simulated world could not be built or kept running (not a sync violation; the run fails with its seed).
struct SimulationSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
