import MTProto
import TL

extension MessagesRPC {
    /// `messages.toggleDialogPin`: pins one of the caller's dialogs first, or unpins it (`DialogPins`); `true` also when
    /// it was so already.
    enum ToggleDialogPin: RPCMethod {
        typealias Function = API.functions.messages.ToggleDialogPin

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try server.accountStateRate.admit(user: me, now: server.monotonicNow)
            let (input, pinned, date) = (call.peer, call.pinned, server.now)
            let told = try await server.storageWrite { tx in
                try DialogPins.toggle(try DialogPins.peer(input, me: me, in: tx), pinned: pinned, me: me, date: date, in: tx)
            }
            told?.push(date: date, server: server)
            return true
        }
    }

    /// `messages.reorderPinnedDialogs` (folder 0 only: `FOLDER_ID_INVALID` otherwise; at most `DialogPins.maximum`
    /// peers): the pinned dialogs in that order; with `force`, those not named are unpinned.
    enum ReorderPinnedDialogs: RPCMethod {
        typealias Function = API.functions.messages.ReorderPinnedDialogs

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            guard call.folderId == 0 else { throw .badRequest("FOLDER_ID_INVALID") }
            guard call.order.count <= DialogPins.maximum else { throw .badRequest("PINNED_DIALOGS_TOO_MUCH") }
            try server.accountStateRate.admit(user: me, now: server.monotonicNow)
            let (inputs, force, date) = (call.order, call.force, server.now)
            let told = try await server.storageWrite { tx in
                try DialogPins.reorder(try inputs.map { try DialogPins.peer($0, me: me, in: tx) }, force: force, me: me, date: date, in: tx)
            }
            told?.push(date: date, server: server)
            return true
        }
    }

    /// `messages.getPinnedDialogs` (folder 0; another folder has none): the pinned dialogs in their order, as
    /// `getPeerDialogs` renders them.
    enum GetPinnedDialogs: RPCMethod {
        typealias Function = API.functions.messages.GetPinnedDialogs

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            let (folder, now) = (call.folderId, server.now)
            return try await server.storageRead { tx in
                let pins = folder == 0 ? try tx.pinnedDialogs(owner: me) : []
                let (entries, boxPeers) = try DialogList.entries(for: pins, pinned: Set(pins), me: me, in: tx)
                return try DialogList.peerDialogs(entries, boxPeers: boxPeers, me: me, now: now, in: tx)
            }
        }
    }
}
