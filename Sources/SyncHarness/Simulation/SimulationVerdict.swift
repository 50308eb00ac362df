import MTProtoNIO
import Postbox
import SyncEngine
import TL

/// A message as both sides can state it: what the server's history says and what the store holds must agree on all
/// of it (an out message's author is the user itself, whichever way it was learnt).
struct MessageFacts: Hashable, Sendable, CustomStringConvertible {
    let id: MessageID
    let timestamp: Int32
    let incoming: Bool
    let author: PeerID?
    let text: String
    /// The message of the chat it replies to, by its id in this user's box.
    let replyTo: Int32?
    let pinned: Bool

    init(_ message: Message) {
        id = message.id
        timestamp = message.timestamp
        incoming = message.flags.contains(.incoming)
        author = incoming ? message.author : nil
        text = message.text
        replyTo = message.reply?.messageID
        pinned = message.tags.contains(StoreMapping.pinnedTag)
    }

    var description: String {
        "\(id) \(incoming ? "in" : "out") \(timestamp) \"\(text)\"\(replyTo.map { " ↩ \($0)" } ?? "")\(pinned ? " 📌" : "")"
    }
}

/// Where the verdict asks the server for its truth: an account's connection, or a session of an in-process server.
protocol TruthSource: Sendable {
    func ask<Function: TLFunction>(_ function: Function) async throws -> Function.Result
}

extension ConnectionManager: TruthSource {
    /// The checker's own requests: not what is under test, so a slow answer on a loaded machine (the simulation's
    /// deadlines are short) is asked again rather than failing the run.
    nonisolated func ask<Function: TLFunction>(_ function: Function) async throws -> Function.Result {
        try await SimulatedWorld.retrying { try await self.send(function) }
    }
}

/// A contact as one side lists it: the user and the name saved for them (mutual flags are left out: the other users
/// never edit their lists in these runs).
struct SimulatedContact: Sendable, Equatable, CustomStringConvertible {
    var chat: SimulatedChat
    var name: String
    var description: String { "\(chat) as \(name)" }
}

/// One side's view of a user's chats: the server's (through the API) or the store's.
struct ChatsView: Sendable {
    var pts: Int32 = 0
    var seq: Int32 = 0
    /// The user's own first name, pinned chats, blocked users and contacts, as the server has them or the store holds
    /// them.
    var firstName: String?
    var pinned: [SimulatedChat] = []
    var blocked: [SimulatedChat] = []
    var contacts: [SimulatedContact] = []
    var loungePts: Int32?
    var messages: [SimulatedChat: [MessageFacts]] = [:]
    var readInbox: [SimulatedChat: Int32] = [:]
    var readOutbox: [SimulatedChat: Int32] = [:]
    /// Store only: history ranges not known locally, and messages still unsent or failed.
    var holes: [SimulatedChat: [ClosedRange<Int32>]] = [:]
    var local: [MessageFacts] = []

    static func chats(of user: Int) -> [SimulatedChat] {
        SimulationPlan.names.indices.filter { $0 != user }.map(SimulatedChat.user) + [.lounge]
    }

    static func peer(_ chat: SimulatedChat) -> PeerID {
        switch chat {
        case let .user(index): StoreMapping.user(SimulatedWorld.userIDs[index])
        case .lounge: StoreMapping.channel(SimulatedWorld.loungeID)
        }
    }

    static func input(_ chat: SimulatedChat) -> API.InputPeer {
        switch chat {
        case let .user(index): SimulatedWorld.userInput(index)
        case .lounge: SimulatedWorld.loungeInput
        }
    }

    /// The server's truth for `user`, asked over the user's own connection: state, dialogs and every chat's history.
    static func server(user: Int, network: some TruthSource) async throws -> ChatsView {
        var view = ChatsView()
        guard case let .state(state) = try await ask(API.functions.updates.GetState(), network) else { return view }
        view.pts = state.pts
        view.seq = state.seq
        if case let .user(me)? = try await ask(API.functions.users.GetUsers(id: [.inputUserSelf(.init())]), network).first {
            view.firstName = me.firstName
        }
        view.pinned = try await pinnedChats(network: network)
        view.blocked = try await blockedChats(network: network)
        view.contacts = try await contacts(network: network)
        let dialogs = try await ask(API.functions.messages.GetDialogs(offsetDate: 0, offsetId: 0, offsetPeer: .inputPeerEmpty(.init()),
                                                                      limit: 100, hash: 0), network).parts.dialogs
        for case let .dialog(dialog) in dialogs {
            guard let chat = chats(of: user).first(where: { peer($0) == StoreMapping.peerID(dialog.peer) }) else { continue }
            view.readInbox[chat] = dialog.readInboxMaxId
            view.readOutbox[chat] = dialog.readOutboxMaxId
            if chat == .lounge { view.loungePts = dialog.pts }
        }
        for chat in chats(of: user) {
            var offset: Int32 = 0
            var facts: [MessageFacts] = []
            while true {
                let page = try await history(of: chat, below: offset, limit: 100, network: network)
                let stored = page.compactMap(StoreMapping.message)
                facts += stored.map(MessageFacts.init)
                guard let lowest = stored.map(\.id.id).min(), stored.count == 100 else { break }
                offset = lowest
            }
            view.messages[chat] = facts.sorted { $0.id < $1.id }
        }
        return view
    }

