import Foundation
import MTProto
import MTProtoNIO
import Postbox
import TL

/// Where the operation log's calls go: the account's `ConnectionManager`, or the deterministic simulation's
/// in-process server (which answers or fails each call when its seed says).
package protocol RemoteCaller: Sendable {
    func call<Function: TLFunction>(_ function: Function) async throws -> Function.Result
}

extension ConnectionManager: RemoteCaller {
    package nonisolated func call<Function: TLFunction>(_ function: Function) async throws -> Function.Result {
        try await send(function)
    }
}

/// Performs one operation-log entry (a send, a read mark, an account change) as its call, and says what the answer
/// gives the batch that removes the entry (`LoggedResult`). The worker that picks entries and retries them is the
/// caller's: `AccountStateManager`'s tasks, or the simulation's schedule.
package struct LoggedOperation: Sendable {
    let postbox: Postbox
    let selfID: Int64
    let caller: any RemoteCaller

    package init(postbox: Postbox, selfID: Int64, caller: any RemoteCaller) {
        self.postbox = postbox
        self.selfID = selfID
        self.caller = caller
    }

    /// One entry's request; a damaged entry is refused (never retried forever).
    package func perform(_ log: OperationLogEntry) async throws -> LoggedResult {
        switch log.tag {
        case OutboxEntry.sendTag:
            guard let entry = OutboxEntry(log) else { return .refused(nil) }
            let send: API.functions.messages.SendMessage
            switch entry.request {
            case let .forward(forward): return .sent(try await caller.call(forward), entry.request)
            case let .media(media): return .sent(try await caller.call(media), entry.request)
            case let .message(message): send = message
            }
            do {
                return .sent(try await caller.call(send), entry.request)
            } catch let MTProtoClientError.rpc(error) where error.message == "REPLY_MESSAGE_ID_INVALID" && send.replyTo != nil {
                // The replied message was deleted after the reply was written: the text still goes, without the reply
                // (as TDLib sends it), rather than failing what the user wrote. Same random_id: nothing was stored.
                var bare = send
                bare.replyTo = nil
                return .sent(try await caller.call(bare), .message(bare))
            }
        case ReadEntry.tag:
            switch ReadEntry.request(log.contents) {
            case let .messages(request)?:
                guard case let .affectedMessages(affected) = try await caller.call(request) else { return .done }
                return .affected(pts: affected.pts, count: affected.ptsCount, channel: nil)
            case let .channel(request)?:
                _ = try await caller.call(request)
                return .done
            case nil:
                return .refused(nil)
            }
        case AccountChangeEntry.tag:
            return try await change(log)
        default:
            return .refused(nil)
        }
    }

    /// One change's request. A change naming a peer the store no longer knows is refused as the server would.
    private func change(_ log: OperationLogEntry) async throws -> LoggedResult {
        guard let entry = AccountChangeEntry(log.contents) else { return .refused(nil) }
        switch entry.change {
        case let .pinMessage(id, pinned, oneSide):
            return .updates(try await caller.call(API.functions.messages.UpdatePinnedMessage(
                unpin: !pinned, pmOneside: oneSide, peer: try await storedInputPeer(id.peer), id: id.id)))
        case let .pinChat(peer, pinned):
            _ = try await caller.call(API.functions.messages.ToggleDialogPin(
                pinned: pinned, peer: .inputDialogPeer(.init(peer: try await storedInputPeer(peer)))))
        case let .pinnedChatOrder(order, force):
            var inputs: [API.InputDialogPeer] = []
            for peer in order { inputs.append(.inputDialogPeer(.init(peer: try await storedInputPeer(peer)))) }
            _ = try await caller.call(API.functions.messages.ReorderPinnedDialogs(force: force, folderId: 0, order: inputs))
        case let .draft(peer, text, replyTo):
            _ = try await caller.call(API.functions.messages.SaveDraft(
                replyTo: replyTo.map { .inputReplyToMessage(.init(replyToMsgId: $0)) }, peer: try await storedInputPeer(peer), message: text))
        case let .notificationSettings(peer, settings):
            _ = try await caller.call(API.functions.account.UpdateNotifySettings(
                peer: .inputNotifyPeer(.init(peer: try await storedInputPeer(peer))),
                settings: .inputPeerNotifySettings(.init(showPreviews: settings.showPreviews, silent: settings.silent,
                                                         muteUntil: settings.muteUntil))))
        case let .addContact(peer, firstName, lastName):
            return .updates(try await caller.call(API.functions.contacts.AddContact(
                id: try await storedInputUser(peer), firstName: firstName, lastName: lastName, phone: "")))
        case let .deleteContacts(peers):
            var inputs: [API.InputUser] = []
            for peer in peers { inputs.append(try await storedInputUser(peer)) }
            return .updates(try await caller.call(API.functions.contacts.DeleteContacts(id: inputs)))
        case let .blocked(peer, blocked):
            let input = try await storedInputPeer(peer)
            _ = blocked ? try await caller.call(API.functions.contacts.Block(id: input))
                        : try await caller.call(API.functions.contacts.Unblock(id: input))
        case let .profile(firstName, lastName, about):
            return .profile(try await caller.call(API.functions.account.UpdateProfile(firstName: firstName, lastName: lastName, about: about)))
        case let .username(name):
            return .profile(try await caller.call(API.functions.account.UpdateUsername(username: name ?? "")))
        case let .edit(id, text):
            return .updates(try await caller.call(API.functions.messages.EditMessage(
                peer: try await storedInputPeer(id.peer), id: id.id, message: text)))
        case let .delete(ids, revoke):
            return try await delete(ids, revoke: revoke)
        }
        return .done
    }

    private func delete(_ ids: [MessageID], revoke: Bool) async throws -> LoggedResult {
        guard let peer = ids.first?.peer else { return .done }
        if case let .inputPeerChannel(channel) = try await storedInputPeer(peer) {
            let affected = try await caller.call(API.functions.channels.DeleteMessages(
                channel: .inputChannel(.init(channelId: channel.channelId, accessHash: channel.accessHash)), id: ids.map(\.id)))
            guard case let .affectedMessages(value) = affected else { return .done }
            return .affected(pts: value.pts, count: value.ptsCount, channel: channel.channelId)
        }
        let affected = try await caller.call(API.functions.messages.DeleteMessages(revoke: revoke, id: ids.map(\.id)))
        guard case let .affectedMessages(value) = affected else { return .done }
        return .affected(pts: value.pts, count: value.ptsCount, channel: nil)
    }

    /// A stored peer as the server addresses it (the account itself as `inputPeerSelf`).
    private func storedInputPeer(_ peer: PeerID) async throws -> API.InputPeer {
        if peer == StoreMapping.user(selfID) { return .inputPeerSelf(.init()) }
        let stored = try await postbox.read { try $0.peer(peer) }
        guard let input = StoreMapping.inputPeer(peer, stored: stored) else {
            throw MTProtoClientError.rpc(RPCError(code: 400, message: "PEER_ID_INVALID"))
        }
        return input
    }

    private func storedInputUser(_ peer: PeerID) async throws -> API.InputUser {
        switch try await storedInputPeer(peer) {
        case .inputPeerSelf: .inputUserSelf(.init())
        case let .inputPeerUser(user): .inputUser(.init(userId: user.userId, accessHash: user.accessHash))
        default: throw MTProtoClientError.rpc(RPCError(code: 400, message: "USER_ID_INVALID"))
        }
    }
}
