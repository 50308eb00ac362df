import ArgumentParser
import Foundation
import Postbox
import SyncEngine
import TL

/// `synccore chats`: the account's chat list from its store — on a new device (or after a reset) first filled from the
/// server's `messages.getDialogs` pages — with each chat's unread count and last message.
struct ChatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "chats", abstract: "List the account's chats.")

    @OptionGroup var options: ClientOptions
    @Option(help: "At most this many chats.") var limit = 20

    func run() async throws {
        let limit = max(1, self.limit)
        try await ClientAccount.with(options) { account in
            try await ClientAccount.bounded(seconds: 20, "the chat list could not be fetched in time") { try await account.chatListFilled() }
            let rows = try await account.postbox.read { transaction in
                try transaction.chatList(limit: limit).map { entry in
                    (entry, try transaction.readState(entry.peer, namespace: StoreMapping.cloudMessages).unreadCount,
                     try entry.topMessage.flatMap { try transaction.message($0.id) }.map(MediaFormat.text) ?? "")
                }
            }
            if rows.isEmpty { options.emit("no chats", [:]) }
            for (entry, unread, top) in rows {
                let peer = entry.peer
                let name = await ClientAccount.name(peer, in: account.postbox)
                let kind = peer.namespace == StoreMapping.channelNamespace ? "channel" : peer.namespace == StoreMapping.userNamespace ? "user" : "group"
                options.emit("\(name) (\(kind) \(peer.id))  unread \(unread)  — \(top)",
                             ["peer": kind, "id": peer.id, "name": name, "unread": unread, "top_message": top])
            }
        }
    }
}

/// `synccore send PEER TEXT`: through the account's outbox. It says which message the server made of it when the
/// server confirms it within `confirmation` seconds; otherwise that it is queued (it leaves with the next command that
/// reaches the server) and exits 0 all the same — sending again would send twice. `--wait` waits for the confirmation.
struct SendCommand: AsyncParsableCommand {
    static let confirmation: Double = 2

    static let configuration = CommandConfiguration(commandName: "send", abstract: "Send a message to @username (or a stored peer id).")

    @OptionGroup var options: ClientOptions
    @Argument(help: "@username, or the id of a stored user or channel.") var peer: String
    @Argument(help: "The message.") var text: String
    @Option(help: "Reply to this message of the chat (its id, as `history` prints it).") var replyTo: Int32?
    @Flag(help: "Wait (up to 20 s) until the server has the message, failing if it does not.") var wait = false

    func run() async throws {
        try await ClientAccount.with(options) { account in
            let target = try await ClientAccount.peer(peer, in: account)
            let outgoing = try await account.send(text, to: target, replyTo: replyTo)
            let seconds = wait ? 20 : Self.confirmation
            // The handle says which message the server made of it, or why it refused (a process that follows another
            // cannot know: it waits until the syncing process has sent it).
            let outcome: Result<MessageID?, OutgoingMessage.Failure>? = await Self.first(within: seconds) {
                do throws(OutgoingMessage.Failure) { return .success(try await outgoing.sent()) } catch { return .failure(error) }
            }
            switch outcome {
            case let .success(server)?:
                options.emit("sent to \(peer)\(server.map { ": message \($0.id)" } ?? "")", ["peer": peer, "id": server?.id ?? 0])
            case let .failure(.refused(error))?:
                throw CLIError("the server refused the message: \(error)")
            case .failure(.unresolved)?, .failure(.cancelled)?:
                try await Self.waitForTheSyncingProcess(account, seconds: seconds, peer: peer, options: options)
            case nil:
                if wait { throw CLIError("the message is queued but the server has not confirmed it yet") }
                options.emit("queued for \(peer): the server has not confirmed it yet; it is sent when the server can be reached "
                             + "(`history` shows it as pending)", ["peer": peer, "queued": true])
            }
        }
    }

    /// `body`'s value, or nil when `seconds` pass first.
    static func first<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)); return nil }
            let winner = await group.next() ?? nil
            group.cancelAll()
            return winner
        }
    }

    /// In a process that follows another, the send is the syncing process's to make: wait for the shared log to empty.
    static func waitForTheSyncingProcess(_ account: Account, seconds: Double, peer: String, options: ClientOptions) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try await account.pendingOperationCount > 0 {
            guard ContinuousClock.now < deadline else {
                options.emit("queued for \(peer): the process syncing this directory sends it", ["peer": peer, "queued": true])
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        options.emit("sent to \(peer)", ["peer": peer, "id": 0])
    }
}

