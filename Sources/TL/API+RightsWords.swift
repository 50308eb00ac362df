/// `chatAdminRights` and `chatBannedRights` keep every right in the `flags` word right after the constructor id
/// (core.telegram.org/constructor/chatAdminRights, /chatBannedRights): that word, numbered as Telegram numbers the
/// rights, is how the server stores an admin's rights and how the client's store keeps both.
extension API.ChatAdminRights {
    /// The rights as the flags word.
    public var flagsWord: UInt32 { API.flagsWord(serialized()) }

    /// The rights a flags word names (bits no right of this layer has are dropped).
    public init(flagsWord: UInt32) {
        var writer = TLWriter()
        writer.writeUInt32(0x5fb2_24d5)
        writer.writeUInt32(flagsWord)
        self = (try? API.ChatAdminRights.deserialize(writer.bytes)) ?? .chatAdminRights(.init())
    }
}

extension API.ChatBannedRights {
    /// The restrictions as the flags word (`until_date` is not part of it).
    public var flagsWord: UInt32 { API.flagsWord(serialized()) }

    /// The restrictions a flags word names, until `untilDate` (bits no restriction of this layer has are dropped).
    public init(flagsWord: UInt32, untilDate: Int32) {
        var writer = TLWriter()
        writer.writeUInt32(0x9f12_0418)
        writer.writeUInt32(flagsWord)
        writer.writeInt32(untilDate)
        self = (try? API.ChatBannedRights.deserialize(writer.bytes)) ?? .chatBannedRights(.init(untilDate: untilDate))
    }
}

extension API {
    /// The little-endian word after a boxed constructor's id.
    fileprivate static func flagsWord(_ serialized: [UInt8]) -> UInt32 {
        guard serialized.count >= 8 else { return 0 }
        return serialized[4..<8].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
