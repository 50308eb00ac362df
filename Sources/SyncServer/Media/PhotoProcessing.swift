import CImageCodec
import MTProto

/// A photo as the server serves it (core.telegram.org/api/files#image-thumbnail-types): the original's dimensions,
/// the JPEG sizes `s`, `m`, `x`, `y` (longest side 100, 320, 800, 1280) and a stripped thumbnail.
struct ProcessedPhoto: Sendable, Equatable {
    struct Size: Sendable, Equatable {
        let type: String
        let width: Int32
        let height: Int32
        let jpeg: [UInt8]
    }

    let width: Int32
    let height: Int32
    /// Smallest first.
    let sizes: [Size]
    /// `photoStrippedSize`'s bytes: 0x01, height, width, then a JPEG of at most 40×40 without its standard header.
    let stripped: [UInt8]
}

/// Why an upload is not a photo, as Telegram answers it.
enum PhotoFailure: Error, Equatable {
    /// Not a JPEG or PNG, or its pixels cannot be decoded: `IMAGE_PROCESS_FAILED`.
    case notAnImage
    /// Sides Telegram refuses for a photo: `PHOTO_INVALID_DIMENSIONS`.
    case invalidDimensions

    var rpcError: RPCError {
        switch self {
        case .notAnImage: RPCError(code: 400, message: "IMAGE_PROCESS_FAILED")
        case .invalidDimensions: RPCError(code: 400, message: "PHOTO_INVALID_DIMENSIONS")
        }
    }
}

/// Makes a photo's sizes from the uploaded file, once per upload, off the event loop (the caller runs it on a thread
/// of its own). The image is decoded once — a JPEG at the smallest power-of-two scale that still covers the largest
/// size, in libjpeg-turbo's DCT domain — and each size is scaled from the next larger one, never upscaled.
enum PhotoProcessing {
    /// The boxes Telegram fits a photo into, by size type.
    static let boxes: [(type: String, side: Int32)] = [("s", 100), ("m", 320), ("x", 800), ("y", 1280)]
    /// Telegram's limits for a photo: width + height ≤ 10,000 and a ratio of at most 20.
    static let maximumSideSum: Int32 = 10_000
    static let maximumRatio: Int32 = 20
    static let quality: Int32 = 87
    /// The stripped thumbnail: at most 40×40, at the quality whose tables the clients' fixed header carries.
    static let strippedSide: Int32 = 40
    static let strippedQuality: Int32 = 20

    static func process(_ file: [UInt8]) throws(PhotoFailure) -> ProcessedPhoto {
        var format: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        guard file.withUnsafeBufferPointer({ sc_image_probe($0.baseAddress, $0.count, &format, &width, &height) }) == 0 else {
            throw .notAnImage
        }
        guard width > 0, height > 0, width + height <= maximumSideSum,
              max(width, height) <= maximumRatio * min(width, height) else { throw .invalidDimensions }
        var decoded = try decode(file, atLeast: boxes.last?.side ?? 1280)
        defer { sc_image_free(&decoded) }
        var sizes: [ProcessedPhoto.Size] = []
        var source = decoded
        var owned: [sc_image] = []
        defer { for index in owned.indices { sc_image_free(&owned[index]) } }
        let longest = max(width, height)
        // Largest first, each from the one before it: the work falls with each size.
        for (index, box) in boxes.enumerated().reversed() {
            let previous = index > 0 ? boxes[index - 1].side : 0
            guard index <= 1 || longest > previous else { continue }
            let (w, h) = fitted(width: width, height: height, in: box.side)
            let scaled = try resized(source, width: w, height: h)
            if scaled.pixels != source.pixels { owned.append(scaled) }
            sizes.append(.init(type: box.type, width: w, height: h, jpeg: try encode(scaled, quality: quality)))
            source = scaled
        }
        let (w, h) = fitted(width: width, height: height, in: strippedSide)
        let thumbnail = try resized(source, width: w, height: h)
        if thumbnail.pixels != source.pixels { owned.append(thumbnail) }
        let stripped = try strip(encode(thumbnail, quality: strippedQuality), width: w, height: h)
        return ProcessedPhoto(width: width, height: height, sizes: sizes.reversed(), stripped: stripped)
    }

