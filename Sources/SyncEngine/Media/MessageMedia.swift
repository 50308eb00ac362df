import Foundation
import Postbox
import TL

/// A message's photo or document as an app shows it: typed, read from the stored message (Postbox keeps the server's
/// message whole in `Message.attributes`), with what a download needs (`MediaResource`).
public enum MessageMedia: Sendable, Equatable {
    case photo(Photo)
    case document(Document)

    public struct Photo: Sendable, Equatable {
        public struct Size: Sendable, Equatable {
            public let type: String
            public let width: Int32
            public let height: Int32
            public let bytes: Int32
        }

        public let id: Int64
        public let accessHash: Int64
        public let fileReference: [UInt8]
        public let dc: Int32
        /// Smallest first.
        public let sizes: [Size]
        /// The tiny JPEG a chat shows while the photo loads (`photoStrippedSize`, header not yet added).
        public let strippedThumbnail: [UInt8]?

        /// The resource of one size (the largest when nil).
        public func resource(size type: String? = nil) -> MediaResource? {
            guard let size = type.map({ type in sizes.first { $0.type == type } }) ?? sizes.last else { return nil }
            return MediaResource(id: "photo-\(UInt64(bitPattern: id))-\(size.type)", dc: dc, size: Int64(size.bytes),
                                 location: .inputPhotoFileLocation(.init(id: id, accessHash: accessHash, fileReference: Data(fileReference),
                                                                         thumbSize: size.type)))
        }
    }

    public struct Document: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case file, video, roundVideo, gif, music, voice
        }

        public let id: Int64
        public let accessHash: Int64
        public let fileReference: [UInt8]
        public let dc: Int32
        public let size: Int64
        public let mimeType: String
        public let fileName: String?
        public let kind: Kind
        public let duration: Double?
        public let width: Int32?
        public let height: Int32?

        public var resource: MediaResource {
            MediaResource(id: "document-\(UInt64(bitPattern: id))", dc: dc, size: size,
                          location: .inputDocumentFileLocation(.init(id: id, accessHash: accessHash, fileReference: Data(fileReference),
                                                                     thumbSize: "")))
        }
    }

    /// The resource a download of the whole media fetches: a document, or a photo's largest size.
    public var resource: MediaResource? {
        switch self {
        case let .photo(photo): photo.resource()
        case let .document(document): document.resource
        }
    }

    /// The media of a layer-229 message, nil for none or a kind not shown here.
    public init?(_ message: API.Message) {
        guard case let .message(value) = message else { return nil }
        switch value.media {
        case let .messageMediaPhoto(media)?:
            guard case let .photo(photo)? = media.photo else { return nil }
            self.init(photo)
        case let .messageMediaDocument(media)?:
            guard case let .document(document)? = media.document else { return nil }
            self = .document(Self.document(document, round: media.round, voice: media.voice))
        default:
            return nil
        }
    }

    init(_ photo: API.Photo.Photo) {
        var sizes: [Photo.Size] = []
        var stripped: [UInt8]?
        for size in photo.sizes {
            switch size {
            case let .photoSize(value): sizes.append(.init(type: value.type, width: value.w, height: value.h, bytes: value.size))
            case let .photoSizeProgressive(value):
                sizes.append(.init(type: value.type, width: value.w, height: value.h, bytes: value.sizes.max() ?? 0))
            case let .photoStrippedSize(value): stripped = [UInt8](value.bytes)
            default: continue
            }
        }
        self = .photo(Photo(id: photo.id, accessHash: photo.accessHash, fileReference: [UInt8](photo.fileReference), dc: photo.dcId,
                            sizes: sizes.sorted { $0.bytes < $1.bytes }, strippedThumbnail: stripped))
    }

    static func document(_ document: API.Document.Document, round: Bool, voice: Bool) -> Document {
        var (kind, name, duration, width, height): (Document.Kind, String?, Double?, Int32?, Int32?) = (.file, nil, nil, nil, nil)
        for attribute in document.attributes {
            switch attribute {
            case let .documentAttributeFilename(value): name = value.fileName
            case let .documentAttributeVideo(value):
                if kind != .gif { kind = value.roundMessage || round ? .roundVideo : .video }
                (duration, width, height) = (value.duration, value.w, value.h)
            case let .documentAttributeAudio(value):
                kind = value.voice || voice ? .voice : .music
                duration = Double(value.duration)
            case .documentAttributeAnimated: kind = .gif
            case let .documentAttributeImageSize(value): (width, height) = (value.w, value.h)
            default: continue
            }
        }
        return Document(id: document.id, accessHash: document.accessHash, fileReference: [UInt8](document.fileReference), dc: document.dcId,
                        size: document.size, mimeType: document.mimeType, fileName: name, kind: kind, duration: duration, width: width,
                        height: height)
    }
}

/// A file a download fetches: its id in the `MediaBox`, the data center it lives on, its size and where
/// `upload.getFile` finds it.
public struct MediaResource: Sendable, Equatable {
    public let id: String
    public var dc: Int32
    public let size: Int64
    public var location: API.InputFileLocation
}

extension Message {
    /// The message's photo or document, read from the server's message the store keeps.
    public var media: MessageMedia? {
        (try? API.Message.deserialize(attributes)).flatMap(MessageMedia.init)
    }
}
