import ArgumentParser
import Foundation
import MTProto
import SyncHarness
import SyncServer
import TL

struct MediaBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "Upload and download of a large file over loopback beside AES-256-IGE + SHA-256, peak RSS growth, photo sizes."
    )

    @OptionGroup var options: BenchOptions
    @Option(help: "Size of the file in MiB.") var megabytes = 256
    @Option(help: "Parts in flight each way.") var inFlight = 4

    func run() async throws {
        let benchmark = MediaBenchmark(megabytes: megabytes, inFlight: inFlight)
        options.report(try await benchmark.run(), title: "Media: a \(megabytes) MiB file over loopback, \(inFlight) parts in flight, server in its own process")
    }
}

/// `synccore bench media`: a `synccore server` process on SQLite; one client uploads a file from disk in 512 KiB parts
/// (`upload.saveBigFilePart`, several in flight), sends it, and downloads it in 1 MiB ranges to disk; the copy is
/// compared. Each direction's rate is set beside what one core does to every byte on each side (AES-256-IGE and the
/// SHA-256 of msg_key) in the same run; the server's and the client's peak RSS growth over the transfer (VmHWM after
/// resetting it, Linux) shows that memory follows the parts in flight, not the file.
struct MediaBenchmark {
    static let partSize = 512 * 1024
    static let targetRatio = 0.5
    static let targetRSSGrowthMiB = 64.0

    var megabytes: Int
    var inFlight: Int

    func run() async throws -> [BenchFigure] {
        let directory = try ServerBenchmark.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let setup = try SQLiteServerStorage(path: directory + "/server.sqlite")
        try await ServerBenchmark.createUsers(in: setup, count: 1)
        await setup.close()
        let rsaKey = try RSAPrivateKey.generate(bits: 2048)
        try ServerKeys.install(rsaKey, inDirectory: directory)
        let server = try await ServerProcess(executable: ServerProcess.executable(), arguments: [
            "--data", directory, "--login-code", "12345", "--log-level", "error"])
        defer { Task { await server.stop() } }
        let client = try await TestClient(port: server.port, publicKey: rsaKey.publicKey)
        try await client.login(phone: "19990001")

        let size = megabytes << 20
        let source = directory + "/source.bin", copy = directory + "/copy.bin"
        try Self.writeSource(source, bytes: size)
        let crypto = try Self.cryptoRate()
        let photo = try Self.photoSizesMilliseconds()

        try Self.resetPeak(Int32(ProcessInfo.processInfo.processIdentifier))
        try Self.resetPeak(server.processIdentifier)
        let baseline = (server: try Self.memory(server.processIdentifier, "VmRSS:"), client: try Self.memory(getpid(), "VmRSS:"))
        let clock = ContinuousClock()
        let fileID = Int64.random(in: 1...Int64.max)
        let parts = (size + Self.partSize - 1) / Self.partSize
        let uploadStart = clock.now
        try await Self.inParallel(count: parts, width: inFlight) { part in
            let bytes = try Self.read(source, offset: part * Self.partSize, count: min(Self.partSize, size - part * Self.partSize))
            guard try await client.call(API.functions.upload.SaveBigFilePart(fileId: fileID, filePart: Int32(part), fileTotalParts: Int32(parts),
                                                                              bytes: Data(bytes))) else { throw BenchError.mismatch("part refused") }
        }
        let uploaded = clock.now - uploadStart
        let sendStart = clock.now
        let sent = try await client.call(API.functions.messages.SendMedia(
            peer: .inputPeerSelf(.init()), media: .inputMediaUploadedDocument(.init(
                file: .inputFileBig(.init(id: fileID, parts: Int32(parts), name: "source.bin")), mimeType: "application/octet-stream",
                attributes: [])), message: "", randomId: .random(in: 1...Int64.max)))
        let finished = clock.now - sendStart
        guard case let .updates(value) = sent, let document = value.updates.lazy.compactMap(Self.document).first else {
            throw BenchError.mismatch("no document in the answer")
        }
        FileManager.default.createFile(atPath: copy, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: copy))
        let ranges = (size + (1 << 20) - 1) >> 20
        let location = API.InputFileLocation.inputDocumentFileLocation(.init(
            id: document.id, accessHash: document.accessHash, fileReference: document.fileReference, thumbSize: ""))
        let downloadStart = clock.now
        try await Self.inParallel(count: ranges, width: inFlight) { range in
            guard case let .file(file) = try await client.call(API.functions.upload.GetFile(location: location, offset: Int64(range) << 20,
                                                                                           limit: 1 << 20)) else { throw BenchError.mismatch("no file") }
            try Self.write(file.bytes, to: output, offset: range << 20)
        }
        let downloaded = clock.now - downloadStart
        try output.close()
        let peaks = (server: try Self.memory(server.processIdentifier, "VmHWM:"), client: try Self.memory(getpid(), "VmHWM:"))
        guard try Self.digest(source) == Self.digest(copy) else { throw BenchError.mismatch("the downloaded copy differs") }
        await client.close()