/// `synccore history PEER`: the latest messages from the store, the missing ones fetched on demand (history holes).
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Print a chat's latest messages.")

    @OptionGroup var options: ClientOptions
    @Argument(help: "@username, or the id of a stored user or channel.") var peer: String
    @Option(help: "How many messages.") var limit = 20

    func run() async throws {
        try await ClientAccount.with(options) { account in
            // On a new device the chat's top message and the hole below it come with the chat list.
            try await ClientAccount.bounded(seconds: 20, "the chat list could not be fetched in time") { try await account.chatListFilled() }
            let target = try await ClientAccount.peer(peer, in: account)
            let view = MessageHistoryView(peer: target, namespace: StoreMapping.cloudMessages, count: max(1, min(limit, 500)))
            let window = try await withThrowingTaskGroup(of: MessageHistoryView.Snapshot?.self) { group in
                let (json, limit) = (options.json, view.count)
                group.addTask {
                    // Holes in the window are fetched meanwhile: a progress line on a terminal, nothing in output.
                    var progress = ProgressLine("fetching", terminalOnly: true)
                    defer { progress.clear() }
                    for try await update in account.postbox.view(view) {
                        if update.snapshot.earlierHole == nil { return update.snapshot }
                        if !json { progress.show(update.snapshot.messages.count, of: limit, "\(update.snapshot.messages.count) of \(limit) messages") }
                    }
                    return nil
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(20))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let window else { throw CLIError("the history of \(peer) could not be fetched in time") }
            let pending = try await account.postbox.read { transaction in
                try transaction.messages(peer: target, namespace: OutboxEntry.localMessages,
                                         from: MessageIndex(id: MessageID(peer: target, namespace: OutboxEntry.localMessages, id: 0), timestamp: 0),
                                         direction: .newer, limit: 100)
            }
            if window.messages.isEmpty, pending.isEmpty { options.emit("no messages", [:]) }
            for message in window.messages {
                let from = message.flags.contains(.incoming) ? await ClientAccount.name(message.author, in: account.postbox) : "me"
                let date = Date(timeIntervalSince1970: TimeInterval(message.timestamp)).formatted(.iso8601)
                let reply = message.reply?.messageID
                let forwarded = message.forward != nil ? await ClientAccount.name(message.forward?.author, in: account.postbox) : nil
                options.emit("\(message.id.id) [\(date)] \(from)\(reply.map { " ↩ \($0)" } ?? "")"
                             + "\(forwarded.map { " (forwarded from \($0))" } ?? ""): \(MediaFormat.text(of: message))",
                             ["id": message.id.id, "date": message.timestamp, "from": from, "out": !message.flags.contains(.incoming),
                              "text": message.text, "media": message.media.map(MediaFormat.describe) ?? "", "reply_to": reply.map { Int($0) } ?? 0, "forwarded_from": forwarded ?? ""])
            }
            // What the outbox holds for the chat, after what the server has: not sent yet, or refused.
            for message in pending {
                let state = message.flags.contains(.failed) ? "failed" : "pending"
                let reply = message.reply?.messageID
                options.emit("(\(state)) me\(reply.map { " ↩ \($0)" } ?? ""): \(message.text)",
                             ["pending": state == "pending", "failed": state == "failed", "out": true, "text": message.text,
                              "reply_to": reply.map { Int($0) } ?? 0])
            }
        }
    }
}

/// `synccore watch`: a live tail of what the account receives (new messages, edits, deletions, reads, typing).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch", abstract: "Print incoming updates as they arrive.")

    @OptionGroup var options: ClientOptions
    @Option(help: "Stop after this many new incoming messages.") var count: Int?
    @Option(help: "Stop after this many seconds.") var seconds: Double?

    /// Exit status after a logout (by the server, or another process on the same directory).
    static let loggedOutStatus: Int32 = 3

    func run() async throws {
        let (options, count, seconds) = (self.options, self.count, self.seconds)
        let loggedOut = try await ClientAccount.with(options) { account in
            let events = account.events
            if !options.json { print("watching (Ctrl-C to stop)") }
            fflush(nil)
            return try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask { await Self.tail(events, account, options, stopAfter: count) }
                if let seconds { group.addTask { try await Task.sleep(for: .seconds(seconds)); return false } }
                let loggedOut = try await group.next() ?? false
                group.cancelAll()
                return loggedOut
            }
        }
        if loggedOut { throw ExitCode(Self.loggedOutStatus) }
    }

    /// Prints events until `stopAfter` new messages (or the end of the stream, or cancellation); true when it ended
    /// with a logout.
    static func tail(_ events: AsyncStream<AccountEvent>, _ account: Account, _ options: ClientOptions, stopAfter count: Int?) async -> Bool {
        var received = 0
        // One line per event even into a pipe (`watch --json | jq`), where stdout is block-buffered by default.
        defer { fflush(nil) }
        for await event in events {
            defer { fflush(nil) }
            if case let .loggedOut(reason) = event {
                let why = switch reason {
                case .requested: "logged out"
                case .authKeyDuplicated: "logged out: the key was used in two places at once (AUTH_KEY_DUPLICATED)"
                case let .revoked(message): "logged out by the server (\(message))"
                }
                options.emit(why, ["event": "logged_out", "reason": "\(reason)"])
                return true
            }
            if let message = event.incomingMessage {
                received += 1
                let from = await ClientAccount.name(message.author, in: account.postbox)
                let chat = message.author == message.id.peer ? "" : await ClientAccount.name(message.id.peer, in: account.postbox) + " — "
                options.emit("\(chat)\(from): \(message.text)",
                             ["event": "message", "chat": message.id.peer.id, "id": message.id.id, "from": from, "text": message.text])
                if let count, received >= count { return false }
            } else if let deleted = event.deletedMessages {
                let ids: [Int32] = switch deleted { case let .common(ids): ids; case let .channel(_, ids): ids }
                options.emit("deleted \(ids)", ["event": "deleted", "ids": ids])
            } else if let mark = event.readMark {
                options.emit("read \(mark.outgoing ? "by the other side" : "here") up to \(mark.maxID) in \(mark.chat.id)",
                             ["event": "read", "chat": mark.chat.id, "max_id": mark.maxID, "outgoing": mark.outgoing])
            } else if let typing = event.typing {
                options.emit("\(typing.user) is typing in \(typing.chat.id)", ["event": "typing", "chat": typing.chat.id, "user": typing.user])
            }
        }
        return false
    }
}
