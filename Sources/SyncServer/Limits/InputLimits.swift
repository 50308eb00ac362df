import MTProto
import TL

/// What a client may send, checked before anything is stored, with Telegram's limits and error names
/// (core.telegram.org/api/config: `message_length_max`, the `*_INVALID` / `*_TOO_LONG` errors of each method).
///
/// Every limit is in UTF-16 units where Telegram counts them (texts and entity offsets, as clients lay them out) and
/// also bounds the bytes: a UTF-16 unit is at most 3 UTF-8 bytes, so a text of 4,096 units is at most 12,288 bytes.
/// Together these bound the largest message a server stores (`largestMessageBytes`), and so every answer built from
/// stored rows: no stored row can make a later answer impossible.
enum InputLimits {
    /// `message_length_max` of `help.getConfig`.
    static let messageLength = 4_096
    /// Entities of one message, and their bytes as stored (urls, `pre` languages, replaced text).
    static let entityCount = 100
    static let entityBytes = 16 * 1024
    /// First and last names (Telegram: 64 each).
    static let nameLength = 64
    /// Chat and channel titles (Telegram: 128) and a channel's about text (Telegram: 255).
    static let titleLength = 128
    static let aboutLength = 255
    /// Digits of a phone number (E.164 has 15; Telegram's test and fragment numbers are longer).
    static let phoneDigits = 32
    /// Ids in one `deleteMessages` / `getMessages` / `getUsers` / `getChannels` call (Telegram's 100).
    static let idsPerCall = 100
    /// Strings that are looked up, never stored (usernames, code hashes, codes).
    static let lookupBytes = 256

    /// The largest message a handler accepts, as stored bytes: its text and its entities, with room for the fields
    /// around them. Answers are sliced by bytes in pages far above this, so any stored message fits in one.
    static let largestMessageBytes = 3 * messageLength + entityBytes + 1024

    /// A media message's caption (Telegram: 1,024, `caption_length_max` in `help.getConfig`).
    static let captionLength = 1_024

    /// A caption: empty, or at most `captionLength` UTF-16 units (`MEDIA_CAPTION_TOO_LONG`).
    static func checkCaption(_ text: String) throws(RPCError) {
        guard text.utf8.count <= 3 * captionLength, text.utf16.count <= captionLength else { throw .badRequest("MEDIA_CAPTION_TOO_LONG") }
    }

    /// A text that may be a caption or a message's, bounded before the message it edits is read: at most a message's
    /// length (the edit checks it against what the message is, `MessageEdit`).
    static func checkCaptionOrMessage(_ text: String) throws(RPCError) {
        guard text.utf8.count <= 3 * messageLength, text.utf16.count <= messageLength else { throw .badRequest("MESSAGE_TOO_LONG") }
    }

    /// A message's text: not blank (`MESSAGE_EMPTY`), at most `messageLength` UTF-16 units (`MESSAGE_TOO_LONG`).
    static func checkMessage(_ text: String) throws(RPCError) {
        guard !text.isBlank else { throw .badRequest("MESSAGE_EMPTY") }
        // The byte count is O(1) for a native string and rejects the absurd before counting units.
        guard text.utf8.count <= 3 * messageLength, text.utf16.count <= messageLength else {
            throw .badRequest("MESSAGE_TOO_LONG")
        }
    }

    /// A message's entities, serialized for storage (empty for none): at most `entityCount` (`ENTITIES_TOO_LONG`), each
    /// inside the text with a positive length (`ENTITY_BOUNDS_INVALID`), all of them at most `entityBytes`.
    static func checkedEntities(_ entities: [API.MessageEntity]?, text: String) throws(RPCError) -> [UInt8] {
        guard let entities, !entities.isEmpty else { return [] }
        guard entities.count <= entityCount else { throw .badRequest("ENTITIES_TOO_LONG") }
        let units = text.utf16.count
        var writer = TLWriter(capacity: 8 + 16 * entities.count)
        writer.writeVectorHeader(count: entities.count)
        for entity in entities {
            let start = writer.bytes.count
            entity.encode(to: &writer)
            guard writer.bytes.count <= 8 + entityBytes else { throw .badRequest("ENTITIES_TOO_LONG") }
            guard let (offset, length) = bounds(ofEntityAt: start, in: writer.bytes),
                  offset >= 0, length > 0, Int(offset) + Int(length) <= units
            else { throw .badRequest("ENTITY_BOUNDS_INVALID") }
        }
        return writer.bytes
    }

