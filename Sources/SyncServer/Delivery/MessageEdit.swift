import MTProto
import TL

/// What `messages.editMessage` changes: the text with its entities, the media, or both; nil leaves it as it is. The
/// text is checked against the message it edits: a caption (`MEDIA_CAPTION_TOO_LONG`, may be empty) when the message
/// has media, a message's text (`MESSAGE_EMPTY`, `MESSAGE_TOO_LONG`) otherwise.
struct MessageEdit: Sendable {
    var text: String?
    var entities: [API.MessageEntity]?
    var media: OutgoingMedia?

    /// The message's new text, entities and media, or Telegram's error: media cannot be added to a text message
    /// (`MEDIA_PREV_INVALID`); an edit that changes nothing is `MESSAGE_NOT_MODIFIED`.
    func applied(text current: String, entities currentEntities: [UInt8], media currentMedia: OutgoingMedia?)
        throws(RPCError) -> (text: String, entities: [UInt8], media: OutgoingMedia?) {
        if media != nil, currentMedia == nil { throw .badRequest("MEDIA_PREV_INVALID") }
        let newMedia = media ?? currentMedia
        var (newText, newEntities) = (current, currentEntities)
        if let text {
            if newMedia == nil { try InputLimits.checkMessage(text) } else { try InputLimits.checkCaption(text) }
            newText = text
            newEntities = try InputLimits.checkedEntities(entities, text: text)
        }
        guard newText != current || newEntities != currentEntities || newMedia != currentMedia else {
            throw .badRequest("MESSAGE_NOT_MODIFIED")
        }
        return (newText, newEntities, newMedia)
    }
}

extension StoredMessage {
    /// The media as it was sent.
    var outgoingMedia: OutgoingMedia? { media.map { OutgoingMedia(bytes: $0, kind: mediaKind) } }
}

extension ChannelMessage {
    var outgoingMedia: OutgoingMedia? { media.map { OutgoingMedia(bytes: $0, kind: mediaKind) } }
}