    /// One `messages.getHistory` page of `chat`, newest first, below `offset` (0: the newest).
    static func history(of chat: SimulatedChat, below offset: Int32, limit: Int32, network: some TruthSource) async throws -> [API.Message] {
        try await ask(API.functions.messages.GetHistory(
            peer: input(chat), offsetId: offset, offsetDate: 0, addOffset: 0, limit: limit, maxId: 0, minId: 0, hash: 0), network).messages
    }

    /// The user's pinned chats, in order.
    static func pinnedChats(network: some TruthSource) async throws -> [SimulatedChat] {
        guard case let .peerDialogs(pinned) = try await ask(API.functions.messages.GetPinnedDialogs(folderId: 0), network) else { return [] }
        return pinned.dialogs.compactMap { dialog in
            guard case let .dialog(value) = dialog else { return nil }
            return chat(of: StoreMapping.peerID(value.peer))
        }
    }

    /// The users the user blocked, in index order.
    static func blockedChats(network: some TruthSource) async throws -> [SimulatedChat] {
        let entries: [API.PeerBlocked] = switch try await ask(API.functions.contacts.GetBlocked(offset: 0, limit: 100), network) {
        case let .blocked(value): value.blocked
        case let .blockedSlice(value): value.blocked
        }
        return entries.compactMap { entry in
            guard case let .peerBlocked(value) = entry else { return nil }
            return chat(of: StoreMapping.peerID(value.peerId))
        }.sorted(by: ordered)
    }

    /// The user's contacts, in index order, under their saved names.
    static func contacts(network: some TruthSource) async throws -> [SimulatedContact] {
        guard case let .contacts(list) = try await ask(API.functions.contacts.GetContacts(hash: 0), network) else { return [] }
        var names: [Int64: String] = [:]
        for case let .user(user) in list.users { names[user.id] = [user.firstName, user.lastName].compactMap { $0 }.joined(separator: " ") }
        return list.contacts.compactMap { contact -> SimulatedContact? in
            guard case let .contact(value) = contact, let chat = chat(of: StoreMapping.user(value.userId)) else { return nil }
            return SimulatedContact(chat: chat, name: names[value.userId] ?? "")
        }.sorted { ordered($0.chat, $1.chat) }
    }

    static func ordered(_ lhs: SimulatedChat, _ rhs: SimulatedChat) -> Bool {
        switch (lhs, rhs) {
        case let (.user(left), .user(right)): left < right
        case (.user, .lounge): true
        case (.lounge, _): false
        }
    }

    /// The chat of a peer (nil: not one of the world's).
    static func chat(of peer: PeerID) -> SimulatedChat? {
        (SimulationPlan.names.indices.map(SimulatedChat.user) + [.lounge]).first { self.peer($0) == peer }
    }

    /// Alice's other device's newest own message in `chat` (among the latest 20), with whether it is pinned: what
    /// both simulations edit, pin or delete.
    static func newestOwnMessage(in chat: SimulatedChat, network: some TruthSource) async throws -> (id: Int32, pinned: Bool)? {
        for case let .message(message) in try await history(of: chat, below: 0, limit: 20, network: network) where message.out {
            return (message.id, message.pinned)
        }
        return nil
    }

    static func ask<Function: TLFunction>(_ function: Function, _ network: some TruthSource) async throws -> Function.Result {
        try await network.ask(function)
    }

    /// What `user`'s store holds.
    static func stored(user: Int, postbox: Postbox) async throws -> ChatsView {
        try await postbox.read { transaction in
            var view = ChatsView()
            let state = try transaction.cursor.flatMap(StoreMapping.state(fromCursor:))
            view.pts = state?.pts ?? 0
            view.seq = state?.seq ?? 0
            if let data = try transaction.preference(Account.selfPreferenceKey), case let .user(me)? = try? API.User.deserialize(data) {
                view.firstName = me.firstName
            }
            view.pinned = try transaction.pinnedChats().compactMap(chat(of:))
            view.blocked = try transaction.blockedPeers().compactMap(chat(of:)).sorted(by: ordered)
            view.contacts = try transaction.contacts().compactMap { entry -> SimulatedContact? in
                guard let chat = chat(of: entry.peer) else { return nil }
                return SimulatedContact(chat: chat, name: [entry.firstName, entry.lastName].filter { !$0.isEmpty }.joined(separator: " "))
            }.sorted { ordered($0.chat, $1.chat) }
            view.loungePts = state?.channels[SimulatedWorld.loungeID]
            for chat in chats(of: user) {
                let peer = peer(chat)
                view.messages[chat] = try transaction.allMessages(peer: peer, namespace: StoreMapping.cloudMessages)
                    .map(MessageFacts.init).sorted { $0.id < $1.id }
                view.local += try transaction.allMessages(peer: peer, namespace: OutboxEntry.localMessages).map(MessageFacts.init)
                view.holes[chat] = try transaction.holes(HoleKey(peer: peer, namespace: StoreMapping.cloudMessages, space: .everywhere))
                let read = try transaction.readState(peer, namespace: StoreMapping.cloudMessages)
                view.readInbox[chat] = read.maxIncomingReadID
                view.readOutbox[chat] = read.maxOutgoingReadID
            }
            return view
        }
    }
}

