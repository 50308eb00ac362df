import ArgumentParser
import Foundation
import SyncEngine

/// `synccore chat`: a full-screen chat app on the public `Account` API alone — the chat list's rows
/// (`Account.chatRows`), the open chat's live window (`Account.conversation`, holes filled while it is open), sends
/// through their handles, typing marks, the connection's readiness — redrawn only when one of them changed.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat", abstract: "A full-screen terminal chat app on the account (Ctrl-C or /quit to leave).")

    @OptionGroup var options: ClientOptions

    func run() async throws {
        guard let terminal = Terminal() else { throw CLIError("synccore chat needs a terminal (run it in one, or in tmux)") }
        let account: Account
        do {
            account = try await ClientAccount.open(options)
        } catch {
            terminal.restore()
            throw error
        }
        let session = ChatSession(account: account, terminal: terminal)
        await session.run()
        terminal.restore()
        await account.close()
    }
}

/// What reaches the screen's loop: keys, the account's views and events, results of the effects it ran.
enum ChatInput: Sendable {
    case keys([TerminalKey])
    case rows([ChatRow])
    case conversation(ChatHistoryView.Snapshot, PeerID, generation: Int)
    case readiness(ConnectionReadiness)
    case role(isMaster: Bool)
    case typing(Set<PeerID>)
    case status(String)
    case searchResults([Message], PeerID)
    case found(PeerID, title: String)
    case resize
    case ended
}

/// One run of the chat screen: the loop that applies inputs to `ChatScreen`, draws it and runs its effects.
final class ChatSession: @unchecked Sendable {
    let account: Account
    let terminal: Terminal
    private var screen = ChatScreen()
    private let inputs: AsyncStream<ChatInput>
    private let sink: AsyncStream<ChatInput>.Continuation
    private var conversationTask: Task<Void, Never>?
    private var generation = 0
    private var feeds: [Task<Void, Never>] = []
    private var me = "me"

    init(account: Account, terminal: Terminal) {
        self.account = account
        self.terminal = terminal
        (inputs, sink) = AsyncStream<ChatInput>.makeStream()
    }

    func run() async {
        if let user = await account.user { me = await ClientAccount.name(StoreMapping.user(user.id), in: account.postbox) }
        screen.isFollower = !(await account.isMaster)
        startFeeds()
        draw()
        loop: for await input in inputs {
            var effects: [ChatScreen.Effect] = []
            switch input {
            case let .keys(keys):
                for key in keys { effects += screen.handle(key, now: Self.now) }
            case let .rows(rows): screen.showRows(rows)
            case let .conversation(snapshot, peer, generation) where generation == self.generation:
                effects += screen.showConversation(snapshot, of: peer)
            case .conversation: continue
            case let .readiness(readiness): screen.readiness = readiness
            case let .role(isMaster): screen.isFollower = !isMaster
            case let .typing(chats): screen.typingChats = chats
            case let .status(text): screen.status = text
            case let .searchResults(messages, peer) where peer == screen.open: screen.searchResults = messages
            case .searchResults: continue
            case let .found(peer, title): effects += screen.openChat(peer, title: title)
            case .resize: break
            case .ended: break loop
            }
            if effects.contains(.quit) { break }
            for effect in effects { perform(effect) }
            draw()
        }
        for feed in feeds { feed.cancel() }
        conversationTask?.cancel()
    }

    private static var now: Double { Date().timeIntervalSince1970 }

    private func draw() {
        let (width, height) = terminal.size
        screen.visibleMessages = max(1, height - 5)
        let lines = ChatScreenLayout.lines(of: screen, width: width, height: height, me: me, now: Int32(Self.now))
        terminal.draw(lines, cursor: ChatScreenLayout.cursor(of: screen, width: width, height: height))
    }

