import Testing
@testable import SyncServer

/// The photo sizes the server makes from an upload: Telegram's boxes, never upscaled, the stripped thumbnail's
/// layout, and Telegram's refusals for what is not a photo.
struct PhotoProcessingTests {
    /// A gradient (so that scaling and JPEG's blocks have something to keep): red across, green down.
    static func gradient(width: Int32, height: Int32) -> [UInt8] {
        var rgb: [UInt8] = []
        rgb.reserveCapacity(Int(width) * Int(height) * 3)
        for y in 0..<Int(height) {
            for x in 0..<Int(width) {
                rgb += [UInt8(x * 255 / max(1, Int(width) - 1)), UInt8(y * 255 / max(1, Int(height) - 1)), 128]
            }
        }
        return rgb
    }

    static func jpeg(width: Int32, height: Int32) throws -> [UInt8] {
        try #require(PhotoProcessing.jpeg(rgb: gradient(width: width, height: height), width: width, height: height))
    }

    @Test func aLargePhotoGetsEveryBoxAndAStrippedThumbnail() throws {
        let photo = try PhotoProcessing.process(Self.jpeg(width: 2000, height: 1500))
        #expect(photo.width == 2000 && photo.height == 1500)
        #expect(photo.sizes.map(\.type) == ["s", "m", "x", "y"])
        #expect(photo.sizes.map(\.width) == [100, 320, 800, 1280])
        #expect(photo.sizes.map(\.height) == [75, 240, 600, 960])
        for size in photo.sizes {
            let decoded = try #require(PhotoProcessing.pixels(of: size.jpeg))
            #expect(decoded.width == size.width && decoded.height == size.height)
            // The gradient survives: the top-left is dark red-free, the bottom-right bright in red and green.
            let last = decoded.rgb.count - 3
            #expect(decoded.rgb[0] < 40 && decoded.rgb[1] < 40)
            #expect(decoded.rgb[last] > 210 && decoded.rgb[last + 1] > 210)
        }
        #expect(photo.stripped.prefix(3) == [1, 30, 40])
        #expect(photo.stripped.count < 1_000)
    }

    @Test func aSmallPhotoIsNeverUpscaled() throws {
        let photo = try PhotoProcessing.process(Self.jpeg(width: 500, height: 250))
        #expect(photo.sizes.map(\.type) == ["s", "m", "x"])
        #expect(photo.sizes.map(\.width) == [100, 320, 500])
        let tiny = try PhotoProcessing.process(Self.jpeg(width: 60, height: 20))
        #expect(tiny.sizes.map(\.type) == ["s", "m"])
        #expect(tiny.sizes.map(\.width) == [60, 60])
        #expect(tiny.stripped.prefix(3) == [1, 13, 40])
    }

    /// The stripped thumbnail's scan is only readable behind the clients' fixed header when its tables are the ones
    /// that header carries: libjpeg's standard tables at quality 20 (the header's luminance table starts 40, 28, 30…).
    @Test func theStrippedThumbnailUsesTheTablesOfTheClientsHeader() throws {
        let thumbnail = try #require(PhotoProcessing.jpeg(rgb: Self.gradient(width: 40, height: 40), width: 40, height: 40,
                                                          quality: PhotoProcessing.strippedQuality))
        let table = try #require(thumbnail.indices.first { thumbnail[$0] == 0xFF && thumbnail[$0 + 1] == 0xDB })
        #expect(Array(thumbnail[(table + 5)..<(table + 21)]) == [40, 28, 30, 35, 30, 25, 40, 35, 33, 35, 45, 43, 40, 48, 60, 100])
    }

    @Test func whatIsNotAPhotoGetsTelegramsErrors() throws {
        #expect(throws: PhotoFailure.notAnImage) { try PhotoProcessing.process(Array("not an image".utf8)) }
        var truncated = try Self.jpeg(width: 300, height: 300)
        truncated.removeLast(truncated.count - 200)
        #expect(throws: PhotoFailure.self) { try PhotoProcessing.process(truncated) }
        #expect(throws: PhotoFailure.invalidDimensions) { try PhotoProcessing.process(Self.jpeg(width: 2100, height: 100)) }
        // A PNG header claiming 100,000 × 100,000 pixels is refused from its header, before any allocation.
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        png += [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 2, 0, 0, 0, 0, 0, 0, 0]
        #expect(throws: PhotoFailure.invalidDimensions) { try PhotoProcessing.process(png) }
    }
}