        let megabytesMoved = Double(size) / 1_000_000
        let up = megabytesMoved / uploaded.seconds, down = megabytesMoved / downloaded.seconds
        let note = "vs AES-256-IGE + SHA-256 at \(Int(crypto)) MB/s on one core"
        return [
            BenchFigure(bench: "media.upload", value: up, unit: "MB/s", target: Self.targetRatio * crypto, note: note),
            BenchFigure(bench: "media.download", value: down, unit: "MB/s", target: Self.targetRatio * crypto, note: note),
            BenchFigure(bench: "media.crypto_per_side", value: crypto, unit: "MB/s", target: nil, note: "AES-256-IGE + SHA-256, 512 KiB buffers"),
            BenchFigure(bench: "media.send_finish", value: finished.seconds * 1000, unit: "ms", target: nil, higherIsBetter: false,
                        note: "sendMedia of the uploaded file: its parts hashed and made one content"),
            BenchFigure(bench: "media.server_rss_growth", value: Double(peaks.server - baseline.server) / 1024, unit: "MiB",
                        target: Self.targetRSSGrowthMiB, higherIsBetter: false, note: "peak over the transfer"),
            BenchFigure(bench: "media.client_rss_growth", value: Double(peaks.client - baseline.client) / 1024, unit: "MiB",
                        target: Self.targetRSSGrowthMiB, higherIsBetter: false, note: "peak over the transfer"),
            BenchFigure(bench: "media.photo_sizes", value: photo, unit: "ms", target: nil, higherIsBetter: false,
                        note: "s, m, x, y and the stripped thumbnail of a 4000x3000 JPEG, one core"),
        ]
    }

    static func document(_ update: API.Update) -> API.Document.Document? {
        guard case let .updateNewMessage(new) = update, case let .message(message) = new.message,
              case let .messageMediaDocument(media)? = message.media, case let .document(document)? = media.document else { return nil }
        return document
    }

    /// Runs `body` for 0..<count with at most `width` at once.
    static func inParallel(count: Int, width: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            while next < min(width, count) {
                let index = next
                group.addTask { try await body(index) }
                next += 1
            }
            while try await group.next() != nil {
                guard next < count else { continue }
                let index = next
                group.addTask { try await body(index) }
                next += 1
            }
        }
    }

    /// A file of `bytes` whose 1 MiB blocks all differ, written a block at a time.
    static func writeSource(_ path: String, bytes: Int) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var rng = SplitMix64(seed: 7)
        var block = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        for index in 0..<((bytes + (1 << 20) - 1) >> 20) {
            withUnsafeBytes(of: UInt64(index)) { stamp in for (offset, byte) in stamp.enumerated() { block[offset] = byte } }
            try handle.write(contentsOf: block.prefix(min(1 << 20, bytes - index << 20)))
        }
        try handle.close()
    }

    static func read(_ path: String, offset: Int, count: Int) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    }

    static func write(_ bytes: Data, to handle: FileHandle, offset: Int) throws {
        // One writer at a time: the handle's position is shared.
        try writeLock.withLock {
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: bytes)
        }
    }

    static let writeLock = NSLock()

    static func digest(_ path: String) throws -> [UInt8] {
        guard let digest = StreamingDigest(.sha256) else { throw BenchError.mismatch("no digest") }
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { digest.update([UInt8](chunk)) }
        return digest.finish()
    }

    /// What one side does to every byte: AES-256-IGE over it and SHA-256 of it, in MB/s.
    static func cryptoRate() throws -> Double {
        var rng = SplitMix64(seed: 11)
        let buffer = (0..<partSize).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }, iv = Array(key.reversed())
        let clock = ContinuousClock()
        let start = clock.now
        var bytes = 0
        while clock.now - start < .seconds(1) {
            _ = try AES256IGE.encrypt(buffer, key: key, iv: iv)
            _ = MTProtoHash.sha256(buffer)
            bytes += buffer.count
        }
        return Double(bytes) / 1_000_000 / (clock.now - start).seconds
    }

    /// Milliseconds to make a 4000×3000 JPEG's sizes (the best of three).
    static func photoSizesMilliseconds() throws -> Double {
        let (width, height) = (4000, 3000)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                (rgb[index], rgb[index + 1], rgb[index + 2]) = (UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x ^ y) & 0xFF))
            }
        }
        guard let jpeg = PhotoPipeline.jpeg(rgb: rgb, width: Int32(width), height: Int32(height)) else { throw BenchError.mismatch("no JPEG") }
        let clock = ContinuousClock()
        var best = Duration.seconds(1_000)
        for _ in 0..<3 {
            let start = clock.now
            guard PhotoPipeline.makeSizes(of: jpeg) != nil else { throw BenchError.mismatch("no sizes") }
            best = min(best, clock.now - start)
        }
        return best.seconds * 1000
    }

    /// Resets a process's peak RSS to its current RSS (Linux: "5" to /proc/PID/clear_refs).
    static func resetPeak(_ pid: Int32) throws {
        try "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)
    }

    /// A /proc/PID/status field in KiB.
    static func memory(_ pid: Int32, _ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let value = Int(line.split(separator: " ").dropFirst().first ?? "") else { throw BenchError.mismatch("no \(field)") }
        return value
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