    /// `width`×`height` scaled to fit `side`, never up; each side at least 1.
    static func fitted(width: Int32, height: Int32, in side: Int32) -> (Int32, Int32) {
        let longest = max(width, height)
        guard longest > side else { return (width, height) }
        let scale = Double(side) / Double(longest)
        return (max(1, Int32((Double(width) * scale).rounded())), max(1, Int32((Double(height) * scale).rounded())))
    }

    private static func decode(_ file: [UInt8], atLeast side: Int32) throws(PhotoFailure) -> sc_image {
        var image = sc_image()
        let limit = Int64(maximumSideSum / 2) * Int64(maximumSideSum / 2)
        let status = file.withUnsafeBufferPointer { sc_image_decode($0.baseAddress, $0.count, side, limit, &image) }
        guard status == 0 else { throw status == 2 ? .invalidDimensions : .notAnImage }
        return image
    }

    /// `image` itself when it already has the size (the caller owns only what differs).
    private static func resized(_ image: sc_image, width: Int32, height: Int32) throws(PhotoFailure) -> sc_image {
        guard width != image.width || height != image.height else { return image }
        var source = image, result = sc_image()
        guard sc_image_resize(&source, min(width, image.width), min(height, image.height), &result) == 0 else { throw .notAnImage }
        return result
    }

    private static func encode(_ image: sc_image, quality: Int32) throws(PhotoFailure) -> [UInt8] {
        var source = image
        var buffer: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard sc_jpeg_encode(&source, quality, &buffer, &length) == 0, let buffer else { throw .notAnImage }
        defer { sc_buffer_free(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: length))
    }

    /// A JPEG without the header every stripped thumbnail shares (everything up to the start-of-scan segment's
    /// end, core.telegram.org/api/files#stripped-thumbnails) nor its end marker, behind 0x01, height and width.
    static func strip(_ jpeg: [UInt8], width: Int32, height: Int32) throws(PhotoFailure) -> [UInt8] {
        var index = 2
        while index + 4 <= jpeg.count, jpeg[index] == 0xFF {
            let marker = jpeg[index + 1]
            let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
            index += 2 + length
            if marker == 0xDA {
                let end = jpeg.count >= 2 && jpeg[jpeg.count - 2] == 0xFF && jpeg[jpeg.count - 1] == 0xD9 ? jpeg.count - 2 : jpeg.count
                guard index <= end else { throw .notAnImage }
                return [1, UInt8(clamping: height), UInt8(clamping: width)] + jpeg[index..<end]
            }
        }
        throw .notAnImage
    }
}

extension PhotoProcessing {
    /// RGB pixels (3 bytes each, rows packed) as a JPEG: the images of tests and benchmarks.
    static func jpeg(rgb: [UInt8], width: Int32, height: Int32, quality: Int32 = 90) -> [UInt8]? {
        guard rgb.count == Int(width) * Int(height) * 3 else { return nil }
        var pixels = rgb
        return pixels.withUnsafeMutableBufferPointer { buffer in
            try? encode(sc_image(width: width, height: height, pixels: buffer.baseAddress), quality: quality)
        }
    }

    /// A JPEG's or PNG's pixels as RGB, whole (tests read back what the server made).
    static func pixels(of file: [UInt8]) -> (width: Int32, height: Int32, rgb: [UInt8])? {
        guard var image = try? decode(file, atLeast: 0) else { return nil }
        defer { sc_image_free(&image) }
        return (image.width, image.height, Array(UnsafeBufferPointer(start: image.pixels, count: Int(image.width) * Int(image.height) * 3)))
    }
}

/// The server's photo pipeline for tools and benchmarks outside the package's tests (`synccore bench media`).
public enum PhotoPipeline {
    /// RGB pixels as a JPEG at `quality` (nil when the pixel count does not match).
    public static func jpeg(rgb: [UInt8], width: Int32, height: Int32, quality: Int32 = 90) -> [UInt8]? {
        PhotoProcessing.jpeg(rgb: rgb, width: width, height: height, quality: quality)
    }

    /// Makes the sizes a photo upload gets; returns how many were made, or nil when the file is not a photo.
    public static func makeSizes(of file: [UInt8]) -> Int? {
        (try? PhotoProcessing.process(file)).map { $0.sizes.count + 1 }
    }
}