    /// `offset` and `length` of a serialized entity: right after its constructor id, or after its flags for the two
    /// kinds that have flags (layer 229's `messageEntityBlockquote` and `messageEntityFormattedDate`).
    private static func bounds(ofEntityAt start: Int, in bytes: [UInt8]) -> (Int32, Int32)? {
        var reader = TLReader(bytes, offset: start)
        guard let id = try? reader.readUInt32() else { return nil }
        if id == API.MessageEntity.MessageEntityBlockquote.constructorID
            || id == API.MessageEntity.MessageEntityFormattedDate.constructorID {
            guard (try? reader.readUInt32()) != nil else { return nil }
        }
        guard let offset = try? reader.readInt32(), let length = try? reader.readInt32() else { return nil }
        return (offset, length)
    }

    /// A first name: trimmed, 1…64 UTF-16 units (`FIRSTNAME_INVALID`).
    static func firstName(_ name: String) throws(RPCError) -> String {
        let trimmed = name.trimmingBlanks()
        guard !trimmed.isEmpty, fits(trimmed, units: nameLength) else { throw .badRequest("FIRSTNAME_INVALID") }
        return trimmed
    }

    /// A last name: trimmed, 0…64 UTF-16 units (`LASTNAME_INVALID`).
    static func lastName(_ name: String?) throws(RPCError) -> String {
        let trimmed = (name ?? "").trimmingBlanks()
        guard fits(trimmed, units: nameLength) else { throw .badRequest("LASTNAME_INVALID") }
        return trimmed
    }

    /// A chat or channel title: trimmed, 1…128 units (`CHAT_TITLE_EMPTY`, `CHAT_TITLE_TOO_LONG`).
    static func title(_ title: String) throws(RPCError) -> String {
        let trimmed = title.trimmingBlanks()
        guard !trimmed.isEmpty else { throw .badRequest("CHAT_TITLE_EMPTY") }
        guard fits(trimmed, units: titleLength) else { throw .badRequest("CHAT_TITLE_TOO_LONG") }
        return trimmed
    }

    /// A channel's about text: at most 255 units (`CHAT_ABOUT_TOO_LONG`).
    static func about(_ about: String) throws(RPCError) -> String {
        guard fits(about, units: aboutLength) else { throw .badRequest("CHAT_ABOUT_TOO_LONG") }
        return about
    }

    /// A phone number as digits: "+1 555 0001" is "15550001"; 1…32 digits (`PHONE_NUMBER_INVALID`). The byte check
    /// comes first, so a 15 MiB "number" costs nothing to refuse.
    static func phone(_ phone: String) throws(RPCError) -> String {
        guard phone.utf8.count <= 4 * phoneDigits else { throw .badRequest("PHONE_NUMBER_INVALID") }
        let digits = String(phone.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init))
        guard !digits.isEmpty, digits.count <= phoneDigits else { throw .badRequest("PHONE_NUMBER_INVALID") }
        return digits
    }

    /// A list of ids: at most `idsPerCall` (`LIMIT_INVALID`, as Telegram answers a longer list).
    static func checkIDs(_ count: Int) throws(RPCError) {
        guard count <= idsPerCall else { throw .badRequest("LIMIT_INVALID") }
    }

    /// A string that is only compared or looked up (a username, a code hash): a length no real one has is refused
    /// with the method's own error before any work.
    static func checkLookup(_ value: String, error: String) throws(RPCError) {
        guard value.utf8.count <= lookupBytes else { throw .badRequest(error) }
    }

    /// Whether `text` is at most `units` UTF-16 units, without counting a text whose bytes already say no.
    static func fits(_ text: String, units: Int) -> Bool {
        text.utf8.count <= 3 * units && text.utf16.count <= units
    }
}

extension String {
    /// Without leading and trailing white space (Unicode's White_Space, as `isBlank`).
    func trimmingBlanks() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    /// At most `units` UTF-16 units, cut at a scalar boundary: how rows stored before the limits existed are rendered,
    /// so that an old oversized name or text cannot make every answer that names it impossible.
    func clamped(toUnits units: Int) -> String {
        guard utf8.count > units else { return self }   // every unit takes at least one byte
        var count = 0
        var end = unicodeScalars.startIndex
        for index in unicodeScalars.indices {
            let width = unicodeScalars[index].utf16.count
            guard count + width <= units else { break }
            count += width
            end = unicodeScalars.index(after: index)
        }
        return String(unicodeScalars[..<end])
    }
}
