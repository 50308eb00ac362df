import Foundation
import MTProto
import TL

/// Stored photos and documents as the layer-229 objects clients receive (core.telegram.org/api/files), and the media
/// a message carries.
enum MediaRendering {
    /// A file's reference (core.telegram.org/api/file_reference): what a client sends back with the file's id and
    /// access hash to download or re-send it. Derived from both, so it is the same for every viewer and every
    /// process; a reference that does not match is `FILE_REFERENCE_EXPIRED`, which makes clients fetch the message
    /// again for a fresh one.
    static func reference(id: Int64, accessHash: Int64) -> [UInt8] {
        var input = Array("synccore-file-reference".utf8)
        withUnsafeBytes(of: id.littleEndian) { input += $0 }
        withUnsafeBytes(of: accessHash.littleEndian) { input += $0 }
        return [2] + MTProtoHash.sha256(input).prefix(15)
    }

    static func document(_ file: StoredMediaFile) -> API.Document {
        let attributes = (try? [API.DocumentAttribute].deserialize(file.attributes)) ?? []
        return .document(.init(id: file.id, accessHash: file.accessHash, fileReference: Data(reference(id: file.id, accessHash: file.accessHash)),
                               date: file.date, mimeType: file.mimeType, size: file.size, dcId: file.dc, attributes: attributes))
    }

    /// A photo's sizes as Telegram lists them: the stripped thumbnail first, then the sizes from the smallest.
    static func photo(_ file: StoredMediaFile, sizes: [StoredPhotoSize]) -> API.Photo {
        var rendered: [API.PhotoSize] = []
        if !file.stripped.isEmpty { rendered.append(.photoStrippedSize(.init(type: "i", bytes: Data(file.stripped)))) }
        rendered += sizes.map { .photoSize(.init(type: $0.type, w: $0.width, h: $0.height, size: $0.size)) }
        return .photo(.init(id: file.id, accessHash: file.accessHash, fileReference: Data(reference(id: file.id, accessHash: file.accessHash)),
                            date: file.date, sizes: rendered, dcId: file.dc))
    }

    /// What a message carries for `file`: `messageMediaPhoto` or `messageMediaDocument` with the flags of its kind.
    static func media(_ file: StoredMediaFile, sizes: [StoredPhotoSize]) -> OutgoingMedia {
        switch file.kind {
        case .photo:
            return OutgoingMedia(bytes: API.MessageMedia.messageMediaPhoto(.init(photo: photo(file, sizes: sizes))).serialized(), kind: .photo)
        case .document:
            let attributes = (try? [API.DocumentAttribute].deserialize(file.attributes)) ?? []
            let kind = DocumentAttributes.kind(of: attributes)
            let media = API.MessageMedia.messageMediaDocument(.init(
                video: kind == .video || kind == .roundVideo, round: kind == .roundVideo, voice: kind == .voice, document: document(file)))
            return OutgoingMedia(bytes: media.serialized(), kind: kind)
        }
    }
}

/// A document's attributes as the server keeps them: the kinds it understands, bounded; a file name from the upload
/// when the client gave none.
enum DocumentAttributes {
    static let maximumCount = 8
    static let maximumTextBytes = 256
    static let maximumWaveformBytes = 100
    static let maximumMimeBytes = 127

    static func sanitized(_ attributes: [API.DocumentAttribute], uploadName: String) throws(RPCError) -> [API.DocumentAttribute] {
        guard attributes.count <= maximumCount else { throw .badRequest("MEDIA_INVALID") }
        var kept: [API.DocumentAttribute] = []
        for attribute in attributes {
            switch attribute {
            case let .documentAttributeImageSize(value):
                kept.append(.documentAttributeImageSize(.init(w: max(0, value.w), h: max(0, value.h))))
            case .documentAttributeAnimated:
                kept.append(attribute)
            case var .documentAttributeVideo(value):
                value.videoCodec = value.videoCodec.map { clamped($0) }
                value.duration = value.duration.isFinite ? max(0, value.duration) : 0
                kept.append(.documentAttributeVideo(value))
            case var .documentAttributeAudio(value):
                value.title = value.title.map { clamped($0) }
                value.performer = value.performer.map { clamped($0) }
                if let waveform = value.waveform, waveform.count > maximumWaveformBytes { value.waveform = nil }
                kept.append(.documentAttributeAudio(value))
            case let .documentAttributeFilename(value):
                kept.append(.documentAttributeFilename(.init(fileName: clamped(value.fileName))))
            default:
                continue   // stickers, custom emoji: not served here
            }
        }
        if !kept.contains(where: { if case .documentAttributeFilename = $0 { true } else { false } }), !uploadName.isEmpty {
            kept.append(.documentAttributeFilename(.init(fileName: clamped(uploadName))))
        }
        return kept
    }

    /// A MIME type as sent when it looks like one (`type/subtype`, printable ASCII without spaces), otherwise
    /// `application/octet-stream`.
    static func mimeType(_ sent: String) -> String {
        let bytes = Array(sent.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumMimeBytes, bytes.contains(UInt8(ascii: "/")),
              bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return "application/octet-stream" }
        return sent.lowercased()
    }

    /// What the attributes make a document, for the search filters and the message's flags.
    static func kind(of attributes: [API.DocumentAttribute]) -> MediaKind {
        var kind = MediaKind.document
        for attribute in attributes {
            switch attribute {
            case let .documentAttributeAudio(value): kind = value.voice ? .voice : .music
            case let .documentAttributeVideo(value) where kind != .gif: kind = value.roundMessage ? .roundVideo : .video
            case .documentAttributeAnimated: kind = .gif
            default: continue
            }
        }
        return kind
    }

    private static func clamped(_ text: String) -> String {
        guard text.utf8.count > maximumTextBytes else { return text }
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= maximumTextBytes else { break }
            result.append(character)
        }
        return result
    }
}