    /// The feeds of the loop, each a task that yields into it.
    private func startFeeds() {
        let (account, sink, terminal) = (self.account, self.sink, self.terminal)
        feeds.append(Task {
            var decoder = TerminalKeyDecoder()
            for await bytes in terminal.keyBytes() {
                var keys = decoder.feed(bytes)
                if let escape = decoder.flushEscape() { keys.append(escape) }
                if !keys.isEmpty { sink.yield(.keys(keys)) }
            }
            sink.yield(.ended)
        })
        feeds.append(Task {
            for await _ in terminal.resizes() { sink.yield(.resize) }
        })
        feeds.append(Task {
            do {
                for try await update in account.chatRows(count: 200) { sink.yield(.rows(update.snapshot)) }
            } catch {
                sink.yield(.status("the chat list stopped: \(ClientAccount.readable(error))"))
            }
        })
        feeds.append(Task {
            // A new device: the list's first page (and each chat's top message) comes from the server.
            do { try await account.chatListFilled() } catch { sink.yield(.status("the chat list could not be fetched: \(ClientAccount.readable(error))")) }
        })
        feeds.append(Task {
            for await readiness in account.connectionReadiness { sink.yield(.readiness(readiness)) }
        })
        feeds.append(Task {
            for await marks in account.typingMarks() { sink.yield(.typing(Set(marks.keys))) }
        })
        feeds.append(Task {
            for await event in account.events {
                switch event {
                case let .roleChanged(isMaster): sink.yield(.role(isMaster: isMaster))
                case let .sendFailed(_, error): sink.yield(.status("the server refused a message: \(error)"))
                case let .changeRefused(change, error): sink.yield(.status("the server refused \(change): \(error)"))
                case let .loggedOut(reason):
                    sink.yield(.status("logged out (\(reason))"))
                    sink.yield(.ended)
                default: break
                }
            }
        })
    }

    private func perform(_ effect: ChatScreen.Effect) {
        let (account, sink) = (self.account, self.sink)
        switch effect {
        case let .open(peer, anchor):
            generation += 1
            let generation = self.generation
            conversationTask?.cancel()
            let count = screen.windowCount
            conversationTask = Task {
                do {
                    for try await update in account.conversation(peer, anchor: anchor, count: count) {
                        sink.yield(.conversation(update.snapshot, peer, generation: generation))
                    }
                } catch is CancellationError {
                } catch {
                    sink.yield(.status("the chat stopped: \(ClientAccount.readable(error))"))
                }
            }
        case let .send(text, peer, replyTo):
            run("sending", sink) {
                let outgoing = try await account.send(text, to: peer, replyTo: replyTo)
                do throws(OutgoingMessage.Failure) {
                    let server = try await outgoing.sent()
                    return server.map { "sent: message \($0.id)" } ?? "sent"
                } catch {
                    return "not sent: \(error)"
                }
            }
        case let .edit(id, peer, text):
            run("editing", sink) { try await account.edit(id, in: peer, text: text); return "edited \(id)" }
        case let .delete(id, peer):
            run("deleting", sink) { try await account.delete([id], in: peer); return "deleted \(id)" }
        case let .pin(id, peer, unpin):
            run("pinning", sink) { try await account.pin(id, in: peer, unpin: unpin); return unpin ? "unpinned \(id)" : "pinned \(id)" }
        case let .forward(id, source, destination):
            run("forwarding", sink) {
                let target = try await ClientAccount.peer(destination, in: account)
                _ = try await account.forward([id], from: source, to: target)
                return "forwarded \(id) to \(destination)"
            }
        case let .search(query, peer):
            run("searching", sink) {
                let found = try await account.search(query, in: peer)
                sink.yield(.searchResults(found, peer))
                return "\(found.count) found for “\(query)”"
            }
        case let .download(id, peer):
            run("downloading", sink) {
                let path = try await account.download(MessageID(peer: peer, namespace: StoreMapping.cloudMessages, id: id)) { progress in
                    sink.yield(.status("downloading \(id): \(progress.held >> 10) of \(progress.size >> 10) KB"))
                }
                return "downloaded \(id): \(path)"
            }
        case let .find(name):
            run("finding \(name)", sink) {
                let peer = try await ClientAccount.peer(name, in: account)
                sink.yield(.found(peer, title: await ClientAccount.name(peer, in: account.postbox)))
                return "opened \(name)"
            }
        case let .markRead(peer, maxID):
            Task { try? await account.markRead(peer, upTo: maxID) }
        case let .typing(peer):
            Task { try? await account.setTyping(.typing, in: peer) }
        case .quit:
            break
        }
    }

    /// Runs `body` off the loop; its result (or error) becomes the status line.
    private func run(_ doing: String, _ sink: AsyncStream<ChatInput>.Continuation, _ body: @escaping @Sendable () async throws -> String) {
        sink.yield(.status("\(doing)…"))
        Task {
            do { sink.yield(.status(try await body())) } catch { sink.yield(.status("\(doing) failed: \(ClientAccount.readable(error))")) }
        }
    }
}
