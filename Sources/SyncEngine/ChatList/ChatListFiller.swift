import Foundation
import MTProtoNIO
import Postbox
import TL

/// Fills the chat list's hole (a new store starts with the whole list unknown; `differenceTooLong` reopens it) from
/// `messages.getDialogs`, 100 dialogs a page, newest first, each page written in one transaction
/// (`ChatListPage`): on a new device the chat list shows every chat with its last message and unread count, and each
/// chat's older history stays a hole that an open history view fills. One run at a time; a `fill()` during a run
/// makes it run once more after. A failing page is retried with the timing's backoff while the error is transient.
public actor ChatListFiller {
    /// Dialogs asked per page (Telegram's maximum).
    public static let pageSize: Int32 = 100

    private let postbox: Postbox
    private let network: ConnectionManager
    private let timing: SyncTiming
    private var running: Task<Void, Never>?
    private var again = false
    /// Pages fetched (for tests and diagnostics).
    public private(set) var pages = 0

    /// A filler for `postbox`'s chat-list hole over `network`, retrying failed pages with `timing`'s backoff.
    public init(postbox: Postbox, network: ConnectionManager, timing: SyncTiming = .standard) {
        self.postbox = postbox
        self.network = network
        self.timing = timing
    }

    /// Fills the hole if there is one (now, or after the run in progress).
    public func fill() {
        guard running == nil else {
            again = true
            return
        }
        running = Task { await self.run() }
    }

    /// Returns once no run is in progress (for tests and the CLI).
    public func finished() async {
        while let running { await running.value }
    }

    /// Stops filling; a page in flight is dropped.
    public func stop() {
        running?.cancel()
        running = nil
        again = false
    }

    private func run() async {
        repeat {
            again = false
            await fillHole()
        } while again && !Task.isCancelled
        running = nil
    }

    private func fillHole() async {
        var offset: DialogOffset?
        var failures = 0
        while !Task.isCancelled {
            do {
                guard case let .fetched(next) = try await Self.fillPage(after: offset, postbox: postbox, caller: network) else { return }
                pages += 1
                guard let next else { return }
                offset = next
                failures = 0
            } catch {
                guard let delay = timing.retryDelay(AccountStateManager.rpcError(error), failures: failures) else { return }
                failures += 1
                try? await network.environment.sleep(seconds: delay)
            }
        }
    }

    /// What one step did.
    package enum Step: Equatable, Sendable {
        /// The store has no chat-list hole: nothing was asked.
        case noHole
        /// A page was written; `next` is where the following one starts (nil: the hole is filled, or the page did not
        /// move it).
        case fetched(next: DialogOffset?)
    }

    /// One page of the hole, below `offset` (nil: where the stored hole begins), written in one transaction. The
    /// actor's step, and the deterministic simulation's when its schedule answers one.
    package static func fillPage(after offset: DialogOffset?, postbox: Postbox, caller: any RemoteCaller) async throws -> Step {
        guard let hole = try await postbox.read({ try $0.chatListHole }) else { return .noHole }
        let from = offset ?? .resuming(below: hole)
        let answer = try await caller.call(API.functions.messages.GetDialogs(
            offsetDate: from.date, offsetId: from.id, offsetPeer: from.peer, limit: pageSize, hash: 0))
        let page = ChatListPage(answer, requested: pageSize, previousHole: hole)
        _ = try await postbox.transaction { try page.apply($0) }
        guard let next = page.next, next != from else { return .fetched(next: nil) }
        return .fetched(next: next)
    }
}
