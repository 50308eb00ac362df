import TL

/// Checks the invariant real clients rely on: every user, basic group and channel that an answer or a push names
/// is carried in that same answer or push (its `users` / `chats`). Pyrogram-family clients index `users` by id while
/// they parse a service message's members, a participant or a dialog, and fail on an id that is not there; Telethon
/// tolerates the gap, so only a check like this one finds it.
///
/// It walks the value's JSON form (`TLJSONRepresentable`), so a constructor added to the schema later is walked
/// too; the rules below say which fields name a peer.
public enum PeerReferences {
    public enum Kind: String, Sendable, Hashable { case user, chat, channel }

    public struct Reference: Sendable, Hashable, CustomStringConvertible {
        public let kind: Kind
        public let id: Int64
        /// The constructor whose field named it.
        public let site: String
        public var description: String { "\(kind.rawValue) \(id) (named by \(site))" }
    }

    /// Top-level forms Telegram sends without `users` and `chats` by design (the client fetches a difference when it
    /// does not know a peer they name: core.telegram.org/api/updates, "updateShort…").
    public static let shortForms: Set<String> = [
        "updateShortMessage", "updateShortChatMessage", "updateShort", "updateShortSentMessage", "updatesTooLong",
    ]

    /// Updates that Telegram itself pushes without the peers they name (statuses and typing: a client that does not
    /// know the user drops them).
    public static let updatesWithoutPeers: Set<String> = [
        "updateUserStatus", "updateUserTyping", "updateChatUserTyping", "updateChannelUserTyping",
    ]

    /// The references of `json` that no object in it carries; empty when the invariant holds.
    public static func missing(in json: TLJSON) -> [Reference] {
        if case let .object(object) = json, case let .string(name)? = object["_"], shortForms.contains(name) { return [] }
        var carried = Set<Pair>()
        var named: [Reference] = []
        walk(json, carried: &carried, named: &named)
        var seen = Set<Pair>()
        return named.filter { !carried.contains(Pair($0.kind, $0.id)) && seen.insert(Pair($0.kind, $0.id)).inserted }
    }

    /// The same for any TL value (an answer or a push).
    public static func missing(in value: some TLValue) -> [Reference] {
        missing(in: value.toJSON())
    }

    /// The constructor of `json` and of the updates or messages it lists, for a failure's message.
    public static func outline(_ json: TLJSON) -> String {
        guard case let .object(object) = json, case let .string(name)? = object["_"] else { return "?" }
        var inner: [String] = []
        for key in ["updates", "new_messages", "other_updates", "messages"] {
            guard case let .array(values)? = object[key] else { continue }
            for case let .object(item) in values {
                guard case let .string(itemName)? = item["_"] else { continue }
                if case let .object(message)? = item["message"], case let .object(action)? = message["action"],
                   case let .string(actionName)? = action["_"] {
                    inner.append("\(itemName)/\(actionName)")
                } else {
                    inner.append(itemName)
                }
            }
        }
        return inner.isEmpty ? name : "\(name): \(inner.joined(separator: ", "))"
    }

    private struct Pair: Hashable {
        let kind: Kind
        let id: Int64
        init(_ kind: Kind, _ id: Int64) { (self.kind, self.id) = (kind, id) }
    }

    /// Objects that carry a peer: the constructor names whose `id` is the carried peer.
    private static let carriers: [String: Kind] = [
        "user": .user, "userEmpty": .user,
        "chat": .chat, "chatForbidden": .chat, "chatEmpty": .chat,
        "channel": .channel, "channelForbidden": .channel,
    ]

    /// Fields that name a user by id, per constructor (peers named through a `Peer` object are found on their own).
    private static let userFields: [String: [String]] = [
        "messageActionChatDeleteUser": ["user_id"],
        "messageActionChatJoinedByLink": ["inviter_id"],
        "chatParticipant": ["user_id", "inviter_id"],
        "chatParticipantCreator": ["user_id"],
        "chatParticipantAdmin": ["user_id", "inviter_id"],
        "channelParticipant": ["user_id"],
        "channelParticipantSelf": ["user_id", "inviter_id"],
        "channelParticipantCreator": ["user_id"],
        "channelParticipantAdmin": ["user_id", "inviter_id", "promoted_by"],
        "channelParticipantBanned": ["kicked_by"],
        "channelParticipantLeft": [],
        "contact": ["user_id"],
        "message": ["via_bot_id"],
        "updateChatParticipantAdd": ["user_id", "inviter_id"],
        "updateChatParticipantDelete": ["user_id"],
        "updateChatParticipantAdmin": ["user_id"],
        "updateChannelParticipant": ["actor_id", "user_id"],
    ]

    /// Fields that list users by id.
    private static let userListFields: [String: String] = [
        "messageActionChatCreate": "users",
        "messageActionChatAddUser": "users",
    ]

    private static func walk(_ json: TLJSON, carried: inout Set<Pair>, named: inout [Reference]) {
        switch json {
        case let .array(values):
            for value in values { walk(value, carried: &carried, named: &named) }
        case let .object(object):
            guard case let .string(name)? = object["_"] else {
                for (_, value) in object.fields { walk(value, carried: &carried, named: &named) }
                return
            }
            if updatesWithoutPeers.contains(name) { return }
            if let kind = carriers[name], case let .int(id)? = object["id"] { carried.insert(Pair(kind, id)) }
            switch name {
            case "peerUser": if case let .int(id)? = object["user_id"] { named.append(Reference(kind: .user, id: id, site: name)) }
            case "peerChat": if case let .int(id)? = object["chat_id"] { named.append(Reference(kind: .chat, id: id, site: name)) }
            case "peerChannel":
                if case let .int(id)? = object["channel_id"] { named.append(Reference(kind: .channel, id: id, site: name)) }
            case "messageActionChatMigrateTo":
                if case let .int(id)? = object["channel_id"] { named.append(Reference(kind: .channel, id: id, site: name)) }
            case "messageActionChannelMigrateFrom":
                if case let .int(id)? = object["chat_id"] { named.append(Reference(kind: .chat, id: id, site: name)) }
            default: break
            }
            for field in userFields[name] ?? [] {
                if case let .int(id)? = object[field], id != 0 { named.append(Reference(kind: .user, id: id, site: name)) }
            }
            if let field = userListFields[name], case let .array(ids)? = object[field] {
                for case let .int(id) in ids { named.append(Reference(kind: .user, id: id, site: name)) }
            }
            for (key, value) in object.fields where key != "_" { walk(value, carried: &carried, named: &named) }
        default:
            break
        }
    }
}
