import Foundation
import MTProto
import MTProtoNIO
import SyncTesting
import TL
@testable import SyncServer

/// What the media tests share: uploading a file in parts as clients do, the answer's media, downloads in ranges.
enum MediaSupport {
    /// Bytes that differ from one test to the next (a seed) and within the file.
    static func bytes(count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    static func md5(_ bytes: [UInt8]) -> String {
        let digest = StreamingDigest(.md5)
        digest?.update(bytes)
        return (digest?.finish() ?? []).map { String(format: "%02x", $0) }.joined()
    }

    /// Uploads `bytes` in parts of `partSize` (`saveBigFilePart` above 10 MiB) and returns the `InputFile` naming it.
    static func upload(_ bytes: [UInt8], partSize: Int = 512 * 1024, name: String = "file.bin", from client: TestClient,
                       fileID: Int64 = .random(in: 1...Int64.max)) async throws -> API.InputFile {
        let count = max(1, (bytes.count + partSize - 1) / partSize)
        let big = bytes.count > 10 * 1024 * 1024
        for part in 0..<count {
            let piece = Data(bytes[(part * partSize)..<min(bytes.count, (part + 1) * partSize)])
            let saved = big
                ? try await client.call(API.functions.upload.SaveBigFilePart(fileId: fileID, filePart: Int32(part),
                                                                             fileTotalParts: Int32(count), bytes: piece))
                : try await client.call(API.functions.upload.SaveFilePart(fileId: fileID, filePart: Int32(part), bytes: piece))
            guard saved else { throw TestClientError.unexpected("part \(part) not saved") }
        }
        return big ? .inputFileBig(.init(id: fileID, parts: Int32(count), name: name))
            : .inputFile(.init(id: fileID, parts: Int32(count), name: name, md5Checksum: md5(bytes)))
    }

    /// The message media of a send's answer.
    static func media(in updates: API.Updates) -> API.MessageMedia? {
        guard case let .updates(value) = updates else { return nil }
        for update in value.updates {
            switch update {
            case let .updateNewMessage(new): if case let .message(message) = new.message { return message.media }
            case let .updateNewChannelMessage(new): if case let .message(message) = new.message { return message.media }
            default: continue
            }
        }
        return nil
    }

    static func document(in updates: API.Updates) -> API.Document.Document? {
        guard case let .messageMediaDocument(media)? = media(in: updates), case let .document(document)? = media.document else { return nil }
        return document
    }

    static func photo(in updates: API.Updates) -> API.Photo.Photo? {
        guard case let .messageMediaPhoto(media)? = media(in: updates), case let .photo(photo)? = media.photo else { return nil }
        return photo
    }

    /// A whole file downloaded in `chunk`-byte requests.
    static func download(_ location: API.InputFileLocation, size: Int, chunk: Int32 = 512 * 1024,
                         from client: TestClient) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        var offset: Int64 = 0
        while offset < Int64(size) {
            guard case let .file(file) = try await client.call(API.functions.upload.GetFile(location: location, offset: offset, limit: chunk))
            else { throw TestClientError.unexpected("not a file") }
            guard !file.bytes.isEmpty else { break }
            bytes += file.bytes
            offset += Int64(chunk)
        }
        return bytes
    }

    static func location(of document: API.Document.Document) -> API.InputFileLocation {
        .inputDocumentFileLocation(.init(id: document.id, accessHash: document.accessHash, fileReference: document.fileReference, thumbSize: ""))
    }

    static func location(of photo: API.Photo.Photo, size: String) -> API.InputFileLocation {
        .inputPhotoFileLocation(.init(id: photo.id, accessHash: photo.accessHash, fileReference: photo.fileReference, thumbSize: size))
    }

    /// The error a call ends in, as its message (nil when it succeeded).
    static func refusal<Function: TLFunction>(_ function: Function, on client: TestClient) async -> String? {
        await client.refusal(function)
    }
}