/// The checks of one user at the end of a run: the store equals the server's truth (or, where the server declared
/// history too long, holds only true messages and a hole for the rest), nothing is left unsent, read marks agree,
/// no new message was announced twice, none was missed by an account that ran throughout, no counter went back.
/// `baseline` is the server's truth before the account started: what it held then may stay a history hole, with
/// read marks the store never learnt (this engine does not load the dialog list).
enum SimulationVerdict {
    static func violations(user: Int, baseline: ChatsView, server: ChatsView, store: ChatsView, ledger: DeliveryLedger,
                           restarted: Bool) -> [String] {
        let name = SimulationPlan.names[user]
        var found: [String] = []
        if store.pts != server.pts { found.append("\(name): stored pts \(store.pts), server pts \(server.pts)") }
        if store.seq != server.seq { found.append("\(name): stored seq \(store.seq), server seq \(server.seq)") }
        if store.firstName != server.firstName {
            found.append("\(name): stored own first name \(store.firstName ?? "none"), server \(server.firstName ?? "none")")
        }
        if store.pinned != server.pinned { found.append("\(name): stored pinned chats \(store.pinned), server \(server.pinned)") }
        if store.blocked != server.blocked { found.append("\(name): stored blocked users \(store.blocked), server \(server.blocked)") }
        if store.contacts != server.contacts { found.append("\(name): stored contacts \(store.contacts), server \(server.contacts)") }
        if let truth = server.loungePts, store.loungePts != truth {
            found.append("\(name): stored @lounge pts \(store.loungePts.map { "\($0)" } ?? "none"), server \(truth)")
        }
        let delivered = ledger.delivered
        for chat in ChatsView.chats(of: user) {
            let truth = server.messages[chat] ?? [], held = store.messages[chat] ?? []
            let truthByID = Dictionary(truth.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let heldIDs = Set(held.map(\.id))
            let older = Set((baseline.messages[chat] ?? []).map(\.id))
            for message in held where truthByID[message.id] != message {
                found.append("\(name) / \(chat): stored \(message), server \(truthByID[message.id].map { "\($0)" } ?? "has no such message")")
            }
            // Only history the server declared too long may stay a hole (the store then holds the latest part).
            let mayBeHole = (chat == .lounge && ledger.resetChannels.contains(SimulatedWorld.loungeID)) || ledger.sawDifferenceTooLong
            for message in truth where !heldIDs.contains(message.id) {
                let inHole = (store.holes[chat] ?? []).contains { $0.contains(message.id.id) }
                if !((mayBeHole || older.contains(message.id)) && inHole) { found.append("\(name) / \(chat): missing \(message)") }
            }
            if !restarted && !mayBeHole {
                for message in truth where message.incoming && !older.contains(message.id) && !delivered.contains(message.id) {
                    found.append("\(name) / \(chat): \(message) stored but never announced")
                }
            }
            // Read marks agree where they matter: on which of the chat's messages are read (a mark past the newest
            // message, or on a deleted one, may differ: the server clamps it to its top message).
            let inbox = (server.readInbox[chat] ?? 0, store.readInbox[chat] ?? 0)
            let unreadDisagree = truth.filter { $0.incoming && !older.contains($0.id) && ($0.id.id <= inbox.0) != ($0.id.id <= inbox.1) }
            if !unreadDisagree.isEmpty {
                found.append("\(name) / \(chat): read inbox up to \(inbox.1), server \(inbox.0) (disagree on \(unreadDisagree.map(\.id.id)))")
            }
            let outbox = (server.readOutbox[chat] ?? 0, store.readOutbox[chat] ?? 0)
            let seenDisagree = truth.filter { !$0.incoming && ($0.id.id <= outbox.0) != ($0.id.id <= outbox.1) }
            if case .user = chat, !seenDisagree.isEmpty {
                found.append("\(name) / \(chat): read outbox up to \(outbox.1), server \(outbox.0) (disagree on \(seenDisagree.map(\.id.id)))")
            }
        }
        found += store.local.map { "\(name): still unsent or failed: \($0)" }
        found += ledger.duplicates.map { "\(name): \($0) announced twice" }
        found += ledger.regressions.map { "\(name): committed state went back: \($0)" }
        return found
    }
}
